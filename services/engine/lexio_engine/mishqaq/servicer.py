"""al-Mishqaq's gRPC servicer (lexio.mishqaq.v1.Engine): protobuf in, rules, protobuf out.

No rule lives here; what every game's servicer does around its rules is
:mod:`lexio_engine.servicing`'s. A placement whose form is legal costs one batched lexicon
call, naming the mover's list (M22: the table's Latin list, or ``ar``), with every reading of
every word — both readings of a column (M20) — and the dictionary spellings of the known ones
(M37).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from lexio.mishqaq.v1 import engine_pb2 as pb
from lexio.mishqaq.v1 import engine_pb2_grpc
from lexio_engine.lexicon_client import LexiconAnswer
from lexio_engine.mishqaq import codec
from lexio_engine.servicing import (
    GAME_NOT_OVER,
    REVIEW_UNAVAILABLE,
    Call,
    GameServicer,
    rpc,
)
from mishqaq_rules import (
    DEFAULT_BANK_SECONDS,
    Accepted,
    Action,
    Examined,
    GameNotOverError,
    GameState,
    NotReplayableError,
    Outcome,
    Refusal,
    Refused,
    Side,
    conclude,
    examine,
    new_game,
    next_clock_event,
    replay_history,
    side_view,
)


class WordJudge(Protocol):
    """al-Mishqaq's question to the lexicon: which readings does the mover's list not hold,
    and how does the dictionary spell the others?"""

    async def check(
        self, words: Sequence[str], *, lexicon: str, with_spellings: bool = False
    ) -> LexiconAnswer: ...


def _clock_event(
    message: pb.StartGameResponse | pb.ActResponse | pb.ViewResponse, state: GameState
) -> None:
    event = next_clock_event(state)
    if event is not None:
        message.next_clock_event = event


def _read_act(request: pb.ActRequest) -> tuple[GameState, Side, Action]:
    side = codec.side_from_pb(request.side)
    return (
        codec.state_from_pb(request.state, with_log=False),
        side,
        codec.action_from_pb(request.action, side),
    )


class MishqaqServicer(GameServicer[WordJudge], engine_pb2_grpc.EngineServicer):
    game = "mishqaq"
    service = pb.DESCRIPTOR.services_by_name["Engine"]
    act_result = pb.ActResult

    @rpc
    async def StartGame(self, request: pb.StartGameRequest, call: Call) -> pb.StartGameResponse:
        banks = (
            request.latin_bank_seconds or DEFAULT_BANK_SECONDS,
            request.arabic_bank_seconds or DEFAULT_BANK_SECONDS,
        )
        latin = request.latin or "fr"
        state = await call.read(
            lambda: new_game(latin=latin, seed=request.seed, now=call.now, banks=banks)
        )
        call.outcome = "accepted"
        reply = pb.StartGameResponse(
            state=codec.state_to_pb(state),
            events=[codec.entry_to_pb(e) for e in state.log],
            views=codec.views_to_pb(state, call.now),
        )
        _clock_event(reply, state)
        return reply

    @rpc
    async def Act(self, request: pb.ActRequest, call: Call) -> pb.ActResponse:
        state, side, action = await call.read(lambda: _read_act(request))
        call.action = codec.action_kind(action)
        examined = examine(state, side, action, call.now)
        outcome: Outcome
        if isinstance(examined, Refusal):
            outcome = Refused.of(state, examined)
        else:
            answer = await self._judge(examined, call)
            outcome = conclude(examined, answer.unknown, answer.spellings)
        reply = pb.ActResponse(views=codec.views_to_pb(outcome.state, call.now))
        if isinstance(outcome, Accepted):
            call.outcome = "accepted"
            reply.outcome.accepted = True
            reply.events.extend(codec.entry_to_pb(e) for e in outcome.entries)
        else:
            call.outcome = "refused"
            reply.outcome.CopyFrom(codec.refusal_to_pb(outcome.refusal))
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

    async def _judge(self, examined: Examined, call: Call) -> LexiconAnswer:
        """The lexicon's answer for a placement's readings; none asked for other actions."""
        if examined.lexicon is None or not examined.readings:
            return LexiconAnswer((), {})
        question = self._lexicon.check(
            examined.readings, lexicon=examined.lexicon, with_spellings=True
        )
        return await call.ask_lexicon(question)

    @rpc
    async def View(self, request: pb.ViewRequest, call: Call) -> pb.ViewResponse:
        with_log = request.with_log
        state, side = await call.read(
            lambda: (
                codec.state_from_pb(request.state, with_log=with_log),
                codec.side_from_pb(request.side),
            )
        )
        call.outcome = "accepted"
        view = side_view(state, side, call.now)
        reply = pb.ViewResponse(view=codec.view_to_pb(view, call.now, with_log=with_log))
        _clock_event(reply, state)
        return reply

    @rpc
    async def Review(self, request: pb.ReviewRequest, call: Call) -> pb.ReviewResponse:
        """A finished game replayed from its seed and log (no lexicon: the log says which
        words were known), as ``side`` may review it. A game not over yet, or one whose log
        does not follow from its seed, is FAILED_PRECONDITION with its code."""
        state, side = await call.read(
            lambda: (codec.state_from_pb(request.state), codec.side_from_pb(request.side))
        )
        try:
            history = replay_history(state)
        except GameNotOverError:
            await call.fail_precondition(GAME_NOT_OVER)
        except NotReplayableError:
            await call.fail_precondition(REVIEW_UNAVAILABLE)
        call.outcome = "accepted"
        return codec.review_to_pb(history, side)
