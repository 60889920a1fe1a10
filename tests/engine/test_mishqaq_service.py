"""al-Mishqaq's engine service (lexio.mishqaq.v1.Engine) on loopback, in the real engine process
beside Lexio's, talking to the real lexicon service with the real fr, en and ar lists: a
scripted game, the clock, hidden information, bad input, and the lexicon going away."""

from __future__ import annotations

import time
from dataclasses import replace

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lexio.mishqaq.v1 import engine_pb2 as pb
from lexio.mishqaq.v1 import engine_pb2_grpc
from lexio_engine.metrics import LEXICON_CALL_SECONDS
from lexio_engine.mishqaq import codec
from mishqaq_rules import GameState, PlacedTile, Side, Tile, new_game

NOW = 10_000.0
SERVICE = "lexio.mishqaq.v1.Engine"
SERVING = health_pb2.HealthCheckResponse.SERVING


def _stub(channel: grpc.Channel) -> engine_pb2_grpc.EngineStub:
    return engine_pb2_grpc.EngineStub(channel)


def _place(*cells: tuple[int, int, str] | tuple[int, int, str, str]) -> pb.Action:
    tiles = [
        pb.Placement(row=c[0], col=c[1], tile=c[2], as_letter=c[3] if len(c) > 3 else "")
        for c in cells
    ]
    return pb.Action(place=pb.Place(tiles=tiles))


def _state(latin: str, racks: tuple[list[str], list[str]], banks: float = 1800.0) -> GameState:
    """A new game whose racks are known (the bags' randomness does not matter here)."""
    game = new_game(latin=latin, seed=5, now=NOW, opening=Side.LATIN, banks=(banks, banks))
    return replace(
        game,
        racks=(
            tuple(Tile.parse(t, Side.LATIN) for t in racks[0]),
            tuple(Tile.parse(t, Side.ARABIC) for t in racks[1]),
        ),
    )


def _act(
    stub: engine_pb2_grpc.EngineStub,
    state: pb.GameState,
    side: pb.Side.ValueType,
    action: pb.Action,
    at: float,
) -> pb.ActResponse:
    reply: pb.ActResponse = stub.Act(pb.ActRequest(state=state, side=side, action=action, now=at))
    return reply


def _lexicon_calls(lexicon: str) -> float:
    return sum(
        s.value
        for metric in LEXICON_CALL_SECONDS.collect()
        for s in metric.samples
        if s.name.endswith("_count") and s.labels["lexicon"] == lexicon
    )


def _wait_health(channel: grpc.Channel, service: str, want: int) -> None:
    stub = health_pb2_grpc.HealthStub(channel)
    deadline = time.monotonic() + 10
    status = None
    while time.monotonic() < deadline:
        status = stub.Check(health_pb2.HealthCheckRequest(service=service)).status
        if status == want:
            return
        time.sleep(0.05)
    raise AssertionError(f"{service} health stayed {status}, wanted {want}")


def test_its_own_health_name_serves_beside_lexios(engine_channel: grpc.Channel) -> None:
    _wait_health(engine_channel, SERVICE, SERVING)
    _wait_health(engine_channel, "lexio.engine.v1.Engine", SERVING)


def test_start_game_draws_the_opening_and_shows_each_side_only_its_own_rack(
    engine_channel: grpc.Channel,
) -> None:
    """M11, M12, M13, M28: six tiles each, the opening logged, the mover's bank running."""
    reply = _stub(engine_channel).StartGame(
        pb.StartGameRequest(
            latin="en", seed=11, now=NOW, latin_bank_seconds=1500, arabic_bank_seconds=2100
        )
    )
    state = codec.state_from_pb(reply.state)
    assert [e.kind for e in reply.events] == [pb.ENTRY_KIND_OPENING]
    assert reply.events[0].draws  # the draw is shown to both (M13)
    mover = state.turn
    assert reply.next_clock_event == NOW + (1500 if mover is Side.LATIN else 2100)
    assert [v.side for v in reply.views] == [pb.SIDE_LATIN, pb.SIDE_ARABIC]
    for view, side in zip(reply.views, (Side.LATIN, Side.ARABIC), strict=True):
        assert [t.code for t in view.rack] == [t.text for t in state.rack(side)]
        assert (view.latin_rack_count, view.arabic_rack_count) == (6, 6)
        assert (view.latin_bag_count, view.arabic_bag_count) == (69, 69)
        assert (view.latin_bank, view.arabic_bank) == (1500, 2100)
        assert view.flag_at == reply.next_clock_event and view.latin == "en"
        # M12: nothing in a view holds the other rack or a bag's order.
        text = view.SerializeToString()
        assert reply.state.core not in text
        codes = [t.code for t in view.rack]
        assert codes == [t.text for t in state.rack(side)]
        assert not view.HasField("ending")


