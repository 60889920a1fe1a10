"""What the first-time player's tests (issue #25) share: the two devices they played on, a
table of either game opened on them, a finger's drag at a hand's pace, and the measures the
issue names (is a line cut, how large a letter is drawn, where the focus is).

Selectors of the game screens are named here once: the web game kit (issue #25) may rename
them, and then only this file changes."""

from __future__ import annotations

import json
import time
from typing import Any

from lexio_testing import GatewayHandle, eventually_sync
from playwright.sync_api import Locator
from web_browser import PlayerFactory
from web_mishqaq import create_table, join, open_invitation, start
from web_pages import Player

# The two first-time players of the issue: a desktop with mouse and keyboard, a touch phone.
DESKTOP: dict[str, Any] = {"width": 1280, "height": 800}
PHONE: dict[str, Any] = {"width": 360, "height": 740, "touch": True}

LOCALES = {"fr": "fr-FR", "es": "es-ES", "ar": "ar-MA", "en": "en-US"}
LANGUAGES = ("fr", "es", "ar", "en")
# The players' names in each language: what the turn line must hold whole.
NAMES = {
    "fr": ("Ana", "Bruno"),
    "es": ("Ana", "Bruno"),
    "en": ("Ana", "Bruno"),
    "ar": ("سلمى", "برونو"),
}

# Each game's screen, as the page names it today.
MISHQAQ = {
    "turn": "#mq-turn",
    "board": "#mq-board",
    "rack": "#mq-rack",
    "rack_tile": "#mq-rack .rack-tile",
    "validate": "#mq-validate",
    "recall": "#mq-recall",
    "pause": "#mq-pause",
    "resume": "#mq-resume",
    "pause_panel": "#mq-pause-panel",
    "resign": "#mq-resign",
    "blank_dialog": "#dlg-blank",
    "pending": "#mq-board .mq-tile.pending",
    "partner": ".mq-partner",
    "labels": "#mq-board .col-label, #mq-board .row-label",
    "cell": "#mq-board .cell",
    "end": "#mq-end",
    "message": "#mq-message",
    "board_window": "#mq-board-wrap",
}
LEXIO = {
    "turn": "#turn-status",
    "board": "#board",
    "rack": "#rack",
    "rack_tile": "#rack .rack-tile",
    "validate": "#btn-validate",
    "recall": "#btn-recall",
    "blank_dialog": "#dlg-blank",
    "pending": "#board .tile.pending",
    "message": "#message",
}


# Tables ---------------------------------------------------------------------------------------


def mishqaq_table(
    players: PlayerFactory,
    gateway: GatewayHandle,
    *,
    host: dict[str, Any],
    guest: dict[str, Any],
    language: tuple[str, str] = ("fr", "ar"),
    side: str = "latin",
) -> tuple[Player, Player]:
    """An al-Mishqaq table: the host (on ``host``'s device, in ``language[0]``) creates it and
    plays ``side``; the guest opens the invitation and joins; the host starts."""
    host_name = NAMES[language[0]][0]
    guest_name = NAMES[language[1]][1]
    ana = players(gateway.url + "/", locale=LOCALES[language[0]], **host)
    code = create_table(ana, host_name, side=side, tap=bool(host.get("touch")))
    bruno = open_invitation(players, gateway.url, code, LOCALES[language[1]], **guest)
    join(bruno, guest_name, tap=bool(guest.get("touch")))
    start(ana, bruno, tap=bool(host.get("touch")))
    return ana, bruno


def lexio_table(
    players: PlayerFactory,
    gateway: GatewayHandle,
    *,
    host: dict[str, Any],
    guest: dict[str, Any],
    language: tuple[str, str] = ("fr", "fr"),
) -> tuple[Player, Player]:
    """A Lexio table for two on these devices: the host creates it, the guest joins by its
    code, the host starts (the host plays first)."""
    ana = players(gateway.url + "/", locale=LOCALES[language[0]], **host)
    code = ana.create(NAMES[language[0]][0])
    bruno = players(gateway.url + "/", locale=LOCALES[language[1]], **guest)
    bruno.join(code, NAMES[language[1]][1])
    ana.page.locator("#start-game:enabled").click()
    for player in (ana, bruno):
        player.wait_screen("game")
        player.wait_js("window.lexio.view !== null")
    return ana, bruno


