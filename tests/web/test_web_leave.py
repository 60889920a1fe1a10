"""Leaving a game in progress (R29): asked first, with what it means; the socket closes, the
other players see the seat away and the table passes for it on its turn (in words that fit
anyone); the leaver is on the home page, stays away across a reload, and comes back to the
same seat with the token this browser kept."""

from __future__ import annotations

import web_browser
from lexio_testing import GatewayFactory, GatewayHandle, LoopThread
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory, start_game
from web_words import legal_move

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players

BRUNO_OFFLINE = "document.querySelector('#players [data-seat=\"1\"]').matches('.offline')"
BRUNO_ONLINE = "document.querySelector('#players [data-seat=\"1\"]').matches('.online')"


def connected_as(loop_thread: LoopThread, gateway: GatewayHandle, name: str) -> bool:
    """Whether the gateway holds a connection seated as ``name``."""

    async def look() -> bool:
        return any(c.seat is not None and c.seat.name == name for c in gateway.hub.connections)

    return loop_thread.run(look())


def test_leaving_mid_game_keeps_the_seat_the_table_passes_and_the_player_comes_back(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=5, disconnect_grace=1.0)
    ana, bruno = start_game(players, gateway.url)
    ana.listen()
    token = bruno.js("localStorage.getItem('lexio.token')")
    assert token

    # Asked first, with what leaving means; "cancel" keeps him at the table.
    bruno.page.click("#btn-leave")
    bruno.page.locator("#dlg-confirm[open]").wait_for()
    question = bruno.text("#dlg-confirm")
    assert "Quitter la table ?" in question
    assert "Votre place reste à vous, avec vos jetons." in question
    assert "la table passera pour vous" in question
    assert "sur cet appareil et dans ce navigateur" in question
    assert bruno.js("document.activeElement.id") == "confirm-cancel"  # the safe choice
    assert_no_axe_violations(bruno, "the leave dialog")
    bruno.page.click("#dlg-confirm button[data-close='']")
    assert bruno.page.locator("#screen-game").is_visible()
    assert connected_as(loop_thread, gateway, "Bruno")

    bruno.page.click("#btn-leave")
    bruno.page.click("#confirm-ok")
    bruno.wait_screen("home")
    away = bruno.page.locator("#home-away")
    away.wait_for()
    assert "Une partie vous attend" in away.inner_text()
    assert bruno.js("localStorage.getItem('lexio.token')") == token
    assert bruno.page.locator("#home-create").is_visible()  # he may also start something new
    assert_no_axe_violations(bruno, "home, a game waiting")

    # His socket is closed: Ana sees the seat away, and the gateway holds no connection for it.
    ana.wait_js(BRUNO_OFFLINE)
    assert "hors ligne" in ana.text("#players [data-seat='1']")
    assert not connected_as(loop_thread, gateway, "Bruno")

    # Ana plays; on Bruno's turn the table passes for him after the grace (R29).
    view = ana.view()
    ana.place_by_click(legal_move(view["board"], view["rack"], 1))
    ana.page.click("#btn-validate")
    ana.wait_log(2, timeout=15)
    entry = ana.js("window.lexio.log[1]")
    assert (entry["kind"], entry["seat"], entry["cause"]) == ("pass", 1, "disconnected")
    line = ana.text("#log .log-entry[data-number='2'] .log-body")
    assert line == "La table a passé pour Bruno (déconnexion)."
    ana.wait_heard("La table a passé pour Bruno (déconnexion). À vous de jouer !")

    # He chose to leave: a reload keeps him on the home page, still away.
    bruno.page.reload()
    bruno.wait_screen("home")
    away.wait_for()
    assert not connected_as(loop_thread, gateway, "Bruno")

    # Coming back: the same seat, the board and the log as they are now.
    bruno.page.click("#home-come-back")
    bruno.wait_screen("game")
    bruno.wait_log(2)
    assert bruno.seat() == 1
    assert bruno.js("window.lexio.view.board") == ana.js("window.lexio.view.board")
    assert "La table a passé pour Bruno (déconnexion)." in bruno.log_text()
    assert bruno.text("#turn-status") == "Au tour de Ana"
    assert bruno.js("localStorage.getItem('lexio.away')") is None
    assert bruno.js("localStorage.getItem('lexio.token')") == token
    ana.wait_js(BRUNO_ONLINE)
    assert connected_as(loop_thread, gateway, "Bruno")
