"""The home page: what it says when Lexio cannot be offered (R18) — no new table, but an
invitee may still join one already open, as the lobby allows — and errors a player understands
when the code or the name is wrong, or when the connection has made too many tries."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import web_browser
from lexio_testing import SHARED_LOOP_READINESS_TIMEOUT, GatewayFactory, LoopThread
from playwright.sync_api import WebSocket, WebSocketRoute
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory

from lexio_common.grpc_service import RunningServer
from lexio_engine.server import EngineConfig, RunningEngine, start_engine
from lexio_lexicon.server import LexiconConfig, start
from lexio_lobby.games import GameSpec
from lexio_lobby.server import LobbyConfig, RunningLobby, start_lobby

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
    assert_no_axe_violations(visitor, "home, Lexio not available")
    # The page cannot tell a lobby that is down from a lexicon that is (welcome says only
    # "lexio": false): joining stays offered, and trying it says why it cannot be done now.
    visitor.page.fill("#home-name", "Eva")
    visitor.page.fill("#home-code", "K7QF3-XMP9R")
    visitor.page.click("#home-join")
    visitor.page.locator("#home-error", has_text="The server cannot answer right now").wait_for()


def test_wrong_codes_and_names_are_explained(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory()
    visitor = players(gateway.url + "/?join=zzzzz-zzzzz", locale="es")
    visitor.wait_screen("home")
    assert visitor.page.input_value("#home-code") == "zzzzz-zzzzz"
    visitor.page.click("#home-join")
    assert visitor.text("#home-error") == "Elige un nombre de 1 a 24 caracteres."
    assert_no_axe_violations(visitor, "home, a wrong name explained")
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


# -- R18 with the lexicon really stopped ----------------------------------------------------


@dataclass
class Chain:
    """A lexicon of its own (a few words), an engine on it and a lobby asking that engine
    whether Lexio can be offered: a lexicon this test may stop."""

    loop_thread: LoopThread
    lexicon: RunningServer
    engine: RunningEngine
    lobby: RunningLobby
    lexicon_stopped: bool = False

    def gateway_settings(self) -> dict[str, Any]:
        return {
            "engine_address": f"127.0.0.1:{self.engine.port}",
            "lobby_address": f"127.0.0.1:{self.lobby.port}",
        }

    def stop_lexicon(self) -> None:
        self.loop_thread.run(self.lexicon.stop(0))
        self.lexicon_stopped = True


def lexio_on(engine: RunningEngine) -> GameSpec:
    return GameSpec(
        name="lexio",
        min_seats=2,
        max_seats=4,
        health_address=f"127.0.0.1:{engine.port}",
        health_service="lexio.engine.v1.Engine",
    )


def lobby_config(tmp_path: Path, engine: RunningEngine, **overrides: Any) -> LobbyConfig:
    settings: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": 0,
        "metrics_port": -1,
        "db_path": tmp_path / "own-lobby.sqlite3",
        "games": (lexio_on(engine),),
        "readiness_cache": 0.0,
        "readiness_timeout": SHARED_LOOP_READINESS_TIMEOUT,
        "sweep_interval": 3600.0,
        "shutdown_grace": 0.0,
        **overrides,
    }
    return LobbyConfig(**settings)


@pytest.fixture
def chain(loop_thread: LoopThread, tmp_path: Path) -> Iterator[Chain]:
    words = tmp_path / "words.txt"
    words.write_text("ET\nLA\nLE\nOS\n", "ascii")
    lexicon, _ = loop_thread.run(
        start(LexiconConfig(host="127.0.0.1", port=0, metrics_port=-1, wordlist=words)),
        timeout=60,
    )
    engine = loop_thread.run(
        start_engine(
            EngineConfig(
                host="127.0.0.1",
                port=0,
                metrics_port=-1,
                lexicon_address=f"127.0.0.1:{lexicon.port}",
            )
        )
    )
    lobby = loop_thread.run(start_lobby(lobby_config(tmp_path, engine)))
    running = Chain(loop_thread, lexicon, engine, lobby)
    yield running
    loop_thread.run(lobby.stop(0))
    loop_thread.run(engine.stop(0))
    if not running.lexicon_stopped:
        loop_thread.run(lexicon.stop(0))


def wait_for_lexio(loop_thread: LoopThread, gateway: Any, available: bool) -> None:
    """Until the gateway (what its next welcome will say) sees Lexio as ``available``: its
    answer polled (the lobby's, which the gateway keeps for 2 s)."""
    deadline = time.monotonic() + 20
    while (games := loop_thread.run(gateway.hub.available_games())).get("lexio") is not available:
        assert time.monotonic() < deadline, (
            f"Lexio never became available={available} in 20 s: the gateway still sees {games}"
        )
        time.sleep(0.2)


def test_with_the_lexicon_stopped_no_table_opens_but_an_invitee_joins_an_open_one(
    loop_thread: LoopThread, chain: Chain, gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(**chain.gateway_settings())
    wait_for_lexio(loop_thread, gateway, True)
    ana = players(gateway.url + "/")
    code = ana.create("Ana")

    # R18: the lexicon stops; the lobby refuses new tables (game_unavailable) but seats
    # players at open ones (Lobby.join checks no readiness). The page says exactly that.
    chain.stop_lexicon()
    wait_for_lexio(loop_thread, gateway, False)
    bruno = players(gateway.url + "/?join=" + code)
    bruno.wait_screen("home")
    notice = bruno.page.locator("#home-unavailable")
    notice.wait_for()
    assert "Lexio n'est pas disponible pour le moment" in notice.inner_text()
    assert "aucune nouvelle table ne peut être ouverte" in notice.inner_text()
    assert "Une table déjà ouverte peut encore être rejointe" in notice.inner_text()
    assert bruno.page.locator("#home-create").is_hidden()
    assert bruno.page.locator("#home-join").is_visible()
    assert bruno.page.input_value("#home-code") == code
    bruno.page.fill("#home-name", "Bruno")
    bruno.page.click("#home-join")
    bruno.wait_screen("table")
    ana.wait_js("window.lexio.table.seats.length === 2")
    assert "Bruno" in ana.text("#seat-list")

    # Someone arriving without a code meets the same notice and no way to open a table.
    carla = players(gateway.url + "/", locale="es-ES")
    carla.page.locator("#home-unavailable").wait_for()
    assert "no se puede abrir ninguna mesa nueva" in carla.text("#home-unavailable")
    assert carla.page.locator("#home-create").is_hidden()
    assert carla.page.locator("#home-join").is_visible()


# -- Too many tries from one connection -----------------------------------------------------

HOUSEHOLD = "L'attente vaut pour tout le monde sur cette connexion (un foyer, par exemple)."


@pytest.fixture
def strict_lobby(
    loop_thread: LoopThread, engine_server: RunningEngine, tmp_path: Path
) -> Iterator[RunningLobby]:
    """The real lobby with its anti-guessing limit lowered to one unknown code."""
    lobby = loop_thread.run(
        start_lobby(lobby_config(tmp_path, engine_server, join_failures=1, join_window=600.0))
    )
    yield lobby
    loop_thread.run(lobby.stop(0))


def test_the_real_lobby_limit_tells_how_long_to_wait_and_who_is_concerned(
    strict_lobby: RunningLobby, gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(lobby_address=f"127.0.0.1:{strict_lobby.port}")
    visitor = players(gateway.url + "/")
    answers: list[dict[str, Any]] = []

    def watch(socket: WebSocket) -> None:
        def received(payload: str | bytes) -> None:
            frame = json.loads(payload)
            if frame.get("type") == "error":
                answers.append(frame)

        socket.on("framereceived", received)

    visitor.page.on("websocket", watch)
    visitor.page.reload()
    visitor.wait_screen("home")
    visitor.page.fill("#home-name", "Eva")
    visitor.page.fill("#home-code", "ZZZZZ-ZZZZZ")
    visitor.page.click("#home-join")
    visitor.page.locator("#home-error", has_text="Aucune table n'a ce code").wait_for()
    visitor.page.click("#home-join")
    error = visitor.page.locator("#home-error", has_text="Trop d'essais depuis votre connexion")
    error.wait_for()
    text = error.inner_text()
    assert HOUSEHOLD in text
    limited = [frame for frame in answers if frame["code"] == "rate_limited"]
    assert len(limited) == 1
    # The lobby's wait once the gateway passes it on (retry_after), else a plain "later".
    if "retry_after" in limited[0]:
        assert re.match(r"Trop d'essais depuis votre connexion : réessayez dans \d+ min", text)
    else:
        assert text.startswith("Trop d'essais depuis votre connexion : réessayez dans quelques")


def test_a_rate_limited_join_shows_the_wait_counting_down_in_every_frame_shape(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    """The gateway's answers to join are replaced here by each shape a server may send:
    without retry_after (older), with it, and a short one that runs out."""
    gateway = gateway_factory()
    visitor = players(gateway.url + "/")
    waits: list[int | None] = [None, 312, 1]

    def route(page_side: WebSocketRoute) -> None:
        server_side = page_side.connect_to_server()

        def from_page(message: str | bytes) -> None:
            frame = json.loads(message)
            if frame.get("type") != "join":
                server_side.send(message)
                return
            answer = {"type": "error", "id": frame["id"], "code": "rate_limited"}
            wait = waits.pop(0)
            if wait is not None:
                answer["retry_after"] = wait
            page_side.send(json.dumps(answer))

        page_side.on_message(from_page)

    visitor.page.route_web_socket("**/ws", route)
    visitor.page.reload()
    visitor.wait_screen("home")
    visitor.page.fill("#home-name", "Eva")
    visitor.page.fill("#home-code", "K7QF3-XMP9R")
    error = visitor.page.locator("#home-error")

    visitor.page.click("#home-join")
    visitor.page.locator("#home-error", has_text="quelques minutes").wait_for()
    assert error.inner_text() == (
        "Trop d'essais depuis votre connexion : réessayez dans quelques minutes. " + HOUSEHOLD
    )

    visitor.page.click("#home-join")
    visitor.page.locator("#home-error", has_text="min").wait_for()
    # It counts down from 5 min 12 s (how far it got when read depends on the machine).
    assert re.fullmatch(
        r"Trop d'essais depuis votre connexion : réessayez dans 5 min \d{1,2} s\. "
        + re.escape(HOUSEHOLD),
        error.inner_text(),
    ), error.inner_text()
    visitor.page.select_option("#lang", "en")
    visitor.wait_js("document.documentElement.lang === 'en'")
    assert re.fullmatch(
        r"Too many tries from your connection: try again in 5 min \d{1,2} s\. The wait applies "
        r"to everyone on this connection \(a household, for example\)\.",
        error.inner_text(),
    ), error.inner_text()
    visitor.page.select_option("#lang", "fr")
    visitor.wait_js("document.documentElement.lang === 'fr'")

    # A one-second wait: shown, then gone once over.
    visitor.page.click("#home-join")
    visitor.page.locator("#home-error", has_text="réessayez dans 1 s").wait_for()
    visitor.wait_js("document.querySelector('#home-error').textContent === ''")
    assert waits == []

    # The wait in words, in each language (the page's own module).
    durations = "[312, 45, 60, 600, 3725].map((s) => m.formatWait(s))"
    assert visitor.js(f"import('/static/js/errors.js').then((m) => {durations})") == [
        "5 min 12 s",
        "45 s",
        "1 min",
        "10 min",
        "1 h 3 min",
    ]
    visitor.page.select_option("#lang", "ar")
    visitor.wait_js("document.documentElement.lang === 'ar'")
    assert visitor.js(f"import('/static/js/errors.js').then((m) => {durations})") == [
        "5 د 12 ث",
        "45 ث",
        "1 د",
        "10 د",
        "1 س 3 د",
    ]
