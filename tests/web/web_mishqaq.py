"""al-Mishqaq in the browser tests: a table with its options, an invitation seen before
joining, and moves found by the bot (lexio_client.mishqaq_bot) from the page's own view
(``window.lexio.view``: what that side may see), played through the page the way asked —
mouse drag, click then click, tap then tap, a real touch drag, or the keyboard alone."""

from __future__ import annotations

import functools
import time
from typing import Any

from lexio_testing import GatewayFactory, GatewayHandle
from playwright.sync_api import CDPSession, Locator
from web_browser import PlayerFactory
from web_pages import Player

from lexio_client.mishqaq_bot import MishqaqBot
from lexio_lexicon.catalog import open_list
from lexio_lexicon.words import WordList
from lexio_lobby.server import RunningLobby

FAST = {"bank_minute_seconds": 0.05}
"""Banks of 20 minutes last 1 s (a test-only setting of the gateway)."""
DIRECTIONS = ("across", "down", "up")
RED = {"latin": (10, 1), "arabic": (10, 20)}

Tiles = list[dict[str, Any]]


def mishqaq_gateway(
    gateway_factory: GatewayFactory, lobby: RunningLobby, **overrides: Any
) -> GatewayHandle:
    """A gateway on the lobby that offers both games."""
    return gateway_factory(lobby_address=f"127.0.0.1:{lobby.port}", **overrides)


@functools.cache
def word_list(list_id: str) -> WordList:
    return open_list(list_id)


def bot(list_id: str, seed: int) -> MishqaqBot:
    """A player of one side, with the very list the lexicon service holds for that side."""
    return MishqaqBot(word_list(list_id), seed)


# Home, invitation, waiting table ---------------------------------------------------------


def create_table(
    player: Player,
    name: str,
    *,
    side: str = "latin",
    latin: str = "fr",
    latin_minutes: int = 30,
    arabic_minutes: int = 30,
    tap: bool = False,
) -> str:
    """The host picks al-Mishqaq and its options on the home page, creates the table; its code."""
    page = player.page
    player.wait_screen("home")
    page.locator("#home-forms").wait_for()
    page.fill("#home-name", name)
    choose = page.tap if tap else page.check
    if page.locator("#home-games").is_visible():  # hidden when al-Mishqaq is the only game
        choose("#home-game-mishqaq")
    page.locator("#home-mq-options").wait_for()
    choose(f"#mq-opt-side-{side}")
    page.select_option("#mq-opt-latin", latin)
    page.select_option("#mq-opt-latin-minutes", str(latin_minutes))
    page.select_option("#mq-opt-arabic-minutes", str(arabic_minutes))
    if tap:
        page.tap("#home-create")
    else:
        page.click("#home-create")
    player.wait_screen("table")
    return page.input_value("#table-code-text")


def open_invitation(
    players: PlayerFactory, url: str, code: str, locale: str = "fr-FR", **context: Any
) -> Player:
    """An invitee opens the invite link: the page looks the code up and shows what it opens."""
    guest = players(f"{url}/?join={code}", locale=locale, **context)
    guest.wait_screen("home")
    guest.page.locator("#home-invitation .invitation-title").wait_for()
    return guest


def join(player: Player, name: str, tap: bool = False) -> None:
    player.page.fill("#home-name", name)
    if tap:
        player.page.tap("#home-join")
    else:
        player.page.click("#home-join")
    player.wait_screen("table")


def start(host: Player, guest: Player, tap: bool = False) -> None:
    host.wait_js("window.lexio.table.seats.length === 2")
    button = host.page.locator("#start-game:enabled")
    if tap:
        button.tap()
    else:
        button.click()
    for player in (host, guest):
        player.wait_screen("mishqaq")
        player.wait_js("window.lexio.view !== null && window.lexio.view.side !== undefined")


# Reading the table ------------------------------------------------------------------------


def view(player: Player) -> dict[str, Any]:
    return player.view()


