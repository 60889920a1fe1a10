"""The real engine and lexicon gRPC servers on loopback: a scripted game, bad input,
hidden information, readiness, and the lexicon going away."""

from __future__ import annotations

import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from lexio_testing import eventually_sync
from prometheus_client import REGISTRY

from lexio.engine.v1 import engine_pb2 as pb
from lexio.engine.v1 import engine_pb2_grpc

NOW = 1_000.0


def _stub(channel: grpc.Channel) -> engine_pb2_grpc.EngineStub:
    return engine_pb2_grpc.EngineStub(channel)


def _tiles(*cells: tuple[int, int, str] | tuple[int, int, str, bool]) -> pb.Action:
    tiles = [
        pb.Tile(row=c[0], col=c[1], letter=c[2], blank=len(c) > 3 and bool(c[3])) for c in cells
    ]
    return pb.Action(place=pb.Place(tiles=tiles))


def _pass() -> pb.Action:
    return pb.Action(pass_turn=pb.Pass(cause=pb.PASS_CAUSE_PLAYER))


def _started(stub: engine_pb2_grpc.EngineStub) -> pb.GameState:
    reply = stub.StartGame(pb.StartGameRequest(players=2, seed=42, now=NOW))
    state: pb.GameState = reply.state
    state.racks[0] = "TABLEUS"
    state.racks[1] = "?LEEZWK"
    return state


def _wait_serving(channel: grpc.Channel, service: str, want: int) -> None:
    stub = health_pb2_grpc.HealthStub(channel)
    deadline = time.monotonic() + 10
    status = None
    while time.monotonic() < deadline:
        status = stub.Check(health_pb2.HealthCheckRequest(service=service)).status
        if status == want:
            return
        time.sleep(0.05)
    raise AssertionError(f"{service} health stayed {status}, wanted {want}")


def test_engine_ready_once_lexicon_serves(engine_channel: grpc.Channel) -> None:
    _wait_serving(engine_channel, "lexio.engine.v1.Engine", health_pb2.HealthCheckResponse.SERVING)


def test_start_game_views_show_only_own_rack(engine_channel: grpc.Channel) -> None:
    """R6: each view holds its own rack, the others' counts and the bag's size only."""
    reply = _stub(engine_channel).StartGame(
        pb.StartGameRequest(players=3, seed=7, now=NOW, turn_seconds=60)
    )
    state = reply.state
    assert len(state.bag) == 102 - 21
    assert [v.seat for v in reply.views] == [0, 1, 2]
    for view in reply.views:
        assert view.rack == state.racks[view.seat]
        assert list(view.rack_counts) == [7, 7, 7]
        assert view.bag_count == 81
        assert view.turn_deadline == NOW + 60
        text = view.SerializeToString()
        assert state.bag.encode() not in text
        for other in range(3):
            if state.racks[other] != view.rack:
                assert state.racks[other].encode() not in text


def test_scripted_game_through_grpc(engine_channel: grpc.Channel) -> None:
    stub = _stub(engine_channel)
    state = _started(stub)

    out_of_turn = stub.Act(pb.ActRequest(state=state, seat=1, action=_pass(), now=NOW + 1))
    assert not out_of_turn.outcome.accepted
    assert out_of_turn.outcome.reason == pb.REASON_NOT_YOUR_TURN
    assert not out_of_turn.state_changed
    assert out_of_turn.state == state

    table = _tiles((6, 2, "T"), (6, 3, "A"), (6, 4, "B"), (6, 5, "L"), (6, 6, "E"))
    first = stub.Act(pb.ActRequest(state=state, seat=0, action=table, now=NOW + 2))
    assert first.outcome.accepted
    assert [(w.word, w.score) for w in first.event.words] == [("TABLE", 7)]
    state = first.state
    assert state.racks[0].startswith("US") and len(state.racks[0]) == 7
    assert state.turn == 1
    assert first.views[1].rack == "?LEEZWK"
    assert state.racks[0].encode() not in first.views[1].SerializeToString()

    # R19/R20: every unknown word named, still seat 1's turn, one try spent.
    probe = _tiles((4, 6, "K"), (5, 6, "Z"))
    refused = stub.Act(pb.ActRequest(state=state, seat=1, action=probe, now=NOW + 3))
    assert not refused.outcome.accepted
    assert refused.outcome.reason == pb.REASON_UNKNOWN_WORDS
    assert list(refused.outcome.unknown_words) == ["KZE"]
    assert refused.state_changed
    assert refused.state.turn == 1
    assert refused.state.board == state.board
    assert refused.views[1].reserve_tries == 9
    assert refused.views[0].reserve_tries == 10
    state = refused.state

    ble = _tiles((4, 6, "B", True), (5, 6, "L"))
    preview = stub.Preview(pb.PreviewRequest(state=state, seat=1, place=ble.place))
    assert preview.well_formed
    assert preview.score == 2
    second = stub.Act(pb.ActRequest(state=state, seat=1, action=ble, now=NOW + 4))
    assert second.outcome.accepted
    assert second.event.score == 2
    state = second.state
    assert state.board[4 * 13 + 6] == "b"

    exchange = pb.Action(exchange=pb.Exchange(tiles="US"))
    third = stub.Act(pb.ActRequest(state=state, seat=0, action=exchange, now=NOW + 5))
    assert third.outcome.accepted
    assert third.event.kind == pb.ENTRY_KIND_EXCHANGE
    assert third.event.count == 2
    assert not third.event.tiles
    state = third.state

    fourth = stub.Act(pb.ActRequest(state=state, seat=1, action=_pass(), now=NOW + 6))
    assert fourth.outcome.accepted
    state = fourth.state
    assert list(state.scores) == [7, 2]
    assert [e.kind for e in state.log] == [
        pb.ENTRY_KIND_PLACE,
        pb.ENTRY_KIND_PLACE,
        pb.ENTRY_KIND_EXCHANGE,
        pb.ENTRY_KIND_PASS,
    ]
    assert [e.number for e in state.log] == [1, 2, 3, 4]  # R11, across four Act calls
    view = stub.View(pb.ViewRequest(state=state, seat=0, now=NOW + 6)).view
    assert view.turn == 0
    assert view.turn_deadline == NOW + 6 + 120


