"""Noughts through the engine's one contract (lexio.game.v1.Engine, game "noughts") on
loopback, in the real engine process beside Lexio and al-Mishqaq: whole games to a win, a
draw and a resignation, every refusal (N8), bad input, views, the stream, its health, and
play without the lexicon (noughts asks it nothing). Rule ids are
services/engine/noughts_rules/RULES.md's."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from game_engine import GameEngine, Step
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY

from lexio.game.v1 import game_pb2 as pb
from lexio_engine.games import GAMES

NOW = 50_000.0
HEALTH_NAME = "lexio.game.v1.Engine/noughts"
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def _engine(channel: grpc.Channel) -> GameEngine:
    return GameEngine(channel, "noughts")


def _mark(row: int, col: int) -> dict[str, Any]:
    return {"mark": {"row": row, "col": col}}


RESIGN: dict[str, Any] = {"resign": {}}


def _act(engine: GameEngine, state: bytes, seat: int, action: object, at: float = NOW) -> Step:
    return engine.act(state, seat, action, now=at)


def _start(engine: GameEngine) -> bytes:
    return engine.start(now=NOW).state


def _play(engine: GameEngine, *cells: tuple[int, int]) -> tuple[bytes, list[Step]]:
    """The game after ``cells`` marked in turn, X first, the i-th at NOW + i + 1."""
    state = _start(engine)
    replies = []
    for i, (row, col) in enumerate(cells):
        reply = _act(engine, state, i % 2, _mark(row, col), NOW + i + 1)
        assert reply.accepted, (i, reply.refusal)
        replies.append(reply)
        state = reply.state
    return state, replies


def _calls(action: str, outcome: str) -> float:
    labels = {"game": "noughts", "rpc": "Act", "action": action, "outcome": outcome}
    return REGISTRY.get_sample_value("lexio_engine_calls_total", labels) or 0.0


def _health(channel: grpc.Channel, name: str) -> int:
    status: int = (
        health_pb2_grpc.HealthStub(channel)
        .Check(health_pb2.HealthCheckRequest(service=name))
        .status
    )
    return status


def _wait_health(channel: grpc.Channel, want: int, name: str = HEALTH_NAME) -> None:
    deadline = time.monotonic() + 10
    status = None
    while time.monotonic() < deadline:
        status = _health(channel, name)
        if status == want:
            return
        time.sleep(0.05)
    raise AssertionError(f"{name} health stayed {status}, wanted {want}")


def test_its_own_health_name_serves_beside_the_other_games(engine_channel: grpc.Channel) -> None:
    _wait_health(engine_channel, SERVING)


def test_its_health_stays_serving_while_the_lexicon_is_down(orphan_engine: grpc.Channel) -> None:
    """A deliberate change of the one contract (issue: a game that asks no words must not
    report NOT_SERVING when the lexicon is down). Before, every game's health name followed
    the lexicon's; now a game that asks no words, as noughts, is SERVING while the process
    is: here its name "lexio.game.v1.Engine/noughts" stays SERVING while the games that ask
    words report NOT_SERVING, over a second in which the engine's watch of the lexicon's
    health fails and reports it down again and again."""
    word_games = [game.health_name for game in GAMES if game.asks_words]
    assert word_games and HEALTH_NAME not in word_games
    _wait_health(orphan_engine, SERVING)
    for name in word_games:
        _wait_health(orphan_engine, NOT_SERVING, name)
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        assert _health(orphan_engine, HEALTH_NAME) == SERVING
        assert {_health(orphan_engine, name) for name in word_games} == {NOT_SERVING}
        time.sleep(0.05)


def test_start_game_is_an_empty_board_with_x_to_move(engine_channel: grpc.Channel) -> None:
    """N1–N3, N10, N12: no entry yet; seat 0 is X, seat 1 is O, both see the whole board."""
    reply = _engine(engine_channel).start(now=NOW)
    stored = pb.JsonState.FromString(reply.state)
    assert stored.format == "noughts-state/1"
    assert json.loads(stored.core)["format"] == "noughts-state/1"
    assert reply.accepted and reply.events == []
    assert (reply.over, reply.end_cause, reply.clock, reply.refusal) == (False, "", None, None)
    assert [(v["seat"], v["mark"], v["turn"], v["now"]) for v in reply.views] == [
        (0, "X", 0, NOW),
        (1, "O", 0, NOW),
    ]
    for view in reply.views:
        assert view["board"] == [""] * 9 and view["ending"] is None and view["log"] == []


def test_a_whole_game_to_a_win(engine_channel: grpc.Channel) -> None:
    """N3–N5, N9, N11: X takes the top row; the last mark logs the mark and the result."""
    engine = _engine(engine_channel)
    accepted, refused = _calls("mark", "accepted"), _calls("mark", "refused")
    state, replies = _play(engine, (0, 0), (1, 0), (0, 1), (1, 1))
    first = replies[0]
    assert first.state_changed and [v["turn"] for v in first.views] == [1, 1]
    assert (first.action_kind, first.clock, first.over) == ("mark", None, False)
    (entry,) = first.events
    assert (entry["number"], entry["kind"], entry["seat"], entry["at"]) == (1, "mark", 0, NOW + 1)
    assert entry["cell"] == {"row": 0, "col": 0} and entry["ending"] is None

    win = _act(engine, state, 0, _mark(0, 2), NOW + 9)
    assert win.accepted and win.state_changed
    assert (win.over, win.end_cause, win.clock) == (True, "line", None)
    mark, result = win.events
    assert (mark["number"], mark["kind"], mark["seat"]) == (5, "mark", 0)
    assert (result["number"], result["kind"], result["seat"]) == (6, "result", None)
    for ending in (result["ending"], win.views[0]["ending"], win.views[1]["ending"]):
        assert (ending["winner"], ending["cause"], ending["at"]) == (0, "line", NOW + 9)
        assert ending["line"] == [{"row": 0, "col": c} for c in range(3)]
    assert win.views[1]["board"] == ["X", "X", "X", "O", "O", "", "", "", ""]
    assert _calls("mark", "accepted") == accepted + 5 and _calls("mark", "refused") == refused

    # The whole log, for a seat that reconnects (N9, N10).
    view = engine.view(win.state, 1, now=NOW + 10, with_log=True)
    assert [e["number"] for e in view["log"]] == [1, 2, 3, 4, 5, 6]
    assert [e["seat"] for e in view["log"][:5]] == [0, 1, 0, 1, 0]
    assert (view["seat"], view["mark"], view["now"], view["ending"]["winner"]) == (
        1,
        "O",
        NOW + 10,
        0,
    )
    bare = engine.view(win.state, 0, now=NOW + 10, with_log=False)
    assert bare["log"] == [] and bare["board"] == view["board"]


def test_a_whole_game_to_a_draw(engine_channel: grpc.Channel) -> None:
    """N6: X O X / X O O / O X X."""
    engine = _engine(engine_channel)
    state, replies = _play(
        engine, (0, 0), (0, 1), (0, 2), (1, 1), (1, 0), (1, 2), (2, 1), (2, 0), (2, 2)
    )
    last = replies[-1]
    assert [e["kind"] for e in last.events] == ["mark", "result"]
    assert (last.over, last.end_cause) == (True, "full_board")
    ending = last.views[0]["ending"]
    assert ending["winner"] is None  # a draw has no winner
    assert (ending["cause"], ending["line"]) == ("full_board", [])
    assert "" not in last.views[0]["board"]
    assert _act(engine, state, 1, RESIGN).refusal == {"reason": "game_over"}


def test_a_resignation_out_of_turn_gives_the_other_the_game(engine_channel: grpc.Channel) -> None:
    """N7: O resigns while X is to move."""
    engine = _engine(engine_channel)
    before = _calls("resign", "accepted")
    state, _ = _play(engine, (1, 1), (0, 0))
    reply = _act(engine, state, 1, RESIGN, NOW + 20)
    assert reply.accepted and reply.action_kind == "resign"
    assert (reply.over, reply.end_cause) == (True, "resign")
    assert [(e["kind"], e["seat"]) for e in reply.events] == [("resign", 1), ("result", None)]
    ending = reply.views[1]["ending"]
    assert (ending["winner"], ending["cause"], ending["at"]) == (0, "resign", NOW + 20)
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
    action: dict[str, Any],
    reason: str,
) -> None:
    """N8: the reason's code, the state sent back as it came, the views as they were."""
    engine = _engine(engine_channel)
    state, _ = _play(engine, *cells)
    reply = _act(engine, state, seat, action)
    assert (reply.accepted, reply.refusal) == (False, {"reason": reason})
    assert not reply.state_changed and reply.state == state and not reply.events
    assert [v["turn"] for v in reply.views] == [len(cells) % 2] * 2
    assert (reply.over, reply.end_cause) == (False, "")


