"""Many questions over one long-lived gRPC stream, each answered by the result with its id.

A unary call on loopback costs a grpc.aio client ~0.4 ms of CPU and its server ~0.45 ms when
calls come one every few milliseconds (each wakes gRPC's threads and the event loop anew);
the same question as a message of an open bidirectional stream costs ~0.35 and ~0.25 ms and
answers in ~60 % of the time (docs/benchmarks.md, "streamed hops"). A hop that is crossed
once per move (the engine asking the lexicon) keeps one stream open with this class.

The stream's messages carry an ``id`` (a ``uint64`` field on the request and on the result):
:meth:`StreamedCalls.ask` numbers the request, sends it, and waits for the result with the
same id. When the stream ends or fails, every question in flight fails with
:class:`StreamBrokenError` and the next question opens a new stream; a server that does not
have the method (an older version, during a rolling update) answers UNIMPLEMENTED, which
:class:`StreamUnsupportedError` reports so that the caller can ask by unary calls instead.

On the server, :func:`answer_stream` answers each call of a stream with the unary handler
of the same question, concurrently (a question that waits on another service does not hold
up the next), a refusal in-band; each question is counted and timed in the gRPC server
metrics as the unary call it stands for, so a hop keeps one latency series whichever way
it is crossed.

Shutting down (SIGTERM, a rolling update): the server's :class:`StreamDrain` begins, each
stream stops reading, answers what it has read and ends with OK; the caller asks what is
left unanswered again, on a new stream, which reaches another replica. The questions are
pure functions of their request (the engine and the lexicon keep no state), so asking twice
is harmless; without this, a stream would be served until the grace ran out and then cut,
failing the moves in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Generic, NoReturn, Protocol, TypeVar

import grpc

from lexio_common.grpc_metrics import UNARY, GrpcServerMetrics, default_metrics

__all__ = [
    "STREAM_SUFFIX",
    "CallRefusedError",
    "StreamBrokenError",
    "StreamDrain",
    "StreamUnsupportedError",
    "StreamedCallContext",
    "StreamedCalls",
    "answer_stream",
]

log = logging.getLogger(__name__)

STREAM_SUFFIX = "Stream"
"""``<Rpc>Stream`` carries questions of ``<Rpc>`` (ActStream, CheckWordsStream)."""


def unary_methods(methods: Any) -> tuple[str, ...]:
    """The names of a service's methods but their streams: the label set of per-call metrics,
    since a streamed question is counted as the unary call it stands for.

    >>> unary_methods({"Act": 0, "ActStream": 1, "View": 2})
    ('Act', 'View')
    """
    return tuple(name for name in methods if not name.endswith(STREAM_SUFFIX))


class _Numbered(Protocol):
    id: int


Request = TypeVar("Request", bound=_Numbered)
Result = TypeVar("Result", bound=_Numbered)


_ASK_AGAIN = frozenset({grpc.StatusCode.OK, grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL})
"""How a stream may end under a question when its server goes away: worth asking again."""


class StreamBrokenError(Exception):
    """The stream ended or failed before the answer came; ``code`` says how it ended."""

    def __init__(self, code: grpc.StatusCode) -> None:
        super().__init__(code.name)
        self.code = code


class StreamUnsupportedError(StreamBrokenError):
    """The server does not have the stream's method (UNIMPLEMENTED)."""


class _Stream:
    """One open stream: its call, the questions waiting for an answer, its reader."""

    def __init__(self, call: Any) -> None:
        self.call = call
        self.waiting: dict[int, asyncio.Future[Any]] = {}
        self.ended: StreamBrokenError | None = None
        self.reader: asyncio.Task[None] | None = None


