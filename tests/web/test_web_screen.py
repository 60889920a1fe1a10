"""The game screen as a first-time player meets it: at 1280×800 the whole table (board, rack,
a refusal, the buttons) fits the window and a tile drags from the rack to row 1; on a phone the
page scrolls by itself during a drag; the keyboard cursor stands out only while the board has
the focus; the legend of the bonus cells is open on the first screen until closed once."""

from __future__ import annotations

import web_browser
from lexio_testing import GatewayFactory
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory, start_game
from web_pages import Player
from web_words import legal_move, refused_move

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players

BUTTONS = ("#btn-validate", "#btn-recall", "#btn-shuffle", "#btn-exchange", "#btn-pass")
ROW_1 = 0
FREE_IN_ROW_1 = 2  # C1: plain, never covered by the first moves of these games


def refusal_for_bruno(ana: Player, bruno: Player) -> None:
    """Ana plays a real move; Bruno then places two tiles forming words the lexicon does not
    know, and validates: a real refusal, naming every refused word (R19)."""
    view = ana.view()
    ana.place_by_click(legal_move(view["board"], view["rack"], 1))
    ana.page.click("#btn-validate")
    bruno.wait_log(1)
    view = bruno.view()
    place, words = refused_move(view["board"], view["rack"])
    bruno.place_by_click(place)
    bruno.preview_text()
    bruno.page.click("#btn-validate")
    bruno.page.locator("#message.message-refusal").wait_for()
    for word in words:
        assert f"Le lexique ne reconnaît pas « {word} »." in bruno.text("#message")


def a_letter_tile(player: Player) -> tuple[str, str]:
    """A rack tile that is not a blank (a blank would ask for its letter): (selector, letter)."""
    tile = player.page.locator("#rack .rack-tile:not(:has(.tile.blank))").first
    number = tile.get_attribute("data-tile")
    letter = tile.locator(".tile-letter").inner_text()
    return f'#rack .rack-tile[data-tile="{number}"]', letter


def pending_letter(player: Player, row: int, col: int) -> str:
    pending = player.cell(row, col).locator(".tile.pending .tile-letter")
    return pending.inner_text() if pending.count() else ""


def test_at_1280_by_800_the_table_fits_with_a_refusal_and_a_tile_drags_to_row_1(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=5)
    ana, bruno = start_game(players, gateway.url, sizes=((1280, 800), (1280, 800)))
    refusal_for_bruno(ana, bruno)

    # Nothing below the window: no scrolling needed, the buttons and the refusal in full.
    assert bruno.js("document.documentElement.scrollHeight <= window.innerHeight")
    assert bruno.js("window.scrollY") == 0
    for selector in (*BUTTONS, "#message", "#rack"):
        assert bruno.fully_in_view(selector), selector
    assert_no_axe_violations(bruno, "a refusal at 1280×800")
    assert bruno.fully_in_view(f"#board .cell[data-row='{ROW_1}'][data-col='{FREE_IN_ROW_1}']")

    # From the rack to row 1 with the mouse: pressed, moved, released; the tile lands there.
    selector, letter = a_letter_tile(bruno)
    bruno.drag_by_mouse(bruno.page.locator(selector), bruno.cell(ROW_1, FREE_IN_ROW_1))
    assert pending_letter(bruno, ROW_1, FREE_IN_ROW_1) == letter
    assert bruno.page.locator(selector).count() == 0  # it left the rack

    # The board follows the window's height: a shorter window, a smaller board, still no scroll.
    tall = bruno.page.locator("#board").bounding_box()
    bruno.page.set_viewport_size({"width": 1280, "height": 680})
    bruno.wait_js("document.documentElement.scrollHeight <= window.innerHeight")
    short = bruno.page.locator("#board").bounding_box()
    assert tall is not None and short is not None
    assert short["height"] < tall["height"]
    for selector in BUTTONS:
        assert bruno.fully_in_view(selector), selector