def side(player: Player) -> str:
    value: str = player.js("window.lexio.view.side")
    return value


def to_move(*players: Player) -> tuple[Player, Player]:
    """(the player whose turn it is, the other)."""
    first, second = players
    turn = first.js("window.lexio.view.turn")
    return (first, second) if side(first) == turn else (second, first)


def log_length(player: Player) -> int:
    length: int = player.js("window.lexio.log.length")
    return length


def log_text(player: Player) -> str:
    return player.text("#mq-log")


def cell(player: Player, row: int, col: int) -> Locator:
    return player.page.locator(f'#mq-board .cell[data-row="{row}"][data-col="{col}"]')


def rack_tile(player: Player, code: str) -> Locator:
    return player.page.locator(f'#mq-rack .rack-tile[data-code="{code}"]').first


def cursor(player: Player) -> tuple[int, int, str]:
    node = player.page.locator("#mq-board .cell.cursor")
    classes = (node.get_attribute("class") or "").split()
    direction = next(d for d in DIRECTIONS if f"dir-{d}" in classes)
    return (
        int(node.get_attribute("data-row") or -1),
        int(node.get_attribute("data-col") or -1),
        direction,
    )


def clock_text(player: Player, of_side: str) -> str:
    return player.text(f'#mq-clocks .mq-clock[data-side="{of_side}"] .mq-time')


def wait_ended(player: Player, timeout: float = 15.0) -> dict[str, Any]:
    player.wait_js("window.lexio.view && window.lexio.view.ending !== null", timeout)
    player.page.locator("#mq-end").wait_for()
    ending: dict[str, Any] = player.js("window.lexio.view.ending")
    return ending


# Playing ----------------------------------------------------------------------------------


def letter_of(tile: dict[str, Any]) -> str:
    code: str = tile["tile"]
    return str(tile.get("as") or code.rstrip("+"))


def press_letter(player: Player, letter: str, cdp: CDPSession | None = None) -> None:
    """A letter typed on the keyboard. An Arabic one is sent as an Arabic keyboard sends it
    (a keydown whose ``key`` is the letter): Playwright's own press knows only a US layout."""
    if letter.isascii():
        player.page.keyboard.press(letter)
        return
    session = cdp or player.page.context.new_cdp_session(player.page)
    key = {"key": letter, "text": letter, "unmodifiedText": letter}
    session.send("Input.dispatchKeyEvent", {"type": "keyDown", **key})
    session.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": letter})
    if cdp is None:
        session.detach()


def keyboard_order(tiles: Tiles, of_side: str) -> tuple[Tiles, str]:
    """The tiles in typing order and the cursor's direction: across in the side's reading
    direction (an Arabic word typed right to left), a column from the top."""
    rows = {t["row"] for t in tiles}
    if len(tiles) == 1 or len(rows) == 1:
        return sorted(tiles, key=lambda t: t["col"], reverse=of_side == "arabic"), "across"
    return sorted(tiles, key=lambda t: t["row"]), "down"


def place_by_keyboard(player: Player, tiles: Tiles, *, focus: bool = True) -> None:
    """Keyboard only: arrows to the first cell, Space until the direction is right, then the
    letters (the cursor moves on along the direction, over tiles already on the board)."""
    ordered, direction = keyboard_order(tiles, side(player))
    if focus:
        player.page.focus("#mq-board .cell.cursor")
    assert player.active_matches("#mq-board .cell.cursor"), "the board does not have the focus"
    row, col, current = cursor(player)
    keyboard = player.page.keyboard
    first = ordered[0]
    for _ in range(abs(first["row"] - row)):
        keyboard.press("ArrowDown" if first["row"] > row else "ArrowUp")
    for _ in range(abs(first["col"] - col)):
        keyboard.press("ArrowRight" if first["col"] > col else "ArrowLeft")  # never mirrored
    assert cursor(player)[:2] == (first["row"], first["col"])
    for _ in range((DIRECTIONS.index(direction) - DIRECTIONS.index(current)) % 3):
        keyboard.press("Space")
    assert cursor(player)[2] == direction
    cdp = player.page.context.new_cdp_session(player.page)
    try:
        for tile in ordered:
            press_letter(player, letter_of(tile), cdp)
    finally:
        cdp.detach()