class StreamedCalls(Generic[Request, Result]):
    """Questions and answers over one bidirectional stream, opened when first needed and
    opened again after it ends. Safe for many coroutines asking at once (writes are taken in
    turn; answers may come in any order)."""

    def __init__(self, open_stream: Callable[[], Any], *, name: str) -> None:
        self._open_stream = open_stream
        self._name = name
        self._stream: _Stream | None = None
        self._ids = itertools.count(1)
        self._writing = asyncio.Lock()
        self.unsupported = False
        """True once the server answered UNIMPLEMENTED: the caller should stop asking."""
        self._failing = False
        """True from a stream's failure until an answer comes again: one warning per outage,
        not one per stream that each question opens while the server is away."""

    def _current(self) -> _Stream:
        stream = self._stream
        if stream is None or stream.ended is not None:
            stream = _Stream(self._open_stream())
            stream.reader = asyncio.create_task(self._read(stream), name=f"{self._name}-reader")
            self._stream = stream
        return stream

    async def ask(self, request: Request, timeout: float) -> Result:
        """Send ``request`` (its ``id`` is set here) and wait at most ``timeout`` seconds for
        its result: :class:`TimeoutError`, or :class:`StreamBrokenError` if the stream ends."""
        if self.unsupported:
            raise StreamUnsupportedError(grpc.StatusCode.UNIMPLEMENTED)
        stream = self._current()
        ident = next(self._ids)
        request.id = ident
        async with asyncio.timeout(timeout):
            try:
                return await self._ask_once(stream, ident, request)
            except StreamBrokenError as e:
                if e.code not in _ASK_AGAIN:
                    raise
            # The stream ended before answering: its server is shutting down (OK, or the
            # connection going away under it). Ask again on a new stream, which reaches
            # another replica; once, within the same deadline.
            return await self._ask_once(self._current(), ident, request)

    async def _ask_once(self, stream: _Stream, ident: int, request: Request) -> Result:
        answer: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        stream.waiting[ident] = answer
        try:
            async with self._writing:
                if stream.ended is not None:
                    raise type(stream.ended)(stream.ended.code)
                # If the stream has failed, the reader learns how and fails ``answer``.
                with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
                    await stream.call.write(request)
            return await answer
        finally:
            stream.waiting.pop(ident, None)
            # The reader may have failed ``answer`` while this question waited for the write
            # lock and then raised the stream's end instead: marking its exception as seen
            # keeps asyncio from logging "Future exception was never retrieved" at error
            # level for every question in flight when a service dies (595 in 300 questions).
            if answer.done() and not answer.cancelled():
                answer.exception()

    async def _read(self, stream: _Stream) -> None:
        code = grpc.StatusCode.UNAVAILABLE
        try:
            async for result in stream.call:
                if self._failing:
                    self._failing = False
                    log.info("stream answers again", extra={"stream": self._name})
                answer = stream.waiting.pop(result.id, None)
                if answer is not None and not answer.done():
                    answer.set_result(result)
            code = grpc.StatusCode.OK  # the server ended it (draining): ask anew elsewhere
        except grpc.aio.AioRpcError as e:
            code = e.code()
        except asyncio.CancelledError:
            code = grpc.StatusCode.CANCELLED
            raise
        finally:
            if code is grpc.StatusCode.UNIMPLEMENTED:
                self.unsupported = True
                stream.ended = StreamUnsupportedError(code)
                log.warning("stream not supported by the server", extra={"stream": self._name})
            else:
                stream.ended = StreamBrokenError(code)
                if code is grpc.StatusCode.OK:
                    log.info("stream ended by the server", extra={"stream": self._name})
                elif code is not grpc.StatusCode.CANCELLED:
                    level = logging.DEBUG if self._failing else logging.WARNING
                    self._failing = True
                    log.log(
                        level, "stream ended", extra={"stream": self._name, "grpc_code": code.name}
                    )
            for answer in stream.waiting.values():
                if not answer.done():
                    answer.set_exception(type(stream.ended)(code))
            stream.waiting.clear()

    async def close(self) -> None:
        """End the stream (questions in flight fail with CANCELLED)."""
        stream, self._stream = self._stream, None
        if stream is None:
            return
        stream.call.cancel()
        if stream.reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await stream.reader


class CallRefusedError(Exception):
    """A question answered with a status other than OK (what a unary call would abort with)."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class StreamDrain:
    """A server's "stop taking questions" switch for its streams (see the module's doc)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def begin(self) -> None:
        self._event.set()

    async def wait(self) -> None:
        await self._event.wait()


class StreamedCallContext:
    """The context a unary handler gets when it answers one question of a stream: all such a
    handler asks of its context is :meth:`abort`, which here refuses this question only."""

    def __init__(self) -> None:
        self.code = grpc.StatusCode.OK

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()
    ) -> NoReturn:
        self.code = code
        raise CallRefusedError(code, details)


async def answer_stream(
    calls: AsyncIterator[Any],
    handler: Callable[[Any, StreamedCallContext], Awaitable[Any]],
    result_type: Callable[..., Any],
    *,
    service: str,
    method: str,
    drain: StreamDrain | None = None,
    metrics: GrpcServerMetrics | None = None,
) -> AsyncIterator[Any]:
    """Each ``call`` of the stream (``id``, ``request``) answered by ``handler(request,
    context)`` as ``result_type(id=…, response=…)`` or, refused, ``result_type(id=…, code=…,
    message=…)``; questions run concurrently and are answered as they finish. Once ``drain``
    begins, no more questions are read: those read are answered, and the stream ends (OK)."""
    metrics = metrics or default_metrics()
    answers: asyncio.Queue[Any] = asyncio.Queue()
    running: set[asyncio.Task[None]] = set()

    async def one(call: Any) -> None:
        metrics.started.labels(UNARY, service, method).inc()
        started = time.perf_counter()
        context = StreamedCallContext()
        try:
            response = await handler(call.request, context)
        except CallRefusedError as e:
            answers.put_nowait(result_type(id=call.id, code=e.code.value[0], message=e.message))
            metrics.observe(UNARY, service, method, e.code, time.perf_counter() - started)
        except Exception:
            log.exception("streamed call failed", extra={"method": method})
            code = grpc.StatusCode.INTERNAL
            answers.put_nowait(result_type(id=call.id, code=code.value[0], message="internal"))
            metrics.observe(UNARY, service, method, code, time.perf_counter() - started)
        else:
            answers.put_nowait(result_type(id=call.id, response=response))
            metrics.observe(
                UNARY, service, method, grpc.StatusCode.OK, time.perf_counter() - started
            )

    async def read() -> None:
        try:
            async for call in calls:
                task = asyncio.create_task(one(call))
                running.add(task)
                task.add_done_callback(running.discard)
        finally:
            # Also when the drain stopped the reading: what was read is answered first.
            while running:
                await asyncio.wait(set(running))
            answers.put_nowait(None)

    reader = asyncio.create_task(read())
    stopper = asyncio.create_task(_stop_on(drain, reader)) if drain is not None else None
    try:
        while (answer := await answers.get()) is not None:
            yield answer
        if not reader.cancelled():
            await reader  # the caller's half ended: raise what ended it, if anything did
    finally:
        if stopper is not None:
            stopper.cancel()
        reader.cancel()
        for task in list(running):
            task.cancel()


async def _stop_on(drain: StreamDrain, reader: asyncio.Task[None]) -> None:
    await drain.wait()
    reader.cancel()
