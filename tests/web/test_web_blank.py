"""Blanks (R15): placing one asks for its letter, the board marks it and shows that letter to
the whole table, it is worth 0; a placed tile can be taken back to the rack."""

from __future__ import annotations

import re

import web_browser
from lexio_testing import GatewayFactory
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players


def test_a_blank_gets_its_letter_and_everyone_sees_it_marked(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=2)  # Ana's first rack: E E ? Q N A E
    ana = players(gateway.url + "/")
    code = ana.create("Ana")
    bruno = players(gateway.url + "/", locale="en-US")
    bruno.join(code, "Bruno")
    ana.page.locator("#start-game:enabled").click()
    for player in (ana, bruno):
        player.wait_js("window.lexio.view !== null")
    assert "?" in ana.view()["rack"]

    # E on the source, then the blank next to it, as a T: "ET".
    ana.rack_tile("E").click()
    ana.cell(6, 6).click()
    ana.rack_tile("?").click()
    ana.cell(6, 7).click()
    dialog = ana.page.locator("#dlg-blank")
    dialog.wait_for()
    assert "Lettre du joker" in dialog.inner_text()
    assert_no_axe_violations(ana, "the blank's letter dialog")
    ana.page.keyboard.press("t")  # typing the letter chooses it
    assert dialog.is_hidden()
    blank = ana.cell(6, 7).locator(".tile.pending.blank")
    assert blank.locator(".tile-letter").inner_text() == "T"
    assert re.search(r"ET 1 pt", ana.preview_text())

    # Taken back (a click on it), the blank is a blank again on the rack; dragged back, it
    # asks again.
    ana.cell(6, 7).click()
    assert ana.page.locator("#rack .tile.blank").count() == 1
    ana.rack_tile("?").drag_to(ana.cell(6, 7))
    ana.page.click('#dlg-blank [data-letter="T"]')
    ana.page.click("#btn-validate")
    for player in (ana, bruno):
        player.wait_log(1)
        tile = player.cell(6, 7).locator(".tile.blank")
        assert tile.locator(".tile-letter").inner_text() == "T"
        assert tile.locator(".tile-value").inner_text() == ""
        assert player.view()["board"][6 * 13 + 7] == "t"
    assert "ET" in bruno.log_text() and "1 pt" in bruno.log_text()
    assert "blank standing for T" in (bruno.cell(6, 7).get_attribute("aria-label") or "")
