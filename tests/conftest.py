"""Fixtures shared by every suite: an event loop in a thread, and real servers on it.

Servers listen on 127.0.0.1, port 0. Tests talk to them with ordinary synchronous gRPC
channels, so no async test plugin is needed.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from lexio_testing import (
    SHARED_LOOP_READINESS_TIMEOUT,
    GatewayFactory,
    GatewayHandle,
    LoopThread,
    RedisClusterServer,
    RedisServer,
    free_port,
    site_games,
    start_gateway,
)

from lexio_common.grpc_service import RunningServer
from lexio_common.procs import PORT_SLICE_VARIABLE
from lexio_engine.server import EngineConfig, RunningEngine, start_engine
from lexio_gateway.config import GameEndpoint, GatewayConfig
from lexio_lexicon.server import LexiconConfig, start
from lexio_lobby.server import LobbyConfig, RunningLobby, start_lobby


@pytest.fixture(scope="session")
def loop_thread() -> Iterator[LoopThread]:
    thread = LoopThread()
    yield thread
    thread.close()


@pytest.fixture(scope="session")
def lexicon_server(loop_thread: LoopThread) -> Iterator[RunningServer]:
    """The real lexicon service with the shipped French list, once per session."""
    running, _words = loop_thread.run(
        start(LexiconConfig(host="127.0.0.1", port=0, metrics_port=-1)), timeout=60
    )
    yield running
    loop_thread.run(running.stop(0))


@pytest.fixture(scope="session")
def engine_server(
    loop_thread: LoopThread, lexicon_server: RunningServer
) -> Iterator[RunningEngine]:
    """The real engine service, talking to the real lexicon service."""
    config = EngineConfig(
        host="127.0.0.1",
        port=0,
        metrics_port=-1,
        lexicon_address=f"127.0.0.1:{lexicon_server.port}",
    )
    engine = loop_thread.run(start_engine(config))
    yield engine
    loop_thread.run(engine.stop(0))


@pytest.fixture
def engine_channel(engine_server: RunningEngine) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(f"127.0.0.1:{engine_server.port}") as channel:
        yield channel


@pytest.fixture
def lobby_server(
    loop_thread: LoopThread, engine_server: RunningEngine, tmp_path: Path
) -> Iterator[RunningLobby]:
    """The real lobby service on a fresh SQLite file, with Lexio ready through the engine."""
    config = LobbyConfig(
        host="127.0.0.1",
        port=0,
        metrics_port=-1,
        db_path=tmp_path / "lobby.sqlite3",
        games=site_games(f"127.0.0.1:{engine_server.port}"),
        readiness_cache=0.0,
        readiness_timeout=SHARED_LOOP_READINESS_TIMEOUT,
    )
    lobby = loop_thread.run(start_lobby(config))
    yield lobby
    loop_thread.run(lobby.stop(0))


@pytest.fixture
def two_games_lobby(
    loop_thread: LoopThread, engine_server: RunningEngine, tmp_path: Path
) -> Iterator[RunningLobby]:
    """The real lobby with the site's two games registered as in production (the lobby's
    defaults: al-Mishqaq with its table options), both ready through the real engine."""
    games = site_games(f"127.0.0.1:{engine_server.port}", names=("lexio", "mishqaq"))
    config = LobbyConfig(
        host="127.0.0.1",
        port=0,
        metrics_port=-1,
        db_path=tmp_path / "lobby-two-games.sqlite3",
        games=games,
        readiness_cache=0.0,
        readiness_timeout=SHARED_LOOP_READINESS_TIMEOUT,
    )
    lobby = loop_thread.run(start_lobby(config))
    yield lobby
    loop_thread.run(lobby.stop(0))


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist each worker hands out ports from a slice of its own
    (:func:`lexio_common.procs.free_port`): two workers can never start servers on one port."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1", …
    count = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if worker.startswith("gw") and count:
        os.environ[PORT_SLICE_VARIABLE] = f"{int(worker[2:])}/{count}"


_LONG_FILES = ("tests/web/", "tests/load/")
"""A browser or a whole stack under load: the longest files, and the hungriest for CPU."""
_REAL_PROCESS_FILES = ("tests/gateway/", "tests/ops/")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The order of the files (each file's tests keep theirs). ``make test`` gives each file to
    one worker, in this order, as workers come free: the long browser and load files first,
    alternating with the gateway's and the operations' files, so that no more than about half
    the workers drive a browser at once; then the short files, which fill the gaps at the
    end. (In the folders' order, every worker ended the run in a browser file at once, each
    browser test then taking 2 to 3 times as long.)"""
    by_file: dict[str, list[pytest.Item]] = {}
    for item in items:
        by_file.setdefault(item.nodeid.split("::")[0], []).append(item)

    def files(prefixes: tuple[str, ...]) -> list[str]:
        return [f for f in by_file if f.startswith(prefixes)]

    long, real = files(_LONG_FILES), files(_REAL_PROCESS_FILES)
    alternating = [f for pair in itertools.zip_longest(long, real) for f in pair if f]
    rest = [f for f in by_file if f not in set(alternating)]
    items[:] = [item for f in alternating + rest for item in by_file[f]]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The gateway's protocol suite runs against both stores: SQLite and Redis; a test marked
    ``cluster_too`` on a Redis Cluster too, one marked ``one_store`` (the store plays no part
    in it) on SQLite only. Tests elsewhere (the browser's, for one) run on SQLite."""
    chosen = any(
        "gateway_backend" in str(m.args[0]) for m in metafunc.definition.iter_markers("parametrize")
    )
    if "gateway_backend" in metafunc.fixturenames and not chosen:
        in_gateway_suite = "tests/gateway/" in str(metafunc.definition.path).replace("\\", "/")
        one_store = metafunc.definition.get_closest_marker("one_store") is not None
        backends = ["sqlite", "redis"] if in_gateway_suite and not one_store else ["sqlite"]
        if metafunc.definition.get_closest_marker("cluster_too") is not None:
            backends.append("cluster")
        metafunc.parametrize("gateway_backend", backends, scope="function")


@pytest.fixture
def store_url(gateway_backend: str, request: pytest.FixtureRequest) -> str:
    """The Redis URL every gateway of the test shares, by ``gateway_backend``: "" for "sqlite"
    (each gateway its SQLite file), a real redis-server's for "redis", a real Redis Cluster's
    (3 masters with a replica each) for "cluster"."""
    fixture = {"redis": "redis_server", "cluster": "redis_cluster"}.get(gateway_backend)
    url: str = request.getfixturevalue(fixture).url if fixture else ""
    return url


@pytest.fixture
def gateway_factory(
    loop_thread: LoopThread,
    engine_server: RunningEngine,
    lobby_server: RunningLobby,
    tmp_path: Path,
    store_url: str,
) -> Iterator[GatewayFactory]:
    """Start real gateways on one store (:func:`store_url`); all stop at the end."""
    started: list[GatewayHandle] = []
    redis_url = store_url

    def factory(seed: int | None = 1, **overrides: Any) -> GatewayHandle:
        # Lexio's clock settings are its adapter's (LEXIO_GATEWAY_GAMES in a real gateway).
        lexio: dict[str, Any] = {
            k: overrides.pop(k) for k in ("turn_seconds", "disconnect_grace") if k in overrides
        }
        mishqaq = overrides.pop("mishqaq_settings", {})
        settings: dict[str, Any] = {
            "games": (
                GameEndpoint("lexio", settings=lexio),
                GameEndpoint("mishqaq", settings=mishqaq),
            ),
            "host": "127.0.0.1",
            "port": 0,
            "engine_address": f"127.0.0.1:{engine_server.port}",
            "lobby_address": f"127.0.0.1:{lobby_server.port}",
            "db_path": tmp_path / "gateway.sqlite3",
            "heartbeat": 5.0,
            "redis_url": redis_url,
            **overrides,
        }
        seeds = (lambda _table_id: seed) if seed is not None else None
        handle = loop_thread.run(start_gateway(GatewayConfig(**settings), seeds))
        started.append(handle)
        return handle

    yield factory
    for handle in started:
        loop_thread.run(handle.runner.cleanup())


@pytest.fixture
def redis_replica(redis_server: RedisServer, tmp_path: Path) -> Iterator[RedisServer]:
    """A replica of :func:`redis_server`, started (its master told to sync it at once, not
    after Redis's 5 s wait for other replicas to share the sync); killed at the end (a test's
    copy: nothing to keep). A test that needs it attached waits for ``state=online`` in the
    master's INFO; one may stop and start it again."""
    directory = tmp_path / "replica"
    directory.mkdir()
    redis_server.command("CONFIG", "SET", "repl-diskless-sync-delay", "0")
    replica = RedisServer(str(directory))
    replica.extra_args = ["--replicaof", "127.0.0.1", str(redis_server.port)]
    replica.start()
    yield replica
    replica.stop(kill=True)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A real redis-server of its own, with persistence on, stopped at the end."""
    server = RedisServer(str(tmp_path), free_port())
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_cluster(tmp_path: Path) -> Iterator[RedisClusterServer]:
    """A real Redis Cluster of its own (3 masters, a replica each), stopped at the end."""
    cluster = RedisClusterServer(str(tmp_path / "redis-cluster"))
    cluster.start()
    yield cluster
    cluster.stop()