def test_a_game_through_grpc_with_the_real_lists(engine_channel: grpc.Channel) -> None:
    """M14 red squares, M18–M22 words in each side's own list, M24 reserve, M37 spellings."""
    stub = _stub(engine_channel)
    state = codec.state_to_pb(_state("fr", (["C", "H", "A", "T", "S", "E"], ["ا", "م", "ن", "ب"])))

    # Out of turn: refused, nothing changed.
    early = _act(stub, state, pb.SIDE_ARABIC, _place((10, 20, "ا")), NOW + 1)
    assert (early.outcome.accepted, early.outcome.reason) == (False, "not_your_turn")
    assert not early.state_changed and early.state == state

    chat = _act(stub, state, pb.SIDE_LATIN, _place((10, 1, "C"), (10, 2, "H"), (10, 3, "A"),
                                                   (10, 4, "T")), NOW + 5)  # fmt: skip
    assert chat.outcome.accepted, chat.outcome
    (entry,) = chat.events
    assert entry.kind == pb.ENTRY_KIND_PLACE and entry.count == 3
    assert [(w.word, w.direction) for w in entry.words] == [("CHAT", pb.DIRECTION_ACROSS)]
    assert chat.views[0].latin_bank == 1795 and chat.views[1].arabic_bank == 1800
    assert chat.next_clock_event == NOW + 5 + 1800  # Arabic's bank runs now (M28)
    state = chat.state

    # Arabic reads right→left from its red square (10, 20): ا م ن is امن, one folded form of
    # أمن آمن إمن امن — the log keeps the dictionary's spellings (M37, appendix C.3).
    calls = _lexicon_calls("ar")
    amn = _act(stub, state, pb.SIDE_ARABIC, _place((10, 20, "ا"), (10, 19, "م"), (10, 18, "ن")),
               NOW + 9)  # fmt: skip
    assert amn.outcome.accepted, amn.outcome
    (word,) = amn.events[0].words
    assert (word.word, word.script) == ("امن", pb.SIDE_ARABIC)
    assert {"أمن", "آمن"} <= set(word.spellings)
    assert _lexicon_calls("ar") == calls + 1  # one batched call per placement
    state = amn.state

    # Unknown words are named, the turn goes on, one reserve try is spent (M24).
    probe = _act(stub, state, pb.SIDE_LATIN, _place((10, 5, "S"), (10, 6, "E")), NOW + 12)
    assert (probe.outcome.reason, list(probe.outcome.unknown_words)) == (
        "unknown_words",
        ["CHATSE"],
    )
    assert probe.state_changed and probe.views[0].reserve_tries == 9
    assert probe.views[1].reserve_tries == 10
    state = probe.state

    chats = _act(stub, state, pb.SIDE_LATIN, _place((10, 5, "S")), NOW + 14)
    assert chats.outcome.accepted
    assert [w.word for w in chats.events[0].words] == ["CHATS"]
    state = chats.state

    # A column is read either way (M20), both readings in the same single call.
    view = stub.View(pb.ViewRequest(state=state, side=pb.SIDE_LATIN, now=NOW + 15, with_log=True))
    numbers = [e.number for e in view.view.log]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) == 4  # opening, 3 moves
    assert view.view.turn == pb.SIDE_ARABIC


def test_a_column_word_valid_only_upwards_is_accepted_in_one_call(
    engine_channel: grpc.Channel,
) -> None:
    """Appendix D on an English table: T-A-C top→bottom is CAT read upwards (TAC is not
    English); both readings travel in one CheckWords call."""
    stub = _stub(engine_channel)
    game = _state("en", (["T", "A", "X"], ["ب"]))
    # Latin's C already on its red square (its first placement done), and CA read across.
    opened = replace(
        game,
        board=game.board.with_tiles([(10, 1, _placed("C")), (10, 2, _placed("A"))]),
    )
    state = codec.state_to_pb(opened)
    calls = _lexicon_calls("en")
    cat = _act(stub, state, pb.SIDE_LATIN, _place((8, 1, "T"), (9, 1, "A")), NOW + 3)
    assert cat.outcome.accepted, cat.outcome
    (word,) = cat.events[0].words
    assert (word.word, word.direction) == ("CAT", pb.DIRECTION_UP)
    assert _lexicon_calls("en") == calls + 1


def _placed(text: str) -> PlacedTile:
    return PlacedTile(Tile.parse(text, Side.LATIN))


