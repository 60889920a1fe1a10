"""al-Mishqaq's Review (issue 26) through the real engine process (game "mishqaq" of
lexio.game.v1.Engine) and the real lexicon: a game played through Act (a French word judged by
the shipped list, passes, a pause that is ended and one that runs out, a resignation) reviewed
by each side, its record replayed by the installed `lexio replay`; an unfinished game
(game_not_over), a state whose log does not follow from its seed (review_unavailable), a bad
seat or option and an unreadable state (INVALID_ARGUMENT).

With the default option host_side "latin", seat 0 plays Latin and seat 1 Arabic (M1)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import grpc
import pytest
from game_engine import GameEngine, Review

from lexio.game.v1 import game_pb2
from lexio.mishqaq.v1 import engine_pb2 as mishqaq_pb
from lexio_engine.mishqaq import codec
from lexio_engine.server import RunningEngine
from mishqaq_rules import GameState, Side, new_game

NOW = 1_764_650_000.5
GAME = "mishqaq"
LEXIO = Path(sys.executable).with_name("lexio")
SEATS = {Side.LATIN: 0, Side.ARABIC: 1}  # host_side "latin" (the default)
PASS: dict[str, Any] = {"pass_turn": {}}


def _engine(channel: grpc.Channel) -> GameEngine:
    return GameEngine(channel, GAME)


def _seed_where_latin_opens_with(letters: str) -> int:
    """A seed whose draw lets Latin open with ``letters`` in its first rack (the same draw as
    Start's: the rules' new_game from that seed)."""
    for seed in range(2000):
        game = new_game(latin="fr", seed=seed, now=NOW)
        rack = [t.text for t in game.rack(Side.LATIN)]
        if game.turn is Side.LATIN and all(rack.count(x) >= letters.count(x) for x in letters):
            return seed
    raise AssertionError(f"no seed opens Latin with {letters}")


def _act(engine: GameEngine, state: bytes, seat: int, action: Any, at: float) -> bytes:
    step = engine.act(state, seat, action, now=at)
    assert step.accepted, step.refusal
    return step.state


def _rules_state(state: bytes) -> GameState:
    return codec.state_from_pb(mishqaq_pb.GameState.FromString(state))


@pytest.fixture(scope="module")
def finished(engine_channel_module: grpc.Channel) -> bytes:
    """ET at Latin's red square, then passes, two pauses (one ended, one run out: its end is
    logged before the pass that follows) and Arabic's resignation."""
    engine = _engine(engine_channel_module)
    seed = _seed_where_latin_opens_with("ET")
    start = engine.start(
        options={"latin": "fr", "latin_minutes": 25, "arabic_minutes": 30},
        settings={"bank_minute_seconds": 60},
        seed=seed,
        now=NOW,
    )
    et = {"place": {"tiles": [{"row": 10, "col": 1, "tile": "E"}, {"row": 10, "col": 2,
                                                                   "tile": "T"}]}}  # fmt: skip
    latin, arabic = SEATS[Side.LATIN], SEATS[Side.ARABIC]
    state = _act(engine, start.state, latin, et, NOW + 12.25)
    state = _act(engine, state, latin, {"pause": {}}, NOW + 20.5)
    state = _act(engine, state, latin, {"resume": {}}, NOW + 31.0)
    state = _act(engine, state, arabic, PASS, NOW + 40.75)
    state = _act(engine, state, arabic, {"pause": {}}, NOW + 41.0)
    state = _act(engine, state, latin, PASS, NOW + 130.0)  # the pause ran out at +101
    return _act(engine, state, arabic, {"resign": {}}, NOW + 135.5)


@pytest.fixture(scope="module")
def engine_channel_module(engine_server: RunningEngine) -> Iterator[grpc.Channel]:
    """A channel to the session's engine, kept for the module's played game."""
    with grpc.insecure_channel(f"127.0.0.1:{engine_server.port}") as channel:
        yield channel


def _review(
    channel: grpc.Channel, state: bytes, seat: int, options: Mapping[str, Any] | None = None
) -> Review:
    return _engine(channel).review(state, seat, options=options)


