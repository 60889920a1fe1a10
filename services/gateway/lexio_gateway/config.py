"""The gateway's configuration, from environment variables with single-machine defaults."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from lexio_common.config import ConfigError, env_bool, env_float, env_int, env_str
from lexio_gateway.games.site import GAMES


@dataclass(frozen=True)
class GameEndpoint:
    """One game this gateway serves: its engine service's address ("" = the site's engine,
    ``LEXIO_ENGINE_ADDRESS``) and its adapter's own settings (the adapter checks them)."""

    name: str
    engine_address: str = ""
    settings: Mapping[str, Any] = field(default_factory=dict)


DEFAULT_GAMES: Final = tuple(GameEndpoint(game.name) for game in GAMES)
"""Without ``LEXIO_GATEWAY_GAMES``: every game this build ships, each on the site's engine with
its adapter's default settings, in the order of :data:`lexio_gateway.games.site.GAMES`."""


def _games_from_env() -> tuple[GameEndpoint, ...]:
    raw = env_str("LEXIO_GATEWAY_GAMES", "")
    return parse_games(raw) if raw else DEFAULT_GAMES


def parse_games(text: str) -> tuple[GameEndpoint, ...]:
    """``LEXIO_GATEWAY_GAMES``: ``{"<game>": {}, "<game>": {"engine": "host:port",
    "settings": {...}}}``, in the order the games are offered (the first is the game a
    ``create`` frame that names none opens); ConfigError naming what is wrong.

    >>> parse_games('{"quiz": {"engine": "engine-2:50051"}}')
    (GameEndpoint(name='quiz', engine_address='engine-2:50051', settings={}),)
    """
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"LEXIO_GATEWAY_GAMES is not JSON: {e}") from None
    if not isinstance(raw, dict) or not raw:
        raise ConfigError("LEXIO_GATEWAY_GAMES: an object of games by name")
    games = []
    for name, entry in raw.items():
        if not isinstance(entry, dict) or not set(entry) <= {"engine", "settings"}:
            raise ConfigError(f"LEXIO_GATEWAY_GAMES.{name}: an object with engine?, settings?")
        engine, settings = entry.get("engine", ""), entry.get("settings", {})
        if not isinstance(engine, str) or not isinstance(settings, dict):
            raise ConfigError(f"LEXIO_GATEWAY_GAMES.{name}: engine is a string, settings an object")
        games.append(GameEndpoint(name, engine, settings))
    return tuple(games)


