"""Noughts' engine service (lexio.noughts.v1.Engine) on loopback, in the real engine process
beside Lexio's and al-Mishqaq's: whole games to a win, a draw and a resignation, every refusal
(N8), bad input, views, the stream, and play without the lexicon (noughts asks it nothing).
Rule ids are services/engine/noughts_rules/RULES.md's."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY

from lexio.noughts.v1 import engine_pb2 as pb
from lexio.noughts.v1 import engine_pb2_grpc

NOW = 50_000.0
SERVICE = "lexio.noughts.v1.Engine"


def _stub(channel: grpc.Channel) -> engine_pb2_grpc.EngineStub:
    return engine_pb2_grpc.EngineStub(channel)


def _mark(row: int, col: int) -> pb.Action:
    return pb.Action(mark=pb.MarkCell(row=row, col=col))


RESIGN = pb.Action(resign=pb.Resign())


def _act(
    stub: engine_pb2_grpc.EngineStub,
    state: pb.GameState,
    seat: int,
    action: pb.Action,
    at: float = NOW,
) -> pb.ActResponse:
    reply: pb.ActResponse = stub.Act(pb.ActRequest(state=state, seat=seat, action=action, now=at))
    return reply


def _start(stub: engine_pb2_grpc.EngineStub) -> pb.GameState:
    state: pb.GameState = stub.StartGame(pb.StartGameRequest(now=NOW)).state
    return state


def _play(
    stub: engine_pb2_grpc.EngineStub, *cells: tuple[int, int]
) -> tuple[pb.GameState, list[pb.ActResponse]]:
    """The game after ``cells`` marked in turn, X first, the i-th at NOW + i + 1."""
    state = _start(stub)
    replies = []
    for i, (row, col) in enumerate(cells):
        reply = _act(stub, state, i % 2, _mark(row, col), NOW + i + 1)
        assert reply.outcome.accepted, (i, reply.outcome)
        replies.append(reply)
        state = reply.state
    return state, replies


def _calls(action: str, outcome: str) -> float:
    labels = {"game": "noughts", "rpc": "Act", "action": action, "outcome": outcome}
    return REGISTRY.get_sample_value("lexio_engine_calls_total", labels) or 0.0


def _wait_health(channel: grpc.Channel, want: int) -> None:
    stub = health_pb2_grpc.HealthStub(channel)
    deadline = time.monotonic() + 10
    status = None
    while time.monotonic() < deadline:
        status = stub.Check(health_pb2.HealthCheckRequest(service=SERVICE)).status
        if status == want:
            return
        time.sleep(0.05)
    raise AssertionError(f"{SERVICE} health stayed {status}, wanted {want}")


def test_its_own_health_name_serves_beside_the_other_games(engine_channel: grpc.Channel) -> None:
    _wait_health(engine_channel, health_pb2.HealthCheckResponse.SERVING)


def test_start_game_is_an_empty_board_with_x_to_move(engine_channel: grpc.Channel) -> None:
    """N1–N3, N10, N12: no entry yet; seat 0 is X, seat 1 is O, both see the whole board."""
    reply = _stub(engine_channel).StartGame(pb.StartGameRequest(now=NOW))
    assert reply.state.format == "noughts-state/1"
    assert json.loads(reply.state.core)["format"] == "noughts-state/1"
    assert list(reply.events) == []
    assert [(v.seat, v.mark, v.turn, v.now) for v in reply.views] == [
        (0, "X", 0, NOW),
        (1, "O", 0, NOW),
    ]
    for view in reply.views:
        assert list(view.board) == [""] * 9 and not view.HasField("ending") and not view.log


def test_a_whole_game_to_a_win(engine_channel: grpc.Channel) -> None:
    """N3–N5, N9, N11: X takes the top row; the last mark logs the mark and the result."""
    stub = _stub(engine_channel)
    accepted, refused = _calls("mark", "accepted"), _calls("mark", "refused")
    state, replies = _play(stub, (0, 0), (1, 0), (0, 1), (1, 1))
    first = replies[0]
    assert first.state_changed and [v.turn for v in first.views] == [1, 1]
    (entry,) = first.events
    assert (entry.number, entry.kind, entry.seat, entry.at) == (1, pb.ENTRY_KIND_MARK, 0, NOW + 1)
    assert (entry.cell.row, entry.cell.col) == (0, 0) and not entry.HasField("ending")

    win = _act(stub, state, 0, _mark(0, 2), NOW + 9)
    assert win.outcome.accepted and win.state_changed
    mark, result = win.events
    assert (mark.number, mark.kind, mark.seat) == (5, pb.ENTRY_KIND_MARK, 0)
    assert (result.number, result.kind, result.HasField("seat")) == (6, pb.ENTRY_KIND_RESULT, False)
    for ending in (result.ending, win.views[0].ending, win.views[1].ending):
        assert (ending.winner, ending.cause, ending.at) == (0, pb.END_CAUSE_LINE, NOW + 9)
        assert [(c.row, c.col) for c in ending.line] == [(0, 0), (0, 1), (0, 2)]
    assert list(win.views[1].board) == ["X", "X", "X", "O", "O", "", "", "", ""]
    assert _calls("mark", "accepted") == accepted + 5 and _calls("mark", "refused") == refused

    # The whole log, for a seat that reconnects (N9, N10).
    view = stub.View(pb.ViewRequest(state=win.state, seat=1, now=NOW + 10, with_log=True)).view
    assert [e.number for e in view.log] == [1, 2, 3, 4, 5, 6]
    assert [e.seat for e in view.log[:5]] == [0, 1, 0, 1, 0]
    assert (view.seat, view.mark, view.now, view.ending.winner) == (1, "O", NOW + 10, 0)
    bare = stub.View(pb.ViewRequest(state=win.state, seat=0, now=NOW + 10)).view
    assert not bare.log and bare.board == view.board


def test_a_whole_game_to_a_draw(engine_channel: grpc.Channel) -> None:
    """N6: X O X / X O O / O X X."""
    stub = _stub(engine_channel)
    state, replies = _play(
        stub, (0, 0), (0, 1), (0, 2), (1, 1), (1, 0), (1, 2), (2, 1), (2, 0), (2, 2)
    )
    last = replies[-1]
    assert [e.kind for e in last.events] == [pb.ENTRY_KIND_MARK, pb.ENTRY_KIND_RESULT]
    ending = last.views[0].ending
    assert not ending.HasField("winner")  # a draw has no winner
    assert (ending.cause, list(ending.line)) == (pb.END_CAUSE_FULL_BOARD, [])
    assert "" not in last.views[0].board
    assert _act(stub, state, 1, RESIGN).outcome.reason == "game_over"


def test_a_resignation_out_of_turn_gives_the_other_the_game(engine_channel: grpc.Channel) -> None:
    """N7: O resigns while X is to move."""
    stub = _stub(engine_channel)
    before = _calls("resign", "accepted")
    state, _ = _play(stub, (1, 1), (0, 0))
    reply = _act(stub, state, 1, RESIGN, NOW + 20)
    assert reply.outcome.accepted
    assert [(e.kind, e.seat if e.HasField("seat") else None) for e in reply.events] == [
        (pb.ENTRY_KIND_RESIGN, 1),
        (pb.ENTRY_KIND_RESULT, None),
    ]
    ending = reply.views[1].ending
    assert (ending.winner, ending.cause, ending.at) == (0, pb.END_CAUSE_RESIGN, NOW + 20)
    assert _calls("resign", "accepted") == before + 1


@pytest.mark.parametrize(
    ("cells", "seat", "action", "reason"),
    [
        pytest.param([], 1, _mark(0, 0), "not_your_turn", id="o-first"),
        pytest.param([(1, 1)], 0, _mark(0, 0), "not_your_turn", id="x-twice"),
        pytest.param([], 0, _mark(3, 0), "off_board", id="row-3"),
        pytest.param([], 0, _mark(0, -1), "off_board", id="col-minus-1"),
        pytest.param([], 0, _mark(2**31 - 1, 0), "off_board", id="row-int32-max"),
        pytest.param([(1, 1)], 1, _mark(1, 1), "occupied", id="occupied"),
        pytest.param([(1, 1)], 0, _mark(7, 7), "not_your_turn", id="turn-before-board"),
    ],
)
def test_every_refusal_changes_nothing(
    engine_channel: grpc.Channel,
    cells: list[tuple[int, int]],
    seat: int,
    action: pb.Action,
    reason: str,
) -> None:
    """N8: the reason's code, the state sent back as it came, the views as they were."""
    stub = _stub(engine_channel)
    state, _ = _play(stub, *cells)
    reply = _act(stub, state, seat, action)
    assert (reply.outcome.accepted, reply.outcome.reason) == (False, reason)
    assert not reply.state_changed and reply.state == state and not reply.events
    assert [v.turn for v in reply.views] == [len(cells) % 2] * 2


