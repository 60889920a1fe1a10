"""What the game kit added to both games' screens (issue #25), in French and in Arabic:

- the other player's low time said once ("the opponent's low time is never announced"):
  al-Mishqaq's other side's running clock under a minute, once per game; Lexio's other
  player's turn in its last 10 s, once per turn;
- each game's help open on the player's first game on this browser, closed once one has
  ended ("each game's help is one click away and open on the first game");
- al-Mishqaq's zoom on a desktop ("no zoom on desktop"): − and + change the cell size, the
  choice kept across a reload.
The board's keys and the other player's move brought into view: test_web_kit_keys.py."""

from __future__ import annotations

from typing import Any

import web_browser
from lexio_testing import GatewayFactory, eventually_sync
from web_browser import PlayerFactory
from web_kit import (
    DESKTOP,
    LOCALES,
    NAMES,
    cell_size,
    lexio_table,
    mishqaq_table,
    page_time_passes,
    still,
)
from web_mishqaq import (
    bot,
    clock_text,
    create_table,
    join,
    mishqaq_gateway,
    open_invitation,
    play_turn,
    side,
    start,
    wait_ended,
)
from web_pages import Player
from web_words import legal_move

from lexio_lobby.server import RunningLobby

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players

# The catalogs' mq.say.other_last_minute, up to its {name}; Lexio's say.seconds_left's start.
OTHER_LAST_MINUTE = {
    "fr": "Plus qu'une minute à la pendule de ",
    "ar": "بقيت أقل من دقيقة في ساعة ",
}
SECONDS_LEFT = {"fr": "Il reste ", "ar": "بقيت "}
# How far a page's own time (players(clock=True)) is moved on, its ticks (four a second) and
# the gathering of what it says firing: what "once" rules out would be said in that time.
NOT_AGAIN_MS = 2000
"""After a warning, on the page that gave it: eight ticks of the clock still running."""
NOT_YET_MS = 1500
"""On a page that must not give a warning: six ticks, across the instant another page gave it
(both count the same clock from the same view)."""
HER_TURN_ON_MS = 1000
"""Lexio: Ana's turn on Bruno's page while she places her tiles, until she plays."""
CLOCKED = {**DESKTOP, "clock": True}


def clock_card(of_side: str) -> str:
    """al-Mishqaq's clock of ``of_side`` (``.running`` while it runs, ``.urgent`` in its last
    minute)."""
    return f'#mq-clocks .mq-clock[data-side="{of_side}"]'


def count_heard(heard: Player | list[dict[str, Any]], text: str, start: int = 0) -> int:
    """How many announcements (a player's, from index ``start`` on) hold ``text``."""
    said = heard.heard() if isinstance(heard, Player) else heard
    return sum(text in one["text"] for one in said[start:])


# The other player's low time ---------------------------------------------------------------