@dataclass(frozen=True)
class GatewayConfig:
    host: str = "127.0.0.1"
    port: int = 8080
    metrics_port: int = 9104
    """``/metrics``, on a port of its own beside the public one (negative: none)."""
    backlog: int = 4096
    """Connections the kernel queues for the listening socket before they are accepted (it
    caps this at ``net.core.somaxconn``, 4096 in a pod's network namespace since Linux 5.4).
    When a replica dies its seats all come to the others at once: with the 128 asyncio asks
    for, the SYNs past it were dropped and their clients' kernels tried again only 1, 3, 7, 15
    and 31 s later (bench/resume_bench.py: 2,000 seats back in p99 29.9 s)."""
    engine_address: str = "127.0.0.1:50051"
    """The site's engine process, for every game that names no address of its own."""
    lobby_address: str = "127.0.0.1:50053"
    db_path: Path = Path("var/gateway.sqlite3")
    games: tuple[GameEndpoint, ...] = DEFAULT_GAMES
    rpc_timeout: float = 5.0
    engine_stream: bool = True
    """Send every Act over one long-lived stream per engine (else a unary call each)."""
    origins: tuple[str, ...] = ()
    """Allowed WebSocket origins; empty means the request's own host only."""
    heartbeat: float = 20.0
    max_frame_bytes: int = 16 * 1024
    frames_per_second: float = 20.0
    frame_burst: float = 40.0
    replay_events: int = 256
    events_in_memory: int = 32
    resumes_in_flight: int = 16
    """Seats resumed at once (a dead replica's all come back together: admission.py)."""
    resume_patience: float = 5.0
    """Seconds a resume waits for its turn before its client is told to come back later
    (less than a client's own time-out for a resume: lexio_client's is 10 s)."""
    shutdown_grace: float = 5.0
    shutdown_rate: float = 300.0
    """Connections sent away per second at most when the replica stops (drain.py: as fast as
    the other replicas take them back, up to this), so that a rolling update moves its seats
    without a storm; at most two thirds of the grace is spent so (past that the rate rises),
    the rest for the turns in flight."""
    redis_url: str = ""
    """Several replicas: the shared store and bus (empty: SQLite, one process)."""
    redis_wait_replicas: int = 0
    """Acknowledge a commit only once this many of Redis's replicas have it (Redis's WAIT):
    then a failover loses no acknowledged move (docs/replicas.md). 0: Redis's default."""
    redis_seat_wait_replicas: int = 0
    """As many for a seat's token and a new table, if more than ``redis_wait_replicas``: with
    moves not waited for (0), a failover may take back the last moves, but a seat it lost would
    lock its player out of the game for good (docs/replicas.md)."""
    redis_wait_timeout: float = 0.5
    """Seconds a commit waits for those replicas before it is answered ``unavailable``."""
    ws_compress: bool = False
    """permessage-deflate: off by default, see docs/benchmarks.md (memory per connection)."""
    trust_forwarded_for: bool = False
    """Behind a trusted proxy, the client's address comes from X-Forwarded-For."""
    require_origin: bool = False
    """Refuse WebSockets without an Origin header (programs such as ``lexio play`` send none;
    browsers always do, so this is not needed against cross-site pages)."""
    record_retention_days: float = 30.0
    """How long a finished game's record can be reviewed and downloaded after its end (then
    a tombstone answers ``record_expired`` for as long again, then nothing is left)."""
    record_sweep_seconds: float = 600.0
    """How often the records past their retention are expired (the review answers
    ``record_expired`` from the retention's end whether or not a sweep ran since)."""

    @property
    def record_retention_seconds(self) -> float:
        return self.record_retention_days * 86400.0

    @classmethod
    def from_env(cls) -> GatewayConfig:
        origins = env_str("LEXIO_GATEWAY_ORIGINS", "")
        return cls(
            host=env_str("LEXIO_GATEWAY_HOST", cls.host),
            port=env_int("LEXIO_GATEWAY_PORT", cls.port, minimum=0),
            metrics_port=env_int("LEXIO_GATEWAY_METRICS_PORT", cls.metrics_port),
            backlog=env_int("LEXIO_GATEWAY_BACKLOG", cls.backlog, minimum=1),
            engine_address=env_str("LEXIO_ENGINE_ADDRESS", cls.engine_address),
            lobby_address=env_str("LEXIO_LOBBY_ADDRESS", cls.lobby_address),
            db_path=Path(env_str("LEXIO_GATEWAY_DB", str(cls.db_path))),
            games=_games_from_env(),
            rpc_timeout=env_float("LEXIO_GATEWAY_RPC_TIMEOUT", cls.rpc_timeout, minimum=0.01),
            engine_stream=env_bool("LEXIO_GATEWAY_ENGINE_STREAM", cls.engine_stream),
            origins=tuple(o.strip().rstrip("/") for o in origins.split(",") if o.strip()),
            heartbeat=env_float("LEXIO_GATEWAY_HEARTBEAT", cls.heartbeat, minimum=1.0),
            frames_per_second=env_float(
                "LEXIO_GATEWAY_FRAMES_PER_SECOND", cls.frames_per_second, minimum=0.1
            ),
            frame_burst=env_float("LEXIO_GATEWAY_FRAME_BURST", cls.frame_burst, minimum=1.0),
            replay_events=env_int("LEXIO_GATEWAY_REPLAY_EVENTS", cls.replay_events, minimum=0),
            events_in_memory=env_int(
                "LEXIO_GATEWAY_EVENTS_IN_MEMORY", cls.events_in_memory, minimum=0
            ),
            resumes_in_flight=env_int(
                "LEXIO_GATEWAY_RESUMES_IN_FLIGHT", cls.resumes_in_flight, minimum=1
            ),
            resume_patience=env_float(
                "LEXIO_GATEWAY_RESUME_PATIENCE", cls.resume_patience, minimum=0.1
            ),
            shutdown_grace=env_float("LEXIO_SHUTDOWN_GRACE", cls.shutdown_grace, minimum=0.0),
            shutdown_rate=env_float("LEXIO_GATEWAY_SHUTDOWN_RATE", cls.shutdown_rate, minimum=1.0),
            redis_url=env_str("LEXIO_REDIS_URL", ""),
            redis_wait_replicas=env_int(
                "LEXIO_REDIS_WAIT_REPLICAS", cls.redis_wait_replicas, minimum=0
            ),
            redis_seat_wait_replicas=env_int(
                "LEXIO_REDIS_SEAT_WAIT_REPLICAS", cls.redis_seat_wait_replicas, minimum=0
            ),
            redis_wait_timeout=env_float(
                "LEXIO_REDIS_WAIT_TIMEOUT", cls.redis_wait_timeout, minimum=0.001
            ),
            ws_compress=env_str("LEXIO_GATEWAY_WS_COMPRESS", "") == "1",
            trust_forwarded_for=env_str("LEXIO_GATEWAY_TRUST_FORWARDED_FOR", "") == "1",
            require_origin=env_str("LEXIO_GATEWAY_REQUIRE_ORIGIN", "") == "1",
            record_retention_days=_retention_days(),
            record_sweep_seconds=env_float(
                "LEXIO_GATEWAY_RECORD_SWEEP_SECONDS", cls.record_sweep_seconds, minimum=1.0
            ),
        )


def _retention_days() -> float:
    """``LEXIO_RECORD_RETENTION_DAYS``: positive (fractions of a day allowed), or ``inf`` to
    keep every record."""
    days = env_float("LEXIO_RECORD_RETENTION_DAYS", GatewayConfig.record_retention_days)
    if math.isnan(days) or days <= 0:
        raise ConfigError(f"LEXIO_RECORD_RETENTION_DAYS must be a positive number, got {days}")
    return days
