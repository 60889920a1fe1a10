"""Games as configuration: a second game with other limits, readiness checks against real
health servers (a closed port, a flipping health status, the real engine), and parsing."""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from lexio_testing import LoopThread
from lobby_fixtures import CARDS, PARTY, LobbyHarness, lobby_config, refusal

from lexio.lobby.v1 import lobby_pb2 as pb
from lexio_common.config import ConfigError
from lexio_common.grpc_service import RunningServer, start_grpc_server
from lexio_engine.games import GAMES as ENGINE_GAMES
from lexio_engine.server import EngineConfig, RunningEngine, start_engine
from lexio_lobby import games as lobby_games
from lexio_lobby.games import GameConfigError, GameSpec, parse_games, site_games
from lexio_lobby.server import DEFAULT_GAMES, LobbyConfig

UNAVAILABLE = (grpc.StatusCode.UNAVAILABLE, "game_unavailable")
GAME_SERVICE = "example.game.v1.Game"


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def make_lobby(loop_thread: LoopThread, tmp_path: Path) -> Iterator[Callable[..., LobbyHarness]]:
    started: list[LobbyHarness] = []

    def make(*games: GameSpec) -> LobbyHarness:
        config = lobby_config(tmp_path / f"lobby{len(started)}.sqlite3", games=games)
        harness = LobbyHarness(loop_thread, config).start()
        started.append(harness)
        return harness

    yield make
    for harness in started:
        harness.stop()


