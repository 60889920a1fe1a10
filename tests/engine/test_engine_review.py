"""Review (issue 26) through the real engine and lexicon gRPC servers: a finished game played
with Act, reviewed by each seat; its errors; ``exchanged`` kept through Act; and ``lexio
replay`` of one downloaded record."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest
from game_engine import GameEngine, Step
from lexio_review_games import French, choose_action

from lexio.engine.v1 import engine_pb2 as pb
from lexio.game.v1 import game_pb2
from lexio_engine.lexio import codec
from lexio_engine.server import RunningEngine
from lexio_rules import Action, Exchange, Pass, PassCause, Place
from lexio_rules.record import parse_record, replay

NOW = 1_000.0
NAMES = ["Ana", "Bruno", "Chloé"]
LEXIO = Path(sys.executable).with_name("lexio")
#: The table's own passes (R28, R29): what its clock sends instead of a player's action.
CLOCK_ACTIONS = {PassCause.CLOCK: "pass:clock", PassCause.DISCONNECTED: "pass:disconnected"}


def _engine(channel: grpc.Channel) -> GameEngine:
    return GameEngine(channel, "lexio")


def _state(state: bytes) -> pb.GameState:
    """What the stored state holds (the caller never reads it; the test does)."""
    return pb.GameState.FromString(state)


def _action_to_json(action: Action) -> dict[str, Any]:
    """A player's action as the browser sends it (a pass for the clock is the table's own)."""
    match action:
        case Place(tiles=tiles):
            return {
                "place": {
                    "tiles": [
                        {"row": t.row, "col": t.col, "letter": t.letter, "blank": t.blank}
                        for t in tiles
                    ]
                }
            }
        case Exchange(tiles=tiles):
            return {"exchange": {"tiles": tiles}}
        case Pass():
            return {"pass_turn": {}}
    raise AssertionError(action)


class Played:
    """A game played through Act: each accepted reply's state and views, in order."""

    def __init__(self, engine: GameEngine, players: int, seed: int) -> None:
        start = engine.start(players, seed=seed, now=NOW)
        self.states: list[bytes] = [start.state]
        self.views: list[list[dict[str, Any]]] = [start.views]
        self.events: list[dict[str, Any]] = []
        self.engine = engine
        self.now = NOW

    def message(self, k: int = -1) -> pb.GameState:
        return _state(self.states[k])

    @property
    def over(self) -> bool:
        return self.message().HasField("ending")

    def act(self, action: Action) -> None:
        self.now += 3.0
        state = self.states[-1]
        seat = self.message().turn
        reply: Step
        if isinstance(action, Pass) and action.cause in CLOCK_ACTIONS:
            reply = self.engine.on_clock(state, seat, CLOCK_ACTIONS[action.cause], now=self.now)
        else:
            reply = self.engine.act(state, seat, _action_to_json(action), now=self.now)
        assert reply.accepted, reply.refusal
        self.states.append(reply.state)
        self.views.append(reply.views)
        self.events.extend(reply.events)


def _play_to_the_end(engine: GameEngine, seed: int, stall_at: int) -> Played:
    """Real French words (the engine's lexicon judges them), exchanges and passes; from
    ``stall_at`` turns on, only passes and exchanges, so that R31 ends it."""
    rng = random.Random(seed)
    played = Played(engine, 3, seed)
    turns = 0
    while not played.over:
        game = codec.state_from_pb(played.message())
        played.act(choose_action(rng, game, words=True, stalled=turns >= stall_at))
        turns += 1
    return played


@pytest.fixture(scope="module")
def finished(engine_server: RunningEngine) -> Played:
    with grpc.insecure_channel(f"127.0.0.1:{engine_server.port}") as channel:
        played = _play_to_the_end(_engine(channel), seed=5, stall_at=14)
    final = played.message()
    exchanges = [e for e in final.log if e.kind == pb.ENTRY_KIND_EXCHANGE]
    assert exchanges and final.exchanged, "the game must exchange"
    return played


def test_r27_exchanged_tiles_are_kept_in_the_state_through_act(
    engine_channel: grpc.Channel,
) -> None:
    played = Played(_engine(engine_channel), 2, seed=9)
    rack = played.message().racks[0]
    played.act(Exchange(rack[:3]))
    played.act(Pass())
    played.act(Exchange(played.message().racks[0][-2:]))
    state = played.message()
    assert list(state.exchanged) == [rack[:3], played.message(2).racks[0][-2:]]
    assert [e.count for e in state.log if e.kind == pb.ENTRY_KIND_EXCHANGE] == [3, 2]
    # Private like the racks (R27): no view holds them.
    for views in played.views:
        for view in views:
            assert "exchanged" not in view


