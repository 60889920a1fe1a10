"""The gateway's Act over one long-lived stream per engine (ActStream), through real services.

The same answers and the same errors as the unary Act: a bad state is BadActionError, an
engine that cannot judge words is GameUnavailableError, an older engine without the stream is
asked by unary calls; a game through the gateway uses one stream for all its moves, or none
with LEXIO_GATEWAY_ENGINE_STREAM=0.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

import grpc
import pytest
from gateway_play import bot, play_one_turn, started_game
from lexio_testing import GatewayFactory, LoopThread
from prometheus_client import REGISTRY

from lexio.engine.v1 import engine_pb2 as pb
from lexio.engine.v1 import engine_pb2_grpc
from lexio_common.grpc_service import RunningServer, start_grpc_server
from lexio_engine.lexio.servicer import LexioServicer as EngineServicer
from lexio_engine.server import RunningEngine
from lexio_gateway.games.contract import BadActionError, GameUnavailableError
from lexio_gateway.games.engine_call import EngineCaller
from lexio_rules import LexiconUnavailableError

T = TypeVar("T")
SERVICE = "lexio.engine.v1.Engine"


def _started(method: str, grpc_type: str) -> float:
    labels = {"grpc_type": grpc_type, "grpc_service": SERVICE, "grpc_method": method}
    return REGISTRY.get_sample_value("grpc_server_started_total", labels) or 0.0


def _run(loop_thread: LoopThread, coro: Coroutine[Any, Any, T]) -> T:
    return loop_thread.run(coro, timeout=30)


@pytest.mark.parametrize(("stream", "streams_opened"), [(True, 1), (False, 0)])
def test_a_game_sends_its_moves_over_one_stream_unless_turned_off(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    stream: bool,
    streams_opened: int,
) -> None:
    gateway = gateway_factory(seed=3, engine_stream=stream)

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as clients:
            player = bot(3)
            for _ in range(6):
                await play_one_turn(clients, player)

    streams, acts = _started("ActStream", "bidi_stream"), _started("Act", "unary")
    _run(loop_thread, scenario())
    assert _started("ActStream", "bidi_stream") - streams == streams_opened
    # Over the stream or not, each move is counted (and timed) as the Act it is.
    assert _started("Act", "unary") - acts == 6


def _act_request(state: bytes = b"") -> pb.ActRequest:
    return pb.ActRequest(
        state=pb.GameState.FromString(state),
        seat=0,
        action=pb.Action(pass_turn=pb.Pass(cause=pb.PASS_CAUSE_PLAYER)),
        now=1.0,
    )


async def _new_game(caller: EngineCaller) -> bytes:
    reply = await caller("StartGame", pb.StartGameRequest(players=2, seed=5, now=1.0))
    return bytes(reply.state.SerializeToString())


def test_the_stream_answers_and_fails_as_the_unary_call_does(
    loop_thread: LoopThread, engine_server: RunningEngine
) -> None:
    async def scenario(streamed: bool) -> tuple[int, str, str]:
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{engine_server.port}")
        caller = EngineCaller(
            engine_pb2_grpc.EngineStub(channel),
            game="lexio",
            timeout=5.0,
            streamed={"Act": pb.ActCall} if streamed else None,
        )
        try:
            state = await _new_game(caller)
            reply = await caller("Act", _act_request(state))
            bad = _act_request(state)
            bad.seat = 9
            try:
                await caller("Act", bad)
                refused = "accepted"
            except BadActionError:
                refused = "bad_action"
            broken = _act_request(state)
            broken.action.Clear()
            try:
                await caller("Act", broken)
                empty = "accepted"
            except BadActionError:
                empty = "bad_action"
            return reply.views[0].turn, refused, empty
        finally:
            await channel.close()

    assert _run(loop_thread, scenario(True)) == _run(loop_thread, scenario(False))
    assert _run(loop_thread, scenario(True)) == (1, "bad_action", "bad_action")


class _WordlessLexicon:
    async def unknown(self, words: Any) -> list[str]:
        raise LexiconUnavailableError("UNAVAILABLE")


class _OlderEngine(EngineServicer):
    """An engine from before the stream: the generated base answers UNIMPLEMENTED."""

    ActStream = engine_pb2_grpc.EngineServicer.ActStream  # type: ignore[assignment]


async def _serve(servicer: EngineServicer) -> RunningServer:
    def register(server: grpc.aio.Server) -> None:
        engine_pb2_grpc.add_EngineServicer_to_server(servicer, server)

    return await start_grpc_server(
        host="127.0.0.1", port=0, register=register, service_names=[SERVICE]
    )


@pytest.mark.parametrize("servicer_type", [EngineServicer, _OlderEngine])
def test_an_engine_without_its_lexicon_is_unavailable_and_an_older_one_is_asked_unary(
    loop_thread: LoopThread, servicer_type: type[EngineServicer]
) -> None:
    """A placement needs the lexicon: UNAVAILABLE in-band becomes GameUnavailableError; a pass
    does not, and is answered, by the stream or (an older engine) by a unary call."""

    async def scenario() -> tuple[str, int, float]:
        running = await _serve(servicer_type(_WordlessLexicon(), default_turn_seconds=60.0))
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
        caller = EngineCaller(
            engine_pb2_grpc.EngineStub(channel),
            game="lexio",
            timeout=5.0,
            streamed={"Act": pb.ActCall},
        )
        unary_before = _started("Act", "unary")
        try:
            state = await _new_game(caller)
            game = pb.GameState.FromString(state)
            place = _act_request(state)
            rack = game.racks[0]
            place.action.Clear()
            place.action.place.tiles.add(row=6, col=5, letter=rack[0].replace("?", "E"))
            place.action.place.tiles.add(row=6, col=6, letter=rack[1].replace("?", "E"))
            try:
                await caller("Act", place)
                placed = "answered"
            except GameUnavailableError:
                placed = "unavailable"
            passed = await caller("Act", _act_request(state))
            return placed, passed.views[0].turn, _started("Act", "unary") - unary_before
        finally:
            await channel.close()
            await running.stop(0)

    placed, turn, acts = _run(loop_thread, scenario())
    assert (placed, turn, acts) == ("unavailable", 1, 2)