def test_on_a_phone_the_page_scrolls_during_a_drag_up_to_row_1(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=5)
    ana, bruno = start_game(players, gateway.url, sizes=((1280, 800), (360, 740)))
    refusal_for_bruno(ana, bruno)

    # Scrolled down to the refusal, as a player reading it would: row 1 is out of sight
    # (above the window or under the sticky scores). The buttons stick to the window's bottom
    # on a phone (issue 25, D7), so scrolling to them no longer scrolls the page.
    bruno.js("document.querySelector('#message').scrollIntoView({block: 'center'})")
    assert bruno.fully_in_view("#btn-pass")
    assert bruno.js("window.scrollY") > 0
    covered = bruno.js("document.querySelector('.game-top').getBoundingClientRect().bottom")
    target = bruno.cell(ROW_1, FREE_IN_ROW_1)
    box = target.bounding_box()
    assert box is not None and box["y"] < covered

    # Pressed on a rack tile, held near the top: the page scrolls up by itself, then the
    # tile is released on row 1.
    selector, letter = a_letter_tile(bruno)
    tile = bruno.page.locator(selector).bounding_box()
    assert tile is not None
    mouse = bruno.page.mouse
    mouse.move(tile["x"] + tile["width"] / 2, tile["y"] + tile["height"] / 2)
    mouse.down()
    mouse.move(180, covered / 2, steps=10)
    bruno.wait_js("window.scrollY === 0")
    box = target.bounding_box()
    assert box is not None
    mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=5)
    mouse.up()
    assert pending_letter(bruno, ROW_1, FREE_IN_ROW_1) == letter
    assert bruno.js("document.documentElement.scrollWidth") <= 360
    assert_no_axe_violations(bruno, "the game on a 360 px phone")


CURSOR_STYLE = """(() => {
  const cell = document.querySelector("#board .cell.cursor");
  const style = getComputedStyle(cell);
  return {
    outline: `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`,
    arrow: getComputedStyle(cell, "::after").content,
  };
})()"""


def test_the_keyboard_cursor_stands_out_only_while_the_board_has_the_focus(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=5)
    ana, _bruno = start_game(players, gateway.url)
    ana.page.focus("#board .cell.cursor")
    focused = ana.js(CURSOR_STYLE)
    assert focused["outline"].startswith("solid 3px")
    assert focused["arrow"] == '"→"'

    ana.page.focus("#btn-shuffle")
    elsewhere = ana.js(CURSOR_STYLE)
    assert elsewhere != focused
    assert elsewhere["outline"].startswith("dashed")
    assert elsewhere["arrow"] == "none"

    # A click on a cell gives the board the focus: the cursor is there, marked again.
    ana.cell(3, 5).click()
    assert ana.cursor()[:2] == (3, 5)
    assert ana.js(CURSOR_STYLE) == focused


def test_the_legend_is_open_on_the_first_screen_until_the_player_closes_it(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=5)
    ana, bruno = start_game(players, gateway.url, sizes=((1280, 800), (1280, 800)))
    legend = ana.page.locator("#legend-box")
    assert legend.get_attribute("open") is not None
    items = ana.page.locator("#legend-box .legend li")
    assert items.count() == 7
    assert "M×3" in ana.text("#legend-box") and "Mot compte triple" in ana.text("#legend-box")
    for index in range(items.count()):
        assert ana.fully_in_view(f"#legend-box .legend li:nth-child({index + 1})"), index
    assert ana.js("window.scrollY") == 0

    # Closed once, it stays closed, even after a reload; opened again, it is remembered open.
    ana.page.click("#legend-box summary")
    ana.wait_js("localStorage.getItem('lexio.legend') === 'closed'")
    ana.page.reload()
    ana.wait_screen("game")
    ana.wait_js("window.lexio.view !== null")
    assert legend.get_attribute("open") is None
    ana.page.click("#legend-box summary")
    ana.wait_js("localStorage.getItem('lexio.legend') === null")
    assert legend.get_attribute("open") is not None

    # Each person's own choice: Bruno never closed his.
    assert bruno.page.locator("#legend-box").get_attribute("open") is not None
