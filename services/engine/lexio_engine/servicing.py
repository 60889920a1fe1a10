"""What every call of every game shares, written once; no game is named here.

The one service (:mod:`lexio_engine.service`) makes each call a :class:`Call` and hands it to
the game's :class:`~lexio_engine.contract.GameRules`:

- a call is counted by outcome and timed by game, at the request's ``now`` or, when it sent
  0, the engine's clock;
- input that cannot be read (:data:`BAD_INPUT`) ends INVALID_ARGUMENT (:meth:`Call.read`);
- a lexicon that cannot answer ends UNAVAILABLE ``lexicon_unavailable``
  (:meth:`Call.ask_lexicon`);
- a request the game cannot answer in its state ends FAILED_PRECONDITION with a stable code
  (:meth:`Call.fail_precondition`: :data:`GAME_NOT_OVER`, :data:`REVIEW_UNAVAILABLE`);
- a stored state's format, checked on the way in (:func:`check_state_format`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Final, NoReturn, TypeVar

import grpc

from lexio_engine.metrics import CALL_SECONDS, CALLS, NO_ACTION
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
    learns them (a call that ends before is ``invalid``). Its time is observed by game and
    RPC: the gRPC interceptor's series are by service, and every game has the same one."""

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
        self._started = time.perf_counter()

    def __enter__(self) -> Call:
        return self

    def __exit__(self, *exc: object) -> None:
        CALLS.labels(game=self.game, rpc=self.rpc, action=self.action, outcome=self.outcome).inc()
        CALL_SECONDS.labels(game=self.game, rpc=self.rpc).observe(
            time.perf_counter() - self._started
        )

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
