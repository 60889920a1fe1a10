"""The lobby process: ``lexio-lobby``.

Start-up order: open the store — the SQLite file, or Redis when ``LEXIO_REDIS_URL`` is set (a
bad path, a foreign file or schema, an unreachable Redis is fatal: exit 2 with one clear log
line) — start gRPC with health NOT_SERVING, then report SERVING: the lobby is ready as soon as
its store is; whether each *game* is ready is a per-game question answered per call. Health then
follows the store: a watcher pings it every ``store_check_interval`` and reports NOT_SERVING
after two failures in a row, SERVING again at the first success (the health name ``liveness``
stays SERVING throughout: a lobby waiting for its Redis must not be restarted). A background
sweep persists idle expiry, purges old closed tables and recounts the tables gauge.
SIGTERM/SIGINT: health NOT_SERVING, in-flight calls finish within the grace period, the store
closes cleanly.

Configuration (environment, safe single-machine defaults):

``LEXIO_LOBBY_HOST`` (127.0.0.1), ``LEXIO_LOBBY_PORT`` (50053; 0 picks a free port),
``LEXIO_LOBBY_METRICS_PORT`` (9103; negative disables /metrics), ``LEXIO_LOBBY_DB``
(``var/lobby.sqlite3``; its directory is created), ``LEXIO_LOBBY_CODE_TTL`` (idle expiry of an
open table's code, seconds, 86400), ``LEXIO_LOBBY_CLOSED_RETENTION`` (seconds a closed table is
kept before purging, 86400), ``LEXIO_LOBBY_JOIN_FAILURES`` (10) and
``LEXIO_LOBBY_JOIN_WINDOW`` (600 s): the unknown-code limit per caller,
``LEXIO_LOBBY_GAMES`` (JSON list of games; default: the site's games, ``site_games.json`` beside
this module, each ready while the site's engine serves its health name),
``LEXIO_ENGINE_ADDRESS`` (127.0.0.1:50051: the site's engine, where the default games' readiness
is checked; not read when ``LEXIO_LOBBY_GAMES`` is set),
``LEXIO_LOBBY_READINESS_TIMEOUT`` (0.5 s), ``LEXIO_LOBBY_READINESS_CACHE`` (1 s),
``LEXIO_LOBBY_SWEEP_INTERVAL`` (30 s), ``LEXIO_SHUTDOWN_GRACE`` (5 s), ``LEXIO_LOG_LEVEL``;
for several replicas: ``LEXIO_REDIS_URL`` (unset: SQLite), ``LEXIO_LOBBY_REDIS_PREFIX``
(``lexio:lobby:``), ``LEXIO_LOBBY_REDIS_TIMEOUT`` (2 s), and ``LEXIO_LOBBY_STORE_CHECK_INTERVAL``
(1 s, the health watcher's period).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import grpc

from lexio.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from lexio_common import service
from lexio_common.config import ConfigError, env_float, env_int, env_str
from lexio_common.grpc_service import RunningServer, start_grpc_server
from lexio_common.redis_client import Retrying
from lexio_common.supervise import stop_tasks, supervise
from lexio_lobby.codes import new_code
from lexio_lobby.games import (
    GameConfigError,
    GameReadiness,
    GameSpec,
    parse_games,
    site_games,
)
from lexio_lobby.lobby import DEFAULT_CLOSED_RETENTION, DEFAULT_CODE_TTL, Lobby
from lexio_lobby.metrics import METRICS, LobbyMetrics
from lexio_lobby.ratelimit import (
    DEFAULT_MAX_FAILURES,
    DEFAULT_WINDOW_SECONDS,
    JoinLimiter,
    JoinRateLimiter,
    LocalJoinLimiter,
)
from lexio_lobby.redis_store import (
    DEFAULT_PREFIX,
    DEFAULT_TIMEOUT,
    RedisJoinLimiter,
    RedisTableStore,
    describe_url,
    key_prefix,
)
from lexio_lobby.servicer import LobbyServicer
from lexio_lobby.store import SqliteTableStore, StoreError, StoreUnavailableError, TableStore

log = logging.getLogger("lexio_lobby")

#: The fully qualified gRPC service name, also the name health reports under.
SERVICE_NAME: Final[str] = lobby_pb2.DESCRIPTOR.services_by_name["Lobby"].full_name
EXIT_BAD_CONFIG: Final = service.EXIT_BAD_CONFIG
EXIT_BAD_STORE: Final = service.EXIT_BAD_CONFIG
EXIT_CANNOT_LISTEN: Final = service.EXIT_CANNOT_LISTEN
#: Failed store pings in a row before health says NOT_SERVING (one lost ping is not an outage).
STORE_FAILURES_BEFORE_NOT_SERVING: Final = 2

DEFAULT_ENGINE_ADDRESS: Final = "127.0.0.1:50051"
"""The site's engine on one machine (``make run``), as the gateway's default."""
DEFAULT_GAMES: Final = site_games(DEFAULT_ENGINE_ADDRESS)
"""The site's games (:data:`lexio_lobby.games.SITE_GAMES_FILE`) on the local engine."""


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
    #: Set: tables and the join limit live in this Redis (shared by replicas), not in db_path.
    redis_url: str = ""
    redis_prefix: str = DEFAULT_PREFIX
    redis_timeout: float = DEFAULT_TIMEOUT
    #: Replicas that must have a table's write before the lobby answers (Redis's WAIT): the
    #: more of LEXIO_REDIS_WAIT_REPLICAS (the moves') and LEXIO_REDIS_SEAT_WAIT_REPLICAS (the
    #: seats'), since every write of the lobby is a seat or the table it is at.
    redis_wait_replicas: int = 0
    redis_wait_timeout: float = 0.5
    store_check_interval: float = 1.0

    @property
    def store_description(self) -> str:
        """Where tables live, safe to log (no password)."""
        return describe_url(self.redis_url) if self.redis_url else str(self.db_path)

    @classmethod
    def from_env(cls) -> LobbyConfig:
        """Read ``LEXIO_LOBBY_*``, ``LEXIO_SHUTDOWN_GRACE`` and (for the default games)
        ``LEXIO_ENGINE_ADDRESS``; raise ConfigError if invalid."""
        games_json = env_str("LEXIO_LOBBY_GAMES", "")
        try:
            games = parse_games(games_json) if games_json else None
        except GameConfigError as e:
            raise ConfigError(f"LEXIO_LOBBY_GAMES: {e}") from None
        if games is None:
            games = site_games(env_str("LEXIO_ENGINE_ADDRESS", DEFAULT_ENGINE_ADDRESS))
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
            redis_url=env_str("LEXIO_REDIS_URL", cls.redis_url),
            redis_prefix=env_str("LEXIO_LOBBY_REDIS_PREFIX", "") or cls.redis_prefix,
            redis_timeout=env_float("LEXIO_LOBBY_REDIS_TIMEOUT", cls.redis_timeout, minimum=0.01),
            redis_wait_replicas=max(
                env_int("LEXIO_REDIS_WAIT_REPLICAS", cls.redis_wait_replicas, minimum=0),
                env_int("LEXIO_REDIS_SEAT_WAIT_REPLICAS", cls.redis_wait_replicas, minimum=0),
            ),
            redis_wait_timeout=env_float(
                "LEXIO_REDIS_WAIT_TIMEOUT", cls.redis_wait_timeout, minimum=0.001
            ),
            store_check_interval=env_float(
                "LEXIO_LOBBY_STORE_CHECK_INTERVAL", cls.store_check_interval, minimum=0.01
            ),
        )