@pytest.mark.parametrize("action", [_mark(2, 2), RESIGN], ids=["mark", "resign"])
def test_after_the_end_everything_is_game_over(
    engine_channel: grpc.Channel, action: pb.Action
) -> None:
    stub = _stub(engine_channel)
    state, _ = _play(stub, (0, 0), (1, 0), (0, 1), (1, 1), (0, 2))
    for seat in (0, 1):
        reply = _act(stub, state, seat, action)
        assert (reply.outcome.reason, reply.state_changed) == ("game_over", False)


def _core(change: Callable[[dict[str, object]], None]) -> Callable[[pb.GameState], None]:
    def mutate(state: pb.GameState) -> None:
        plain = json.loads(state.core)
        change(plain)
        state.core = json.dumps(plain).encode()

    return mutate


@pytest.mark.parametrize(
    ("mutate", "seat", "action"),
    [
        pytest.param(lambda s: setattr(s, "format", "x"), 0, _mark(0, 0), id="unknown-format"),
        pytest.param(
            lambda s: setattr(s, "format", "mishqaq-state/1"), 0, _mark(0, 0), id="other-game"
        ),
        pytest.param(lambda s: setattr(s, "core", b"{"), 0, _mark(0, 0), id="core-not-json"),
        pytest.param(lambda s: setattr(s, "core", b"\xff"), 0, _mark(0, 0), id="core-not-utf8"),
        pytest.param(lambda s: setattr(s, "core", b"[]"), 0, _mark(0, 0), id="core-not-object"),
        pytest.param(_core(lambda p: p.update(board=[""] * 10)), 0, _mark(0, 0), id="ten-cells"),
        pytest.param(_core(lambda p: p.update(turn=1)), 0, _mark(0, 0), id="turn-vs-board"),
        pytest.param(lambda s: None, 2, _mark(0, 0), id="seat-2"),
        pytest.param(lambda s: None, -1, RESIGN, id="seat-minus-1"),
        pytest.param(lambda s: None, 0, pb.Action(), id="empty-action"),
    ],
)
def test_bad_input_is_invalid_argument(
    engine_channel: grpc.Channel,
    mutate: Callable[[pb.GameState], None],
    seat: int,
    action: pb.Action,
) -> None:
    stub = _stub(engine_channel)
    state = _start(stub)
    mutate(state)
    with pytest.raises(grpc.RpcError) as caught:
        _act(stub, state, seat, action)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