def centre(locator: Locator) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def bring_into_view(target: Locator) -> None:
    """The cell in the middle of what the page shows (a phone's board pans in its own window,
    between the clocks and the rack that stay in sight): as a player would pan to it."""
    target.evaluate("(node) => node.scrollIntoView({ block: 'center', inline: 'center' })")


def pan_to(player: Player, row: int, col: int) -> None:
    """The page at its top, the board's own window panned to (row, col): a phone as its
    player holds it."""
    player.js("window.scrollTo(0, 0)")
    cell(player, row, col).evaluate(
        """(node) => {
          const wrap = document.querySelector("#mq-board-wrap");
          const box = wrap.getBoundingClientRect();
          const at = node.getBoundingClientRect();
          wrap.scrollLeft += at.left + at.width / 2 - (box.left + box.width / 2);
          wrap.scrollTop += at.top + at.height / 2 - (box.top + box.height / 2);
        }"""
    )


FINGER_STEP_SECONDS = 0.016
"""Between two moves of the finger: a frame at 60 Hz, as a hand's touch events come."""
FINGER_REST_SECONDS = 0.12
"""How long the finger rests on the cell before it is lifted, as a hand does. The browser
decides whether a lift flings from the finger's speed over the touch events' own times: lifted
while still moving, it flings, and the next tap only stops the fling (no click). The events
carry those times (CDP's ``timestamp``), so the rest is in the gesture, not in the test's
waiting."""


def touch_drag(player: Player, source: Locator, target: Locator, steps: int = 8) -> None:
    """A finger pressed on ``source``, moved, lifted over ``target`` (real touch events, each
    stamped with the instant a hand would have made it)."""
    bring_into_view(target)
    (x0, y0), (x1, y1) = centre(source), centre(target)
    at = time.time()

    def touch(kind: str, points: list[dict[str, float]], after: float) -> None:
        nonlocal at
        at += after
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points, "timestamp": at})

    cdp = player.page.context.new_cdp_session(player.page)
    try:
        touch("touchStart", [{"x": x0, "y": y0}], 0.0)
        for i in range(1, steps + 1):
            x, y = x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps
            touch("touchMove", [{"x": x, "y": y}], FINGER_STEP_SECONDS)
        touch("touchMove", [{"x": x1, "y": y1}], FINGER_REST_SECONDS)
        touch("touchEnd", [], FINGER_STEP_SECONDS)
    finally:
        cdp.detach()


def place(player: Player, tiles: Tiles, how: str) -> None:
    """The tiles of a placement on the board, not yet played."""
    pending = "document.querySelectorAll('#mq-board .mq-tile.pending').length"
    expected = player.js(pending) + len(tiles)
    if how == "keyboard":
        place_by_keyboard(player, tiles)
    else:
        for tile in tiles:
            source = rack_tile(player, tile["tile"])
            target = cell(player, tile["row"], tile["col"])
            if how == "drag":
                source.drag_to(target)
            elif how == "touch-drag":
                touch_drag(player, source, target)
            elif how == "tap":
                source.tap()
                bring_into_view(target)
                target.tap()
            else:
                source.click()
                target.click()
            if tile["tile"] == "?":
                player.page.click(f'#dlg-blank [data-letter="{tile["as"]}"]')
    player.wait_js(f"{pending} === {expected}")


def validate(player: Player, how: str) -> None:
    if how == "keyboard":
        player.page.keyboard.press("Enter")
    elif how in ("tap", "touch-drag"):
        player.page.tap("#mq-validate")
    else:
        player.page.click("#mq-validate")


