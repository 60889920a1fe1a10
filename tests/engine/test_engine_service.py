"""The real engine and lexicon gRPC servers on loopback, Lexio through the one contract
(``lexio.game.v1.Engine``, game "lexio"): a scripted game, bad input, hidden information,
readiness, and the lexicon going away."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from game_engine import GameEngine
from grpc_health.v1 import health_pb2, health_pb2_grpc
from lexio_testing import eventually_sync
from prometheus_client import REGISTRY

from lexio.engine.v1 import engine_pb2 as pb

NOW = 1_000.0
PASS: dict[str, Any] = {"pass_turn": {}}


def _engine(channel: grpc.Channel) -> GameEngine:
    return GameEngine(channel, "lexio")


def _tiles(*cells: tuple[int, int, str] | tuple[int, int, str, bool]) -> dict[str, Any]:
    tiles: list[dict[str, Any]] = []
    for c in cells:
        tile: dict[str, Any] = {"row": c[0], "col": c[1], "letter": c[2]}
        if len(c) > 3:
            tile["blank"] = bool(c[3])
        tiles.append(tile)
    return {"place": {"tiles": tiles}}


def _state(state: bytes) -> pb.GameState:
    """What the stored state holds (the caller never reads it; the test does)."""
    return pb.GameState.FromString(state)


def _started_message(engine: GameEngine) -> pb.GameState:
    state = _state(engine.start(2, seed=42, now=NOW).state)
    state.racks[0] = "TABLEUS"
    state.racks[1] = "?LEEZWK"
    return state


def _started(engine: GameEngine) -> bytes:
    return _started_message(engine).SerializeToString()


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
    step = _engine(engine_channel).start(3, settings={"turn_seconds": 60}, seed=7, now=NOW)
    state = _state(step.state)
    assert len(state.bag) == 102 - 21
    assert [v["seat"] for v in step.views] == [0, 1, 2]
    for view, text in zip(step.views, step.reply.views, strict=True):
        assert view["rack"] == state.racks[view["seat"]]
        assert view["rack_counts"] == [7, 7, 7]
        assert view["bag_count"] == 81
        assert view["turn_deadline"] == NOW + 60
        assert state.bag.encode() not in text
        for other in range(3):
            if state.racks[other] != view["rack"]:
                assert state.racks[other].encode() not in text


def test_scripted_game_through_grpc(engine_channel: grpc.Channel) -> None:
    engine = _engine(engine_channel)
    state = _started(engine)

    out_of_turn = engine.act(state, 1, PASS, now=NOW + 1)
    assert not out_of_turn.accepted
    assert out_of_turn.refusal is not None
    assert out_of_turn.refusal["reason"] == "not_your_turn"
    assert not out_of_turn.state_changed
    assert out_of_turn.state == state

    table = _tiles((6, 2, "T"), (6, 3, "A"), (6, 4, "B"), (6, 5, "L"), (6, 6, "E"))
    first = engine.act(state, 0, table, now=NOW + 2)
    assert first.accepted
    [event] = first.events
    assert [(w["word"], w["score"]) for w in event["words"]] == [("TABLE", 7)]
    state = first.state
    stored = _state(state)
    assert stored.racks[0].startswith("US") and len(stored.racks[0]) == 7
    assert stored.turn == 1
    assert first.views[1]["rack"] == "?LEEZWK"
    assert stored.racks[0].encode() not in first.reply.views[1]

    # R19/R20: every unknown word named, still seat 1's turn, one try spent.
    probe = _tiles((4, 6, "K"), (5, 6, "Z"))
    refused = engine.act(state, 1, probe, now=NOW + 3)
    assert not refused.accepted
    assert refused.refusal is not None
    assert refused.refusal["reason"] == "unknown_words"
    assert refused.refusal["words"] == ["KZE"]
    assert refused.state_changed
    assert _state(refused.state).turn == 1
    assert _state(refused.state).board == stored.board
    assert refused.views[1]["reserve_tries"] == 9
    assert refused.views[0]["reserve_tries"] == 10
    state = refused.state

    ble = _tiles((4, 6, "B", True), (5, 6, "L"))
    preview = engine.preview(state, 1, ble)
    assert preview["well_formed"]
    assert preview["score"] == 2
    second = engine.act(state, 1, ble, now=NOW + 4)
    assert second.accepted
    [event] = second.events
    assert event["score"] == 2
    state = second.state
    assert _state(state).board[4 * 13 + 6] == "b"

    exchange = {"exchange": {"tiles": "US"}}
    third = engine.act(state, 0, exchange, now=NOW + 5)
    assert third.accepted
    [event] = third.events
    assert event["kind"] == "exchange"
    assert event["count"] == 2
    assert not event["tiles"]
    state = third.state

    fourth = engine.act(state, 1, PASS, now=NOW + 6)
    assert fourth.accepted
    state = fourth.state
    stored = _state(state)
    assert list(stored.scores) == [7, 2]
    assert [e.kind for e in stored.log] == [
        pb.ENTRY_KIND_PLACE,
        pb.ENTRY_KIND_PLACE,
        pb.ENTRY_KIND_EXCHANGE,
        pb.ENTRY_KIND_PASS,
    ]
    assert [e.number for e in stored.log] == [1, 2, 3, 4]  # R11, across four Act calls
    view = engine.view(state, 0, now=NOW + 6)
    assert view["turn"] == 0
    assert view["turn_deadline"] == NOW + 6 + 120


def _keep(state: pb.GameState) -> None:
    pass


@pytest.mark.parametrize(
    ("mutate", "seat", "action"),
    [
        pytest.param(lambda s: setattr(s, "format", 99), 0, PASS, id="unknown-state-format"),
        pytest.param(lambda s: setattr(s, "board", "."), 0, PASS, id="short-board"),
        pytest.param(_keep, 5, PASS, id="seat-out-of-range"),
        pytest.param(_keep, 0, {}, id="empty-action"),
        pytest.param(_keep, 0, _tiles((6, 6, "é")), id="letter-outside-a-z"),
        pytest.param(_keep, 0, _tiles((6, 6, "A"), (6, 6, "B")), id="same-cell-twice"),
        pytest.param(_keep, 0, {"exchange": {"tiles": ""}}, id="empty-exchange"),
    ],
)
def test_bad_input_is_invalid_argument(
    engine_channel: grpc.Channel,
    mutate: Callable[[pb.GameState], None],
    seat: int,
    action: dict[str, Any],
) -> None:
    engine = _engine(engine_channel)
    state = _started_message(engine)
    mutate(state)
    with pytest.raises(grpc.RpcError) as caught:
        engine.act(state.SerializeToString(), seat, action, now=NOW)
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
    engine = _engine(engine_channel)
    state = _started(engine)
    engine.act(state, 0, PASS, now=NOW)
    with pytest.raises(grpc.RpcError):
        engine.act(state, 9, PASS, now=NOW)
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
    engine = _engine(orphan_engine)
    state = _started(engine)
    table = _tiles((6, 2, "T"), (6, 3, "A"), (6, 4, "B"), (6, 5, "L"), (6, 6, "E"))
    with pytest.raises(grpc.RpcError) as caught:
        engine.act(state, 0, table, now=NOW)
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    assert caught.value.details() == "lexicon_unavailable"
    # R25: the preview never needs the lexicon; a pass needs none either.
    assert engine.preview(state, 0, table)["score"] == 7
    assert engine.act(state, 0, PASS, now=NOW).accepted
    _wait_serving(
        orphan_engine, "lexio.engine.v1.Engine", health_pb2.HealthCheckResponse.NOT_SERVING
    )
