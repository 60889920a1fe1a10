"""al-Mishqaq's gRPC servicer (lexio.mishqaq.v1.Engine): protobuf in, rules, protobuf out.

No rule lives here. A placement whose form is legal costs one batched lexicon call, naming the
mover's list (M22: the table's Latin list, or ``ar``), with every reading of every word — both
readings of a column (M20) — and the dictionary spellings of the known ones (M37).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Final, Protocol

import grpc

from lexio.mishqaq.v1 import engine_pb2 as pb
from lexio.mishqaq.v1 import engine_pb2_grpc
from lexio_common.streamed_calls import StreamDrain, answer_stream
from lexio_engine.evaluation import CallOutcome, refuse_input
from lexio_engine.lexicon_client import LexiconAnswer
from lexio_engine.mishqaq import codec
from mishqaq_rules import (
    DEFAULT_BANK_SECONDS,
    SIDES,
    Accepted,
    GameState,
    InvalidOptionError,
    LexiconUnavailableError,
    MalformedActionError,
    Outcome,
    Refusal,
    Refused,
    StateFormatError,
    conclude,
    examine,
    new_game,
    next_clock_event,
    side_view,
)

LEXICON_UNAVAILABLE: Final = "lexicon_unavailable"
SERVICE_NAME: Final = pb.DESCRIPTOR.services_by_name["Engine"].full_name
GAME: Final = "mishqaq"
_BAD_INPUT: Final = (StateFormatError, MalformedActionError, InvalidOptionError, ValueError)


class WordJudge(Protocol):
    async def check(
        self, words: Sequence[str], *, lexicon: str, with_spellings: bool = False
    ) -> LexiconAnswer: ...


def _views(state: GameState, now: float) -> list[pb.SideView]:
    """Latin's view then Arabic's, without the log (the events extend it)."""
    return [codec.view_to_pb(side_view(state, s, now), now, with_log=False) for s in SIDES]


def _clock_event(
    message: pb.StartGameResponse | pb.ActResponse | pb.ViewResponse, state: GameState
) -> None:
    event = next_clock_event(state)
    if event is not None:
        message.next_clock_event = event


def _refused(refusal: Refusal) -> pb.Outcome:
    return pb.Outcome(
        accepted=False, reason=refusal.reason.value, unknown_words=refusal.unknown_words
    )


class MishqaqServicer(engine_pb2_grpc.EngineServicer):
    def __init__(
        self,
        lexicon: WordJudge,
        *,
        clock: Callable[[], float] = time.time,
        drain: StreamDrain | None = None,
    ) -> None:
        self._lexicon = lexicon
        self._clock = clock
        self._drain = drain or StreamDrain()

    def _now(self, requested: float) -> float:
        return requested if requested > 0 else self._clock()

    async def StartGame(
        self, request: pb.StartGameRequest, context: grpc.aio.ServicerContext
    ) -> pb.StartGameResponse:
        with CallOutcome(GAME, "StartGame") as call:
            now = self._now(request.now)
            banks = (
                request.latin_bank_seconds or DEFAULT_BANK_SECONDS,
                request.arabic_bank_seconds or DEFAULT_BANK_SECONDS,
            )
            try:
                state = new_game(
                    latin=request.latin or "fr", seed=request.seed, now=now, banks=banks
                )
            except _BAD_INPUT as e:
                await refuse_input(context, e)
            call.outcome = "accepted"
            reply = pb.StartGameResponse(
                state=codec.state_to_pb(state),
                events=[codec.entry_to_pb(e) for e in state.log],
                views=_views(state, now),
            )
            _clock_event(reply, state)
            return reply

    async def Act(
        self, request: pb.ActRequest, context: grpc.aio.ServicerContext
    ) -> pb.ActResponse:
        with CallOutcome(GAME, "Act") as call:
            now = self._now(request.now)
            try:
                state = codec.state_from_pb(request.state, with_log=False)
                side = codec.side_from_pb(request.side)
                action = codec.action_from_pb(request.action, side)
            except _BAD_INPUT as e:
                await refuse_input(context, e)
            call.action = codec.action_kind(action)
            examined = examine(state, side, action, now)
            outcome: Outcome
            if isinstance(examined, Refusal):
                outcome = Refused.of(state, examined)
            else:
                answer = await self._judge(examined.lexicon, examined.readings, context, call)
                outcome = conclude(examined, answer.unknown, answer.spellings)
            reply = pb.ActResponse(views=_views(outcome.state, now))
            if isinstance(outcome, Accepted):
                call.outcome = "accepted"
                reply.outcome.accepted = True
                reply.events.extend(codec.entry_to_pb(e) for e in outcome.entries)
            else:
                call.outcome = "refused"
                reply.outcome.CopyFrom(_refused(outcome.refusal))
            changed = isinstance(outcome, Accepted) or outcome.state_changed
            reply.state_changed = changed
            if changed:
                reply.state.CopyFrom(codec.state_to_pb(outcome.state, request.state.log))
                if isinstance(outcome, Refused):
                    # A refusal that recorded the flag's end still logged the result.
                    reply.events.extend(codec.entry_to_pb(e) for e in outcome.state.log)
            else:
                reply.state.CopyFrom(request.state)
            _clock_event(reply, outcome.state)
            return reply

    async def ActStream(
        self, calls: AsyncIterator[pb.ActCall], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.ActResult]:
        """Every call of the stream answered as :meth:`Act` would, concurrently (one that waits
        on the lexicon does not hold up the others), a failure in-band; each is counted and
        timed as an Act call."""
        async for result in answer_stream(
            calls, self.Act, pb.ActResult, service=SERVICE_NAME, method="Act", drain=self._drain
        ):
            yield result

    async def _judge(
        self,
        lexicon: str | None,
        readings: Sequence[str],
        context: grpc.aio.ServicerContext,
        call: CallOutcome,
    ) -> LexiconAnswer:
        if lexicon is None or not readings:
            return LexiconAnswer((), {})
        try:
            return await self._lexicon.check(readings, lexicon=lexicon, with_spellings=True)
        except LexiconUnavailableError:
            call.outcome = "unavailable"
            await context.abort(grpc.StatusCode.UNAVAILABLE, LEXICON_UNAVAILABLE)
            raise AssertionError("abort returns only by raising") from None

    async def View(
        self, request: pb.ViewRequest, context: grpc.aio.ServicerContext
    ) -> pb.ViewResponse:
        with CallOutcome(GAME, "View") as call:
            now = self._now(request.now)
            try:
                state = codec.state_from_pb(request.state, with_log=request.with_log)
                side = codec.side_from_pb(request.side)
            except _BAD_INPUT as e:
                await refuse_input(context, e)
            call.outcome = "accepted"
            reply = pb.ViewResponse(
                view=codec.view_to_pb(side_view(state, side, now), now, with_log=request.with_log)
            )
            _clock_event(reply, state)
            return reply
