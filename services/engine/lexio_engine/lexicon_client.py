"""The engine's hop to the lexicon service: one batched question per placement, asked over a
long-lived stream (``CheckWordsStream``), or by unary ``CheckWords`` calls when the stream is
turned off (``LEXIO_ENGINE_LEXICON_STREAM=0``) or the lexicon does not have it."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lexio.lexicon.v1 import lexicon_pb2, lexicon_pb2_grpc
from lexio_common.streamed_calls import StreamBrokenError, StreamedCalls, StreamUnsupportedError
from lexio_engine.metrics import LEXICON_CALL_SECONDS
from rules_core import LexiconUnavailableError

log = logging.getLogger(__name__)

LEXICON_SERVICE = "lexio.lexicon.v1.Lexicon"


@dataclass(frozen=True)
class LexiconAnswer:
    unknown: tuple[str, ...]
    """The words asked that the list does not hold, in the order asked."""
    spellings: Mapping[str, tuple[str, ...]]
    """For each known word (when asked for): how the dictionary writes it."""


class LexiconClient:
    """Asks the lexicon which words it does not know. Any failure to get an answer is
    :class:`rules_core.LexiconUnavailableError` (the one error every game's rules share for
    it): the caller refuses to decide, and changes nothing."""

    def __init__(self, channel: grpc.aio.Channel, timeout: float, *, stream: bool = True) -> None:
        self._stub = lexicon_pb2_grpc.LexiconStub(channel)
        self._timeout = timeout
        self._stream: StreamedCalls[lexicon_pb2.CheckWordsCall, lexicon_pb2.CheckWordsResult]
        self._stream = StreamedCalls(self._stub.CheckWordsStream, name="lexicon")
        self._streaming = stream

    async def close(self) -> None:
        await self._stream.close()

    async def unknown(self, words: Sequence[str]) -> list[str]:
        """Lexio's question, of the French list (R17)."""
        return list((await self.check(words, lexicon="fr")).unknown)

    async def check(
        self, words: Sequence[str], *, lexicon: str, with_spellings: bool = False
    ) -> LexiconAnswer:
        """One batched call: which of ``words`` list ``lexicon`` does not hold (and, asked,
        the dictionary spellings of the others)."""
        started = time.perf_counter()
        outcome = "ok"
        request = lexicon_pb2.CheckWordsRequest(
            words=words, lexicon=lexicon, with_spellings=with_spellings
        )
        try:
            reply = await self._ask(request)
        except _CallFailedError as e:
            outcome = "error"
            log.warning("lexicon call failed", extra={"grpc_code": e.code, "lexicon": lexicon})
            raise LexiconUnavailableError(e.code) from e
        finally:
            LEXICON_CALL_SECONDS.labels(lexicon=lexicon, outcome=outcome).observe(
                time.perf_counter() - started
            )
        spellings = {s.word: tuple(s.spellings) for s in reply.spellings}
        return LexiconAnswer(tuple(reply.unknown), spellings)

    async def _ask(self, request: lexicon_pb2.CheckWordsRequest) -> lexicon_pb2.CheckWordsResponse:
        if self._streaming and not self._stream.unsupported:
            try:
                result = await self._stream.ask(
                    lexicon_pb2.CheckWordsCall(request=request), self._timeout
                )
            except StreamUnsupportedError:
                pass  # an older lexicon (a rolling update): unary calls from now on
            except StreamBrokenError as e:
                raise _CallFailedError(e.code.name) from e
            except TimeoutError as e:
                raise _CallFailedError(grpc.StatusCode.DEADLINE_EXCEEDED.name) from e
            else:
                if result.code != grpc.StatusCode.OK.value[0]:
                    raise _CallFailedError(_code_name(result.code))
                return result.response
        try:
            reply: lexicon_pb2.CheckWordsResponse = await self._stub.CheckWords(
                request, timeout=self._timeout
            )
            return reply
        except grpc.aio.AioRpcError as e:
            raise _CallFailedError(e.code().name) from e


class _CallFailedError(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _code_name(value: int) -> str:
    return next((c.name for c in grpc.StatusCode if c.value[0] == value), "UNKNOWN")


async def mirror_lexicon_health(
    channel: grpc.aio.Channel,
    set_serving: Callable[[bool], Awaitable[None]],
    *,
    retry_min: float = 0.2,
    retry_max: float = 5.0,
) -> None:
    """Keep the engine's readiness equal to the lexicon's, for as long as the task runs.

    The lobby asks the engine whether a game can be offered (not while its words cannot be
    judged); it cannot reach the lexicon itself, so the engine answers for both.
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
