"""Connections (R29): a lost connection shows a banner, retries with backoff and restores the
board, the log and the clock without a reload; the table passes for the absent player and the
other sees the seat disconnected; a second tab takes the seat over, and can give it back."""

from __future__ import annotations

import time

import web_browser
from lexio_testing import GatewayFactory, GatewayHandle, LoopThread, restartable_engine
from playwright.sync_api import WebSocketRoute
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory
from web_pages import Player
from web_words import legal_move

from lexio_common.grpc_service import RunningServer

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players


class Network:
    """Bruno's network, through Playwright's WebSocket routing: while it is down, every new
    connection is refused; ``cut`` also drops his connection on the server's side."""

    def __init__(self, loop_thread: LoopThread, gateway: GatewayHandle, name: str) -> None:
        self.down = False
        self.refused = 0
        """The connections the page tried while the network was down."""
        self.loop_thread = loop_thread
        self.gateway = gateway
        self.name = name

    def route(self, page_side: WebSocketRoute) -> None:
        if self.down:
            self.refused += 1
            page_side.close(code=1011, reason="network down")
        else:
            page_side.connect_to_server()

    def until_tried_again(self, player: Player, timeout: float = 20.0) -> None:
        """Until the page tries to connect once more (its backoff's longest step is 15 s).
        Playwright calls :meth:`route` only while this thread is in one of its calls: the
        page is asked something between two looks."""
        tries = self.refused
        deadline = time.monotonic() + timeout
        while self.refused == tries:
            status = " ".join(
                str(player.js("document.querySelector('#banner').textContent")).split()
            )
            assert time.monotonic() < deadline, (
                f"no new try in {timeout} s after {tries} tries; the banner says {status!r}"
            )
            time.sleep(0.05)

    def cut(self) -> None:
        self.down = True

        async def drop() -> None:
            for conn in list(self.gateway.hub.connections):
                if conn.seat is not None and conn.seat.name == self.name:
                    await conn.ws.close(code=1011)

        self.loop_thread.run(drop())


def _game_with_brunos_network(
    loop_thread: LoopThread, gateway: GatewayHandle, players: PlayerFactory
) -> tuple[Player, Player, Network]:
    """Ana and Bruno in a started game, Bruno's WebSocket through :class:`Network`; his page
    marked, so that a reload would show."""
    ana = players(gateway.url + "/")
    code = ana.create("Ana")
    bruno = players(gateway.url + "/")
    network = Network(loop_thread, gateway, "Bruno")
    bruno.page.route_web_socket("**/ws", network.route)
    bruno.page.reload()
    bruno.join(code, "Bruno")
    ana.page.locator("#start-game:enabled").click()
    for player in (ana, bruno):
        player.wait_screen("game")
        player.wait_js("window.lexio.view !== null")
    bruno.js("window.notReloaded = true")
    return ana, bruno, network


def test_lost_connection_banner_backoff_and_resume_without_reload(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=5, disconnect_grace=1.0)
    ana, bruno, network = _game_with_brunos_network(loop_thread, gateway, players)

    network.cut()
    banner = bruno.page.locator("#banner")
    banner.wait_for()
    assert "Connexion perdue" in banner.inner_text()
    assert_no_axe_violations(bruno, "the connection lost banner")
    ana.wait_js("document.querySelector('#players [data-seat=\"1\"]').matches('.offline')")
    assert "hors ligne" in ana.text("#players [data-seat='1']")

    # Meanwhile Ana plays; then Bruno's turn passes by the table (he is away, R29).
    view = ana.view()
    ana.place_by_click(legal_move(view["board"], view["rack"], 1))
    ana.page.click("#btn-validate")
    ana.wait_log(2, timeout=15)
    assert "La table a passé pour Bruno (déconnexion)." in ana.log_text()
    # Still retrying, with backoff: the page tries again and keeps its banner through the
    # refusal; a few tries since the cut, where a page without backoff would have made hundreds.
    network.until_tried_again(bruno)
    assert banner.is_visible()
    assert "Connexion perdue" in banner.inner_text()
    assert network.refused <= 20, f"{network.refused} tries since the cut"

    network.down = False
    bruno.retry_now()
    banner.wait_for(state="hidden")
    bruno.wait_log(2)
    assert bruno.js("window.notReloaded") is True
    assert bruno.js("window.lexio.view.board") == ana.js("window.lexio.view.board")
    log = bruno.log_text()
    assert "Ana :" in log and "La table a passé pour Bruno (déconnexion)." in log
    assert bruno.text("#turn-status") == "Au tour de Ana"
    assert bruno.page.locator("#board .tile").count() >= 2
    clock = bruno.text("#clock")
    assert clock.startswith(("1:", "2:0")), clock
    ana.wait_js("document.querySelector('#players [data-seat=\"1\"]').matches('.online')")


def test_back_while_the_engine_is_away_the_game_returns_by_itself_once_it_answers(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    players: PlayerFactory,
    lexicon_server: RunningServer,
) -> None:
    """Issue 23, as a player sees it: the seat comes back while the engine cannot answer; the
    page says the server cannot answer for now, keeps the seat (no reload, no home page), and
    the game is there again once the engine answers, without the player doing anything."""
    engine = restartable_engine(loop_thread, f"127.0.0.1:{lexicon_server.port}")
    try:
        gateway = gateway_factory(seed=5, engine_address=engine.address, disconnect_grace=60.0)
        ana, bruno, network = _game_with_brunos_network(loop_thread, gateway, players)

        network.cut()
        bruno.page.locator("#banner").wait_for()
        loop_thread.run(engine.stop())
        network.down = False
        bruno.retry_now()  # the gateway answers
        bruno.page.locator("#banner").wait_for(state="hidden")
        toast = bruno.page.locator("#toast")
        toast.wait_for()
        assert "ne peut pas répondre" in toast.inner_text()
        assert_no_axe_violations(bruno, "the game while the engine is away")
        bruno.wait_screen("game")
        bruno.js("window.viewBefore = window.lexio.view")

        loop_thread.run(engine.start())
        # Nobody moves: the seat's view comes by itself once the engine answers.
        bruno.wait_js("window.lexio.view !== window.viewBefore", timeout=20)
        view = ana.view()
        ana.place_by_click(legal_move(view["board"], view["rack"], 1))
        ana.page.click("#btn-validate")
        ana.wait_log(1, timeout=15)
        bruno.wait_log(1, timeout=15)
        assert bruno.js("window.notReloaded") is True
        assert bruno.js("window.lexio.view.board") == ana.js("window.lexio.view.board")
        assert bruno.log_text() == ana.log_text()
    finally:
        engine.close()


def test_a_second_tab_takes_the_seat_and_the_first_can_take_it_back(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=5)
    ana = players(gateway.url + "/")
    ana.create("Ana")
    second = ana.page.context.new_page()
    second.goto(gateway.url + "/")
    second.locator("#screen-table").wait_for()  # same storage: the same seat, resumed
    ana.page.locator("#banner").wait_for()
    assert "autre onglet" in ana.text("#banner")
    ana.page.click("#banner-action")  # "play here"
    second.locator("#banner").wait_for()
    ana.page.locator("#banner").wait_for(state="hidden")
    assert ana.seat() == 0
    second.close()
