"""Lexio's share of issue #25's first-time player defects ("Done when"), checked by behaviour
on a 360×740 touch phone and a 1280×800 desktop (al-Mishqaq's: test_web_first_time.py).

- D4: a finger's drag from the rack lands on the aimed cell.
- D3: the turn line is whole on the phone in fr, es, ar and en ("your turn", "their turn").
- D7: after a refused move on the phone, Valider is still fully in sight.
- D1: the blank's letter picker reads left to right (Lexio's words are French), on an Arabic
  page too.
- The rack is one Tab stop, its tiles reached by the arrows.
axe-core finds no violation on the screens visited.
"""

from __future__ import annotations

import web_browser
from lexio_testing import GatewayFactory
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory
from web_kit import (
    DESKTOP,
    LANGUAGES,
    LEXIO,
    PHONE,
    direction,
    drop_where,
    lexio_table,
    line_is_cut,
    rack_keys,
    still,
    switch_language,
)
from web_pages import Player
from web_words import legal_move, refused_move

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players

SEED = 2  # Ana's first rack: E E ? Q N A E (a blank among them)
REFUSAL_SEED = 5  # as test_web_screen's refusal: Ana's move, then Bruno's refusable pair
# Cells of the 13×13 board away from the first moves' source: the top row, the bottom row.
AIMED = ((0, 2), (12, 10))


def a_letter_tile(player: Player) -> str:
    """A rack tile that is not a blank (a blank would ask for its letter): its selector."""
    tile = player.page.locator(f"{LEXIO['rack_tile']}:not(:has(.tile.blank))").first
    return f'{LEXIO["rack_tile"]}[data-tile="{tile.get_attribute("data-tile")}"]'


def test_d4_a_finger_drag_from_the_rack_lands_on_the_aimed_cell(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    """D4 on Lexio's phone: the rack's bottom edge at the window's bottom (the player scrolled
    down to the rack), a finger drags a tile to a cell of the top row and of the bottom row;
    it must land there."""
    gateway = gateway_factory(seed=SEED)
    ana, _bruno = lexio_table(players, gateway, host=PHONE, guest=DESKTOP)
    assert_no_axe_violations(ana, "Lexio, own turn (fr, phone)")
    landed = {}
    for row, col in AIMED:
        ana.js(f"document.querySelector('{LEXIO['rack']}').scrollIntoView({{block: 'end'}})")
        target = ana.cell(row, col)
        if row == 0:
            # The top row under the sticky header or above the window: the player scrolls
            # the page just enough to see it, the rack still in sight below.
            target.evaluate("(node) => node.scrollIntoView({block: 'nearest'})")
        landed[(row, col)] = drop_where(ana, ana.page.locator(a_letter_tile(ana)), target, LEXIO)
    wrong = {aimed: got for aimed, got in landed.items() if got != [aimed]}
    assert not wrong, f"aimed cell (row, col) → where the tile landed: {wrong}"


def test_d3_the_turn_line_is_whole_on_a_phone_in_four_languages(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    """D3 on Lexio's phone: the mover's turn line and the other's, whole in fr, es, ar and en
    (scrollWidth ≤ clientWidth, no ellipsis, the text inside its box and the window)."""
    gateway = gateway_factory(seed=SEED)
    ana, bruno = lexio_table(players, gateway, host=PHONE, guest=PHONE)
    cut = {}
    for language in LANGUAGES:
        for who, player in (("your turn", ana), ("their turn", bruno)):
            switch_language(player, language)
            cut[f"{language}, {who}"] = line_is_cut(player, LEXIO["turn"])
    cut = {where: why for where, why in cut.items() if why}
    assert not cut, f"360 px: {cut}"


def test_d7_after_a_refusal_on_a_phone_valider_is_still_in_sight(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    """D7: on a phone, a refusal pushed Valider below the fold (761 px on 740). Ana (desktop)
    plays a real move; Bruno (phone) taps two tiles onto the board forming words the lexicon
    does not know, taps Valider where it is (scrolled into sight if it was not), and after the
    refusal it is still fully in sight: he can move a tile and tap it again."""
    gateway = gateway_factory(seed=REFUSAL_SEED)
    ana, bruno = lexio_table(players, gateway, host=DESKTOP, guest=PHONE)
    view = ana.view()
    ana.place_by_click(legal_move(view["board"], view["rack"], 1))
    ana.page.click(LEXIO["validate"])
    bruno.wait_log(1)
    view = bruno.view()
    place, _words = refused_move(view["board"], view["rack"])
    for tile in place.tiles:
        bruno.rack_tile(bruno.rack_letter(tile)).tap()
        target = bruno.cell(tile.row, tile.col)
        target.evaluate("(node) => node.scrollIntoView({block: 'nearest'})")
        target.tap()
    bruno.page.locator(LEXIO["pending"]).nth(len(place.tiles) - 1).wait_for()
    validate = bruno.page.locator(LEXIO["validate"])
    validate.evaluate("(node) => node.scrollIntoView({block: 'nearest'})")
    assert bruno.fully_in_view(LEXIO["validate"])
    bruno.js("window.__viewBefore = window.lexio.view")
    validate.tap()
    bruno.page.locator(f"{LEXIO['message']}.message-refusal").wait_for()
    # The refusal spent a try of the reserve: the view that follows it (sent after the refusal)
    # drawn too, then the page at rest: everything the refusal brings is on the screen.
    bruno.wait_js("window.lexio.view !== window.__viewBefore")
    still(bruno)
    box = validate.bounding_box()
    assert bruno.fully_in_view(LEXIO["validate"]), f"Valider after the refusal: {box} on 360×740"
    assert_no_axe_violations(bruno, "Lexio, a refusal (fr, phone)")


def test_d1_the_blank_letter_picker_reads_left_to_right_on_an_arabic_page(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    """D1's other half: Lexio's blank stands for a French letter, so its picker reads left to
    right, also when the page is in Arabic (the kit gives the picker the script's direction,
    not the page's)."""
    gateway = gateway_factory(seed=SEED)
    ana, _bruno = lexio_table(players, gateway, host=DESKTOP, guest=DESKTOP, language=("ar", "fr"))
    assert ana.js("document.documentElement.dir") == "rtl"
    ana.rack_tile("?").click()
    ana.cell(6, 6).click()
    ana.page.locator(f"{LEXIO['blank_dialog']}[open]").wait_for()
    assert direction(ana, f"{LEXIO['blank_dialog']} .letter-grid") == "ltr"
    assert_no_axe_violations(ana, "Lexio, the blank's letter (ar)")


def test_the_rack_is_one_tab_stop_and_its_tiles_are_reached_by_the_arrows(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    """Issue #25, smaller: every rack tile was a Tab stop. From the board, Tab enters the rack
    and a second Tab leaves it (Shift+Tab the same way back); inside, the arrows move between
    the tiles. On a desktop, in fr and in ar."""
    gateway = gateway_factory(seed=SEED)
    ana, bruno = lexio_table(players, gateway, host=DESKTOP, guest=DESKTOP, language=("fr", "ar"))
    problems = {"fr": rack_keys(ana, LEXIO), "ar": rack_keys(bruno, LEXIO)}
    problems = {language: found for language, found in problems.items() if found}
    assert not problems, problems