@pytest.mark.parametrize("side", [Side.LATIN, Side.ARABIC])
def test_review_of_a_finished_game(
    engine_channel_module: grpc.Channel, finished: bytes, side: Side
) -> None:
    seat = SEATS[side]
    reply = _review(engine_channel_module, finished, seat)
    state = _rules_state(finished)
    log = state.log
    assert [e.kind.value for e in log] == [
        "opening", "place", "pause", "resume", "pass", "pause", "pause_expired", "pass",
        "resign", "result",
    ]  # fmt: skip
    # The public log as the event frames carried it, numbered from 1.
    assert [e["kind"] for e in reply.entries] == [e.kind.value for e in log]
    assert [e["number"] for e in reply.entries] == list(range(1, len(log) + 1))
    assert len(reply.steps) == len(log) + 1
    # Each step at its entry's instant (the start: the opening's), without the log.
    assert [s["now"] for s in reply.steps] == [log[0].at, *(e.at for e in log)]
    assert all(not s["log"] for s in reply.steps)
    assert all(s["side"] == side.value for s in reply.steps)
    # The clocks as they stood: Latin's bank ran 12.25 s before ET, then stopped.
    assert reply.steps[1]["latin_bank"] == 1500
    assert reply.steps[2]["latin_bank"] == 1500 - 12.25
    paused = reply.steps[3]
    assert paused["pause"]["by"] == "latin" and paused["flag_at"] is None
    # Arabic's pause at +41 stopped Latin's running bank until it ran out at +101.
    assert reply.steps[6]["latin_bank"] == 1500 - 12.25 - 0.25
    assert reply.steps[7]["latin_bank"] == reply.steps[6]["latin_bank"]
    assert reply.steps[8]["latin_bank"] == reply.steps[7]["latin_bank"] - 29
    # The last step is the end as View shows it, both racks revealed (M12).
    view = _engine(engine_channel_module).view(finished, seat, now=log[-1].at, with_log=False)
    assert reply.steps[-1] == view
    assert reply.steps[-1]["ending"]["cause"] == "resign"
    assert not any(s["ending"] is not None for s in reply.steps[:-1])
    # Each step's rack is the side's own; the other rack never shows before the reveal.
    other = [t.text for t in state.rack(side.other)]
    for step in reply.steps[:-1]:
        assert all(t["owner"] == side.value for t in step["rack"])
        assert [t["code"] for t in step["rack"]] != other or not other

    record = reply.record
    assert record["format"] == "mishqaq-record/1" and record["opening"] == "latin"
    assert [sorted(set(m) - {"side", "rack"}) for m in record["moves"]] == [
        ["place"], ["pass"], ["pass"], ["resign"]
    ]  # fmt: skip
    assert all(("rack" in m) == (m["side"] == side.value) for m in record["moves"])
    assert record["ending"] == {"winner": "latin", "cause": "resign"}


def test_lexio_replay_of_a_reviewed_record_reaches_the_ending(
    engine_channel_module: grpc.Channel, finished: bytes, tmp_path: Path
) -> None:
    """The Latin side's record through the installed command and the shipped French list."""
    engine = _engine(engine_channel_module)
    # The record text exactly as the engine wrote it (GameEngine.review decodes it).
    reply = engine.stub.Review(
        game_pb2.ReviewRequest(game=GAME, table=engine.table(finished), seat=SEATS[Side.LATIN])
    )
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
    assert result["board"] == _rules_state(finished).board.rows()


def _failed(call: Callable[[], object]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return caught.value


def test_review_of_a_game_not_over_is_game_not_over(engine_channel_module: grpc.Channel) -> None:
    start = _engine(engine_channel_module).start(seed=3, now=NOW)
    error = _failed(lambda: _review(engine_channel_module, start.state, SEATS[Side.LATIN]))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error.details() == "game_not_over"


def test_review_of_a_log_that_does_not_follow_from_its_seed_is_unavailable(
    engine_channel_module: grpc.Channel, finished: bytes
) -> None:
    stored = mishqaq_pb.GameState.FromString(finished)
    core = json.loads(stored.core)
    core["seed"] += 1
    tampered = mishqaq_pb.GameState(
        format=stored.format, core=json.dumps(core).encode(), log=stored.log
    )
    error = _failed(
        lambda: _review(engine_channel_module, tampered.SerializeToString(), SEATS[Side.ARABIC])
    )
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error.details() == "review_unavailable"


def _mutated(change: Callable[[mishqaq_pb.GameState], object]) -> Callable[[bytes], bytes]:
    """The stored state with ``change`` made to its message."""

    def mutate(state: bytes) -> bytes:
        message = mishqaq_pb.GameState.FromString(state)
        change(message)
        return message.SerializeToString()

    return mutate


def _as_stored(state: bytes) -> bytes:
    return state


@pytest.mark.parametrize(
    ("mutate", "seat", "options"),
    [
        # Seats the two-seat table does not have, so no side (were SIDE_UNSPECIFIED and 7).
        pytest.param(_as_stored, -1, {}, id="no-side"),
        pytest.param(_as_stored, 7, {}, id="unknown-side"),
        pytest.param(_as_stored, 0, {"host_side": "middle"}, id="unknown-host-side"),
        pytest.param(_mutated(lambda s: setattr(s, "format", "x")), 0, {}, id="unknown-format"),
        pytest.param(_mutated(lambda s: setattr(s, "core", b"{")), 0, {}, id="core-not-json"),
        pytest.param(_mutated(lambda s: s.log.append(b"[")), 0, {}, id="log-not-json"),
        pytest.param(lambda s: b"\xff\xff\xff", 0, {}, id="state-not-a-message"),
    ],
)
def test_review_of_bad_input_is_invalid_argument(
    engine_channel_module: grpc.Channel,
    finished: bytes,
    mutate: Callable[[bytes], bytes],
    seat: int,
    options: dict[str, Any],
) -> None:
    state = mutate(finished)
    error = _failed(lambda: _review(engine_channel_module, state, seat, options))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
