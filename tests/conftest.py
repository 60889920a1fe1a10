"""Fixtures shared by every suite: an event loop in a thread, and real servers on it.

Servers listen on 127.0.0.1, port 0. Tests talk to them with ordinary synchronous gRPC
channels, so no async test plugin is needed.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import grpc
import pytest

from lexio_common.grpc_service import RunningServer
from lexio_engine.server import EngineConfig, RunningEngine, start_engine
from lexio_lexicon.server import LexiconConfig, start

T = TypeVar("T")


class LoopThread:
    """An asyncio loop running in a daemon thread, hosting the servers under test."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()


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