class _CountChecks(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Counts health Check calls reaching a server."""

    def __init__(self) -> None:
        self.checks = 0

    async def intercept_service(
        self, continuation: Callable[[Any], Any], handler_call_details: Any
    ) -> Any:
        if handler_call_details.method.endswith("/Check"):
            self.checks += 1
        return await continuation(handler_call_details)


@pytest.fixture
def game_health(loop_thread: LoopThread) -> Iterator[tuple[RunningServer, _CountChecks]]:
    """A bare grpc.health.v1 server standing for some game's back end (NOT_SERVING at first)."""
    counter = _CountChecks()
    server = loop_thread.run(
        start_grpc_server(
            host="127.0.0.1",
            port=0,
            register=lambda _: None,
            service_names=[GAME_SERVICE],
            interceptors=[counter],
        )
    )
    yield server, counter
    loop_thread.run(server.stop(0))


def test_a_second_game_with_other_limits_uses_the_same_lobby(
    make_lobby: Callable[..., LobbyHarness],
) -> None:
    lobby = make_lobby(CARDS, PARTY)
    party_id, party_code = lobby.seated_table(2, game="party")
    cards_id, _ = lobby.seated_table(2, game="cards")
    table = lobby.get(party_id).table
    assert (table.game, table.min_seats, table.max_seats) == ("party", 3, 6)
    assert refusal(lobby.start_table, party_id, "p0")[1] == "not_enough_players"
    assert lobby.start_table(cards_id, "p0").state == pb.TABLE_STATE_STARTED
    for i in range(2, 6):
        assert lobby.join(party_code, f"p{i}").seat == i
    assert refusal(lobby.join, party_code, "p6")[1] == "table_full"
    started = lobby.start_table(party_id, "p0")
    assert [s.player_id for s in started.seats] == [f"p{i}" for i in range(6)]


def test_a_game_whose_back_end_is_down_is_not_offered(
    make_lobby: Callable[..., LobbyHarness],
) -> None:
    down = GameSpec("down", 2, 4, f"127.0.0.1:{closed_port()}", GAME_SERVICE)
    lobby = make_lobby(CARDS, down)
    assert refusal(lobby.create, game="down") == UNAVAILABLE
    games = lobby.stub.ListGames(pb.ListGamesRequest()).games
    assert {g.name: g.available for g in games} == {"cards": True, "down": False}
    assert lobby.sample("lexio_lobby_game_ready", game="down") == 0
    # The other game is unaffected, and so are tables already open.
    assert lobby.create(game="cards").table.state == pb.TABLE_STATE_OPEN


def test_each_games_readiness_is_reported_before_anyone_asks(
    make_lobby: Callable[..., LobbyHarness],
) -> None:
    """Issue 17: the gauge has a value from the start (a game without a check is ready, one
    whose back end is down is not), not only once a table is created."""
    down = GameSpec("down", 2, 4, f"127.0.0.1:{closed_port()}", GAME_SERVICE)
    lobby = make_lobby(CARDS, down)
    deadline = time.monotonic() + 10
    ready = {}
    while time.monotonic() < deadline:
        ready = {
            game: lobby.registry.get_sample_value("lexio_lobby_game_ready", {"game": game})
            for game in ("cards", "down")
        }
        if None not in ready.values():
            break
        time.sleep(0.02)
    assert ready == {"cards": 1, "down": 0}


def test_readiness_follows_the_health_check_with_a_short_cache(
    make_lobby: Callable[..., LobbyHarness],
    game_health: tuple[RunningServer, _CountChecks],
    loop_thread: LoopThread,
) -> None:
    server, counter = game_health
    lobby = make_lobby(GameSpec("game", 2, 4, f"127.0.0.1:{server.port}", GAME_SERVICE))
    assert refusal(lobby.create, game="game") == UNAVAILABLE
    loop_thread.run(server.set_serving(True))
    # Within the cache period the last answer stands...
    assert refusal(lobby.create, game="game") == UNAVAILABLE
    lobby.clock.advance(1.0)
    # ...then the next call checks again.
    assert lobby.create(game="game").table.game == "game"
    assert lobby.sample("lexio_lobby_game_ready", game="game") == 1
    checks = counter.checks
    for i in range(20):  # a burst of creations costs no further check
        lobby.create(game="game", player=f"h{i}")
    assert counter.checks == checks == 2
    loop_thread.run(server.set_serving(False))
    lobby.clock.advance(1.0)
    assert refusal(lobby.create, game="game") == UNAVAILABLE


def test_lexio_is_refused_while_its_engine_cannot_reach_a_lexicon(
    make_lobby: Callable[..., LobbyHarness], loop_thread: LoopThread
) -> None:
    """R18 along the real chain: engine up, lexicon down, so the engine is not ready for
    Lexio. The same engine is ready for a game that asks no words (the first such registered
    game): its health name is SERVING while the process is (since the one engine contract;
    before, every game's health followed the lexicon's)."""
    engine: RunningEngine = loop_thread.run(
        start_engine(
            EngineConfig(
                host="127.0.0.1",
                port=0,
                metrics_port=-1,
                lexicon_address=f"127.0.0.1:{closed_port()}",
            )
        )
    )
    try:
        address = f"127.0.0.1:{engine.port}"
        lexio = GameSpec("lexio", 2, 4, address, "lexio.engine.v1.Engine")
        wordless = next(g for g in ENGINE_GAMES if not g.asks_words)
        lobby = make_lobby(lexio, GameSpec(wordless.name, 2, 2, address, wordless.health_name))
        assert refusal(lobby.create, game="lexio") == UNAVAILABLE
        assert lobby.create(game=wordless.name).table.game == wordless.name
        games = lobby.stub.ListGames(pb.ListGamesRequest()).games
        assert {g.name: g.available for g in games} == {"lexio": False, wordless.name: True}
    finally:
        loop_thread.run(engine.stop(0))


def test_lexio_is_offered_once_the_real_engine_serves(
    make_lobby: Callable[..., LobbyHarness], engine_server: RunningEngine
) -> None:
    lexio = GameSpec("lexio", 2, 4, f"127.0.0.1:{engine_server.port}", "lexio.engine.v1.Engine")
    lobby = make_lobby(lexio)
    deadline = time.monotonic() + 20
    while True:  # the engine turns SERVING once it sees the (session's) lexicon serving
        try:
            created = lobby.create(game="lexio")
            break
        except grpc.RpcError as e:
            assert (e.code(), e.details()) == UNAVAILABLE
            assert time.monotonic() < deadline, "the engine never became ready"
            lobby.clock.advance(1.0)
            time.sleep(0.05)
    assert (created.table.min_seats, created.table.max_seats) == (2, 4)
    assert lobby.stub.ListGames(pb.ListGamesRequest()).games[0].available


# -- configuration --------------------------------------------------------------------------


def test_games_parse_from_json() -> None:
    games = parse_games(
        '[{"name": "lexio", "min_seats": 2, "max_seats": 4,'
        ' "health_address": "127.0.0.1:50051", "health_service": "lexio.engine.v1.Engine"},'
        ' {"name": "party-2", "min_seats": 3, "max_seats": 8}]'
    )
    assert games == (
        GameSpec("lexio", 2, 4, "127.0.0.1:50051", "lexio.engine.v1.Engine"),
        GameSpec("party-2", 3, 8, None, ""),
    )


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "not JSON"),
        ("{}", "non-empty JSON list"),
        ("[]", "non-empty JSON list"),
        ('[{"name": "a", "min_seats": 3, "max_seats": 2}]', "min_seats <= max_seats"),
        ('[{"name": "a", "min_seats": 0, "max_seats": 2}]', "min_seats <= max_seats"),
        ('[{"name": "a", "min_seats": 1, "max_seats": 65}]', "max_seats <= 64"),
        ('[{"name": "A b", "min_seats": 1, "max_seats": 2}]', "game name"),
        ('[{"name": "a", "min_seats": "2", "max_seats": 4}]', "min_seats must be an integer"),
        ('[{"name": "a", "min_seats": 2, "max_seats": 4, "seats": 3}]', "unknown keys"),
        ('[{"name": "a", "min_seats": 2, "max_seats": 4, "health_address": 5}]', "string"),
        (
            '[{"name": "a", "min_seats": 2, "max_seats": 4},'
            ' {"name": "a", "min_seats": 2, "max_seats": 3}]',
            "registered twice",
        ),
    ],
)
def test_bad_game_configuration_is_refused_with_a_reason(text: str, why: str) -> None:
    with pytest.raises(GameConfigError, match=why):
        parse_games(text)


