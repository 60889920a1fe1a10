"""The home page: what it says when Lexio cannot be offered (R18), and errors a player
understands when the code or the name is wrong."""

from __future__ import annotations

import web_browser
from lexio_testing import GatewayFactory
from web_browser import PlayerFactory

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players


def test_the_home_page_says_lexio_is_not_available_instead_of_offering_a_table(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    # No lobby answers this gateway: no game can be offered.
    gateway = gateway_factory(lobby_address="127.0.0.1:9", rpc_timeout=1.0)
    visitor = players(gateway.url + "/", locale="en-GB")
    visitor.wait_screen("home")
    notice = visitor.page.locator("#home-unavailable")
    notice.wait_for()
    assert "Lexio is not available right now" in notice.inner_text()
    assert visitor.page.locator("#home-create").is_hidden()
    assert visitor.page.locator("#home-join").is_hidden()


def test_wrong_codes_and_names_are_explained(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory()
    visitor = players(gateway.url + "/?join=zzzzz-zzzzz", locale="es")
    visitor.wait_screen("home")
    assert visitor.page.input_value("#home-code") == "zzzzz-zzzzz"
    visitor.page.click("#home-join")
    assert visitor.text("#home-error") == "Elige un nombre de 1 a 24 caracteres."
    assert visitor.js("document.activeElement.id") == "home-name"
    visitor.page.fill("#home-name", "Eva")
    visitor.page.click("#home-join")
    visitor.page.locator("#home-error", has_text="Ninguna mesa tiene este código").wait_for()
    visitor.page.fill("#home-code", "??")
    visitor.page.click("#home-join")
    assert visitor.text("#home-error") == "Escribe el código de invitación que te han dado."


def test_the_waiting_table_copy_and_leave(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory()
    ana = players(gateway.url + "/")
    code = ana.create("Ana")
    ana.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    ana.page.click("#copy-code")
    ana.page.locator("#copy-status", has_text="Copié !").wait_for()
    assert ana.js("navigator.clipboard.readText()") == code
    bruno = players(gateway.url + "/")
    bruno.join(code, "Bruno")
    ana.wait_js("window.lexio.table.seats.length === 2")
    assert ana.page.locator("#start-game").is_enabled()
    bruno.page.click("#leave-table")
    bruno.wait_screen("home")
    assert bruno.js("localStorage.getItem('lexio.token')") is None
    ana.wait_js("window.lexio.table.seats.length === 1")
    assert ana.page.locator("#start-game").is_disabled()
    assert "Il faut au moins 2 joueurs" in ana.text("#table-hint")

    # When the host leaves, the next to have arrived hosts the table (and may start it).
    cleo = players(gateway.url + "/?join=" + code)
    cleo.page.fill("#home-name", "Cléo")
    cleo.page.click("#home-join")
    cleo.wait_screen("table")
    assert cleo.page.locator("#start-game").is_hidden()
    ana.page.click("#leave-table")
    ana.wait_screen("home")
    cleo.wait_js("window.lexio.table.seats.length === 1")
    assert cleo.js("window.lexio.table.seats[0].host") is True
    assert cleo.page.locator("#start-game").is_visible()
    assert "hôte" in cleo.text("#seat-list")
