"""al-Mishqaq's Review (issue 26) through the real engine process and the real lexicon: a game
played through Act (a French word judged by the shipped list, passes, a pause that is ended
and one that runs out, a resignation) reviewed by each side, its record replayed by the
installed `lexio replay`; an unfinished game (game_not_over), a state whose log does not follow
from its seed (review_unavailable), a bad side and an unreadable state (INVALID_ARGUMENT)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from lexio.mishqaq.v1 import engine_pb2 as pb
from lexio.mishqaq.v1 import engine_pb2_grpc
from lexio_engine.mishqaq import codec
from lexio_engine.server import RunningEngine
from mishqaq_rules import Side, new_game

NOW = 1_764_650_000.5
LEXIO = Path(sys.executable).with_name("lexio")
SIDES = {Side.LATIN: pb.SIDE_LATIN, Side.ARABIC: pb.SIDE_ARABIC}


def _stub(channel: grpc.Channel) -> engine_pb2_grpc.EngineStub:
    return engine_pb2_grpc.EngineStub(channel)


def _seed_where_latin_opens_with(letters: str) -> int:
    """A seed whose draw lets Latin open with ``letters`` in its first rack (the same draw as
    StartGame's: the rules' new_game from that seed)."""
    for seed in range(2000):
        game = new_game(latin="fr", seed=seed, now=NOW)
        rack = [t.text for t in game.rack(Side.LATIN)]
        if game.turn is Side.LATIN and all(rack.count(x) >= letters.count(x) for x in letters):
            return seed
    raise AssertionError(f"no seed opens Latin with {letters}")


def _act(
    stub: engine_pb2_grpc.EngineStub,
    state: pb.GameState,
    side: pb.Side.ValueType,
    action: pb.Action,
    at: float,
) -> pb.GameState:
    reply: pb.ActResponse = stub.Act(pb.ActRequest(state=state, side=side, action=action, now=at))
    assert reply.outcome.accepted, reply.outcome
    return reply.state


@pytest.fixture(scope="module")
def finished(engine_channel_module: grpc.Channel) -> pb.GameState:
    """ET at Latin's red square, then passes, two pauses (one ended, one run out: its end is
    logged before the pass that follows) and Arabic's resignation."""
    stub = _stub(engine_channel_module)
    seed = _seed_where_latin_opens_with("ET")
    start = stub.StartGame(
        pb.StartGameRequest(
            latin="fr", seed=seed, now=NOW, latin_bank_seconds=1500, arabic_bank_seconds=1800
        )
    )
    et = pb.Action(
        place=pb.Place(
            tiles=[pb.Placement(row=10, col=1, tile="E"), pb.Placement(row=10, col=2, tile="T")]
        )
    )
    passing = pb.Action(pass_turn=pb.Pass())
    state = _act(stub, start.state, pb.SIDE_LATIN, et, NOW + 12.25)
    state = _act(stub, state, pb.SIDE_LATIN, pb.Action(pause=pb.Pause()), NOW + 20.5)
    state = _act(stub, state, pb.SIDE_LATIN, pb.Action(resume=pb.Resume()), NOW + 31.0)
    state = _act(stub, state, pb.SIDE_ARABIC, passing, NOW + 40.75)
    state = _act(stub, state, pb.SIDE_ARABIC, pb.Action(pause=pb.Pause()), NOW + 41.0)
    state = _act(stub, state, pb.SIDE_LATIN, passing, NOW + 130.0)  # the pause ran out at +101
    return _act(stub, state, pb.SIDE_ARABIC, pb.Action(resign=pb.Resign()), NOW + 135.5)


@pytest.fixture(scope="module")
def engine_channel_module(engine_server: RunningEngine) -> Iterator[grpc.Channel]:
    """A channel to the session's engine, kept for the module's played game."""
    with grpc.insecure_channel(f"127.0.0.1:{engine_server.port}") as channel:
        yield channel


def _review(channel: grpc.Channel, state: pb.GameState, side: pb.Side.ValueType) -> Any:
    return _stub(channel).Review(pb.ReviewRequest(state=state, side=side))


