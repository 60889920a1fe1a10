"""The gateway's configuration, from environment variables with single-machine defaults."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lexio_common.config import env_float, env_int, env_str


@dataclass(frozen=True)
class GatewayConfig:
    host: str = "127.0.0.1"
    port: int = 8080
    engine_address: str = "127.0.0.1:50051"
    lobby_address: str = "127.0.0.1:50053"
    db_path: Path = Path("var/gateway.sqlite3")
    turn_seconds: float = 120.0
    disconnect_grace: float = 5.0
    rpc_timeout: float = 5.0
    origins: tuple[str, ...] = ()
    """Allowed WebSocket origins; empty means the request's own host only."""
    heartbeat: float = 20.0
    max_frame_bytes: int = 16 * 1024
    frames_per_second: float = 20.0
    frame_burst: float = 40.0
    replay_events: int = 256
    events_in_memory: int = 32
    shutdown_grace: float = 5.0
    redis_url: str = ""
    """Several replicas: the shared store and bus (empty: SQLite, one process)."""
    ws_compress: bool = False
    """permessage-deflate: off by default, see docs/benchmarks.md (memory per connection)."""
    trust_forwarded_for: bool = False
    """Behind a trusted proxy, the client's address comes from X-Forwarded-For."""
    require_origin: bool = False
    """Refuse WebSockets without an Origin header (programs such as ``lexio play`` send none;
    browsers always do, so this is not needed against cross-site pages)."""

    @classmethod
    def from_env(cls) -> GatewayConfig:
        origins = env_str("LEXIO_GATEWAY_ORIGINS", "")
        return cls(
            host=env_str("LEXIO_GATEWAY_HOST", cls.host),
            port=env_int("LEXIO_GATEWAY_PORT", cls.port, minimum=0),
            engine_address=env_str("LEXIO_ENGINE_ADDRESS", cls.engine_address),
            lobby_address=env_str("LEXIO_LOBBY_ADDRESS", cls.lobby_address),
            db_path=Path(env_str("LEXIO_GATEWAY_DB", str(cls.db_path))),
            turn_seconds=env_float("LEXIO_TURN_SECONDS", cls.turn_seconds, minimum=1.0),
            disconnect_grace=env_float("LEXIO_DISCONNECT_GRACE", cls.disconnect_grace, minimum=0.0),
            rpc_timeout=env_float("LEXIO_GATEWAY_RPC_TIMEOUT", cls.rpc_timeout, minimum=0.01),
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
            shutdown_grace=env_float("LEXIO_SHUTDOWN_GRACE", cls.shutdown_grace, minimum=0.0),
            redis_url=env_str("LEXIO_REDIS_URL", ""),
            ws_compress=env_str("LEXIO_GATEWAY_WS_COMPRESS", "") == "1",
            trust_forwarded_for=env_str("LEXIO_GATEWAY_TRUST_FORWARDED_FOR", "") == "1",
            require_origin=env_str("LEXIO_GATEWAY_REQUIRE_ORIGIN", "") == "1",
        )
