"""The lexicon service process: ``lexio-lexicon``.

Order of start-up matters to the rest of Lexio: the gRPC port opens first with health
NOT_SERVING (so orchestration sees a live process that is not ready yet), the word lists
load in a worker thread (so health keeps answering meanwhile), and only once every
configured list is loaded does health turn SERVING. A list that cannot be loaded is
fatal: the process logs why in one line and exits with status 2 rather than serving a
table that would reject every word.

Configuration comes from the environment:

``LEXIO_LEXICON_HOST`` (127.0.0.1), ``LEXIO_LEXICON_PORT`` (50052; 0 picks a free port),
``LEXIO_LEXICON_METRICS_PORT`` (9102; negative disables /metrics),
``LEXIO_LEXICON_LISTS`` (``fr,en,ar``: the list ids to hold),
``LEXIO_LEXICON_WORDLIST`` (the text file of ``fr``; the shipped list),
``LEXIO_LEXICON_CACHE`` (where built lists are; see :mod:`lexio_lexicon.cache`),
``LEXIO_SHUTDOWN_GRACE`` (5 s), ``LEXIO_LOG_LEVEL`` (INFO).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from pathlib import Path

import grpc

from lexio.lexicon.v1 import lexicon_pb2_grpc
from lexio_common import service
from lexio_common.config import ConfigError, env_float, env_int, env_str
from lexio_common.grpc_service import RunningServer, start_grpc_server
from lexio_common.streamed_calls import StreamDrain
from lexio_lexicon.cache import cache_dir
from lexio_lexicon.catalog import LIST_IDS, open_list
from lexio_lexicon.servicer import (
    DEFAULT_LIST,
    DEFAULT_MAX_WORD_LENGTH,
    DEFAULT_MAX_WORDS,
    SERVICE_NAME,
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
    "ListLoadError",
    "load_lists",
    "main",
    "serve",
    "start",
    "start_unloaded",
]

log = logging.getLogger(__name__)

#: The fully qualified gRPC service name, also the name health reports under.
#: Exit statuses: a bad list or bad configuration will not fix itself on restart.
EXIT_BAD_WORDLIST = service.EXIT_BAD_CONFIG
EXIT_BAD_CONFIG = service.EXIT_BAD_CONFIG
#: The ports could not be opened (in use, not permitted): maybe transient.
EXIT_CANNOT_LISTEN = service.EXIT_CANNOT_LISTEN


@dataclass(frozen=True)
class LexiconConfig:
    """Everything the service needs to start; :meth:`from_env` reads the environment."""

    host: str = "127.0.0.1"
    port: int = 50052
    metrics_host: str = "127.0.0.1"
    metrics_port: int = 9102
    #: The lists to hold, by id; health is SERVING once all of them are loaded.
    lists: tuple[str, ...] = LIST_IDS
    #: The text file of ``fr``.
    wordlist: Path = DEFAULT_WORDLIST_PATH
    #: Where built lists (``ar``) are read from; None: :func:`lexio_lexicon.cache.cache_dir`.
    cache: Path | None = None
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
            lists=_list_ids(env_str("LEXIO_LEXICON_LISTS", ",".join(cls.lists))),
            wordlist=Path(env_str("LEXIO_LEXICON_WORDLIST", "") or DEFAULT_WORDLIST_PATH),
            cache=Path(env_str("LEXIO_LEXICON_CACHE", ""))
            if env_str("LEXIO_LEXICON_CACHE", "")
            else None,
            log_level=env_str("LEXIO_LOG_LEVEL", cls.log_level),
            grace_seconds=env_float("LEXIO_SHUTDOWN_GRACE", cls.grace_seconds, minimum=0.0),
        )


def _list_ids(raw: str) -> tuple[str, ...]:
    """``LEXIO_LEXICON_LISTS``: comma-separated known ids, at least one, no repeats."""
    ids = tuple(part.strip() for part in raw.split(",") if part.strip())
    unknown = [list_id for list_id in ids if list_id not in LIST_IDS]
    if not ids or unknown or len(set(ids)) != len(ids):
        raise ConfigError(
            f"LEXIO_LEXICON_LISTS must list some of {', '.join(LIST_IDS)} once each, got {raw!r}"
        )
    return ids


class ListLoadError(WordListError):
    """A configured list cannot be loaded: which one, where from, and why."""

    def __init__(self, list_id: str, location: str, cause: WordListError) -> None:
        super().__init__(str(cause))
        self.list_id = list_id
        self.location = location


def load_lists(config: LexiconConfig) -> dict[str, WordList]:
    """Open every configured list, in order; raise :class:`ListLoadError` on the first failure."""
    loaded = {}
    for list_id in config.lists:
        path = config.wordlist if list_id == DEFAULT_LIST else None
        location = str(path) if path is not None else str(config.cache or cache_dir())
        try:
            words = open_list(list_id, path=path, cache=config.cache)
        except WordListError as exc:
            raise ListLoadError(list_id, location, exc) from exc
        log.info(
            "word list loaded",
            extra={
                "lexicon": list_id,
                "source": words.source,
                "word_count": len(words),
                "sha256": words.sha256,
                "load_s": round(words.load_seconds, 4),
            },
        )
        loaded[list_id] = words
    return loaded


async def start_unloaded(
    config: LexiconConfig, *, metrics: LexiconMetrics | None = None
) -> tuple[RunningServer, LexiconServicer]:
    """Open the gRPC port with health NOT_SERVING and no list yet (calls get UNAVAILABLE)."""
    drain = StreamDrain()
    servicer = LexiconServicer(
        lists=config.lists,
        max_words=config.max_words,
        max_word_length=config.max_word_length,
        metrics=metrics,
        drain=drain,
    )

    def register(server: grpc.aio.Server) -> None:
        lexicon_pb2_grpc.add_LexiconServicer_to_server(servicer, server)

    running = await start_grpc_server(
        host=config.host,
        port=config.port,
        register=register,
        service_names=[SERVICE_NAME],
        drain=drain,
    )
    log.info("lexicon listening", extra={"host": config.host, "port": running.port})
    return running, servicer


async def start(
    config: LexiconConfig, *, metrics: LexiconMetrics | None = None
) -> tuple[RunningServer, WordList]:
    """Start the server, load the lists, then report SERVING; what tests run in-process.

    Returns the ``fr`` list (or the first configured one). If a list cannot be loaded
    the server is stopped again and :class:`ListLoadError` (a WordListError) raised.
    """
    running, servicer = await start_unloaded(config, metrics=metrics)
    started = time.perf_counter()
    try:
        lists = await asyncio.to_thread(load_lists, config)
    except BaseException:
        await running.stop(0)
        raise
    # All at once: no list answers before every one is there (health would say so).
    for list_id, words in lists.items():
        servicer.set_list(list_id, words)
    await running.set_serving(True)
    log.info(
        "lexicon serving",
        extra={
            "port": running.port,
            "lists": ",".join(lists),
            "load_s": round(time.perf_counter() - started, 4),
        },
    )
    return running, lists.get(DEFAULT_LIST) or next(iter(lists.values()))


async def _start_process(config: LexiconConfig) -> RunningServer:
    """:func:`start` as the process runs it: a list that does not load is a StartupError."""
    try:
        running, _ = await start(config)
    except ListLoadError as exc:
        raise service.StartupError(
            f"cannot load the word list: {exc}",
            exit_code=EXIT_BAD_WORDLIST,
            lexicon=exc.list_id,
            wordlist=exc.location,
        ) from exc
    return running


async def serve(config: LexiconConfig) -> int:
    """Run until SIGTERM/SIGINT; return the process exit status."""
    return await service.serve(
        "lexicon",
        config,
        start=_start_process,
        grace=config.grace_seconds,
        metrics=(config.metrics_host, config.metrics_port),
    )


def main() -> None:
    """Entry point of ``lexio-lexicon``."""
    service.run_service(
        "lexicon",
        load_config=LexiconConfig.from_env,
        start=_start_process,
        grace=lambda config: config.grace_seconds,
        metrics=lambda config: (config.metrics_host, config.metrics_port),
    )


if __name__ == "__main__":
    main()