@pytest.mark.parametrize("side", [Side.LATIN, Side.ARABIC])
def test_review_of_a_finished_game(
    engine_channel_module: grpc.Channel, finished: pb.GameState, side: Side
) -> None:
    reply = _review(engine_channel_module, finished, SIDES[side])
    state = codec.state_from_pb(finished)
    log = state.log
    assert [e.kind.value for e in log] == [
        "opening", "place", "pause", "resume", "pass", "pause", "pause_expired", "pass",
        "resign", "result",
    ]  # fmt: skip
    assert len(reply.steps) == len(log) + 1
    # Each step at its entry's instant (the start: the opening's), without the log.
    assert [s.now for s in reply.steps] == [log[0].at, *(e.at for e in log)]
    assert all(not s.log for s in reply.steps)
    assert all(s.side == SIDES[side] for s in reply.steps)
    # The clocks as they stood: Latin's bank ran 12.25 s before ET, then stopped.
    assert reply.steps[1].latin_bank == 1500 and reply.steps[2].latin_bank == 1500 - 12.25
    paused = reply.steps[3]
    assert paused.pause.by == pb.SIDE_LATIN and not paused.HasField("flag_at")
    # Arabic's pause at +41 stopped Latin's running bank until it ran out at +101.
    assert reply.steps[6].latin_bank == 1500 - 12.25 - 0.25
    assert reply.steps[7].latin_bank == reply.steps[6].latin_bank
    assert reply.steps[8].latin_bank == reply.steps[7].latin_bank - 29
    # The last step is the end as View shows it, both racks revealed (M12).
    view = _stub(engine_channel_module).View(
        pb.ViewRequest(state=finished, side=SIDES[side], now=log[-1].at)
    )
    assert reply.steps[-1] == view.view
    assert reply.steps[-1].ending.cause == pb.END_CAUSE_RESIGN
    assert not any(s.HasField("ending") for s in reply.steps[:-1])
    # Each step's rack is the side's own; the other rack never shows before the reveal.
    other = [t.text for t in state.rack(side.other)]
    for step in reply.steps[:-1]:
        assert all(t.owner == SIDES[side] for t in step.rack)
        assert [t.code for t in step.rack] != other or not other

    record = json.loads(reply.record)
    assert record["format"] == "mishqaq-record/1" and record["opening"] == "latin"
    assert [sorted(set(m) - {"side", "rack"}) for m in record["moves"]] == [
        ["place"], ["pass"], ["pass"], ["resign"]
    ]  # fmt: skip
    assert all(("rack" in m) == (m["side"] == side.value) for m in record["moves"])
    assert record["ending"] == {"winner": "latin", "cause": "resign"}


def test_lexio_replay_of_a_reviewed_record_reaches_the_ending(
    engine_channel_module: grpc.Channel, finished: pb.GameState, tmp_path: Path
) -> None:
    """The Latin side's record through the installed command and the shipped French list."""
    reply = _review(engine_channel_module, finished, pb.SIDE_LATIN)
    path = tmp_path / "mishqaq-record.json"
    path.write_text(reply.record, encoding="utf-8")
    done = subprocess.run(
        [str(LEXIO), "replay", str(path)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [m["status"] for m in result["moves"]] == ["accepted"] * 4
    assert result["moves"][0]["words"] == [{"word": "ET", "direction": "across"}]
    assert result["result"] == {"winner": "latin", "cause": "resign"}
    assert result["board"] == codec.state_from_pb(finished).board.rows()


def _failed(call: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return caught.value


def test_review_of_a_game_not_over_is_game_not_over(engine_channel_module: grpc.Channel) -> None:
    start = _stub(engine_channel_module).StartGame(pb.StartGameRequest(seed=3, now=NOW))
    error = _failed(lambda: _review(engine_channel_module, start.state, pb.SIDE_LATIN))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error.details() == "game_not_over"


def test_review_of_a_log_that_does_not_follow_from_its_seed_is_unavailable(
    engine_channel_module: grpc.Channel, finished: pb.GameState
) -> None:
    core = json.loads(finished.core)
    core["seed"] += 1
    tampered = pb.GameState(
        format=finished.format, core=json.dumps(core).encode(), log=finished.log
    )
    error = _failed(lambda: _review(engine_channel_module, tampered, pb.SIDE_ARABIC))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error.details() == "review_unavailable"


@pytest.mark.parametrize(
    ("mutate", "side"),
    [
        pytest.param(lambda s: None, pb.SIDE_UNSPECIFIED, id="no-side"),
        pytest.param(lambda s: None, 7, id="unknown-side"),
        pytest.param(lambda s: setattr(s, "format", "x"), pb.SIDE_LATIN, id="unknown-format"),
        pytest.param(lambda s: setattr(s, "core", b"{"), pb.SIDE_LATIN, id="core-not-json"),
        pytest.param(lambda s: s.log.append(b"["), pb.SIDE_LATIN, id="log-not-json"),
    ],
)
def test_review_of_bad_input_is_invalid_argument(
    engine_channel_module: grpc.Channel, finished: pb.GameState, mutate: Any, side: int
) -> None:
    state = pb.GameState()
    state.CopyFrom(finished)
    mutate(state)
    error = _failed(lambda: _review(engine_channel_module, state, side))  # type: ignore[arg-type]
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