@pytest.mark.parametrize(
    ("mutate", "seat"),
    [
        pytest.param(lambda s: setattr(s, "format", "x"), 0, id="unknown-format"),
        pytest.param(lambda s: None, 2, id="seat-2"),
    ],
)
def test_a_view_of_bad_input_is_invalid_argument(
    engine_channel: grpc.Channel, mutate: Callable[[pb.GameState], None], seat: int
) -> None:
    stub = _stub(engine_channel)
    state = _start(stub)
    mutate(state)
    with pytest.raises(grpc.RpcError) as caught:
        stub.View(pb.ViewRequest(state=state, seat=seat, now=NOW))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_now_zero_is_the_engines_clock(engine_channel: grpc.Channel) -> None:
    stub = _stub(engine_channel)
    before = time.time()
    reply = _act(stub, _start(stub), 0, _mark(1, 1), at=0.0)
    assert before <= reply.events[0].at <= time.time()
    assert reply.views[0].now == reply.events[0].at


def test_the_stream_answers_each_call_as_act_would(engine_channel: grpc.Channel) -> None:
    """ActStream, inherited from the shared servicer: results by id, bad input in-band."""
    stub = _stub(engine_channel)
    state = _start(stub)
    calls = [
        pb.ActCall(id=7, request=pb.ActRequest(state=state, seat=0, action=_mark(1, 1), now=NOW)),
        pb.ActCall(id=8, request=pb.ActRequest(state=state, seat=1, action=_mark(1, 1), now=NOW)),
        pb.ActCall(id=9, request=pb.ActRequest(state=state, seat=5, action=RESIGN, now=NOW)),
    ]
    results = {r.id: r for r in stub.ActStream(iter(calls))}
    assert set(results) == {7, 8, 9}
    assert results[7].code == 0 and results[7].response.outcome.accepted
    assert results[8].response.outcome.reason == "not_your_turn"
    assert results[9].code == grpc.StatusCode.INVALID_ARGUMENT.value[0]


def test_noughts_plays_without_the_lexicon(orphan_engine: grpc.Channel) -> None:
    """No call asks the lexicon: a whole game plays while it is away (its health name still
    follows the lexicon's, as every game's does: docs/architecture.md)."""
    stub = _stub(orphan_engine)
    state, replies = _play(stub, (0, 0), (1, 0), (0, 1), (1, 1), (0, 2))
    assert replies[-1].views[0].ending.cause == pb.END_CAUSE_LINE
    view = stub.View(pb.ViewRequest(state=state, seat=0, now=NOW, with_log=True)).view
    assert len(view.log) == 6
