"""al-Mishqaq on a touch phone at 360×740 (issue 39, defects 2, 3 and 4), and on a desktop at
1280×800 where the defect can be met there too.

- 2: a rack tile dragged onto a board cell lying under the sticky clocks (the page scrolled
  down, the top of the board's window under them) lands on that cell, which is then scrolled
  into sight; it used to go back to the rack. Every column of the lowest row hidden there.
  And a finger resting just under the clocks pans the board's window up.
- 3: Enter on "Pause sens", then on "Reprendre la partie", keeps the keyboard on the control
  (it fell to <body> on the phone: the button was disabled while the action was on its way,
  and a phone draws a frame before the reply comes: its network is emulated here).
- 4: the clocks' badges name the player's own side and "vous" in words, at their width (on
  the phone they were clipped to 1 px).

axe-core finds no violation on the screens visited. Any page error or CSP violation fails the
tests (the players fixture)."""

from __future__ import annotations

import time
from typing import Any

import web_browser
from lexio_testing import GatewayFactory, eventually_sync
from playwright.sync_api import Locator
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory
from web_kit import (
    DESKTOP,
    MISHQAQ,
    PHONE,
    REST_FRAMES,
    REST_SECONDS,
    centre,
    focused,
    frames,
    in_viewport,
    mishqaq_table,
    pending_cells,
    press,
    still,
)
from web_mishqaq import cell, mishqaq_gateway, rack_tile, side, slow_network
from web_pages import Player

from lexio_lobby.server import RunningLobby

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players

# Seed 135: the Arabic side opens; its rack holds ع (a plain tile: no blank's dialog).
SEED = 135
CLOCKS = ".mq-top"  # the clocks and the status line: stuck to the top of a phone's page
BOX_EDGE = 40  # js/drag.js: a finger this near a side of the board's window pans it


# 2 --------------------------------------------------------------------------------------------

UNDER_THE_CLOCKS = """([wrapSelector, end]) => {
  const wrap = document.querySelector(wrapSelector);
  wrap.scrollTop = 0;
  wrap.scrollLeft = end === "left" ? 0 : wrap.scrollWidth;
  window.scrollBy(0, wrap.getBoundingClientRect().top);
}"""

AIMS = """([wrapSelector, clocksSelector, end, edge]) => {
  const wrap = document.querySelector(wrapSelector).getBoundingClientRect();
  const clocks = document.querySelector(clocksSelector).getBoundingClientRect();
  const cells = [...document.querySelectorAll(`${wrapSelector} .cell[data-drop]`)];
  const box = (node) => node.getBoundingClientRect();
  const hidden = cells.filter(
    (node) => box(node).top >= wrap.top && box(node).bottom <= clocks.bottom);
  const row = Math.max(...hidden.map((node) => Number(node.dataset.row)));
  // Only where the finger on its way cannot pan the window sideways: it is at that end.
  const label = document.querySelector(`${wrapSelector} .row-label`).getBoundingClientRect();
  const left = end === "left" ? label.right : wrap.left + edge;
  const shown = Math.min(wrap.right, innerWidth);
  const right = end === "left" ? shown - edge : shown;
  return hidden.filter((node) => Number(node.dataset.row) === row).filter((node) => {
    const x = box(node).left + box(node).width / 2;
    return x > left && x < right;
  }).map((node) => [Number(node.dataset.row), Number(node.dataset.col)]);
}"""

COVERED_BY = """([node, selector]) => {
  const box = node.getBoundingClientRect();
  const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return top !== null && top.closest(selector) !== null;
}"""


def under_the_clocks(player: Player, end: str) -> None:
    """The page scrolled down until the top of the board's window is at the screen's top, under
    the sticky clocks, as a thumb leaves it; the window at its top row and at its ``end``
    column ("left" or "right")."""
    player.page.evaluate(UNDER_THE_CLOCKS, [MISHQAQ["board_window"], end])
    still(player)


def finger_drag_to(player: Player, source: Locator, x: float, y: float, steps: int = 14) -> None:
    """A finger pressed on ``source``, moved at a hand's pace (a step a frame), rested and
    lifted at (x, y): web_kit.finger_drag, aimed at a point rather than at what shows there."""
    x0, y0 = centre(source)
    cdp = player.page.context.new_cdp_session(player.page)

    def touch(kind: str, points: list[dict[str, float]], at: float) -> None:
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points, "timestamp": at})

    try:
        touch("touchStart", [{"x": x0, "y": y0}], time.time())
        frames(player)
        moved = time.time()
        for i in range(1, steps + 1):
            moved = time.time()
            point = {"x": x0 + (x - x0) * i / steps, "y": y0 + (y - y0) * i / steps}
            touch("touchMove", [point], moved)
            frames(player)
        frames(player, REST_FRAMES)
        lifted = max(time.time(), moved + REST_SECONDS)
        touch("touchMove", [{"x": x, "y": y}], lifted)
        touch("touchEnd", [], lifted)
    finally:
        cdp.detach()