def play_turn(
    mover: Player, other: Player, players: dict[str, MishqaqBot], how: str
) -> dict[str, Any]:
    """The side to move plays what its bot finds from that page's own view (or passes); both
    pages see it. The entry the move added."""
    before = log_length(mover)
    action = players[side(mover)].choose(mover.view())
    if action is None:
        if how in ("tap", "touch-drag"):
            mover.page.tap("#mq-pass")
        else:
            mover.page.click("#mq-pass")
    else:
        place(mover, action["place"]["tiles"], how)
        validate(mover, how)
    for player in (mover, other):
        player.wait_log(before + 1)
    entry: dict[str, Any] = mover.js(f"window.lexio.log[{before}]")
    return entry


def play_to_the_end(
    a: Player,
    b: Player,
    players: dict[str, MishqaqBot],
    ways: dict[str, list[str]],
    max_turns: int = 80,
) -> list[dict[str, Any]]:
    """Turns until the game ends; each side plays its ways in turn (``ways[side]``)."""
    entries: list[dict[str, Any]] = []
    turns = {"latin": 0, "arabic": 0}
    for _ in range(max_turns):
        if a.js("window.lexio.view.ending") is not None:
            return entries
        mover, other = to_move(a, b)
        mine = side(mover)
        how = ways[mine][turns[mine] % len(ways[mine])]
        turns[mine] += 1
        entries.append(play_turn(mover, other, players, how))
    raise AssertionError(f"no end after {max_turns} turns")


# Scripted moves (what the bot never plays: a blank, a refused word) ---------------------


def opening_row(of_side: str) -> tuple[int, int, int]:
    """The red square's row and column, and the step of the side's reading direction."""
    row, col = RED[of_side]
    return row, col, 1 if of_side == "latin" else -1


def blank_opening(player: Player) -> tuple[Tiles, str]:
    """A first placement from the side's red square with its blank standing for a letter the
    rack also holds (so that the real tile can later be swapped in, M27): its tiles and the
    blank's letter."""
    mine = side(player)
    rack = list(player.view()["rack"])
    words = word_list("fr" if mine == "latin" else "ar")
    assert any(t["blank"] for t in rack), rack
    letters = [t for t in rack if not t["blank"]]
    row, col, step = opening_row(mine)
    for first in letters:
        for second in letters:
            if second is first or words.unknown([first["letter"] + second["letter"]]):
                continue
            tiles = [
                {"row": row, "col": col, "tile": "?", "as": first["letter"]},
                {"row": row, "col": col + step, "tile": second["code"]},
            ]
            return tiles, first["letter"]
    raise AssertionError(f"no opening with a blank in {rack}")


def refused_opening(player: Player, list_id: str) -> tuple[Tiles, str]:
    """Two rack tiles from the side's red square whose word the side's lexicon does not know."""
    mine = side(player)
    letters = [t for t in player.view()["rack"] if not t["blank"]]
    words = word_list(list_id)
    row, col, step = opening_row(mine)
    for first in letters:
        for second in letters:
            word = first["letter"] + second["letter"]
            if second is not first and words.unknown([word]):
                tiles = [
                    {"row": row, "col": col, "tile": first["code"]},
                    {"row": row, "col": col + step, "tile": second["code"]},
                ]
                return tiles, word
    raise AssertionError("no refusable opening")


# A phone's network ---------------------------------------------------------------------------

PHONE_LATENCY_MS = 150
"""A mobile network's round trip: the reply to an action comes several frames after the press
(on this machine it comes before the next frame)."""


def slow_network(player: Player, latency_ms: int = PHONE_LATENCY_MS) -> CDPSession:
    """The page's network as a phone's: each request and WebSocket message delayed by
    ``latency_ms`` (Chromium's own emulation). Keep the session returned while it should last."""
    session = player.page.context.new_cdp_session(player.page)
    session.send("Network.enable")
    session.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": latency_ms, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    return session