def test_clock_pause_resign_and_flag(engine_channel: grpc.Channel) -> None:
    """M29 flag, M30 pause (both clocks stopped, only the caller resumes), M31 resign."""
    stub = _stub(engine_channel)
    state = codec.state_to_pb(_state("fr", (["C"], ["ب"]), banks=60.0))

    too_soon = _act(stub, state, pb.SIDE_LATIN, pb.Action(timeout=pb.Timeout()), NOW + 59)
    assert too_soon.outcome.reason == "flag_not_fallen" and not too_soon.state_changed

    paused = _act(stub, state, pb.SIDE_ARABIC, pb.Action(pause=pb.Pause()), NOW + 10)
    assert paused.outcome.accepted and paused.views[0].pause.by == pb.SIDE_ARABIC
    assert not paused.views[0].HasField("flag_at")  # no clock runs during a pause
    assert paused.next_clock_event == NOW + 10 + 60 + 50  # the pause, then Latin's 50 s left
    during = _act(stub, paused.state, pb.SIDE_LATIN, pb.Action(pass_turn=pb.Pass()), NOW + 20)
    assert during.outcome.reason == "paused"
    not_yours = _act(stub, paused.state, pb.SIDE_LATIN, pb.Action(resume=pb.Resume()), NOW + 20)
    assert not_yours.outcome.reason == "not_the_pauser"
    resumed = _act(stub, paused.state, pb.SIDE_ARABIC, pb.Action(resume=pb.Resume()), NOW + 20)
    assert resumed.outcome.accepted and resumed.next_clock_event == NOW + 20 + 50

    flag = _act(stub, resumed.state, pb.SIDE_ARABIC, pb.Action(timeout=pb.Timeout()), NOW + 70)
    assert flag.outcome.accepted
    assert [e.kind for e in flag.events] == [pb.ENTRY_KIND_RESULT]
    ending = flag.views[0].ending
    assert (ending.winner, ending.cause, ending.at) == (
        pb.SIDE_ARABIC,
        pb.END_CAUSE_FLAG,
        NOW + 70,
    )
    assert [t.code for t in ending.latin_rack] == ["C"]  # racks revealed at the end
    assert not flag.HasField("next_clock_event")

    # A player's action after the flag instant finds the game already over by flag.
    late = _act(stub, resumed.state, pb.SIDE_LATIN, pb.Action(pass_turn=pb.Pass()), NOW + 71)
    assert (late.outcome.reason, late.state_changed) == ("game_over", True)
    assert late.views[1].ending.cause == pb.END_CAUSE_FLAG

    resigned = _act(stub, state, pb.SIDE_ARABIC, pb.Action(resign=pb.Resign()), NOW + 5)
    assert resigned.outcome.accepted  # not Arabic's turn: resigning is possible at any moment
    assert resigned.views[0].ending.winner == pb.SIDE_LATIN
    assert resigned.views[0].ending.cause == pb.END_CAUSE_RESIGN


@pytest.mark.parametrize(
    ("mutate", "side", "action"),
    [
        pytest.param(
            lambda s: setattr(s, "format", "x"),
            pb.SIDE_LATIN,
            pb.Action(pass_turn=pb.Pass()),
            id="unknown-format",
        ),
        pytest.param(
            lambda s: setattr(s, "core", b"{"),
            pb.SIDE_LATIN,
            pb.Action(pass_turn=pb.Pass()),
            id="core-not-json",
        ),
        pytest.param(
            lambda s: setattr(s, "core", b"[]"),
            pb.SIDE_LATIN,
            pb.Action(pass_turn=pb.Pass()),
            id="core-not-an-object",
        ),
        pytest.param(
            lambda s: None, pb.SIDE_UNSPECIFIED, pb.Action(pass_turn=pb.Pass()), id="no-side"
        ),
        pytest.param(lambda s: None, pb.SIDE_LATIN, pb.Action(), id="empty-action"),
        pytest.param(lambda s: None, pb.SIDE_LATIN, _place((10, 1, "E+")), id="no-such-tile"),
        pytest.param(
            lambda s: None, pb.SIDE_LATIN, _place((10, 1, "C"), (10, 1, "H")), id="cell-twice"
        ),
        pytest.param(lambda s: None, pb.SIDE_LATIN, _place((10, 1, "?")), id="blank-undeclared"),
    ],
)
def test_bad_input_is_invalid_argument(
    engine_channel: grpc.Channel, mutate: object, side: pb.Side.ValueType, action: pb.Action
) -> None:
    state = codec.state_to_pb(_state("fr", (["C", "H", "?"], ["ب"])))
    mutate(state)  # type: ignore[operator]
    with pytest.raises(grpc.RpcError) as caught:
        _act(_stub(engine_channel), state, side, action, NOW)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_start_game_refuses_a_latin_list_it_does_not_have(engine_channel: grpc.Channel) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        _stub(engine_channel).StartGame(pb.StartGameRequest(latin="de", seed=1, now=NOW))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_lexicon_unreachable_refuses_to_decide_and_changes_nothing(
    orphan_engine: grpc.Channel,
) -> None:
    """As for Lexio (R18): UNAVAILABLE lexicon_unavailable; moves without words still play."""
    stub = _stub(orphan_engine)
    state = codec.state_to_pb(_state("fr", (["C", "H", "A", "T"], ["ب"])))
    with pytest.raises(grpc.RpcError) as caught:
        _act(stub, state, pb.SIDE_LATIN, _place((10, 1, "C"), (10, 2, "H")), NOW)
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    assert caught.value.details() == "lexicon_unavailable"
    assert _act(stub, state, pb.SIDE_LATIN, pb.Action(pass_turn=pb.Pass()), NOW).outcome.accepted
    assert _act(stub, state, pb.SIDE_ARABIC, pb.Action(resign=pb.Resign()), NOW).outcome.accepted
    _wait_health(orphan_engine, SERVICE, health_pb2.HealthCheckResponse.NOT_SERVING)