@pytest.mark.parametrize(
    ("mutate", "seat", "action"),
    [
        pytest.param(lambda s: setattr(s, "format", 99), 0, _pass(), id="unknown-state-format"),
        pytest.param(lambda s: setattr(s, "board", "."), 0, _pass(), id="short-board"),
        pytest.param(lambda s: None, 5, _pass(), id="seat-out-of-range"),
        pytest.param(lambda s: None, 0, pb.Action(), id="empty-action"),
        pytest.param(lambda s: None, 0, _tiles((6, 6, "é")), id="letter-outside-a-z"),
        pytest.param(lambda s: None, 0, _tiles((6, 6, "A"), (6, 6, "B")), id="same-cell-twice"),
        pytest.param(
            lambda s: None, 0, pb.Action(exchange=pb.Exchange(tiles="")), id="empty-exchange"
        ),
    ],
)
def test_bad_input_is_invalid_argument(
    engine_channel: grpc.Channel, mutate: object, seat: int, action: pb.Action
) -> None:
    stub = _stub(engine_channel)
    state = _started(stub)
    mutate(state)  # type: ignore[operator]
    with pytest.raises(grpc.RpcError) as caught:
        stub.Act(pb.ActRequest(state=state, seat=seat, action=action, now=NOW))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def _calls(rpc: str, action: str, outcome: str) -> float | None:
    labels = {"game": "lexio", "rpc": rpc, "action": action, "outcome": outcome}
    return REGISTRY.get_sample_value("lexio_engine_calls_total", labels)


def test_calls_are_counted_by_action_and_outcome_from_zero(engine_channel: grpc.Channel) -> None:
    """Issue 17: every series is there before its first call; a call counts once, by what
    the game said (its time is the gRPC server's histogram)."""
    assert _calls("Act", "exchange", "unavailable") is not None
    before = {
        key: _calls(*key) or 0.0
        for key in (
            ("Act", "pass", "accepted"),
            ("Act", "none", "invalid"),
            ("View", "none", "accepted"),
        )
    }
    stub = _stub(engine_channel)
    state = _started(stub)
    stub.Act(pb.ActRequest(state=state, seat=0, action=_pass(), now=NOW))
    with pytest.raises(grpc.RpcError):
        stub.Act(pb.ActRequest(state=state, seat=9, action=_pass(), now=NOW))
    expected = {
        ("Act", "pass", "accepted"): before[("Act", "pass", "accepted")] + 1,
        ("Act", "none", "invalid"): before[("Act", "none", "invalid")] + 1,
        ("View", "none", "accepted"): before[("View", "none", "accepted")],
    }

    # A refused call is counted as its handler ends, which may be just after its status
    # reached the caller: the counts are looked at until they are right, or for 5 s.
    def after() -> dict[tuple[str, str, str], float | None]:
        return {key: _calls(*key) for key in before}

    eventually_sync(lambda: after() == expected, lambda: f"{after()} != {expected}", 5, 0.01)
    assert after() == expected
    assert REGISTRY.get_sample_value("lexio_engine_evaluation_seconds_count", {}) is None


def test_lexicon_unreachable_refuses_to_decide_and_changes_nothing(
    orphan_engine: grpc.Channel,
) -> None:
    stub = _stub(orphan_engine)
    state = _started(stub)
    table = _tiles((6, 2, "T"), (6, 3, "A"), (6, 4, "B"), (6, 5, "L"), (6, 6, "E"))
    with pytest.raises(grpc.RpcError) as caught:
        stub.Act(pb.ActRequest(state=state, seat=0, action=table, now=NOW))
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    assert caught.value.details() == "lexicon_unavailable"
    # R25: the preview never needs the lexicon; a pass needs none either.
    assert stub.Preview(pb.PreviewRequest(state=state, seat=0, place=table.place)).score == 7
    assert stub.Act(pb.ActRequest(state=state, seat=0, action=_pass(), now=NOW)).outcome.accepted
    _wait_serving(
        orphan_engine, "lexio.engine.v1.Engine", health_pb2.HealthCheckResponse.NOT_SERVING
    )
