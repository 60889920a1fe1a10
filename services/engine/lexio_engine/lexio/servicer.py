"""Lexio's gRPC servicer (lexio.engine.v1.Engine): protobuf in, rules, protobuf out. No rule
lives here."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Final, Protocol

import grpc

from lexio.engine.v1 import engine_pb2 as pb
from lexio.engine.v1 import engine_pb2_grpc
from lexio_common.streamed_calls import StreamDrain, answer_stream
from lexio_engine.evaluation import CallOutcome, refuse_input
from lexio_engine.lexio import codec
from lexio_rules import (
    Accepted,
    GameState,
    InvalidSeatError,
    LexiconUnavailableError,
    MalformedActionError,
    Reason,
    Refusal,
    StateFormatError,
    all_views,
    conclude,
    examine,
    new_game,
    preview,
    seat_view,
)

LEXICON_UNAVAILABLE: Final = "lexicon_unavailable"
SERVICE_NAME: Final = pb.DESCRIPTOR.services_by_name["Engine"].full_name
GAME: Final = "lexio"


class WordChecker(Protocol):
    async def unknown(self, words: Sequence[str]) -> Sequence[str]: ...


_BAD_INPUT: Final = (StateFormatError, MalformedActionError, InvalidSeatError, ValueError)


class LexioServicer(engine_pb2_grpc.EngineServicer):
    def __init__(
        self,
        lexicon: WordChecker,
        *,
        default_turn_seconds: float,
        clock: Callable[[], float] = time.time,
        drain: StreamDrain | None = None,
    ) -> None:
        self._drain = drain or StreamDrain()
        self._lexicon = lexicon
        self._default_turn_seconds = default_turn_seconds
        self._clock = clock

    def _now(self, requested: float) -> float:
        return requested if requested > 0 else self._clock()

    async def StartGame(
        self, request: pb.StartGameRequest, context: grpc.aio.ServicerContext
    ) -> pb.StartGameResponse:
        with CallOutcome(GAME, "StartGame") as call:
            now = self._now(request.now)
            try:
                state = new_game(
                    request.players,
                    request.seed,
                    now,
                    request.turn_seconds or self._default_turn_seconds,
                )
            except _BAD_INPUT as e:
                await refuse_input(context, e)
            call.outcome = "accepted"
            return pb.StartGameResponse(
                state=codec.state_to_pb(state),
                views=[codec.view_to_pb(v) for v in all_views(state, now)],
            )

    async def Act(
        self, request: pb.ActRequest, context: grpc.aio.ServicerContext
    ) -> pb.ActResponse:
        with CallOutcome(GAME, "Act") as call:
            now = self._now(request.now)
            try:
                state = codec.state_from_pb(request.state, with_log=False)
                action = codec.action_from_pb(request.action)
                state.check_seat(request.seat)
            except _BAD_INPUT as e:
                await refuse_input(context, e)
            call.action = codec.action_kind(action)
            examined = examine(state, request.seat, action, now)
            if isinstance(examined, Refusal):
                call.outcome = "refused"
                return pb.ActResponse(
                    outcome=_refused(examined),
                    state=request.state,
                    views=_views(state, now),
                    state_changed=False,
                )
            words = examined.words_to_check
            try:
                unknown = await self._lexicon.unknown(words) if words else ()
            except LexiconUnavailableError:
                call.outcome = "unavailable"
                await context.abort(grpc.StatusCode.UNAVAILABLE, LEXICON_UNAVAILABLE)
            outcome = conclude(examined, unknown)
            reply = pb.ActResponse(
                state=codec.state_to_pb(outcome.state, request.state.log),
                views=_views(outcome.state, now),
                state_changed=True,
            )
            if isinstance(outcome, Accepted):
                call.outcome = "accepted"
                reply.outcome.accepted = True
                reply.event.CopyFrom(codec.entry_to_pb(outcome.entry))
            else:
                call.outcome = "refused"
                reply.outcome.CopyFrom(_refused(outcome.refusal))
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

    async def Preview(
        self, request: pb.PreviewRequest, context: grpc.aio.ServicerContext
    ) -> pb.PreviewResponse:
        with CallOutcome(GAME, "Preview") as call:
            call.action = "place"
            try:
                state = codec.state_from_pb(request.state, with_log=False)
                place = codec.place_from_pb(request.place)
                result = preview(state, request.seat, place)
            except _BAD_INPUT as e:
                await refuse_input(context, e)
            if isinstance(result, Reason):
                call.outcome = "refused"
                return pb.PreviewResponse(well_formed=False, reason=codec.reason_to_pb(result))
            call.outcome = "accepted"
            return pb.PreviewResponse(
                well_formed=True,
                words=[
                    pb.WordScore(word=w.word, score=w.score, row=w.row, col=w.col, across=w.across)
                    for w in result.words
                ],
                score=result.score,
                bingo=result.bingo,
            )

    async def View(
        self, request: pb.ViewRequest, context: grpc.aio.ServicerContext
    ) -> pb.ViewResponse:
        with CallOutcome(GAME, "View") as call:
            try:
                state = codec.state_from_pb(request.state)
                view = seat_view(state, request.seat, self._now(request.now))
            except _BAD_INPUT as e:
                await refuse_input(context, e)
            call.outcome = "accepted"
            return pb.ViewResponse(view=codec.view_to_pb(view))


def _views(state: GameState, now: float) -> list[pb.SeatView]:
    """Every seat's view after an action, without the public log (``event`` extends it)."""
    return [codec.view_to_pb(v, with_log=False) for v in all_views(state, now)]


def _refused(refusal: Refusal) -> pb.Outcome:
    return pb.Outcome(
        accepted=False,
        reason=codec.reason_to_pb(refusal.reason),
        unknown_words=refusal.unknown_words,
    )
