"""The gateway's Act over one long-lived stream per engine (ActStream), through real services.

The same answers and the same errors as the unary Act: a bad state is BadActionError, an
engine that cannot judge words is GameUnavailableError, an older engine without the stream is
asked by unary calls; a game through the gateway uses one stream for all its moves, or none
with LEXIO_GATEWAY_ENGINE_STREAM=0.
"""

from __future__ import annotations

import json
from collections.abc import Coroutine
from typing import Any, TypeVar, cast

import grpc
import pytest
from gateway_play import bot, play_one_turn, started_game
from lexio_testing import GatewayFactory, LoopThread
from prometheus_client import REGISTRY

from lexio.game.v1 import game_pb2 as pb
from lexio.game.v1 import game_pb2_grpc
from lexio_common.grpc_service import RunningServer, start_grpc_server
from lexio_engine.games import GAMES
from lexio_engine.lexicon_client import LexiconClient
from lexio_engine.registry import EngineContext
from lexio_engine.server import RunningEngine
from lexio_engine.service import EngineService
from lexio_gateway.games.contract import BadActionError, GameUnavailableError
from lexio_gateway.games.engine_call import EngineCaller
from lexio_rules import LexiconUnavailableError

T = TypeVar("T")
#: The one service every game is served through (the gRPC metrics' grpc_service label).
SERVICE = "lexio.game.v1.Engine"
GAME = "lexio"
PASS: dict[str, Any] = {"pass_turn": {}}


def _started(method: str, grpc_type: str) -> float:
    labels = {"grpc_type": grpc_type, "grpc_service": SERVICE, "grpc_method": method}
    return REGISTRY.get_sample_value("grpc_server_started_total", labels) or 0.0


def _run(loop_thread: LoopThread, coro: Coroutine[Any, Any, T]) -> T:
    return loop_thread.run(coro, timeout=30)


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


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


def _act_request(state: bytes = b"", action: Any = PASS) -> pb.ActRequest:
    return pb.ActRequest(
        game=GAME,
        table=pb.Table(state=state, options=b"{}"),
        seat=0,
        action=_json(action),
        now=1.0,
    )


async def _new_game(caller: EngineCaller) -> pb.Step:
    return cast(
        pb.Step,
        await caller("Start", pb.StartRequest(game=GAME, seats=2, options=b"{}", seed=5, now=1.0)),
    )


def _turn(step: pb.Step) -> int:
    """The turn seat 0's view of ``step`` shows."""
    return int(json.loads(step.views[0])["turn"])


def test_the_stream_answers_and_fails_as_the_unary_call_does(
    loop_thread: LoopThread, engine_server: RunningEngine
) -> None:
    async def scenario(streamed: bool) -> tuple[int, str, str]:
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{engine_server.port}")
        caller = EngineCaller(
            game_pb2_grpc.EngineStub(channel),
            game=GAME,
            timeout=5.0,
            streamed={"Act": pb.ActCall} if streamed else None,
        )
        try:
            state = (await _new_game(caller)).state
            reply = await caller("Act", _act_request(state))
            bad = _act_request(state)
            bad.seat = 9
            try:
                await caller("Act", bad)
                refused = "accepted"
            except BadActionError:
                refused = "bad_action"
            broken = _act_request(state)
            broken.ClearField("act")  # neither a player's action nor the clock's
            try:
                await caller("Act", broken)
                empty = "accepted"
            except BadActionError:
                empty = "bad_action"
            return _turn(reply), refused, empty
        finally:
            await channel.close()

    assert _run(loop_thread, scenario(True)) == _run(loop_thread, scenario(False))
    assert _run(loop_thread, scenario(True)) == (1, "bad_action", "bad_action")


class _WordlessLexicon:
    """A lexicon that never answers: Lexio's one question (R17) is unavailable."""

    async def unknown(self, words: Any) -> list[str]:
        raise LexiconUnavailableError("UNAVAILABLE")


class _OlderEngine(EngineService):
    """An engine from before the stream: the generated base answers UNIMPLEMENTED."""

    ActStream = game_pb2_grpc.EngineServicer.ActStream  # type: ignore[assignment]


def _engine(servicer_type: type[EngineService]) -> EngineService:
    """Every registered game, built as the engine process builds them, on a lexicon that
    never answers (only Lexio's question is asked here) and a 60 s turn."""
    lexicon = cast(LexiconClient, _WordlessLexicon())
    context = EngineContext(lexicon=lexicon, turn_seconds=60.0)
    return servicer_type({game.name: game.build(context) for game in GAMES})


async def _serve(servicer: EngineService) -> RunningServer:
    def register(server: grpc.aio.Server) -> None:
        game_pb2_grpc.add_EngineServicer_to_server(servicer, server)

    return await start_grpc_server(
        host="127.0.0.1", port=0, register=register, service_names=[SERVICE]
    )


def _tile(row: int, col: int, letter: str) -> dict[str, Any]:
    """A rack's tile placed at (row, col); a blank stands for E."""
    if letter == "?":
        return {"row": row, "col": col, "letter": "E", "blank": True}
    return {"row": row, "col": col, "letter": letter}


@pytest.mark.parametrize("servicer_type", [EngineService, _OlderEngine])
def test_an_engine_without_its_lexicon_is_unavailable_and_an_older_one_is_asked_unary(
    loop_thread: LoopThread, servicer_type: type[EngineService]
) -> None:
    """A placement needs the lexicon: UNAVAILABLE in-band becomes GameUnavailableError; a pass
    does not, and is answered, by the stream or (an older engine) by a unary call."""

    async def scenario() -> tuple[str, int, float]:
        running = await _serve(_engine(servicer_type))
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
        caller = EngineCaller(
            game_pb2_grpc.EngineStub(channel),
            game=GAME,
            timeout=5.0,
            streamed={"Act": pb.ActCall},
        )
        unary_before = _started("Act", "unary")
        try:
            started = await _new_game(caller)
            rack = json.loads(started.views[0])["rack"]
            tiles = [_tile(6, 5, rack[0]), _tile(6, 6, rack[1])]
            place = _act_request(started.state, {"place": {"tiles": tiles}})
            try:
                await caller("Act", place)
                placed = "answered"
            except GameUnavailableError:
                placed = "unavailable"
            passed = await caller("Act", _act_request(started.state))
            return placed, _turn(passed), _started("Act", "unary") - unary_before
        finally:
            await channel.close()
            await running.stop(0)

    placed, turn, acts = _run(loop_thread, scenario())
    assert (placed, turn, acts) == ("unavailable", 1, 2)
