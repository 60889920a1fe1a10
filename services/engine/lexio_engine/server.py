"""The engine process: configuration from the environment, gRPC server, graceful SIGTERM."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

import grpc

from lexio.game.v1 import game_pb2_grpc
from lexio_common import grpc_channel
from lexio_common.config import env_bool, env_float, env_int, env_str
from lexio_common.grpc_service import RunningServer, start_grpc_server
from lexio_common.service import run_service
from lexio_common.streamed_calls import StreamDrain
from lexio_common.supervise import stop_tasks, supervise
from lexio_engine import metrics
from lexio_engine.games import GAMES
from lexio_engine.lexicon_client import LexiconClient, mirror_lexicon_health
from lexio_engine.registry import RPCS, SERVICE_NAME, EngineContext, lexicons_of
from lexio_engine.service import EngineService

__all__ = [
    "EngineConfig",
    "RunningEngine",
    "initialise_metrics",
    "main",
    "start_engine",
]

log = logging.getLogger("lexio_engine")


@dataclass(frozen=True)
class EngineConfig:
    host: str = "127.0.0.1"
    port: int = 50051
    metrics_port: int = 9101
    lexicon_address: str = "127.0.0.1:50052"
    lexicon_timeout: float = 2.0
    lexicon_stream: bool = True
    """Ask the lexicon over one long-lived stream (else a unary call per question)."""
    turn_seconds: float = 0.0
    """The turn clock of the games that have one (``LEXIO_TURN_SECONDS``); 0: each game's
    own default."""
    shutdown_grace: float = 5.0

    @classmethod
    def from_env(cls) -> EngineConfig:
        return cls(
            host=env_str("LEXIO_ENGINE_HOST", cls.host),
            port=env_int("LEXIO_ENGINE_PORT", cls.port, minimum=0),
            metrics_port=env_int("LEXIO_ENGINE_METRICS_PORT", cls.metrics_port),
            lexicon_address=env_str("LEXIO_LEXICON_ADDRESS", cls.lexicon_address),
            lexicon_timeout=env_float(
                "LEXIO_ENGINE_LEXICON_TIMEOUT", cls.lexicon_timeout, minimum=0.01
            ),
            lexicon_stream=env_bool("LEXIO_ENGINE_LEXICON_STREAM", cls.lexicon_stream),
            turn_seconds=env_float("LEXIO_TURN_SECONDS", cls.turn_seconds, minimum=1.0),
            shutdown_grace=env_float("LEXIO_SHUTDOWN_GRACE", cls.shutdown_grace, minimum=0.0),
        )


def initialise_metrics() -> None:
    """Every call series at 0 before the first call, so rates read 0 rather than nothing:
    each game's RPCs and actions, and every list a game asks, from the registrations."""
    for game in GAMES:
        metrics.initialise_calls(game.name, RPCS, game.action_kinds)
    metrics.initialise_lexicon_calls(lexicons_of(GAMES))


@dataclass
class RunningEngine:
    server: RunningServer
    lexicon_channel: grpc.aio.Channel
    health_mirror: asyncio.Task[None]
    lexicon: LexiconClient

    @property
    def port(self) -> int:
        return self.server.port

    async def stop(self, grace: float) -> None:
        await stop_tasks([self.health_mirror])
        await self.server.stop(grace)
        await self.lexicon.close()
        await self.lexicon_channel.close()


async def start_engine(config: EngineConfig) -> RunningEngine:
    """Start serving. The process is ready at once (health name ``readiness``, what its probe
    asks): every call that needs no word — a pass, an exchange, a resignation, a new game —
    works without the lexicon, so an engine whose lexicon is down stays in its Service. Every
    game (:data:`lexio_engine.games.GAMES`) is served through the one service
    ``lexio.game.v1.Engine``, each with a health name of its own: a game that asks words
    follows the lexicon's (the lobby offers it only while its words can be judged), any other
    is SERVING while the process is."""
    initialise_metrics()
    channel = grpc_channel.insecure_channel(config.lexicon_address)
    lexicon = LexiconClient(channel, config.lexicon_timeout, stream=config.lexicon_stream)
    drain = StreamDrain()
    context = EngineContext(lexicon, turn_seconds=config.turn_seconds, drain=drain)
    service = EngineService(
        {game.name: game.build(context) for game in GAMES}, clock=context.clock, drain=drain
    )
    word_games = [game.health_name for game in GAMES if game.asks_words]
    # The contract's own name says which contract this release serves: a gateway of this
    # release waits for it before it takes players (lexio_gateway.engine_watch).
    wordless = [SERVICE_NAME, *(game.health_name for game in GAMES if not game.asks_words)]

    def register(server: grpc.aio.Server) -> None:
        game_pb2_grpc.add_EngineServicer_to_server(service, server)

    async def follow_lexicon(serving: bool) -> None:
        await running.set_serving(serving, word_games)

    running = await start_grpc_server(
        host=config.host,
        port=config.port,
        register=register,
        service_names=[SERVICE_NAME, *(game.health_name for game in GAMES)],
        own_readiness=True,
        drain=drain,
    )
    await running.set_ready(True)
    await running.set_serving(True, wordless)
    mirror = asyncio.create_task(
        supervise("lexicon_health", lambda: mirror_lexicon_health(channel, follow_lexicon))
    )
    log.info(
        "engine listening",
        extra={"host": config.host, "port": running.port, "lexicon": config.lexicon_address},
    )
    return RunningEngine(running, channel, mirror, lexicon)


def main() -> None:
    """Entry point of ``lexio-engine``."""
    run_service(
        "engine",
        load_config=EngineConfig.from_env,
        start=start_engine,
        grace=lambda config: config.shutdown_grace,
        metrics=lambda config: (config.host, config.metrics_port),
    )


if __name__ == "__main__":
    main()
