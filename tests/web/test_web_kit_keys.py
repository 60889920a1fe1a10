"""The game kit's board keys and the other player's move, in both games (issue #25: "keys to
jump to the last move and between placed tiles", "the opponent's move brought into view on a
phone"), in French and in Arabic:

- End moves the cursor to the last move's tiles (again: the next of them, in reading order),
  PageDown/PageUp from one tile placed this turn to the next/previous; where it lands is said,
  and when there is nothing to jump to, that is said instead;
- on a 360×740 touch phone the other player's move, played out of sight, is brought into view;
  on a 1280×800 desktop nothing scrolls, and for one's own move nothing scrolls either.
The other player's low time, the help on a first game and al-Mishqaq's zoom on a desktop:
test_web_kit_screens.py."""

from __future__ import annotations

from typing import Any

import web_browser
from lexio_testing import GatewayFactory
from playwright.sync_api import Locator
from web_browser import PlayerFactory
from web_kit import (
    DESKTOP,
    LEXIO,
    MISHQAQ,
    PHONE,
    lexio_table,
    mishqaq_table,
    move_drawn,
    pan_into_sight,
    still,
)
from web_mishqaq import bot, cell, mishqaq_gateway, place, play_turn, side
from web_pages import Player
from web_words import legal_move

from lexio_lobby.server import RunningLobby

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players

MISHQAQ_SEED = 135  # the Arabic side opens (as test_web_first_time)
LEXIO_SEED = 5
BOTS = {"latin": bot("fr", 1), "arabic": bot("ar", 2)}

# What the page says (the catalogs' say.cursor, game.log_empty and each game's place_first).
CURSOR = {"fr": "Curseur en ", "ar": "المؤشر في "}
NO_MOVE = {"fr": "Aucun coup pour l'instant.", "ar": "لا حركات حتى الآن."}
PLACE_FIRST = {
    "lexio": {"fr": "Posez d'abord des jetons sur la clairière.", "ar": "ضع قطعًا على الفسحة أولًا."},
    "mishqaq": {"fr": "Posez d'abord des jetons sur le plateau.", "ar": "ضع قطعًا على اللوحة أولًا."},
}

FOCUSED_CELL = """(() => {
  const node = document.activeElement;
  const cell = node && node.closest("[data-row][data-col]");
  return cell ? [Number(cell.dataset.row), Number(cell.dataset.col)] : null;
})()"""


def focused_cell(player: Player) -> tuple[int, int] | None:
    """The board cell that has the keyboard's focus (None when no cell has it)."""
    found: list[int] | None = player.js(FOCUSED_CELL)
    return (found[0], found[1]) if found else None


def key_and_hear(player: Player, key: str, text: str) -> str:
    """``key`` pressed on the board; what the live region said for it (it must hold ``text``)."""
    start = len(player.heard())
    player.page.keyboard.press(key)
    said: str = player.wait_heard(text, start=start, timeout=5)["text"]
    return said


def jumps(player: Player, board: str, key: str, times: int, language: str) -> list[Any]:
    """From the board's cursor, ``key`` pressed ``times`` times: where the cursor was, then
    the focused cell after each press (each landing must be said)."""
    player.page.focus(f"{board} .cell.cursor")
    landed: list[Any] = [focused_cell(player)]
    for _ in range(times):
        key_and_hear(player, key, CURSOR[language])
        landed.append(focused_cell(player))
    return landed


def cycle(cells: list[tuple[int, int]], start: Any, times: int, back: bool = False) -> list[Any]:
    """Where ``times`` jumps from ``start`` must land: the next of ``cells`` in reading order
    (the previous when ``back``), round again after the last."""
    order = sorted(cells, reverse=back)
    at = order.index(start) if start in order else -1
    return [start] + [order[(at + i) % len(order)] for i in range(1, times + 1)]


def check_jumps(
    waiting: Player,
    mover: Player,
    board: str,
    *,
    moved: list[tuple[int, int]],
    placed: list[tuple[int, int]],
    languages: tuple[str, str],
) -> dict[str, Any]:
    """What is wrong (an empty dict: nothing) with End on ``waiting``'s board after the move
    ``moved`` and with PageDown/PageUp on ``mover``'s board holding ``placed`` this turn:
    {key: (focused cells, expected)}."""
    wrong: dict[str, Any] = {}
    for who, key, cells, back, language in (
        (waiting, "End", moved, False, languages[0]),
        (mover, "PageDown", placed, False, languages[1]),
        (mover, "PageUp", placed, True, languages[1]),
    ):
        got = jumps(who, board, key, len(cells) + 1, language)
        expected = cycle(cells, got[0], len(cells) + 1, back)
        if got != expected:
            wrong[key] = (got, expected)
    return wrong


# End, PageDown, PageUp -------------------------------------------------------------------------


