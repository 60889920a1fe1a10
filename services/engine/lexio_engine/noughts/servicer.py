"""Noughts' gRPC servicer (lexio.noughts.v1.Engine): protobuf in, rules, protobuf out.

No rule lives here; what every game's servicer does around its rules is
:mod:`lexio_engine.servicing`'s. Noughts has no words, so no call asks the lexicon, and no
clock, so no reply names a next clock event.
"""

from __future__ import annotations

from lexio.noughts.v1 import engine_pb2 as pb
from lexio.noughts.v1 import engine_pb2_grpc
from lexio_engine.noughts import codec
from lexio_engine.servicing import Call, GameServicer, rpc
from noughts_rules import Accepted, Action, GameState, new_game, play, seat_view


def _read_act(request: pb.ActRequest) -> tuple[GameState, int, Action]:
    return (
        codec.state_from_pb(request.state),
        codec.seat_from_pb(request.seat),
        codec.action_from_pb(request.action),
    )


class NoughtsServicer(GameServicer[None], engine_pb2_grpc.EngineServicer):
    """Its lexicon is None: nothing is ever asked."""

    game = "noughts"
    service = pb.DESCRIPTOR.services_by_name["Engine"]
    act_result = pb.ActResult

    @rpc
    async def StartGame(self, request: pb.StartGameRequest, call: Call) -> pb.StartGameResponse:
        state = new_game()
        call.outcome = "accepted"
        return pb.StartGameResponse(
            state=codec.state_to_pb(state), views=codec.views_to_pb(state, call.now)
        )

    @rpc
    async def Act(self, request: pb.ActRequest, call: Call) -> pb.ActResponse:
        state, seat, action = await call.read(lambda: _read_act(request))
        call.action = codec.action_kind(action)
        outcome = play(state, seat, action, call.now)
        reply = pb.ActResponse(views=codec.views_to_pb(outcome.state, call.now))
        if isinstance(outcome, Accepted):
            call.outcome = "accepted"
            reply.outcome.accepted = True
            reply.state_changed = True
            reply.state.CopyFrom(codec.state_to_pb(outcome.state))
            reply.events.extend(codec.entry_to_pb(e) for e in outcome.entries)
        else:
            call.outcome = "refused"
            reply.outcome.CopyFrom(codec.refusal_to_pb(outcome.refusal))
            reply.state.CopyFrom(request.state)  # N8: nothing changed
        return reply

    @rpc
    async def View(self, request: pb.ViewRequest, call: Call) -> pb.ViewResponse:
        state, seat = await call.read(
            lambda: (codec.state_from_pb(request.state), codec.seat_from_pb(request.seat))
        )
        call.outcome = "accepted"
        view = seat_view(state, seat)
        return pb.ViewResponse(view=codec.view_to_pb(view, call.now, with_log=request.with_log))