@pytest.mark.parametrize("action", [_mark(2, 2), RESIGN], ids=["mark", "resign"])
def test_after_the_end_everything_is_game_over(
    engine_channel: grpc.Channel, action: dict[str, Any]
) -> None:
    engine = _engine(engine_channel)
    state, _ = _play(engine, (0, 0), (1, 0), (0, 1), (1, 1), (0, 2))
    for seat in (0, 1):
        reply = _act(engine, state, seat, action)
        assert (reply.refusal, reply.state_changed) == ({"reason": "game_over"}, False)


Mutation = Callable[[pb.JsonState], None]


def _core(change: Callable[[dict[str, object]], None]) -> Mutation:
    def mutate(state: pb.JsonState) -> None:
        plain = json.loads(state.core)
        change(plain)
        state.core = json.dumps(plain).encode()

    return mutate


def _spoilt(raw: bytes, mutate: Mutation) -> bytes:
    """A stored state (a ``lexio.game.v1.JsonState``) changed by ``mutate``."""
    state = pb.JsonState.FromString(raw)
    mutate(state)
    return state.SerializeToString()


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
        pytest.param(lambda s: None, 0, {}, id="empty-action"),
    ],
)
def test_bad_input_is_invalid_argument(
    engine_channel: grpc.Channel, mutate: Mutation, seat: int, action: dict[str, Any]
) -> None:
    engine = _engine(engine_channel)
    state = _spoilt(_start(engine), mutate)
    with pytest.raises(grpc.RpcError) as caught:
        _act(engine, state, seat, action)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


