"""What every game's engine servicer does around its rules, written once; no game is named here.

A game's servicer (``lexio_engine/<game>/servicer.py``) derives from :class:`GameServicer`
and from its generated gRPC base, and writes only its own RPCs. The steps they share:

- each RPC is a :class:`Call` (:func:`rpc`), counted by outcome, at the request's ``now`` or,
  when it sent 0, the engine's clock;
- input that cannot be read (:data:`BAD_INPUT`) ends INVALID_ARGUMENT (:meth:`Call.read`);
- a lexicon that cannot answer ends UNAVAILABLE ``lexicon_unavailable``
  (:meth:`Call.ask_lexicon`);
- a request the game cannot answer in its state ends FAILED_PRECONDITION with a stable code
  (:meth:`Call.fail_precondition`: :data:`GAME_NOT_OVER`, :data:`REVIEW_UNAVAILABLE`);
- ``ActStream``: every call of the stream answered as ``Act`` would
  (:meth:`GameServicer.ActStream`);
- a stored state's format, checked on the way in (:func:`check_state_format`).
"""

from __future__ import annotations

import functools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, ClassVar, Final, Generic, NoReturn, TypeVar

import grpc

from lexio_common.streamed_calls import StreamDrain, answer_stream
from lexio_engine.metrics import CALLS, NO_ACTION
from rules_core import LexiconUnavailableError, MalformedActionError, StateFormatError

#: The message of the UNAVAILABLE status a call ends with when the lexicon cannot answer.
LEXICON_UNAVAILABLE: Final = "lexicon_unavailable"

#: The FAILED_PRECONDITION of a Review of a game that has not ended (no record before the end).
GAME_NOT_OVER: Final = "game_not_over"
#: The FAILED_PRECONDITION of a Review of a state that cannot be replayed (e.g. one stored
#: before the state kept what its replay needs).
REVIEW_UNAVAILABLE: Final = "review_unavailable"

#: Input that no rule may see, answered INVALID_ARGUMENT: a state this engine cannot read, an
#: action that cannot be stated, and any other ValueError of reading a request (a game's own
#: errors of input, such as a seat or a table option it does not have, are ValueErrors).
BAD_INPUT: Final = (StateFormatError, MalformedActionError, ValueError)

_T = TypeVar("_T")