def test_mishqaq_end_jumps_to_the_last_move_and_page_keys_between_placed_tiles(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    """Issue #25: "a blind player can move only cell by cell (no jump to the tiles on the board
    or the last move)". al-Mishqaq, Ana (fr) and Bruno (ar) on desktops. Before any move End
    says 'no move yet' and PageDown 'place tiles first'; after Bruno's move, End on Ana's board
    lands on its first tile in reading order (focus on that cell, 'Curseur en …' said), End
    again on the next, and round; Ana places her tiles, PageDown/PageUp go between them."""
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=MISHQAQ_SEED)
    ana, bruno = mishqaq_table(players, gateway, host=DESKTOP, guest=DESKTOP)
    assert side(bruno) == "arabic"
    for player in (ana, bruno):
        player.listen()
    bruno.page.focus(f"{MISHQAQ['board']} .cell.cursor")
    before = focused_cell(bruno)
    key_and_hear(bruno, "End", NO_MOVE["ar"])
    key_and_hear(bruno, "PageDown", PLACE_FIRST["mishqaq"]["ar"])
    assert focused_cell(bruno) == before, "the cursor moved with nothing to jump to"

    entry = play_turn(bruno, ana, BOTS, "click")
    assert entry["kind"] == "place" and len(entry["tiles"]) >= 2, entry
    moved = [(t["row"], t["col"]) for t in entry["tiles"]]
    action = BOTS["latin"].choose(ana.view())
    assert action is not None
    tiles = action["place"]["tiles"]
    place(ana, tiles, "click")
    placed = [(t["row"], t["col"]) for t in tiles]
    wrong = check_jumps(
        ana, ana, MISHQAQ["board"], moved=moved, placed=placed, languages=("fr", "fr")
    )
    assert not wrong, f"(focused cells, expected): {wrong}"


