"""Fixtures of the engine suites."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from lexio_testing import LoopThread, free_port

from lexio_engine.server import EngineConfig, RunningEngine, start_engine


@pytest.fixture
def orphan_engine(loop_thread: LoopThread) -> Iterator[grpc.Channel]:
    """A real engine whose lexicon address answers nothing (a free port nobody listens on)."""
    config = EngineConfig(
        host="127.0.0.1",
        port=0,
        metrics_port=-1,
        lexicon_address=f"127.0.0.1:{free_port()}",
        lexicon_timeout=0.5,
    )
    engine: RunningEngine = loop_thread.run(start_engine(config))
    with grpc.insecure_channel(f"127.0.0.1:{engine.port}") as channel:
        yield channel
    loop_thread.run(engine.stop(0))