def switch_language(player: Player, language: str) -> None:
    """The page's language switcher set to ``language``, the page drawn again in it."""
    if player.js("document.documentElement.lang") != language:
        player.page.select_option("#lang", language)
        player.wait_js(f"document.documentElement.lang === '{language}'")
    still(player)


def press(player: Player, selector: str) -> None:
    """A button pressed the device's way: a tap on a touch screen, else a click."""
    if player.js("navigator.maxTouchPoints > 0"):
        player.page.tap(selector)
    else:
        player.page.click(selector)


# The page's frames ---------------------------------------------------------------------------

FRAMES_FROM_NOW = """(count) => {
  const mark = { drawn: 0 };
  window.__framesDrawn = mark;
  const tick = () => {
    mark.drawn += 1;
    if (mark.drawn < count) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""


def frames(player: Player, count: int = 1, timeout: float = 5.0) -> None:
    """Until the page has drawn ``count`` animation frames from now: what it does each frame
    (the input that came before it, a drag's pan near an edge, layout and paint) has happened
    that many times. Counted by the page and looked at from here (a promise awaited in the
    page would never settle where its clock is paused: this fails, saying so)."""
    player.page.evaluate(FRAMES_FROM_NOW, count)

    def drawn() -> int:
        return int(player.js("window.__framesDrawn.drawn"))

    eventually_sync(
        lambda: drawn() >= count,
        lambda: f"the page drew {drawn()} of {count} frames (is its clock paused?)",
        timeout,
        every=0.002,
    )


STILL = """() => {
  const scrolled = [[scrollX, scrollY]];
  for (const node of document.querySelectorAll("*")) {
    if (node.scrollLeft || node.scrollTop) {
      scrolled.push([node.id || node.className, node.scrollLeft, node.scrollTop]);
    }
  }
  const running = document.getAnimations().filter((animation) =>
    animation.playState === "running"
    && animation.effect?.getComputedTiming().endTime !== Infinity);
  return JSON.stringify({ fonts: document.fonts.status, animations: running.length, scrolled });
}"""


def still(player: Player, frames_still: int = 3, timeout: float = 5.0) -> None:
    """Until the page is still: its fonts loaded, no animation under way, and nothing scrolled
    (the page, the board's window) over ``frames_still`` frames in a row. What an action set
    off on the page (drawn again, a pan, a fling) is over: what a measure, or the next
    gesture, waits for."""
    deadline = time.monotonic() + timeout
    before: str | None = None
    unchanged = 0
    while True:
        frames(player)
        now = str(player.page.evaluate(STILL))
        state = json.loads(now)
        settled = state["fonts"] == "loaded" and state["animations"] == 0
        unchanged = unchanged + 1 if settled and now == before else 0
        if unchanged >= frames_still:
            return
        assert time.monotonic() < deadline, (
            f"the page is not still after {timeout} s: {now} (a frame before: {before})"
        )
        before = now


MOVE_NOT_DRAWN = """([board, cells]) => cells.flatMap(([row, col]) => {
  const cell = document.querySelector(`${board} .cell[data-row="${row}"][data-col="${col}"]`);
  if (cell && cell.querySelector(".last:not(.pending)")) return [];
  return [[row, col, cell ? cell.innerHTML : "no such cell"]];
})"""


def move_drawn(
    player: Player, board: str, cells: list[tuple[int, int]], timeout: float = 10.0
) -> None:
    """Until the page's ``board`` draws a tile of the last move on each of ``cells``: the view
    that follows the move is drawn (the event frame only adds to the log; the view frame after
    it draws the board, and whatever the page does for a move, in that same drawing). Fails
    saying which cells are not, and what they hold."""

    def missing() -> list[Any]:
        return list(player.page.evaluate(MOVE_NOT_DRAWN, [board, cells]))

    eventually_sync(
        lambda: not missing(),
        lambda: (
            f"the move {cells} is not drawn as the last one on {board}; "
            f"(row, col, what the cell holds): {missing()}"
        ),
        timeout,
        every=0.05,
    )


def page_time_passes(player: Player, milliseconds: int) -> None:
    """The page's own time (``players(clock=True)``) moved on by ``milliseconds`` at once, its
    timers firing as they fall due (the clocks' ticks four times a second, the 120 ms
    gathering of what the live regions say): what the page would do, or say, in that time is
    done when this returns, without the test waiting for it. The page's time runs on,
    ``milliseconds`` ahead of the real one (a view's clocks count from its own arrival; Lexio's
    turn clock stays that much ahead until the page reconnects)."""
    # Not paused first: pausing "at now" races the page's running time ("cannot fast-forward
    # to the past"); moving a running clock on fires the same timers.
    player.page.clock.run_for(milliseconds)


# A finger ---------------------------------------------------------------------------------

REST_FRAMES = 9
REST_SECONDS = 0.15
"""How long a finger rests on the aimed cell before it is lifted, as a hand does: the
gesture's own length. The page draws REST_FRAMES frames meanwhile (what it does under a resting
finger, such as panning near an edge, happens as it would: 9 frames are 150 ms at its 60 Hz);
and the browser, which decides whether a lift flings from the finger's speed over the touch
events' own times, must see REST_SECONDS between the last move and the lift, else the lift
flings (and the recall tapped next only stops the fling: without the rest both D4 tests fail
there). The events carry their times (CDP's ``timestamp``), so the rest is in the gesture: the
test does not wait for it."""


def centre(locator: Locator) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def finger_drag(player: Player, source: Locator, target: Locator, steps: int = 14) -> None:
    """A finger pressed on ``source``, moved at a hand's pace (one step a frame: what the page
    does while the finger passes, such as panning, happens as it would), rested, lifted over
    ``target``. Both must be in sight: a finger reaches only what the screen shows."""
    assert in_viewport(player, source), "the rack tile is not in sight"
    assert in_viewport(player, target), "the aimed cell is not in sight"
    (x0, y0), (x1, y1) = centre(source), centre(target)
    cdp = player.page.context.new_cdp_session(player.page)
    try:

        def touch(kind: str, x: float, y: float, at: float) -> None:
            point = {"x": x, "y": y}
            cdp.send(
                "Input.dispatchTouchEvent", {"type": kind, "touchPoints": [point], "timestamp": at}
            )

        touch("touchStart", x0, y0, time.time())
        frames(player)  # the page has the press (its drag begins there)
        for i in range(1, steps + 1):
            moved = time.time()
            touch("touchMove", x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps, moved)
            frames(player)
        # Resting before lifting, as a hand does (lifted while moving, the browser flings).
        frames(player, REST_FRAMES)
        lifted = max(time.time(), moved + REST_SECONDS)
        touch("touchMove", x1, y1, lifted)
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": [], "timestamp": lifted}
        )
    finally:
        cdp.detach()


TOUCHABLE = """(node) => {
  const box = node.getBoundingClientRect();
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return false;
  const hit = document.elementFromPoint(x, y);
  return hit !== null && node.contains(hit);
}"""


def in_viewport(player: Player, locator: Locator) -> bool:
    """Whether the element's centre is on the screen and not covered by anything (where a
    finger can touch it)."""
    touchable: bool = locator.evaluate(TOUCHABLE)
    return touchable


PAN_INTO_SIGHT = """([node, wrapSelector]) => {
  const wrap = document.querySelector(wrapSelector);
  const box = wrap.getBoundingClientRect();
  const shown = (x, y) => {
    const hit = document.elementFromPoint(x, y);
    return hit !== null && wrap.contains(hit);
  };
  // What the board's window really shows: where a point hits the board, not the sticky
  // clocks or rack laid over it, nor outside the screen.
  const x = Math.min(Math.max(box.left + box.width / 2, 1), innerWidth - 1);
  const ys = [];
  for (let y = Math.max(0, box.top); y < Math.min(innerHeight, box.bottom); y += 2) {
    if (shown(x, y)) ys.push(y);
  }
  const y = ys.length ? (ys[0] + ys[ys.length - 1]) / 2 : box.top + box.height / 2;
  const xs = [];
  for (let at = Math.max(0, box.left); at < Math.min(innerWidth, box.right); at += 2) {
    if (shown(at, y)) xs.push(at);
  }
  const middle = xs.length ? (xs[0] + xs[xs.length - 1]) / 2 : x;
  const cell = node.getBoundingClientRect();
  wrap.scrollLeft += cell.left + cell.width / 2 - middle;
  wrap.scrollTop += cell.top + cell.height / 2 - y;
}"""


def pan_into_sight(player: Player, target: Locator, wrap: str) -> None:
    """A phone's player panning to a cell: the page at its top, the board's own window
    (``wrap``) panned so that ``target`` is in the middle of what it shows between the sticky
    parts of the screen (or as near as the board's edges let it); if the cell is still hidden,
    the page scrolled too, as a thumb would, and the board's window panned again."""
    player.js("window.scrollTo(0, 0)")
    handle = target.element_handle()
    assert handle is not None
    player.page.evaluate(PAN_INTO_SIGHT, [handle, wrap])
    if not in_viewport(player, target):
        target.evaluate("(node) => node.scrollIntoView({ block: 'center', inline: 'nearest' })")
        player.page.evaluate(PAN_INTO_SIGHT, [handle, wrap])


PENDING_CELLS = """(selector) => [...document.querySelectorAll(selector)].map((tile) => {
  const cell = tile.closest("[data-row][data-col]");
  return [Number(cell.dataset.row), Number(cell.dataset.col)];
})"""


def drop_where(
    player: Player, source: Locator, target: Locator, parts: dict[str, str]
) -> list[tuple[int, int]]:
    """Drag ``source`` onto ``target`` with a finger and say which cells got a pending tile
    (``parts``: the game's selectors, MISHQAQ or LEXIO); then take them back, so that the
    next drag starts from a full rack."""
    still(player)  # nothing pans the board any more (a drag, a recall, a pan into sight)
    finger_drag(player, source, target)
    still(player)  # the lift is handled, the board drawn again
    landed = pending_cells(player, parts["pending"])
    if landed:
        press(player, parts["recall"])
        player.wait_js(f"document.querySelectorAll('{parts['pending']}').length === 0")
    return landed


def pending_cells(player: Player, selector: str) -> list[tuple[int, int]]:
    """The cells holding a tile placed this turn (not yet played)."""
    found: list[list[int]] = player.page.evaluate(PENDING_CELLS, selector)
    return [(row, col) for row, col in found]


# Measures ---------------------------------------------------------------------------------

LINE = """(selector) => {
  const node = document.querySelector(selector);
  const style = getComputedStyle(node);
  const range = document.createRange();
  range.selectNodeContents(node);
  const text = range.getBoundingClientRect();
  const box = node.getBoundingClientRect();
  return {
    text: node.textContent,
    scrollWidth: node.scrollWidth,
    clientWidth: node.clientWidth,
    textOverflow: style.textOverflow,
    textLeft: text.left, textRight: text.right,
    boxLeft: box.left, boxRight: box.right,
    window: document.documentElement.clientWidth,
  };
}"""


def line_is_cut(player: Player, selector: str) -> str:
    """Why the line's text is not shown whole ("" when it is): wider than its box
    (scrollWidth > clientWidth), ended by an ellipsis, or drawn outside its box or the window."""
    line: dict[str, Any] = player.page.evaluate(LINE, selector)
    problems = []
    if line["scrollWidth"] > line["clientWidth"]:
        problems.append(f"scrollWidth {line['scrollWidth']} > clientWidth {line['clientWidth']}")
    if line["textOverflow"] == "ellipsis":
        problems.append("text-overflow: ellipsis")
    if line["textLeft"] < line["boxLeft"] - 1 or line["textRight"] > line["boxRight"] + 1:
        problems.append("text drawn outside its box")
    if line["textLeft"] < -1 or line["textRight"] > line["window"] + 1:
        problems.append("text drawn outside the window")
    return f"{line['text']!r}: {', '.join(problems)}" if problems else ""


FONT_SIZES = """(selector) => [...document.querySelectorAll(selector)]
  .filter((node) => node.getClientRects().length > 0)
  .map((node) => parseFloat(getComputedStyle(node).fontSize))"""


def font_sizes(player: Player, selector: str) -> list[float]:
    """The computed font size (px) of every displayed element matching ``selector``."""
    sizes: list[float] = player.page.evaluate(FONT_SIZES, selector)
    return sizes


def cell_size(player: Player, selector: str) -> float:
    """The width (px) of the element as drawn."""
    box = player.page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return float(box["width"])


ACTIVE = """(() => {
  const node = document.activeElement;
  if (!node || node === document.body || node === document.documentElement) return null;
  return node.id ? `#${node.id}` : `${node.tagName.toLowerCase()}.${[...node.classList].join(".")}`;
})()"""


def focused(player: Player) -> str | None:
    """Where the keyboard is: the focused element (None when the focus fell to <body>)."""
    where: str | None = player.js(ACTIVE)
    return where


# The rack's keys -------------------------------------------------------------------------------

IN_RACK = """(selector) => document.activeElement !== null
  && document.activeElement.closest(selector) !== null"""


def rack_keys(player: Player, screen: dict[str, str]) -> list[str]:
    """What is wrong with the rack's keys on this game ``screen`` (nothing: an empty list):
    from the board, Tab must enter the rack and a second Tab leave it, two Shift+Tab come back
    past it, and inside it the arrows move along the rack's reading direction."""
    page, keyboard, rack = player.page, player.page.keyboard, screen["rack"]
    problems = []
    page.focus(f"{screen['board']} .cell.cursor")
    keyboard.press("Tab")
    if not page.evaluate(IN_RACK, rack):
        return [f"Tab from the board went to {focused(player)}, not into the rack"]
    # The arrows follow the rack's reading direction: in Arabic, ArrowLeft goes forward.
    forward, backward = (
        ("ArrowLeft", "ArrowRight")
        if direction(player, rack) == "rtl"
        else ("ArrowRight", "ArrowLeft")
    )
    first = focused_tile(player, screen)
    if first == player.page.locator(screen["rack_tile"]).count() - 1:  # no next tile: back
        forward, backward = backward, forward
    keyboard.press(forward)
    second = focused_tile(player, screen)
    keyboard.press(backward)
    back = focused_tile(player, screen)
    if second is None or second == first or back != first:
        problems.append(f"arrows: tile {first} → {forward} {second} → {backward} {back}")
    keyboard.press("Tab")
    if page.evaluate(IN_RACK, rack):
        problems.append(f"a second Tab stayed in the rack ({focused_tile(player, screen)})")
    keyboard.press("Shift+Tab")
    keyboard.press("Shift+Tab")
    if page.evaluate(IN_RACK, rack):
        problems.append("two Shift+Tab from after the rack stayed in the rack")
    return problems


TILE_INDEX = """(selector) => {
  const node = document.activeElement;
  const tiles = [...document.querySelectorAll(selector)];
  return tiles.includes(node) ? tiles.indexOf(node) : null;
}"""


DIRECTION = """(selector) => getComputedStyle(document.querySelector(selector)).direction"""


def direction(player: Player, selector: str) -> str:
    """The element's computed direction: "ltr" or "rtl"."""
    found: str = player.page.evaluate(DIRECTION, selector)
    return found


def focused_tile(player: Player, screen: dict[str, str]) -> int | None:
    """Which rack tile (its place in the rack) has the focus, if one does."""
    index: int | None = player.page.evaluate(TILE_INDEX, screen["rack_tile"])
    return index
