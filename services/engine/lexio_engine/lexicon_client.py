"""The engine's hop to the lexicon service: one batched call per placement."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lexio.lexicon.v1 import lexicon_pb2, lexicon_pb2_grpc
from lexio_engine.metrics import LEXICON_CALL_SECONDS
from lexio_rules import LexiconUnavailableError

log = logging.getLogger(__name__)

LEXICON_SERVICE = "lexio.lexicon.v1.Lexicon"


class LexiconClient:
    """Asks the lexicon which words it does not know. Any failure to get an answer is
    :class:`LexiconUnavailableError`: the caller refuses to decide, and changes nothing."""

    def __init__(self, channel: grpc.aio.Channel, timeout: float) -> None:
        self._stub = lexicon_pb2_grpc.LexiconStub(channel)
        self._timeout = timeout

    async def unknown(self, words: Sequence[str]) -> list[str]:
        started = time.perf_counter()
        outcome = "ok"
        try:
            reply = await self._stub.CheckWords(
                lexicon_pb2.CheckWordsRequest(words=words), timeout=self._timeout
            )
            return list(reply.unknown)
        except grpc.aio.AioRpcError as e:
            outcome = "error"
            log.warning("lexicon call failed", extra={"grpc_code": e.code().name})
            raise LexiconUnavailableError(e.code().name) from e
        finally:
            LEXICON_CALL_SECONDS.labels(outcome=outcome).observe(time.perf_counter() - started)


async def mirror_lexicon_health(
    channel: grpc.aio.Channel,
    set_serving: Callable[[bool], Awaitable[None]],
    *,
    retry_min: float = 0.2,
    retry_max: float = 5.0,
) -> None:
    """Keep the engine's readiness equal to the lexicon's, for as long as the task runs.

    The lobby asks the engine whether Lexio can be offered (R18); it cannot reach the lexicon
    itself, so the engine answers for both.
    """
    stub = health_pb2_grpc.HealthStub(channel)
    serving = health_pb2.HealthCheckResponse.SERVING
    delay = retry_min
    last: bool | None = None

    async def report(ok: bool) -> None:
        nonlocal last
        if ok != last:
            log.info("lexicon readiness changed", extra={"lexicon_serving": ok})
            last = ok
        await set_serving(ok)

    while True:
        try:
            call = stub.Watch(health_pb2.HealthCheckRequest(service=LEXICON_SERVICE))
            async for reply in call:
                await report(reply.status == serving)
                delay = retry_min
        except grpc.aio.AioRpcError as e:
            log.debug("lexicon health watch ended", extra={"grpc_code": e.code().name})
        await report(False)
        await asyncio.sleep(delay)
        delay = min(retry_max, delay * 2)