class Call:
    """One call in progress: its context, its instant, and its count in
    ``lexio_engine_calls_total``, however it ends. Set ``action`` and ``outcome`` as the call
    learns them (a call that ends before is ``invalid``). Its time is the gRPC interceptor's,
    not measured again here."""

    def __init__(
        self,
        game: str,
        rpc: str,
        context: grpc.aio.ServicerContext,
        requested_now: float = 0.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.game = game
        self.rpc = rpc
        self.context = context
        self.action = NO_ACTION
        self.outcome = "invalid"
        self._requested_now = requested_now
        self._clock = clock
        self._now: float | None = None

    def __enter__(self) -> Call:
        return self

    def __exit__(self, *exc: object) -> None:
        CALLS.labels(game=self.game, rpc=self.rpc, action=self.action, outcome=self.outcome).inc()

    @property
    def now(self) -> float:
        """The call's instant: the request's ``now``, or the engine's clock when it sent 0
        (read once, when first asked)."""
        if self._now is None:
            requested = self._requested_now
            self._now = requested if requested > 0 else self._clock()
        return self._now

    async def read(self, reading: Callable[[], _T]) -> _T:
        """What ``reading`` makes of the request. Input that cannot be read (:data:`BAD_INPUT`)
        ends the call INVALID_ARGUMENT with the error's message (it names what is wrong,
        never a secret); no rule sees it."""
        try:
            return reading()
        except BAD_INPUT as e:
            await self.context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
            raise AssertionError("abort returns only by raising") from e

    async def ask_lexicon(self, question: Awaitable[_T]) -> _T:
        """The lexicon's answer to ``question``. If it cannot answer, the call ends UNAVAILABLE
        :data:`LEXICON_UNAVAILABLE`, counted ``unavailable``: nothing is decided, nothing
        changed."""
        try:
            return await question
        except LexiconUnavailableError:
            self.outcome = "unavailable"
            await self.context.abort(grpc.StatusCode.UNAVAILABLE, LEXICON_UNAVAILABLE)
            raise AssertionError("abort returns only by raising") from None

    async def fail_precondition(self, code: str) -> NoReturn:
        """End the call FAILED_PRECONDITION with ``code`` as its details (a stable code the
        caller branches on, e.g. :data:`GAME_NOT_OVER`), counted ``refused``: the request was
        readable, the game's state does not allow it."""
        self.outcome = "refused"
        await self.context.abort(grpc.StatusCode.FAILED_PRECONDITION, code)
        raise AssertionError("abort returns only by raising")


def check_state_format(found: object, expected: object) -> None:
    """A stored state's ``format`` on the way in: :class:`~rules_core.StateFormatError` unless
    it is the one this engine writes, so that a state is never half-read.

    >>> check_state_format(2, 1)
    Traceback (most recent call last):
    ...
    rules_core.errors.StateFormatError: state.format: 2, not 1
    """
    if found != expected:
        raise StateFormatError(f"state.format: {found!r}, not {expected!r}")


_Lexicon = TypeVar("_Lexicon")
_Servicer = TypeVar("_Servicer", bound="GameServicer[Any]")
_Request = TypeVar("_Request")
_Response = TypeVar("_Response")


class GameServicer(Generic[_Lexicon]):
    """The base of a game's servicer, before its generated base: ``class
    GameNameServicer(GameServicer[Question], engine_pb2_grpc.EngineServicer)``, where
    ``Question`` is what the game asks the lexicon (``self._lexicon``). The game sets the
    three class attributes and writes its RPCs as :func:`rpc` methods, ``Act`` among them."""

    game: ClassVar[str]
    """The game's name: the ``game`` label of its calls' metrics."""
    service: ClassVar[Any]
    """Its gRPC service's descriptor (``ActStream`` counts each call as this service's Act)."""
    act_result: ClassVar[Callable[..., Any]]
    """Its ``ActResult`` message, which :meth:`ActStream` answers with."""

    def __init__(
        self,
        lexicon: _Lexicon,
        *,
        clock: Callable[[], float] = time.time,
        drain: StreamDrain | None = None,
    ) -> None:
        self._lexicon = lexicon
        self._clock = clock
        self._drain = drain or StreamDrain()

    async def Act(self, request: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802
        """One action. Every game's servicer defines its own (an :func:`rpc` method, checked
        for each registered game by tests/engine/test_engine_registry.py); this slot is what
        :meth:`ActStream` answers through."""
        raise NotImplementedError

    async def ActStream(  # noqa: N802
        self, calls: AsyncIterator[Any], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[Any]:
        """Every call of the stream answered as :meth:`Act` would, concurrently (one that waits
        on the lexicon does not hold up the others), a failure in-band; each is counted and
        timed as an Act call. Ends, answered, when the engine's stream drain begins."""
        async for result in answer_stream(
            calls,
            self.Act,
            self.act_result,
            service=self.service.full_name,
            method="Act",
            drain=self._drain,
        ):
            yield result


def rpc(
    method: Callable[[_Servicer, _Request, Call], Coroutine[Any, Any, _Response]],
) -> Callable[[_Servicer, _Request, grpc.aio.ServicerContext], Coroutine[Any, Any, _Response]]:
    """A game's RPC as gRPC calls it, ``(request, context)``, from ``method(request, call)``:
    the :class:`Call` is counted under the method's name, at the request's ``now`` if it has
    one (else the engine's clock, when asked)."""
    name = method.__name__

    @functools.wraps(method)
    async def handler(
        self: _Servicer, request: _Request, context: grpc.aio.ServicerContext
    ) -> _Response:
        requested = getattr(request, "now", 0.0)
        with Call(self.game, name, context, requested, self._clock) as call:
            return await method(self, request, call)

    return handler