def test_lexio_end_jumps_to_the_last_move_and_page_keys_between_placed_tiles(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    """Issue #25, the same keys in Lexio, Ana (fr) and Bruno (ar) on desktops: before any move
    End says 'no move yet' and PageDown 'place tiles first'; after Ana's move, End on Bruno's
    board goes from one of its tiles to the next in reading order, each landing said; Bruno
    places tiles and PageDown/PageUp go between them."""
    gateway = gateway_factory(seed=LEXIO_SEED)
    ana, bruno = lexio_table(players, gateway, host=DESKTOP, guest=DESKTOP, language=("fr", "ar"))
    for player in (ana, bruno):
        player.listen()
    ana.page.focus(f"{LEXIO['board']} .cell.cursor")
    before = focused_cell(ana)
    key_and_hear(ana, "End", NO_MOVE["fr"])
    key_and_hear(ana, "PageDown", PLACE_FIRST["lexio"]["fr"])
    assert focused_cell(ana) == before, "the cursor moved with nothing to jump to"

    view = ana.view()
    move = legal_move(view["board"], view["rack"], 1)
    assert len(move.tiles) >= 2, move
    ana.place_by_click(move)
    ana.page.click(LEXIO["validate"])
    bruno.wait_log(1)
    view = bruno.view()
    answer = legal_move(view["board"], view["rack"], 2)
    bruno.place_by_click(answer)
    moved = [(t.row, t.col) for t in move.tiles]
    placed = [(t.row, t.col) for t in answer.tiles]
    wrong = check_jumps(
        bruno, bruno, LEXIO["board"], moved=moved, placed=placed, languages=("ar", "ar")
    )
    assert not wrong, f"(focused cells, expected): {wrong}"


# The other player's move brought into view ------------------------------------------------

SCROLLS = """(wrap) => {
  const pane = document.querySelector(wrap);
  return [scrollX, scrollY, pane ? pane.scrollLeft : 0, pane ? pane.scrollTop : 0];
}"""

SEEN = """(node) => {
  const box = node.getBoundingClientRect();
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return false;
  const top = document.elementFromPoint(x, y);
  return top !== null && node.contains(top);
}"""


def scrolls(player: Player, wrap: str) -> list[float]:
    """How far the page and the board's own window are scrolled."""
    found: list[float] = player.page.evaluate(SCROLLS, wrap)
    return found


def unseen(cells: list[Locator]) -> list[int]:
    """Which of ``cells`` are not what the page shows at their centre."""
    return [i for i, node in enumerate(cells) if not node.evaluate(SEEN)]


def test_mishqaq_the_other_players_move_is_brought_into_view_on_a_phone_only(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    """Issue #25: "the opponent's move usually happens off screen on a phone with no pan to
    it". Bruno (ar, 360×740 phone) looks at his own red square and passes; Ana (fr, 1280×800
    desktop) plays from hers, off Bruno's screen: every tile's cell centre is then the topmost
    element there on the phone. Then Bruno plays: nothing scrolls on his phone for his own
    move, and nothing scrolls on Ana's desktop for his."""
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=MISHQAQ_SEED)
    ana, bruno = mishqaq_table(players, gateway, host=DESKTOP, guest=PHONE, language=("fr", "ar"))
    wrap = MISHQAQ["board_window"]
    pan_into_sight(bruno, cell(bruno, 10, 20), wrap)
    bruno.page.tap("#mq-pass")
    for player in (ana, bruno):
        player.wait_log(2)
    assert unseen([cell(bruno, 10, 1)]), "the Latin red square was already in sight"
    entry = play_turn(ana, bruno, BOTS, "click")
    assert entry["kind"] == "place", entry
    # The view after Ana's move drawn on the phone (the pan to it is part of that drawing),
    # then the pan over.
    move_drawn(bruno, MISHQAQ["board"], [(t["row"], t["col"]) for t in entry["tiles"]])
    still(bruno)
    tiles = [cell(bruno, t["row"], t["col"]) for t in entry["tiles"]]
    hidden = [entry["tiles"][i] for i in unseen(tiles)]
    assert not hidden, f"the other player's tiles not in sight on the phone: {hidden}"

    # Bruno's own move: placed and played by tap; nothing scrolls after Validate.
    action = BOTS["arabic"].choose(bruno.view())
    assert action is not None
    place(bruno, action["place"]["tiles"], "tap")
    for player in (ana, bruno):
        still(player)  # the taps' scrolling into view is over: the positions to keep
    desktop_before, phone_before = scrolls(ana, wrap), scrolls(bruno, wrap)
    bruno.page.tap(MISHQAQ["validate"])
    own = [(t["row"], t["col"]) for t in action["place"]["tiles"]]
    for player in (ana, bruno):
        player.wait_log(4)
        # The view after Bruno's move drawn on both pages: a scroll for it would have been made
        # in that drawing (and a pan, or a smooth scroll, still under way is waited out).
        move_drawn(player, MISHQAQ["board"], own)
        still(player)
    assert scrolls(bruno, wrap) == phone_before, "the phone scrolled for its player's own move"
    assert scrolls(ana, wrap) == desktop_before, "the desktop scrolled for the other's move"


def test_lexio_the_other_players_move_is_brought_into_view_on_a_phone_only(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    """Issue #25, Lexio on a 360×740 phone: Bruno (ar) has scrolled down to his rack; Ana (fr,
    1280×800 desktop) plays: every tile of her move is then the topmost element at its cell's
    centre on the phone; Ana's desktop has not scrolled. Then Bruno plays by tap: nothing
    scrolls on his phone for his own move, nor on Ana's desktop."""
    gateway = gateway_factory(seed=LEXIO_SEED)
    ana, bruno = lexio_table(players, gateway, host=DESKTOP, guest=PHONE, language=("fr", "ar"))
    wrap = "#screen-game .board-wrap"
    bruno.js("window.scrollTo(0, document.documentElement.scrollHeight)")
    still(bruno)
    view = ana.view()
    move = legal_move(view["board"], view["rack"], 1)
    assert unseen([bruno.cell(t.row, t.col) for t in move.tiles]), "the move was in sight already"
    ana.place_by_click(move)
    desktop_before = scrolls(ana, wrap)
    ana.page.click(LEXIO["validate"])
    for player in (ana, bruno):
        player.wait_log(1)
        # The view after Ana's move drawn (Bruno's page brings it into view in that drawing),
        # then the page at rest.
        move_drawn(player, LEXIO["board"], [(t.row, t.col) for t in move.tiles])
        still(player)
    hidden = [t for t in move.tiles if unseen([bruno.cell(t.row, t.col)])]
    assert not hidden, f"the other player's tiles not in sight on the phone: {hidden}"
    assert scrolls(ana, wrap) == desktop_before, "the desktop scrolled for its player's own move"

    view = bruno.view()
    answer = legal_move(view["board"], view["rack"], 2)
    for tile in answer.tiles:
        bruno.rack_tile(bruno.rack_letter(tile)).tap()
        target = bruno.cell(tile.row, tile.col)
        target.evaluate("(node) => node.scrollIntoView({block: 'nearest'})")
        target.tap()
    bruno.page.locator(LEXIO["pending"]).nth(len(answer.tiles) - 1).wait_for()
    validate = bruno.page.locator(LEXIO["validate"])
    validate.evaluate("(node) => node.scrollIntoView({block: 'nearest'})")
    for player in (ana, bruno):
        still(player)  # the taps' and Valider's scrolling into view over: the positions to keep
    desktop_before, phone_before = scrolls(ana, wrap), scrolls(bruno, wrap)
    validate.tap()
    for player in (ana, bruno):
        player.wait_log(2)
        # The view after Bruno's move drawn on both pages (a scroll for it would be made there).
        move_drawn(player, LEXIO["board"], [(t.row, t.col) for t in answer.tiles])
        still(player)
    assert scrolls(bruno, wrap) == phone_before, "the phone scrolled for its player's own move"
    assert scrolls(ana, wrap) == desktop_before, "the desktop scrolled for the other's move"