def test_mishqaq_the_other_sides_last_minute_is_said_once_per_game(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    """Issue #25: "the opponent's low time is never announced" (M29: at 0 the waiting player
    wins). Banks of 20 minutes that last 62 s: Ana's (fr, Latin, to move) runs under a minute,
    which Bruno (ar) hears once and Ana does not; Ana plays, Bruno's clock runs under a
    minute, which Ana hears once; Bruno plays, Ana's clock runs again: Bruno hears nothing
    more (once per game)."""
    gateway = mishqaq_gateway(
        gateway_factory,
        two_games_lobby,
        seed=11,  # the Latin side opens
        mishqaq_settings={"bank_minute_seconds": 3.1},
    )
    ana = players(gateway.url + "/", locale=LOCALES["fr"], **CLOCKED)
    code = create_table(ana, "Ana", side="latin", latin_minutes=20, arabic_minutes=20)
    bruno = open_invitation(players, gateway.url, code, LOCALES["ar"], **CLOCKED)
    join(bruno, NAMES["ar"][1])
    for player in (ana, bruno):
        player.listen()
    start(ana, bruno)
    assert side(ana) == "latin" and ana.js("window.lexio.view.turn") == "latin"
    bruno.wait_heard(OTHER_LAST_MINUTE["ar"] + "Ana", timeout=8)
    # Ana's page counts her clock into its last minute too (a warning of it as another's
    # would be said there), and says what it has to say.
    page_time_passes(ana, NOT_YET_MS)
    assert ana.page.locator(f"{clock_card('latin')}.running.urgent").count() == 1, (
        f"Ana's own clock not in its last minute on her page: {clock_text(ana, 'latin')}"
    )
    assert count_heard(ana, OTHER_LAST_MINUTE["fr"]) == 0, "Ana was told of her own clock"

    bots = {"latin": bot("fr", 1), "arabic": bot("ar", 2)}
    play_turn(ana, bruno, bots, "click")
    ana.wait_heard(OTHER_LAST_MINUTE["fr"] + NAMES["ar"][1], timeout=8)
    play_turn(bruno, ana, bots, "click")
    # Ana's clock runs again, in its last minute, on Bruno's page: drawn from the view after
    # his move, then ticking (where it would be said again); Ana's page, for Bruno's clock.
    bruno.page.locator(f"{clock_card('latin')}.running.urgent").wait_for()
    for player in (bruno, ana):
        page_time_passes(player, NOT_AGAIN_MS)
    said = {
        "Bruno (ar)": count_heard(bruno, OTHER_LAST_MINUTE["ar"]),
        "Ana (fr)": count_heard(ana, OTHER_LAST_MINUTE["fr"]),
    }
    assert said == {"Bruno (ar)": 1, "Ana (fr)": 1}, (
        f"times the other's last minute was said: {said}"
    )


def test_lexio_the_other_players_last_10_seconds_are_said_once_per_turn(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    """Issue #25: "the opponent's low time is never announced"; in Lexio a turn has its own
    limit (R28), then the table passes. Turns of 12 s: on Ana's (fr) turn Bruno (ar) hears
    once that she has 10 s left, not again in that turn; Ana plays; on Bruno's turn Ana hears
    it of him, once."""
    gateway = gateway_factory(seed=5, turn_seconds=12.0)
    ana, bruno = lexio_table(players, gateway, host=CLOCKED, guest=CLOCKED, language=("fr", "ar"))
    for player in (ana, bruno):
        player.listen()
    said = bruno.wait_heard(SECONDS_LEFT["ar"], timeout=8)
    assert "Ana" in said["text"], said
    # Ana's turn ticks on, in its last 10 s, on Bruno's page (where it would be said again)
    # and on Ana's own (where it would be said to her as another's).
    page_time_passes(bruno, NOT_AGAIN_MS)
    page_time_passes(ana, NOT_YET_MS)
    assert ana.page.locator("#clock.urgent").count() == 1, (
        f"Ana's turn not in its last 10 s on her page: {ana.text('#clock')}"
    )
    assert count_heard(bruno, SECONDS_LEFT["ar"]) == 1, bruno.heard()
    assert count_heard(ana, SECONDS_LEFT["fr"]) == 0, "Ana was told of her own turn as another's"

    view = ana.view()
    ana.place_by_click(legal_move(view["board"], view["rack"], 1))
    page_time_passes(bruno, HER_TURN_ON_MS)  # then what Bruno heard on her turn is all there
    waited = len(bruno.heard())  # what Bruno heard on Ana's turn, until she plays
    start = len(ana.heard())  # before the click: the move's announcement may come at once
    ana.page.click("#btn-validate")
    said = ana.wait_heard(SECONDS_LEFT["fr"], start=start, timeout=8)
    # The warning's own sentence names Bruno. It is its own announcement, or follows the
    # move's in the same breath when the view comes within 0.5 s of Bruno's 10 s mark (Ana's
    # page runs NOT_YET_MS ahead, and a loaded machine can take that long to bring the view).
    warning = f"Au tour de {NAMES['ar'][1]}. {SECONDS_LEFT['fr']}"
    assert warning in said["text"], said
    page_time_passes(ana, NOT_AGAIN_MS)  # Bruno's turn ticks on, on Ana's page
    counts = {
        "Ana (fr), Bruno's turn": count_heard(ana, SECONDS_LEFT["fr"], start),
        "Bruno (ar), Ana's turn": count_heard(bruno.heard()[:waited], SECONDS_LEFT["ar"]),
    }
    expected = {"Ana (fr), Bruno's turn": 1, "Bruno (ar), Ana's turn": 1}
    assert counts == expected, f"times another player's last 10 s were said: {counts}"
    # On his own turn Bruno hears his own warnings (unchanged), never his name as another's.
    own = [h["text"] for h in bruno.heard()[waited:] if f"دور {NAMES['ar'][1]}" in h["text"]]
    assert not own, own


# The help on a first game -----------------------------------------------------------------

HELP_OPEN = "(selector) => document.querySelector(selector).open"
MISHQAQ_HELP = "#screen-mishqaq .help-box details"
LEXIO_HELP = "#screen-game .help-box details"


def help_open(player: Player, selector: str) -> bool:
    is_open: bool = player.page.evaluate(HELP_OPEN, selector)
    return is_open


def played(player: Player, game: str) -> str | None:
    """What the page keeps of this browser having finished a game of ``game`` (store.js)."""
    value: str | None = player.js(f"localStorage.getItem('lexio.played-{game}')")
    return value


def finished_a_game_before(player: Player, game: str) -> None:
    """This browser has seen a game of ``game`` to its end: the key the page sets then."""
    player.js(f"localStorage.setItem('lexio.played-{game}', 'yes')")
    player.page.reload()


def test_mishqaq_the_help_is_open_on_a_first_game_and_closed_after_one(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    """Issue #25: "each game's help is one click away and open on the first game". Ana (fr)
    has finished an al-Mishqaq game on this browser, Bruno (ar) never has: at their table
    Bruno's help is open, Ana's closed. Bruno resigns; his page keeps that he has seen a game
    to its end (his next table's help: closed, as Ana's)."""
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=135)
    ana = players(gateway.url + "/", locale=LOCALES["fr"], **DESKTOP)
    finished_a_game_before(ana, "mishqaq")
    code = create_table(ana, "Ana")
    bruno = open_invitation(players, gateway.url, code, LOCALES["ar"], **DESKTOP)
    join(bruno, NAMES["ar"][1])
    start(ana, bruno)
    shown = {"Ana (fr), played before": help_open(ana, MISHQAQ_HELP)}
    shown["Bruno (ar), first game"] = help_open(bruno, MISHQAQ_HELP)
    assert shown == {"Ana (fr), played before": False, "Bruno (ar), first game": True}, shown
    assert played(bruno, "mishqaq") is None
    bruno.page.click("#mq-resign")
    bruno.page.click("#confirm-ok")
    for player in (ana, bruno):
        wait_ended(player)
    assert played(bruno, "mishqaq") == "yes", "the end of Bruno's first game was not kept"


def test_lexio_the_help_is_open_on_a_first_game_and_closed_after_one(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    """Issue #25, Lexio's help: Bruno (ar) has finished a Lexio game on this browser, Ana (fr)
    never has: Ana's help is open, Bruno's closed. The table ends after two rounds of passes
    (R31); Ana's page keeps that she has seen a game to its end."""
    gateway = gateway_factory(seed=5)
    ana, bruno = lexio_table(players, gateway, host=DESKTOP, guest=DESKTOP, language=("fr", "ar"))
    assert help_open(ana, LEXIO_HELP), "Ana's first game: her help is closed"
    assert played(ana, "lexio") is None
    finished_a_game_before(bruno, "lexio")
    bruno.wait_screen("game")
    bruno.wait_js("window.lexio.view !== null")
    assert not help_open(bruno, LEXIO_HELP), "Bruno has finished a game: his help is open"
    for turn, player in enumerate((ana, bruno, ana, bruno)):
        player.page.click("#btn-pass")
        if turn == 3:
            player.page.click("#confirm-ok")
        ana.wait_log(turn + 1)
    ana.page.locator("#end-panel").wait_for()
    assert played(ana, "lexio") == "yes", "the end of Ana's first game was not kept"


# al-Mishqaq's zoom on a desktop -----------------------------------------------------------


ZOOM = {"+": "#mq-zoom-in", "−": "#mq-zoom-out"}
ZOOM_LEVEL = "[...document.querySelector('#mq-board').classList].find((c) => /^zoom-/.test(c))"


def zoom_level(player: Player) -> int:
    """The board's zoom now: n of its class ``zoom-n``."""
    level: str = player.js(ZOOM_LEVEL)
    return int(level.removeprefix("zoom-"))


def press_zoom(player: Player, button: str, timeout: float = 5.0) -> None:
    """``button`` (+ or −) pressed, and the press handled: the board one size up or down
    (its zoom class), drawn in it and at rest (the cursor's cell scrolled into sight)."""
    want = zoom_level(player) + (1 if button == "+" else -1)
    player.page.click(ZOOM[button])
    eventually_sync(
        lambda: zoom_level(player) == want,
        lambda: f"{button} pressed: the board's zoom is {zoom_level(player)}, not {want}",
        timeout,
        every=0.05,
    )
    still(player)


def enabled(player: Player, selector: str) -> bool:
    return player.page.locator(selector).is_enabled()


def test_mishqaq_zoom_on_a_desktop_changes_the_cells_and_is_kept(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    """Issue #25, D6: "no zoom on desktop" (the kit's zoom: three cell sizes). On a 1280×800
    desktop (fr), al-Mishqaq's + is pressed until it is disabled, then − until it is: every
    press changes the cells' size (a button that changes nothing on the screen is no zoom);
    the size chosen is the one the board has after a reload."""
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=135)
    ana, _bruno = mishqaq_table(players, gateway, host=DESKTOP, guest=DESKTOP)
    board_cell = "#mq-board .cell"
    level = "document.querySelector('#mq-board').className"
    hidden = [name for name, button in ZOOM.items() if not ana.page.locator(button).is_visible()]
    assert not hidden, f"no zoom on the desktop: {hidden} not shown"
    presses: list[tuple[str, str, float, float]] = []
    for button in ("+", "−"):
        for _ in range(3):
            if not enabled(ana, ZOOM[button]):
                break
            before = cell_size(ana, board_cell)
            press_zoom(ana, button)
            presses.append((button, ana.js(level), before, cell_size(ana, board_cell)))
    assert [p[0] for p in presses].count("−") == 2, f"three sizes, two steps down: {presses}"
    unchanged = [p for p in presses if abs(p[3] - p[2]) < 0.5]
    assert not unchanged, (
        f"presses that did not change the cell size (button, board classes, px before, after): "
        f"{unchanged}; all presses: {presses}"
    )
    press_zoom(ana, "+")
    chosen = (ana.js(level), cell_size(ana, board_cell))
    ana.page.reload()
    ana.wait_js("window.lexio.view !== null")
    ana.page.locator(board_cell).first.wait_for()
    # The zoom kept is set as the page starts (before its first view); the board drawn with
    # it, the page's fonts loaded (the cells' size follows the layout), and at rest.
    still(ana)
    kept = (ana.js(level), cell_size(ana, board_cell))
    assert kept[0] == chosen[0] and abs(kept[1] - chosen[1]) < 0.5, (chosen, kept)