def test_r11_r32_review_of_a_finished_game_for_each_seat(
    finished: Played, engine_channel: grpc.Channel
) -> None:
    final = finished.message()
    engine = _engine(engine_channel)
    for seat in range(3):
        reply = engine.review(finished.states[-1], seat, NAMES)
        # Steps: the seat's views as Act gave them, after each entry at its instant.
        assert len(reply.steps) == len(final.log) + 1
        for k, step in enumerate(reply.steps):
            assert step["log"] == []
            live = dict(finished.views[k][seat])
            if k == 0:  # the start's instant is not stored: the first entry's stands for it
                live["turn_deadline"] = final.log[0].at + final.turn_seconds
            assert step == live, k
        # Entries: the public log, as Act's events carried it.
        assert reply.entries == finished.events
        assert reply.steps[-1]["ending"] is not None
        assert reply.steps[-1]["ending"]["racks"] == list(final.racks)
        # The record replays (lexio_rules.record: what `lexio replay` runs) to the end.
        record = reply.record
        assert record["players"] == NAMES
        assert record["final_racks"] == list(final.racks)
        result = replay(parse_record(record), French())
        assert result["ended"] is True
        assert result["final_scores"] == list(final.ending.final_scores)
        assert result["winners"] == list(final.ending.winners)
        assert result["scores"] == list(final.scores)
        assert "".join(result["board"]) == final.board
        # R6/R27: another seat's rack or exchanged tiles appear only as the reveal.
        for move in record["moves"]:
            if move["player"] != seat:
                assert "rack" not in move
                assert not isinstance(move.get("exchange", 0), str)


def test_review_of_a_game_in_play_is_refused_game_not_over(
    finished: Played, engine_channel: grpc.Channel
) -> None:
    engine = _engine(engine_channel)
    for state in (finished.states[0], finished.states[len(finished.states) // 2]):
        with pytest.raises(grpc.RpcError) as refused:
            engine.review(state, 0, NAMES)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert refused.value.details() == "game_not_over"


def test_review_of_an_old_state_without_its_exchanges_is_unavailable(
    finished: Played, engine_channel: grpc.Channel
) -> None:
    """A game stored before the state kept its exchanges cannot be replayed: no record rather
    than a wrong one."""
    old = finished.message()
    del old.exchanged[:]
    with pytest.raises(grpc.RpcError) as refused:
        _engine(engine_channel).review(old.SerializeToString(), 1, NAMES)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert refused.value.details() == "review_unavailable"


@pytest.mark.parametrize(("seat", "players"), [(3, NAMES), (-1, NAMES), (0, NAMES[:2]), (0, [])])
def test_review_for_a_bad_seat_or_names_is_invalid_argument(
    finished: Played, engine_channel: grpc.Channel, seat: int, players: list[str]
) -> None:
    final = finished.states[-1]
    with pytest.raises(grpc.RpcError) as refused:
        _engine(engine_channel).review(final, seat, players)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_review_of_an_unreadable_state_is_invalid_argument(engine_channel: grpc.Channel) -> None:
    with pytest.raises(grpc.RpcError) as refused:
        _engine(engine_channel).review(pb.GameState().SerializeToString(), 0)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_lexio_replay_of_a_downloaded_record(
    finished: Played, engine_channel: grpc.Channel, tmp_path: Path
) -> None:
    """The command line, with its shipped French list, replays one seat's record to the end."""
    final = finished.message()
    engine = _engine(engine_channel)
    request = game_pb2.ReviewRequest(
        game="lexio", table=engine.table(finished.states[-1]), seat=2, players=NAMES
    )
    # The record's text as the engine sent it, which the gateway hands over for download.
    reply = engine.stub.Review(request)
    path = tmp_path / "lexio-record.json"
    path.write_text(reply.record, encoding="utf-8")
    done = subprocess.run(
        [str(LEXIO), "replay", str(path)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert all(m["status"] == "accepted" for m in result["moves"])
    assert result["ended"] is True
    assert result["final_scores"] == list(final.ending.final_scores)
    assert result["winners"] == list(final.ending.winners)