@dataclass
class RunningLobby:
    """A started lobby: its server, logic and store (what tests drive and stop)."""

    server: RunningServer
    lobby: Lobby
    store: TableStore
    readiness: GameReadiness
    sweeper: asyncio.Task[None]
    watcher: asyncio.Task[None]
    #: Set by :meth:`stop`: the background loops end even if a library swallows their cancel.
    stopping: asyncio.Event

    @property
    def port(self) -> int:
        return self.server.port

    async def stop(self, grace: float) -> None:
        self.stopping.set()
        # All cancelled before any is awaited: none is restarted meanwhile.
        await stop_tasks((self.watcher, self.sweeper))
        await self.server.stop(grace)
        await self.readiness.close()
        await self.store.close()


async def _pause(stopping: asyncio.Event, seconds: float) -> None:
    """Sleep ``seconds``, or less if the lobby starts stopping."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stopping.wait(), seconds)


async def _sweep_forever(
    lobby: Lobby,
    readiness: GameReadiness,
    metrics: LobbyMetrics,
    interval: float,
    stopping: asyncio.Event,
) -> None:
    """Run :meth:`Lobby.sweep` now and every ``interval`` seconds; a failed sweep is logged
    and retried next time (the lobby's calls do not depend on it). Each game's readiness is
    checked too: ``lexio_lobby_game_ready`` has a value from the start, and stays true while
    no table is created (an idle lobby would otherwise keep its first answer, or none)."""
    while not stopping.is_set():
        try:
            metrics.set_table_counts((await lobby.sweep()).counts)
        except StoreUnavailableError as e:
            log.warning("sweep failed: store unavailable", extra={"error": str(e)})
        except Exception:
            log.exception("sweep failed")
        try:
            await readiness.check_all()
        except Exception:
            log.exception("readiness check failed")
        await _pause(stopping, interval)


async def _watch_store(
    server: RunningServer, store: TableStore, interval: float, stopping: asyncio.Event
) -> None:
    """Health follows the store: NOT_SERVING after a few failed pings in a row, SERVING again
    at the first answer. Calls do not wait for it: each fails or succeeds on its own."""
    serving = True
    failures = 0
    while True:
        await _pause(stopping, interval)
        if stopping.is_set():
            return
        if await store.ping():
            failures = 0
            if not serving:
                serving = True
                await server.set_serving(True)
                log.info("store reachable again: serving")
        else:
            failures += 1
            if serving and failures >= STORE_FAILURES_BEFORE_NOT_SERVING:
                serving = False
                await server.set_serving(False)
                log.warning("store unreachable: not serving", extra={"failures": failures})


async def open_store(
    config: LobbyConfig,
    clock: Callable[[], float],
    monotonic: Callable[[], float],
    metrics: LobbyMetrics = METRICS,
) -> tuple[TableStore, JoinLimiter]:
    """The table store and the join limiter the configuration asks for.

    With Redis both are shared by every replica, and the limiter keeps time with ``clock``
    (epoch seconds, comparable between machines); alone, it uses ``monotonic``. Their calls
    sent again while a Redis Cluster passes through a failover or a slot's move are counted
    in ``metrics``."""
    if config.redis_url:
        prefix = key_prefix(config.redis_url, config.redis_prefix)
        retrying = Retrying(on_retry=metrics.store_retried)
        redis_store = await RedisTableStore.open(
            config.redis_url,
            prefix=prefix,
            timeout=config.redis_timeout,
            wait_replicas=config.redis_wait_replicas,
            wait_timeout=config.redis_wait_timeout,
            retrying=retrying,
        )
        limiter: JoinLimiter = RedisJoinLimiter(
            redis_store.client,
            prefix=prefix,
            max_failures=config.join_failures,
            window=config.join_window,
            clock=clock,
            retrying=retrying,
        )
        return redis_store, limiter
    store = await SqliteTableStore.open(config.db_path)
    limiter = LocalJoinLimiter(
        JoinRateLimiter(
            max_failures=config.join_failures, window=config.join_window, clock=monotonic
        )
    )
    return store, limiter


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
    store, limiter = await open_store(config, clock, monotonic, metrics)
    readiness = GameReadiness(
        config.games,
        timeout=config.readiness_timeout,
        cache_seconds=config.readiness_cache,
        clock=monotonic,
        on_result=metrics.game_checked,
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
    stopping = asyncio.Event()
    sweeper = asyncio.create_task(
        supervise(
            "sweeper",
            lambda: _sweep_forever(lobby, readiness, metrics, config.sweep_interval, stopping),
            stopping=stopping,
        )
    )
    watcher = asyncio.create_task(
        supervise(
            "store_watch",
            lambda: _watch_store(running, store, config.store_check_interval, stopping),
            stopping=stopping,
        )
    )
    await running.set_serving(True)
    log.info(
        "lobby serving",
        extra={
            "host": config.host,
            "port": running.port,
            "store": "redis" if config.redis_url else "sqlite",
            "db": config.store_description,
            "games": [game.name for game in config.games],
        },
    )
    return RunningLobby(running, lobby, store, readiness, sweeper, watcher, stopping)


async def _start_process(config: LobbyConfig) -> RunningLobby:
    """:func:`start_lobby` as the process runs it: a store that does not open is fatal."""
    try:
        return await start_lobby(config)
    except StoreError as e:
        raise service.StartupError(
            f"cannot open the store: {e}", exit_code=EXIT_BAD_STORE, db=config.store_description
        ) from e


async def serve(config: LobbyConfig) -> int:
    """Run until SIGTERM/SIGINT; return the process exit status."""
    return await service.serve(
        "lobby",
        config,
        start=_start_process,
        grace=config.shutdown_grace,
        metrics=(config.host, config.metrics_port),
    )


def main() -> None:
    """Entry point of ``lexio-lobby``."""
    service.run_service(
        "lobby",
        load_config=LobbyConfig.from_env,
        start=_start_process,
        grace=lambda config: config.shutdown_grace,
        metrics=lambda config: (config.host, config.metrics_port),
    )


if __name__ == "__main__":
    main()
