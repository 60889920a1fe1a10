"""The lexicon service process: ``lexio-lexicon``.

Order of start-up matters to the rest of Lexio: the gRPC port opens first with health
NOT_SERVING (so orchestration sees a live process that is not ready yet), the word list
loads in a worker thread (so health keeps answering meanwhile), and only then does
health turn SERVING. A list that cannot be loaded is fatal: the process logs why and
exits with status 2 rather than serving a table that would reject every word.

Configuration comes from the environment:

``LEXIO_LEXICON_HOST`` (127.0.0.1), ``LEXIO_LEXICON_PORT`` (50052; 0 picks a free port),
``LEXIO_LEXICON_METRICS_PORT`` (9102; negative disables /metrics),
``LEXIO_LEXICON_WORDLIST`` (the shipped list), ``LEXIO_LOG_LEVEL`` (INFO).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from dataclasses import dataclass
from pathlib import Path

import grpc

from lexio.lexicon.v1 import lexicon_pb2, lexicon_pb2_grpc
from lexio_common import eventloop
from lexio_common.buildinfo import record_build_info
from lexio_common.config import ConfigError, env_int, env_str
from lexio_common.grpc_service import (
    RunningServer,
    start_grpc_server,
    start_metrics_server,
    wait_for_shutdown_signal,
)
from lexio_common.logging import setup_logging
from lexio_lexicon.servicer import (
    DEFAULT_MAX_WORD_LENGTH,
    DEFAULT_MAX_WORDS,
    LexiconMetrics,
    LexiconServicer,
)
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH, WordList, WordListError

__all__ = [
    "EXIT_BAD_CONFIG",
    "EXIT_BAD_WORDLIST",
    "EXIT_CANNOT_LISTEN",
    "SERVICE_NAME",
    "LexiconConfig",
    "main",
    "serve",
    "start",
    "start_unloaded",
]

log = logging.getLogger(__name__)

#: The fully qualified gRPC service name, also the name health reports under.
SERVICE_NAME: str = lexicon_pb2.DESCRIPTOR.services_by_name["Lexicon"].full_name
#: Exit statuses: a bad list or bad configuration will not fix itself on restart.
EXIT_BAD_WORDLIST = 2
EXIT_BAD_CONFIG = 2
#: The ports could not be opened (in use, not permitted): maybe transient.
EXIT_CANNOT_LISTEN = 1


@dataclass(frozen=True)
class LexiconConfig:
    """Everything the service needs to start; :meth:`from_env` reads the environment."""

    host: str = "127.0.0.1"
    port: int = 50052
    metrics_host: str = "127.0.0.1"
    metrics_port: int = 9102
    wordlist: Path = DEFAULT_WORDLIST_PATH
    log_level: str = "INFO"
    max_words: int = DEFAULT_MAX_WORDS
    max_word_length: int = DEFAULT_MAX_WORD_LENGTH
    #: How long in-flight calls may run on after SIGTERM.
    grace_seconds: float = 5.0

    @classmethod
    def from_env(cls) -> LexiconConfig:
        """Read ``LEXIO_LEXICON_*`` and ``LEXIO_LOG_LEVEL``; raise ConfigError if invalid."""
        host = env_str("LEXIO_LEXICON_HOST", cls.host)
        return cls(
            host=host,
            port=env_int("LEXIO_LEXICON_PORT", cls.port, minimum=0),
            # /metrics listens next to the gRPC port: never wider than the service itself.
            metrics_host=host,
            metrics_port=env_int("LEXIO_LEXICON_METRICS_PORT", cls.metrics_port),
            wordlist=Path(env_str("LEXIO_LEXICON_WORDLIST", "") or DEFAULT_WORDLIST_PATH),
            log_level=env_str("LEXIO_LOG_LEVEL", cls.log_level),
        )


async def start_unloaded(
    config: LexiconConfig, *, metrics: LexiconMetrics | None = None
) -> tuple[RunningServer, LexiconServicer]:
    """Open the gRPC port with health NOT_SERVING and no list yet (calls get UNAVAILABLE)."""
    servicer = LexiconServicer(
        max_words=config.max_words, max_word_length=config.max_word_length, metrics=metrics
    )

    def register(server: grpc.aio.Server) -> None:
        lexicon_pb2_grpc.add_LexiconServicer_to_server(servicer, server)

    running = await start_grpc_server(
        host=config.host, port=config.port, register=register, service_names=[SERVICE_NAME]
    )
    log.info("lexicon listening", extra={"host": config.host, "port": running.port})
    return running, servicer


async def start(
    config: LexiconConfig, *, metrics: LexiconMetrics | None = None
) -> tuple[RunningServer, WordList]:
    """Start the server, load the list, then report SERVING; what tests run in-process.

    If the list cannot be loaded the server is stopped again and WordListError raised.
    """
    running, servicer = await start_unloaded(config, metrics=metrics)
    try:
        words = await asyncio.to_thread(WordList.load, config.wordlist)
    except BaseException:
        await running.stop(0)
        raise
    servicer.set_wordlist(words)
    log.info(
        "word list loaded",
        extra={
            "source": words.source,
            "word_count": len(words),
            "sha256": words.sha256,
            "load_seconds": round(words.load_seconds, 4),
        },
    )
    await running.set_serving(True)
    log.info("lexicon serving", extra={"port": running.port})
    return running, words


async def serve(config: LexiconConfig) -> int:
    """Run until SIGTERM/SIGINT; return the process exit status."""
    record_build_info("lexicon")
    try:
        start_metrics_server(config.metrics_host, config.metrics_port)
        running, _ = await start(config)
    except OSError as exc:
        log.error("cannot listen: %s", exc, extra={"host": config.host, "port": config.port})
        return EXIT_CANNOT_LISTEN
    except WordListError as exc:
        log.error(
            "cannot load the word list: %s",
            exc,
            extra={"wordlist": str(config.wordlist)},
        )
        return EXIT_BAD_WORDLIST
    received = await wait_for_shutdown_signal()
    log.info(
        "lexicon stopping",
        extra={"signal": received.name, "grace_seconds": config.grace_seconds},
    )
    await running.stop(config.grace_seconds)
    log.info("lexicon stopped")
    return 0


def main() -> None:
    """Entry point of ``lexio-lexicon``."""
    try:
        setup_logging("lexicon", env_str("LEXIO_LOG_LEVEL", "INFO"))
    except ValueError:  # an unknown level name: log at INFO and say so
        setup_logging("lexicon")
        log.error("bad configuration: LEXIO_LOG_LEVEL is not a logging level")
        sys.exit(EXIT_BAD_CONFIG)
    try:
        config = LexiconConfig.from_env()
        eventloop.loop_name()  # a bad LEXIO_EVENT_LOOP is a configuration error
    except ConfigError as exc:
        log.error("bad configuration: %s", exc)
        sys.exit(EXIT_BAD_CONFIG)
    sys.exit(eventloop.run(serve(config)))


if __name__ == "__main__":
    main()
