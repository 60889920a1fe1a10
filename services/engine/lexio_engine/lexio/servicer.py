"""Lexio's gRPC servicer (lexio.engine.v1.Engine): protobuf in, rules, protobuf out. No rule
lives here; what every game's servicer does around its rules is :mod:`lexio_engine.servicing`'s.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from lexio.engine.v1 import engine_pb2 as pb
from lexio.engine.v1 import engine_pb2_grpc
from lexio_common.streamed_calls import StreamDrain
from lexio_engine.lexio import codec
from lexio_engine.servicing import GAME_NOT_OVER, REVIEW_UNAVAILABLE, Call, GameServicer, rpc
from lexio_rules import (
    Accepted,
    Action,
    GameNotOverError,
    GameState,
    InvalidSeatError,
    Reason,
    Refusal,
    ReviewUnavailableError,
    all_views,
    conclude,
    examine,
    new_game,
    preview,
    review,
    seat_view,
)


class WordChecker(Protocol):
    """Lexio's question to the lexicon: which of these words does the French list not hold?"""

    async def unknown(self, words: Sequence[str]) -> Sequence[str]: ...


def _read_act(request: pb.ActRequest) -> tuple[GameState, Action]:
    state = codec.state_from_pb(request.state, with_log=False)
    action = codec.action_from_pb(request.action)
    state.check_seat(request.seat)
    return state, action


def _read_review(request: pb.ReviewRequest) -> GameState:
    state = codec.state_from_pb(request.state)
    state.check_seat(request.seat)
    if len(request.players) != state.players:
        raise InvalidSeatError(f"{len(request.players)} names for a game of {state.players}")
    return state


class LexioServicer(GameServicer[WordChecker], engine_pb2_grpc.EngineServicer):
    game = "lexio"
    service = pb.DESCRIPTOR.services_by_name["Engine"]
    act_result = pb.ActResult

    def __init__(
        self,
        lexicon: WordChecker,
        *,
        default_turn_seconds: float,
        clock: Callable[[], float] = time.time,
        drain: StreamDrain | None = None,
    ) -> None:
        """``default_turn_seconds``: R28's turn clock of a game whose start names none."""
        super().__init__(lexicon, clock=clock, drain=drain)
        self._default_turn_seconds = default_turn_seconds

    @rpc
    async def StartGame(self, request: pb.StartGameRequest, call: Call) -> pb.StartGameResponse:
        turn_seconds = request.turn_seconds or self._default_turn_seconds
        state = await call.read(
            lambda: new_game(request.players, request.seed, call.now, turn_seconds)
        )
        call.outcome = "accepted"
        views = [codec.view_to_pb(v) for v in all_views(state, call.now)]
        return pb.StartGameResponse(state=codec.state_to_pb(state), views=views)

    @rpc
    async def Act(self, request: pb.ActRequest, call: Call) -> pb.ActResponse:
        state, action = await call.read(lambda: _read_act(request))
        call.action = codec.action_kind(action)
        examined = examine(state, request.seat, action, call.now)
        if isinstance(examined, Refusal):
            call.outcome = "refused"
            return pb.ActResponse(
                outcome=codec.refusal_to_pb(examined),
                state=request.state,
                views=codec.views_to_pb(state, call.now),
                state_changed=False,
            )
        words = examined.words_to_check
        unknown = await call.ask_lexicon(self._lexicon.unknown(words)) if words else ()
        outcome = conclude(examined, unknown)
        reply = pb.ActResponse(
            state=codec.state_to_pb(outcome.state, request.state.log),
            views=codec.views_to_pb(outcome.state, call.now),
            state_changed=True,
        )
        if isinstance(outcome, Accepted):
            call.outcome = "accepted"
            reply.outcome.accepted = True
            reply.event.CopyFrom(codec.entry_to_pb(outcome.entry))
        else:
            call.outcome = "refused"
            reply.outcome.CopyFrom(codec.refusal_to_pb(outcome.refusal))
        return reply

    @rpc
    async def Preview(self, request: pb.PreviewRequest, call: Call) -> pb.PreviewResponse:
        call.action = "place"
        result = await call.read(
            lambda: preview(
                codec.state_from_pb(request.state, with_log=False),
                request.seat,
                codec.place_from_pb(request.place),
            )
        )
        if isinstance(result, Reason):
            call.outcome = "refused"
            return pb.PreviewResponse(well_formed=False, reason=codec.reason_to_pb(result))
        call.outcome = "accepted"
        return pb.PreviewResponse(
            well_formed=True,
            words=[codec.word_to_pb(w) for w in result.words],
            score=result.score,
            bingo=result.bingo,
        )

    @rpc
    async def View(self, request: pb.ViewRequest, call: Call) -> pb.ViewResponse:
        view = await call.read(
            lambda: seat_view(codec.state_from_pb(request.state), request.seat, call.now)
        )
        call.outcome = "accepted"
        return pb.ViewResponse(view=codec.view_to_pb(view))

    @rpc
    async def Review(self, request: pb.ReviewRequest, call: Call) -> pb.ReviewResponse:
        """A finished game as one seat may review it (lexio_rules.review): FAILED_PRECONDITION
        game_not_over before the end, review_unavailable for a state that cannot be replayed."""
        state = await call.read(lambda: _read_review(request))
        try:
            # The replay plays the whole game again (~0.3 ms an entry): in a thread, so that
            # the moves of the tables in play do not wait behind it for the loop.
            done = await asyncio.to_thread(review, state, request.seat, list(request.players))
        except GameNotOverError:
            await call.fail_precondition(GAME_NOT_OVER)
        except ReviewUnavailableError:
            await call.fail_precondition(REVIEW_UNAVAILABLE)
        call.outcome = "accepted"
        return codec.review_to_pb(done)
