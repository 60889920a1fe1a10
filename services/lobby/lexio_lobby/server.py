"""The lobby process: ``lexio-lobby``.

Start-up order: open the store (a bad path or a foreign file is fatal: exit 2 with one clear
log line), start gRPC with health NOT_SERVING, then report SERVING — the lobby is ready as soon
as its store is; whether each *game* is ready is a per-game question answered per call. A
background sweep persists idle expiry, purges old closed tables and recounts the tables gauge.
SIGTERM/SIGINT: health NOT_SERVING, in-flight calls finish within the grace period, the store
closes cleanly.

Configuration (environment, safe single-machine defaults):

``LEXIO_LOBBY_HOST`` (127.0.0.1), ``LEXIO_LOBBY_PORT`` (50053; 0 picks a free port),
``LEXIO_LOBBY_METRICS_PORT`` (9103; negative disables /metrics), ``LEXIO_LOBBY_DB``
(``var/lobby.sqlite3``; its directory is created), ``LEXIO_LOBBY_CODE_TTL`` (idle expiry of an
open table's code, seconds, 86400), ``LEXIO_LOBBY_CLOSED_RETENTION`` (seconds a closed table is
kept before purging, 86400), ``LEXIO_LOBBY_JOIN_FAILURES`` (10) and
``LEXIO_LOBBY_JOIN_WINDOW`` (600 s): the unknown-code limit per caller,
``LEXIO_LOBBY_GAMES`` (JSON list of games; default: one game "lexio", 2–4 seats, ready when
the engine at 127.0.0.1:50051 serves ``lexio.engine.v1.Engine``),
``LEXIO_LOBBY_READINESS_TIMEOUT`` (0.5 s), ``LEXIO_LOBBY_READINESS_CACHE`` (1 s),
``LEXIO_LOBBY_SWEEP_INTERVAL`` (30 s), ``LEXIO_SHUTDOWN_GRACE`` (5 s), ``LEXIO_LOG_LEVEL``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import grpc

from lexio.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from lexio_common.config import ConfigError, env_float, env_int, env_str
from lexio_common.grpc_service import (
    RunningServer,
    start_grpc_server,
    start_metrics_server,
    wait_for_shutdown_signal,
)
from lexio_common.logging import setup_logging
from lexio_lobby.codes import new_code
from lexio_lobby.games import GameConfigError, GameReadiness, GameSpec, parse_games
from lexio_lobby.lobby import DEFAULT_CLOSED_RETENTION, DEFAULT_CODE_TTL, Lobby
from lexio_lobby.metrics import METRICS, LobbyMetrics
from lexio_lobby.ratelimit import DEFAULT_MAX_FAILURES, DEFAULT_WINDOW_SECONDS, JoinRateLimiter
from lexio_lobby.servicer import LobbyServicer
from lexio_lobby.store import SqliteTableStore, StoreError

log = logging.getLogger("lexio_lobby")

#: The fully qualified gRPC service name, also the name health reports under.
SERVICE_NAME: Final[str] = lobby_pb2.DESCRIPTOR.services_by_name["Lobby"].full_name
EXIT_BAD_CONFIG: Final = 2
EXIT_BAD_STORE: Final = 2
EXIT_CANNOT_LISTEN: Final = 1

DEFAULT_GAMES: Final = (
    GameSpec(
        name="lexio",
        min_seats=2,
        max_seats=4,
        health_address="127.0.0.1:50051",
        health_service="lexio.engine.v1.Engine",
    ),
)


@dataclass(frozen=True)
class LobbyConfig:
    """Everything the lobby needs to start; :meth:`from_env` reads the environment."""

    host: str = "127.0.0.1"
    port: int = 50053
    metrics_port: int = 9103
    db_path: Path = Path("var/lobby.sqlite3")
    code_ttl: float = DEFAULT_CODE_TTL
    closed_retention: float = DEFAULT_CLOSED_RETENTION
    join_failures: int = DEFAULT_MAX_FAILURES
    join_window: float = DEFAULT_WINDOW_SECONDS
    games: tuple[GameSpec, ...] = field(default=DEFAULT_GAMES)
    readiness_timeout: float = 0.5
    readiness_cache: float = 1.0
    sweep_interval: float = 30.0
    shutdown_grace: float = 5.0

    @classmethod
    def from_env(cls) -> LobbyConfig:
        """Read ``LEXIO_LOBBY_*`` and ``LEXIO_SHUTDOWN_GRACE``; raise ConfigError if invalid."""
        games_json = env_str("LEXIO_LOBBY_GAMES", "")
        try:
            games = parse_games(games_json) if games_json else DEFAULT_GAMES
        except GameConfigError as e:
            raise ConfigError(f"LEXIO_LOBBY_GAMES: {e}") from None
        return cls(
            host=env_str("LEXIO_LOBBY_HOST", cls.host),
            port=env_int("LEXIO_LOBBY_PORT", cls.port, minimum=0),
            metrics_port=env_int("LEXIO_LOBBY_METRICS_PORT", cls.metrics_port),
            db_path=Path(env_str("LEXIO_LOBBY_DB", "") or cls.db_path),
            code_ttl=env_float("LEXIO_LOBBY_CODE_TTL", cls.code_ttl, minimum=1.0),
            closed_retention=env_float(
                "LEXIO_LOBBY_CLOSED_RETENTION", cls.closed_retention, minimum=0.0
            ),
            join_failures=env_int("LEXIO_LOBBY_JOIN_FAILURES", cls.join_failures, minimum=1),
            join_window=env_float("LEXIO_LOBBY_JOIN_WINDOW", cls.join_window, minimum=1.0),
            games=games,
            readiness_timeout=env_float(
                "LEXIO_LOBBY_READINESS_TIMEOUT", cls.readiness_timeout, minimum=0.01
            ),
            readiness_cache=env_float(
                "LEXIO_LOBBY_READINESS_CACHE", cls.readiness_cache, minimum=0.0
            ),
            sweep_interval=env_float("LEXIO_LOBBY_SWEEP_INTERVAL", cls.sweep_interval, minimum=0.1),
            shutdown_grace=env_float("LEXIO_SHUTDOWN_GRACE", cls.shutdown_grace, minimum=0.0),
        )


@dataclass
class RunningLobby:
    """A started lobby: its server, logic and store (what tests drive and stop)."""

    server: RunningServer
    lobby: Lobby
    store: SqliteTableStore
    readiness: GameReadiness
    sweeper: asyncio.Task[None]

    @property
    def port(self) -> int:
        return self.server.port

    async def stop(self, grace: float) -> None:
        self.sweeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.sweeper
        await self.server.stop(grace)
        await self.readiness.close()
        await self.store.close()


async def _sweep_forever(lobby: Lobby, metrics: LobbyMetrics, interval: float) -> None:
    """Run :meth:`Lobby.sweep` now and every ``interval`` seconds; a failed sweep is logged
    and retried next time (the lobby's calls do not depend on it)."""
    while True:
        try:
            metrics.set_table_counts((await lobby.sweep()).counts)
        except Exception:
            log.exception("sweep failed")
        await asyncio.sleep(interval)


async def start_lobby(
    config: LobbyConfig,
    *,
    clock: Callable[[], float] = time.time,
    monotonic: Callable[[], float] = time.monotonic,
    metrics: LobbyMetrics | None = None,
    code_factory: Callable[[], str] = new_code,
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
) -> RunningLobby:
    """Open the store, serve, report SERVING. ``clock`` (epoch seconds: timestamps, expiry)
    and ``monotonic`` (rate limit, readiness cache) are injectable for tests."""
    metrics = metrics or METRICS
    store = await SqliteTableStore.open(config.db_path)
    readiness = GameReadiness(
        config.games,
        timeout=config.readiness_timeout,
        cache_seconds=config.readiness_cache,
        clock=monotonic,
        on_result=lambda game, ready: metrics.game_ready.labels(game=game).set(int(ready)),
    )
    limiter = JoinRateLimiter(
        max_failures=config.join_failures, window=config.join_window, clock=monotonic
    )
    lobby = Lobby(
        store=store,
        games=config.games,
        readiness=readiness,
        limiter=limiter,
        code_ttl=config.code_ttl,
        closed_retention=config.closed_retention,
        clock=clock,
        code_factory=code_factory,
    )
    servicer = LobbyServicer(lobby, metrics)
    try:
        running = await start_grpc_server(
            host=config.host,
            port=config.port,
            register=lambda s: lobby_pb2_grpc.add_LobbyServicer_to_server(servicer, s),
            service_names=[SERVICE_NAME],
            interceptors=interceptors,
        )
    except BaseException:
        await store.close()
        raise
    sweeper = asyncio.create_task(_sweep_forever(lobby, metrics, config.sweep_interval))
    await running.set_serving(True)
    log.info(
        "lobby serving",
        extra={
            "host": config.host,
            "port": running.port,
            "db": str(config.db_path),
            "games": [game.name for game in config.games],
        },
    )
    return RunningLobby(running, lobby, store, readiness, sweeper)


async def serve(config: LobbyConfig) -> int:
    """Run until SIGTERM/SIGINT; return the process exit status."""
    try:
        start_metrics_server(config.host, config.metrics_port)
        running = await start_lobby(config)
    except StoreError as e:
        log.error("cannot open the store: %s", e, extra={"db": str(config.db_path)})
        return EXIT_BAD_STORE
    except OSError as e:
        log.error("cannot listen: %s", e, extra={"host": config.host, "port": config.port})
        return EXIT_CANNOT_LISTEN
    received = await wait_for_shutdown_signal()
    log.info(
        "lobby stopping", extra={"signal": received.name, "grace_seconds": config.shutdown_grace}
    )
    await running.stop(config.shutdown_grace)
    log.info("lobby stopped")
    return 0


def main() -> None:
    """Entry point of ``lexio-lobby``."""
    try:
        setup_logging("lobby", env_str("LEXIO_LOG_LEVEL", "INFO"))
    except ValueError:  # an unknown level name
        setup_logging("lobby")
        log.error("bad configuration: LEXIO_LOG_LEVEL is not a logging level")
        sys.exit(EXIT_BAD_CONFIG)
    try:
        config = LobbyConfig.from_env()
    except ConfigError as e:
        log.error("bad configuration: %s", e)
        sys.exit(EXIT_BAD_CONFIG)
    sys.exit(asyncio.run(serve(config)))


if __name__ == "__main__":
    main()
