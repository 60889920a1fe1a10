"""Issue 41: what the runs with a real screen reader (tests/screenreader: Orca 43 reading
Chromium) showed a blind player hears wrongly, each checked here in what the page gives the
reader (Chromium's accessibility tree, the focus), where that is enough to tell:

- the board's grid is the board (13×13, 22×22): no header row or column that made every
  row and column number one off, and the header row one cell short (each cell got the
  header of the column to its right: "I column header … H7");
- the cursor's row is named by the cursor's cell: Orca, coming onto the grid from a button
  (the game's start, after "Passer"), reads a named row's name instead of every cell of it;
- a game's start gives the keyboard to the board before the table screen (and its focused
  "copy code" button) is hidden: a focus a reader follows, not one dropped to the document;
- al-Mishqaq's "?" and Alt+P keep the space between their sentences ("دور Ana. Ana: 3 د");
  "?" during a meaning pause says it as a sentence;
- nothing listens to clicks on the whole document, which made every focusable element (the
  end's heading) "clickable" for Orca.
"""

from __future__ import annotations

import re

import web_browser
from lexio_testing import GatewayFactory
from web_axe import ax_grid, ax_row_names, ax_texts
from web_browser import PlayerFactory, start_game
from web_mishqaq import create_table, join, mishqaq_gateway, open_invitation, start
from web_pages import Player

from lexio_lobby.server import RunningLobby

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players

MOUSE_BUTTON_EVENTS = {"click", "mousedown", "mouseup", "DOMActivate"}


def cell_name(row: int, col: int) -> str:
    return f"{chr(65 + col)}{row + 1}"


def assert_grid_is_the_board(player: Player, board: str, size: int) -> None:
    """``size`` rows of ``size`` cells, nothing else, each named with its own coordinates."""
    grid = ax_grid(player, board)
    assert len(grid) == size, [[role for role, _ in row][:2] for row in grid[:2]]
    for row, cells in enumerate(grid):
        assert [role for role, _ in cells] == ["gridcell"] * size, (row, cells[:2])
        for col, (_, name) in enumerate(cells):
            assert re.search(rf"(?<![A-Z]){cell_name(row, col)}(?!\d)", name), (row, col, name)


def assert_cursor_row_named(player: Player, board: str, size: int) -> None:
    node = player.page.locator(f"{board} .cell.cursor")
    row = int(node.get_attribute("data-row") or -1)
    names = ax_row_names(player, board)
    expected = [""] * size
    expected[row] = node.get_attribute("aria-label") or ""
    assert expected[row] and names == expected, (row, names)


def mouse_button_listeners(player: Player) -> list[str]:
    """The click, mousedown, mouseup listeners on the document and the window (Chromium counts
    them as on the page's root element: every focusable element then has a "click ancestor"
    action, which Orca says as "clickable")."""
    cdp = player.page.context.new_cdp_session(player.page)
    try:
        found = []
        for target in ("document", "window"):
            handle = cdp.send("Runtime.evaluate", {"expression": target})["result"]["objectId"]
            listeners = cdp.send("DOMDebugger.getEventListeners", {"objectId": handle})["listeners"]
            found += [
                f"{target} {x['type']}" for x in listeners if x["type"] in MOUSE_BUTTON_EVENTS
            ]
    finally:
        cdp.detach()
    return found


def test_lexio_board_is_13_by_13_and_its_cursor_row_is_named_by_the_cursor_cell(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=5)
    ana, bruno = start_game(players, gateway.url)
    assert_grid_is_the_board(bruno, "#board", 13)
    assert_cursor_row_named(bruno, "#board", 13)

    # The cursor goes down a row: that row takes the name, the one left loses it.
    ana.wait_js("document.activeElement && document.activeElement.matches('#board .cell.cursor')")
    row, _col, _across = ana.cursor()
    ana.page.keyboard.press("ArrowDown")
    ana.wait_js(f"document.querySelector('#board .cell.cursor').dataset.row === '{row + 1}'")
    assert_cursor_row_named(ana, "#board", 13)


def test_a_game_start_gives_the_keyboard_to_the_board_before_the_table_screen_goes(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=5)
    ana = players(gateway.url + "/")
    code = ana.create("Ana")
    bruno = players(gateway.url + "/")
    bruno.join(code, "Bruno")
    bruno.wait_js("document.activeElement && document.activeElement.id === 'copy-code'")
    # Where the keyboard is as the table screen is hidden: a focused element hidden leaves
    # Chromium's tree with its focus on the document until the page moves it (a frame later),
    # and Orca, told the focus went to the document, stayed in browse mode.
    bruno.js(
        """(() => {
          window.__at_hide = [];
          const screen = document.querySelector('#screen-table');
          new MutationObserver(() => {
            if (!screen.hidden) return;
            const node = document.activeElement;
            const cursor = node.matches('#board .cell.cursor');
            window.__at_hide.push(cursor ? 'cursor' : node.outerHTML.slice(0, 60));
          }).observe(screen, { attributes: true, attributeFilter: ['hidden'] });
        })()"""
    )
    ana.page.locator("#start-game:enabled").click()
    bruno.wait_screen("game")
    bruno.wait_js("document.activeElement && document.activeElement.matches('#board .cell.cursor')")
    # The table screen left stays in the tree a moment, out of sight (js/main.js, leave()).
    bruno.wait_js("document.querySelector('#screen-table').hidden", timeout=5)
    assert bruno.js("window.__at_hide") == ["cursor"]


def test_al_mishqaq_board_answers_and_pause_are_read_whole(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=25)  # Latin opens
    ana = players(gateway.url + "/")
    code = create_table(ana, "Ana", side="latin")
    bruno = open_invitation(players, gateway.url, code, "ar-MA")
    join(bruno, "Bruno")
    start(ana, bruno)
    assert_grid_is_the_board(bruno, "#mq-board", 22)
    assert_cursor_row_named(bruno, "#mq-board", 22)

    # "?" and Alt+P (Ana's turn): the sentences and the names keep their spaces in what the
    # reader is given.
    bruno.wait_js(
        "document.activeElement && document.activeElement.matches('#mq-board .cell.cursor')"
    )
    for key, first in (("?", "دور Ana. Ana: "), ("Alt+p", "دور Ana. Ana، الجانب اللاتيني")):
        count = bruno.js("document.querySelectorAll('#live-assertive p').length")
        bruno.page.keyboard.press(key)
        bruno.wait_js(f"document.querySelectorAll('#live-assertive p').length > {count}")
        said = "".join(ax_texts(bruno, "#live-assertive p:last-child"))
        assert said.startswith(first), said
        assert not re.search(r"[.!](?=\S)", said), said

    # "?" in a meaning pause: its sentence, with its time left, before the clocks.
    ana.listen()
    bruno.page.click("#mq-pause")
    ana.page.locator("#mq-pause-panel").wait_for()
    ana.page.locator("#mq-board .cell.cursor").focus()
    start_at = len(ana.heard())
    ana.page.keyboard.press("?")
    summary = ana.wait_heard("Votre chevalet : ", start=start_at)
    assert re.match(r"Pause sens demandée par Bruno, encore .+\. Ana : ", summary["text"]), summary


def test_nothing_listens_to_clicks_on_the_whole_document(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=5)
    ana, _bruno = start_game(players, gateway.url)
    assert mouse_button_listeners(ana) == []