def test_a_tile_dropped_on_a_cell_under_the_sticky_clocks_lands_there(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    """Defect 2: the phone player (ar) has scrolled the page down, so that the top rows of the
    board's window lie under the sticky clocks. A rack tile dragged with a finger onto each
    cell of the lowest row hidden there, in every column (the window at its left end, then at
    its right end), must land on that cell and the cell be brought into sight; the issue saw
    such tiles go back to the rack without a word (6 of 28)."""
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=SEED)
    _ana, bruno = mishqaq_table(players, gateway, host=DESKTOP, guest=PHONE)
    assert side(bruno) == "arabic"
    tile = rack_tile(bruno, "ع")
    aims: list[tuple[str, int, int]] = []
    for end in ("left", "right"):
        under_the_clocks(bruno, end)
        found = bruno.page.evaluate(AIMS, [MISHQAQ["board_window"], CLOCKS, end, BOX_EDGE])
        taken = {(row, col) for _, row, col in aims}
        aims += [(end, row, col) for row, col in found if (row, col) not in taken]
    assert len({col for _, _, col in aims}) == 22, f"not every column aimed at: {aims}"
    wrong: dict[str, Any] = {}
    for end, row, col in aims:
        under_the_clocks(bruno, end)
        aimed = cell(bruno, row, col)
        handle = aimed.element_handle()
        assert bruno.page.evaluate(COVERED_BY, [handle, CLOCKS]), (
            f"the cell ({row}, {col}) is not under the sticky clocks"
        )
        finger_drag_to(bruno, tile, *centre(aimed))
        still(bruno)  # the lift handled, the board drawn again, any scroll over
        landed = pending_cells(bruno, MISHQAQ["pending"])
        if landed != [(row, col)] or not in_viewport(bruno, aimed):
            wrong[f"({row}, {col})"] = {"landed on": landed, "in sight": in_viewport(bruno, aimed)}
        if landed:
            press(bruno, MISHQAQ["recall"])
            bruno.wait_js(f"document.querySelectorAll('{MISHQAQ['pending']}').length === 0")
    assert not wrong, (
        f"{len(wrong)} of {len(aims)} drops on a cell under the clocks went wrong "
        f"(aimed cell → where the tile landed, whether the cell is in sight after): {wrong}"
    )

    # The rows above are reached too: the window panned down, a finger resting just under the
    # clocks pans it up (its own top edge, under them, is out of the finger's reach).
    under_the_clocks(bruno, "left")
    wrap = bruno.page.locator(MISHQAQ["board_window"])
    wrap.evaluate("(node) => { node.scrollTop = node.scrollHeight; }")
    still(bruno)
    before = wrap.evaluate("(node) => node.scrollTop")
    clocks = bruno.page.locator(CLOCKS).bounding_box()
    box = wrap.bounding_box()
    assert clocks is not None and box is not None
    finger_drag_to(bruno, tile, box["x"] + box["width"] / 2, clocks["y"] + clocks["height"] + 8)
    still(bruno)
    after = wrap.evaluate("(node) => node.scrollTop")
    assert after < before, (
        f"a finger resting just under the clocks left the board's window where it was "
        f"(scrollTop {before} → {after})"
    )


# 3 --------------------------------------------------------------------------------------------

SHOWN = """(selector) => { const node = document.querySelector(selector);
  return node !== null && node.checkVisibility(); }"""
PANEL = MISHQAQ["pause_panel"]


def settled(player: Player, kind: str, paused: bool) -> None:
    """Until the page has done all it does for the pause (or resume) just asked: the entry in
    its log, no action in flight (Valider not busy), the pause's panel and its resume button
    shown (or gone), and the page at rest."""
    logged = (
        f"window.lexio.log.length > 0 && window.lexio.log.at(-1).kind === '{kind}'"
        f" && !document.querySelector('{MISHQAQ['validate']}').classList.contains('busy')"
    )

    def shown() -> list[bool]:
        return [bool(player.page.evaluate(SHOWN, s)) for s in (PANEL, MISHQAQ["resume"])]

    eventually_sync(
        lambda: bool(player.js(logged)) and shown() == [paused, paused],
        lambda: (
            f"no {kind} done: the log's last entry {player.js('window.lexio.log.at(-1)')}, "
            f"the panel and resume shown: {shown()}"
        ),
        10.0,
        every=0.05,
    )
    still(player)