@pytest.mark.parametrize(
    ("mutate", "seat"),
    [
        pytest.param(lambda s: setattr(s, "format", "x"), 0, id="unknown-format"),
        pytest.param(lambda s: None, 2, id="seat-2"),
    ],
)
def test_a_view_of_bad_input_is_invalid_argument(
    engine_channel: grpc.Channel, mutate: Mutation, seat: int
) -> None:
    engine = _engine(engine_channel)
    state = _spoilt(_start(engine), mutate)
    with pytest.raises(grpc.RpcError) as caught:
        engine.view(state, seat, now=NOW)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_what_it_does_not_offer_is_invalid_argument(engine_channel: grpc.Channel) -> None:
    """No preview, no review, no clock: the contract's answer for a call a game does not
    offer, nothing changed."""
    engine = _engine(engine_channel)
    state, _ = _play(engine, (0, 0), (1, 0), (0, 1), (1, 1), (0, 2))
    calls: list[Callable[[], object]] = [
        lambda: engine.preview(state, 0, _mark(2, 2)),
        lambda: engine.review(state, 0, ["ann", "bob"]),
        lambda: engine.on_clock(state, 0, "timeout", now=NOW),
    ]
    for call in calls:
        with pytest.raises(grpc.RpcError) as caught:
            call()
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_now_zero_is_the_engines_clock(engine_channel: grpc.Channel) -> None:
    engine = _engine(engine_channel)
    before = time.time()
    reply = _act(engine, _start(engine), 0, _mark(1, 1), at=0.0)
    assert before <= reply.events[0]["at"] <= time.time()
    assert reply.views[0]["now"] == reply.events[0]["at"]


def test_the_stream_answers_each_call_as_act_would(engine_channel: grpc.Channel) -> None:
    """ActStream, the one service's: results by id, bad input in-band."""
    engine = _engine(engine_channel)
    state = _start(engine)
    calls = [
        pb.ActCall(id=7, request=engine.act_request(state, 0, _mark(1, 1), now=NOW)),
        pb.ActCall(id=8, request=engine.act_request(state, 1, _mark(1, 1), now=NOW)),
        pb.ActCall(id=9, request=engine.act_request(state, 5, RESIGN, now=NOW)),
    ]
    results = {r.id: r for r in engine.stub.ActStream(iter(calls))}
    assert set(results) == {7, 8, 9}
    assert results[7].code == 0 and Step.of(results[7].response).accepted
    assert Step.of(results[8].response).refusal == {"reason": "not_your_turn"}
    assert results[9].code == grpc.StatusCode.INVALID_ARGUMENT.value[0]


def test_noughts_plays_without_the_lexicon(orphan_engine: grpc.Channel) -> None:
    """No call asks the lexicon: a whole game plays while it is away, and its health name
    says SERVING meanwhile (test_its_health_stays_serving_while_the_lexicon_is_down; before
    the one contract it followed the lexicon's, as every game's did)."""
    engine = _engine(orphan_engine)
    state, replies = _play(engine, (0, 0), (1, 0), (0, 1), (1, 1), (0, 2))
    assert replies[-1].views[0]["ending"]["cause"] == "line"
    assert replies[-1].end_cause == "line"
    view = engine.view(state, 0, now=NOW, with_log=True)
    assert len(view["log"]) == 6
    assert _health(orphan_engine, HEALTH_NAME) == SERVING