def test_config_from_env_defaults_to_both_games_on_the_local_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in list(os.environ):
        if name.startswith("LEXIO_"):
            monkeypatch.delenv(name)
    config = LobbyConfig.from_env()
    assert config.games == DEFAULT_GAMES
    lexio, mishqaq = DEFAULT_GAMES
    assert (lexio.name, lexio.min_seats, lexio.max_seats) == ("lexio", 2, 4)
    assert (lexio.health_address, lexio.health_service) == (
        "127.0.0.1:50051",
        "lexio.engine.v1.Engine",
    )
    # M1–M3: two seats, and the options fixed with the invitation.
    assert (mishqaq.name, mishqaq.min_seats, mishqaq.max_seats) == ("mishqaq", 2, 2)
    assert mishqaq.health_service == "lexio.mishqaq.v1.Engine"
    assert {o.name: (o.choices, o.default) for o in mishqaq.options} == {
        "host_side": (("latin", "arabic"), "latin"),
        "latin": (("fr", "en"), "fr"),
        "latin_minutes": ((20, 25, 30, 35, 40), 30),
        "arabic_minutes": ((20, 25, 30, 35, 40), 30),
    }
    assert (config.host, config.port, config.metrics_port) == ("127.0.0.1", 50053, 9103)
    assert config.db_path == Path("var/lobby.sqlite3")
    assert (config.code_ttl, config.join_failures, config.join_window) == (86400, 10, 600)


def test_the_site_games_are_a_file_checked_at_the_site_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 24: the site's games are configuration (lexio_lobby/site_games.json, in the
    format of LEXIO_LOBBY_GAMES), not code; where their engine runs is the deployment's
    (LEXIO_ENGINE_ADDRESS, as the gateway's), and a set LEXIO_LOBBY_GAMES replaces them."""
    listed = json.loads(lobby_games.SITE_GAMES_FILE.read_text(encoding="utf-8"))
    assert [g["name"] for g in listed] == [g.name for g in DEFAULT_GAMES]
    assert not any("health_address" in g for g in listed)
    assert site_games("127.0.0.1:50051") == DEFAULT_GAMES
    for name in list(os.environ):
        if name.startswith("LEXIO_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("LEXIO_ENGINE_ADDRESS", "engine:50051")
    assert LobbyConfig.from_env().games == tuple(
        dataclasses.replace(g, health_address="engine:50051") for g in DEFAULT_GAMES
    )
    monkeypatch.setenv("LEXIO_LOBBY_GAMES", '[{"name": "g", "min_seats": 1, "max_seats": 1}]')
    assert LobbyConfig.from_env().games == (GameSpec("g", 1, 1),)


def test_a_site_game_may_name_an_engine_of_its_own(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A game served by another engine deployment keeps its address; a bad file is refused
    with the parser's reason."""
    games = tmp_path / "site_games.json"
    games.write_text(
        '[{"name": "a", "min_seats": 2, "max_seats": 2, "health_service": "a.v1.Engine"},'
        ' {"name": "b", "min_seats": 1, "max_seats": 3, "health_service": "b.v1.Engine",'
        ' "health_address": "engine-b:50051"}]'
    )
    monkeypatch.setattr(lobby_games, "SITE_GAMES_FILE", games)
    a, b = site_games("engine:50051")
    assert (a.health_address, b.health_address) == ("engine:50051", "engine-b:50051")
    games.write_text('[{"name": "a", "min_seats": 3, "max_seats": 2}]')
    with pytest.raises(GameConfigError, match="min_seats <= max_seats"):
        site_games("engine:50051")


def test_config_from_env_reads_every_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEXIO_LOBBY_PORT", "0")
    monkeypatch.setenv("LEXIO_LOBBY_DB", "/tmp/x/lobby.db")
    monkeypatch.setenv("LEXIO_LOBBY_CODE_TTL", "60")
    monkeypatch.setenv("LEXIO_LOBBY_JOIN_FAILURES", "3")
    monkeypatch.setenv("LEXIO_LOBBY_JOIN_WINDOW", "30")
    monkeypatch.setenv("LEXIO_LOBBY_GAMES", '[{"name": "g", "min_seats": 1, "max_seats": 1}]')
    config = LobbyConfig.from_env()
    assert (config.port, config.db_path, config.code_ttl) == (0, Path("/tmp/x/lobby.db"), 60)
    assert (config.join_failures, config.join_window) == (3, 30)
    assert config.games == (GameSpec("g", 1, 1),)
    monkeypatch.setenv("LEXIO_LOBBY_GAMES", "[]")
    with pytest.raises(ConfigError, match="LEXIO_LOBBY_GAMES"):
        LobbyConfig.from_env()
    monkeypatch.setenv("LEXIO_LOBBY_GAMES", "")
    monkeypatch.setenv("LEXIO_LOBBY_CODE_TTL", "0")
    with pytest.raises(ConfigError, match="LEXIO_LOBBY_CODE_TTL"):
        LobbyConfig.from_env()