def test_enter_on_the_pause_and_on_resume_keeps_the_keyboard_on_the_control(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    """Defect 3: the phone player (ar, 360×740) and the desktop player (fr, 1280×800), each on a
    phone's network, focus "Pause sens" and press Enter; once the pause is shown the focus is
    on the pause control (or on the resume button in its place), never on <body>. Then Enter
    again resumes, and the focus is on the pause control still."""
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=SEED)
    ana, bruno = mishqaq_table(players, gateway, host=DESKTOP, guest=PHONE)
    controls = (MISHQAQ["pause"], MISHQAQ["resume"])
    seen: dict[str, str | None] = {}
    for device, player in (("phone", bruno), ("desktop", ana)):
        network = slow_network(player)
        player.page.locator(f"{MISHQAQ['pause']}:enabled").wait_for()
        still(player)
        player.page.focus(MISHQAQ["pause"])
        player.page.keyboard.press("Enter")
        settled(player, "pause", paused=True)
        seen[f"{device}, paused"] = focused(player)
        if device == "phone":
            assert_no_axe_violations(player, "al-Mishqaq, own meaning pause (ar, phone)")
        assert focused(player) in controls, (
            f"after Enter on the pause ({device}) the focus is on {focused(player)} "
            f"(None: <body>), not on {controls}; so far: {seen}"
        )
        player.page.keyboard.press("Enter")
        settled(player, "resume", paused=False)
        seen[f"{device}, resumed"] = focused(player)
        assert focused(player) == MISHQAQ["pause"], (
            f"after Enter on resume ({device}) the focus is on {focused(player)} "
            f"(None: <body>), not on {MISHQAQ['pause']}; so far: {seen}"
        )
        network.detach()


# 4 --------------------------------------------------------------------------------------------

BADGES = """(selector) => [
  ...document.querySelectorAll(`${selector} .mq-clock-badges .badge`)
].map((badge) => {
  const box = badge.getBoundingClientRect();
  const within = badge.parentElement.getBoundingClientRect();
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  const top = document.elementFromPoint(x, y);
  return {
    text: badge.textContent,
    width: box.width,
    shown: Math.max(0, Math.min(box.right, within.right) - Math.max(box.left, within.left)),
    textWidth: badge.scrollWidth,
    clientWidth: badge.clientWidth,
    seen: top !== null && badge.contains(top),
  };
})"""


def badge_problems(player: Player, of_side: str, side_words: str) -> list[str]:
    """What is wrong with the badges of the player's own clock (nothing: an empty list)."""
    own = f'#mq-clocks .mq-clock.me[data-side="{of_side}"]'
    badges: list[dict[str, Any]] = player.page.evaluate(BADGES, own)
    problems = []
    texts = [badge["text"] for badge in badges]
    for want in (side_words, "vous"):
        if want not in texts:
            problems.append(f"no badge {want!r} on the own clock (badges: {texts})")
    for badge in badges:
        cut = (
            badge["width"] <= 10
            or badge["textWidth"] > badge["clientWidth"] + 1
            or badge["shown"] < badge["textWidth"] - 1
            or not badge["seen"]
        )
        if cut:
            problems.append(f"badge not shown whole: {badge}")
    return problems


def test_the_own_clock_names_the_side_and_you_in_words_on_a_phone_and_a_desktop(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    """Defect 4: the badges "côté latin"/"côté arabe" and "vous" of the player's own clock are
    shown at their width (the phone shrank them to 1 px, leaving the side told by a colour and
    an underline only): on the host's phone (fr, Latin side) and the guest's desktop (fr,
    Arabic side)."""
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=SEED)
    ana, bruno = mishqaq_table(
        players, gateway, host=PHONE, guest=DESKTOP, language=("fr", "fr"), side="latin"
    )
    problems: dict[str, list[str]] = {}
    for device, player, of_side, words in (
        ("phone", ana, "latin", "côté latin"),
        ("desktop", bruno, "arabic", "côté arabe"),
    ):
        assert side(player) == of_side
        player.js("window.scrollTo(0, 0)")
        still(player)
        found = badge_problems(player, of_side, words)
        if found:
            problems[device] = found
        assert_no_axe_violations(player, f"al-Mishqaq, the clocks with their badges ({device})")
    assert not problems, f"the own side is not named in words: {problems}"
