"""al-Mishqaq's engine (game "mishqaq" of lexio.game.v1.Engine) on loopback, in the real engine
process beside Lexio's, talking to the real lexicon service with the real fr, en and ar lists:
a scripted game, the clock, hidden information, bad input, and the lexicon going away.

Seats are the table's: with the default option host_side "latin", seat 0 plays Latin and
seat 1 Arabic (M1); a Step's views come by seat."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import grpc
import pytest
from game_engine import GameEngine, Step
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lexio.mishqaq.v1 import engine_pb2 as mishqaq_pb
from lexio_engine.metrics import LEXICON_CALL_SECONDS
from lexio_engine.mishqaq import codec
from mishqaq_rules import GameState, PlacedTile, Side, Tile, new_game

NOW = 10_000.0
GAME = "mishqaq"
SERVICE = "lexio.mishqaq.v1.Engine"  # the game's health name, kept from its own service
SERVING = health_pb2.HealthCheckResponse.SERVING
LATIN, ARABIC = 0, 1  # seats with host_side "latin" (the default)
PASS: dict[str, Any] = {"pass_turn": {}}


def _engine(channel: grpc.Channel) -> GameEngine:
    return GameEngine(channel, GAME)


def _place(*cells: tuple[int, int, str] | tuple[int, int, str, str]) -> dict[str, Any]:
    tiles: list[dict[str, Any]] = []
    for c in cells:
        tile: dict[str, Any] = {"row": c[0], "col": c[1], "tile": c[2]}
        if len(c) > 3:
            tile["as"] = c[3]
        tiles.append(tile)
    return {"place": {"tiles": tiles}}


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


def _stored(game: GameState) -> bytes:
    """The state as the engine stores it (a lexio.mishqaq.v1.GameState's bytes)."""
    return codec.state_to_pb(game).SerializeToString()


def _rules_state(state: bytes) -> GameState:
    return codec.state_from_pb(mishqaq_pb.GameState.FromString(state))


def _act(engine: GameEngine, state: bytes, seat: int, action: Any, at: float) -> Step:
    return engine.act(state, seat, action, now=at)


def _timeout(engine: GameEngine, state: bytes, seat: int, at: float) -> Step:
    """The table's own action when the mover's flag falls (M29)."""
    return engine.on_clock(state, seat, "timeout", now=at)


def _reason(step: Step) -> str | None:
    return None if step.refusal is None else step.refusal["reason"]


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
    step = _engine(engine_channel).start(
        options={"latin": "en", "latin_minutes": 25, "arabic_minutes": 35},
        settings={"bank_minute_seconds": 60},
        seed=11,
        now=NOW,
    )
    assert step.accepted and step.state_changed and not step.over
    state = _rules_state(step.state)
    assert [e["kind"] for e in step.events] == ["opening"]
    assert step.events[0]["draws"]  # the draw is shown to both (M13)
    mover = state.turn
    assert step.clock is not None
    assert step.clock.due == NOW + (1500 if mover is Side.LATIN else 2100)
    assert step.clock.action == "timeout"
    assert step.clock.seat == (LATIN if mover is Side.LATIN else ARABIC)
    assert [v["side"] for v in step.views] == ["latin", "arabic"]
    core = mishqaq_pb.GameState.FromString(step.state).core
    for view, raw, side in zip(
        step.views, step.reply.views, (Side.LATIN, Side.ARABIC), strict=True
    ):
        assert [t["code"] for t in view["rack"]] == [t.text for t in state.rack(side)]
        assert (view["latin_rack_count"], view["arabic_rack_count"]) == (6, 6)
        assert (view["latin_bag_count"], view["arabic_bag_count"]) == (69, 69)
        assert (view["latin_bank"], view["arabic_bank"]) == (1500, 2100)
        assert view["flag_at"] == step.clock.due and view["latin"] == "en"
        # M12: nothing in a view holds the other rack or a bag's order.
        assert core not in raw
        codes = [t["code"] for t in view["rack"]]
        assert codes == [t.text for t in state.rack(side)]
        assert view["ending"] is None


def test_start_game_with_the_host_on_the_arabic_side_gives_seat_0_arabics_view(
    engine_channel: grpc.Channel,
) -> None:
    """M1: the host plays the side it chose; the views come by seat."""
    engine = _engine(engine_channel)
    options = {"host_side": "arabic"}
    step = engine.start(options=options, seed=11, now=NOW)
    assert [v["side"] for v in step.views] == ["arabic", "latin"]
    state = _rules_state(step.state)
    assert [t["code"] for t in step.views[0]["rack"]] == [t.text for t in state.rack(Side.ARABIC)]
    assert step.clock is not None
    assert step.clock.seat == (0 if state.turn is Side.ARABIC else 1)
    assert engine.view(step.state, 0, options=options, now=NOW)["side"] == "arabic"


def test_a_game_through_grpc_with_the_real_lists(engine_channel: grpc.Channel) -> None:
    """M14 red squares, M18–M22 words in each side's own list, M24 reserve, M37 spellings."""
    engine = _engine(engine_channel)
    state = _stored(_state("fr", (["C", "H", "A", "T", "S", "E"], ["ا", "م", "ن", "ب"])))

    # Out of turn: refused, nothing changed.
    early = _act(engine, state, ARABIC, _place((10, 20, "ا")), NOW + 1)
    assert (early.accepted, _reason(early)) == (False, "not_your_turn")
    assert not early.state_changed and early.state == state

    chat = _act(engine, state, LATIN, _place((10, 1, "C"), (10, 2, "H"), (10, 3, "A"),
                                             (10, 4, "T")), NOW + 5)  # fmt: skip
    assert chat.accepted, chat.refusal
    (entry,) = chat.events
    assert entry["kind"] == "place" and entry["count"] == 3
    assert [(w["word"], w["direction"]) for w in entry["words"]] == [("CHAT", "across")]
    assert chat.views[LATIN]["latin_bank"] == 1795 and chat.views[ARABIC]["arabic_bank"] == 1800
    assert chat.clock is not None
    assert chat.clock.due == NOW + 5 + 1800  # Arabic's bank runs now (M28)
    state = chat.state

    # Arabic reads right→left from its red square (10, 20): ا م ن is امن, one folded form of
    # أمن آمن إمن امن — the log keeps the dictionary's spellings (M37, appendix C.3).
    calls = _lexicon_calls("ar")
    amn = _act(engine, state, ARABIC, _place((10, 20, "ا"), (10, 19, "م"), (10, 18, "ن")),
               NOW + 9)  # fmt: skip
    assert amn.accepted, amn.refusal
    (word,) = amn.events[0]["words"]
    assert (word["word"], word["script"]) == ("امن", "arabic")
    assert {"أمن", "آمن"} <= set(word["spellings"])
    assert _lexicon_calls("ar") == calls + 1  # one batched call per placement
    state = amn.state

    # Unknown words are named, the turn goes on, one reserve try is spent (M24).
    probe = _act(engine, state, LATIN, _place((10, 5, "S"), (10, 6, "E")), NOW + 12)
    assert probe.refusal is not None
    assert (probe.refusal["reason"], probe.refusal["words"]) == ("unknown_words", ["CHATSE"])
    assert probe.state_changed and probe.views[LATIN]["reserve_tries"] == 9
    assert probe.refusal["reserve_tries"] == 9  # the refusal tells the player who tried
    assert probe.views[ARABIC]["reserve_tries"] == 10
    state = probe.state

    chats = _act(engine, state, LATIN, _place((10, 5, "S")), NOW + 14)
    assert chats.accepted
    assert [w["word"] for w in chats.events[0]["words"]] == ["CHATS"]
    state = chats.state

    # A column is read either way (M20), both readings in the same single call.
    view = engine.view(state, LATIN, now=NOW + 15, with_log=True)
    numbers = [e["number"] for e in view["log"]]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) == 4  # opening, 3 moves
    assert view["turn"] == "arabic"


def test_a_column_word_valid_only_upwards_is_accepted_in_one_call(
    engine_channel: grpc.Channel,
) -> None:
    """Appendix D on an English table: T-A-C top→bottom is CAT read upwards (TAC is not
    English); both readings travel in one CheckWords call."""
    engine = _engine(engine_channel)
    game = _state("en", (["T", "A", "X"], ["ب"]))
    # Latin's C already on its red square (its first placement done), and CA read across.
    opened = replace(
        game,
        board=game.board.with_tiles([(10, 1, _placed("C")), (10, 2, _placed("A"))]),
    )
    state = _stored(opened)
    calls = _lexicon_calls("en")
    cat = _act(engine, state, LATIN, _place((8, 1, "T"), (9, 1, "A")), NOW + 3)
    assert cat.accepted, cat.refusal
    (word,) = cat.events[0]["words"]
    assert (word["word"], word["direction"]) == ("CAT", "up")
    assert _lexicon_calls("en") == calls + 1


def _placed(text: str) -> PlacedTile:
    return PlacedTile(Tile.parse(text, Side.LATIN))


def test_clock_pause_resign_and_flag(engine_channel: grpc.Channel) -> None:
    """M29 flag, M30 pause (both clocks stopped, only the caller resumes), M31 resign."""
    engine = _engine(engine_channel)
    state = _stored(_state("fr", (["C"], ["ب"]), banks=60.0))

    too_soon = _timeout(engine, state, LATIN, NOW + 59)
    assert _reason(too_soon) == "flag_not_fallen" and not too_soon.state_changed

    paused = _act(engine, state, ARABIC, {"pause": {}}, NOW + 10)
    assert paused.accepted and paused.views[LATIN]["pause"]["by"] == "arabic"
    assert paused.views[LATIN]["flag_at"] is None  # no clock runs during a pause
    assert paused.clock is not None
    assert paused.clock.due == NOW + 10 + 60 + 50  # the pause, then Latin's 50 s left
    during = _act(engine, paused.state, LATIN, PASS, NOW + 20)
    assert _reason(during) == "paused"
    not_yours = _act(engine, paused.state, LATIN, {"resume": {}}, NOW + 20)
    assert _reason(not_yours) == "not_the_pauser"
    resumed = _act(engine, paused.state, ARABIC, {"resume": {}}, NOW + 20)
    assert resumed.accepted and resumed.clock is not None
    assert resumed.clock.due == NOW + 20 + 50

    flag = _timeout(engine, resumed.state, ARABIC, NOW + 70)
    assert flag.accepted
    assert [e["kind"] for e in flag.events] == ["result"]
    ending = flag.views[LATIN]["ending"]
    assert (ending["winner"], ending["cause"], ending["at"]) == ("arabic", "flag", NOW + 70)
    assert [t["code"] for t in ending["latin_rack"]] == ["C"]  # racks revealed at the end
    assert flag.clock is None
    assert (flag.over, flag.end_cause, flag.action_kind) == (True, "flag", "timeout")

    # A player's action after the flag instant finds the game already over by flag.
    late = _act(engine, resumed.state, LATIN, PASS, NOW + 71)
    assert (_reason(late), late.state_changed) == ("game_over", True)
    assert late.views[ARABIC]["ending"]["cause"] == "flag"
    assert [e["kind"] for e in late.events] == ["result"]  # the flag's end, logged
    assert late.over and late.clock is None

    resigned = _act(engine, state, ARABIC, {"resign": {}}, NOW + 5)
    assert resigned.accepted  # not Arabic's turn: resigning is possible at any moment
    assert resigned.views[LATIN]["ending"]["winner"] == "latin"
    assert resigned.views[LATIN]["ending"]["cause"] == "resign"


def _no_change(state: mishqaq_pb.GameState) -> None:
    return None


@pytest.mark.parametrize(
    ("mutate", "seat", "action"),
    [
        pytest.param(lambda s: setattr(s, "format", "x"), LATIN, PASS, id="unknown-format"),
        pytest.param(lambda s: setattr(s, "core", b"{"), LATIN, PASS, id="core-not-json"),
        pytest.param(lambda s: setattr(s, "core", b"[]"), LATIN, PASS, id="core-not-an-object"),
        # A seat the two-seat table does not have, so no side (was SIDE_UNSPECIFIED).
        pytest.param(_no_change, 2, PASS, id="no-side"),
        pytest.param(_no_change, -1, PASS, id="negative-seat"),
        pytest.param(_no_change, LATIN, {}, id="empty-action"),
        pytest.param(_no_change, LATIN, _place((10, 1, "E+")), id="no-such-tile"),
        pytest.param(_no_change, LATIN, _place((10, 1, "C"), (10, 1, "H")), id="cell-twice"),
        pytest.param(_no_change, LATIN, _place((10, 1, "?")), id="blank-undeclared"),
    ],
)
def test_bad_input_is_invalid_argument(
    engine_channel: grpc.Channel,
    mutate: Callable[[mishqaq_pb.GameState], None],
    seat: int,
    action: Any,
) -> None:
    message = codec.state_to_pb(_state("fr", (["C", "H", "?"], ["ب"])))
    mutate(message)
    with pytest.raises(grpc.RpcError) as caught:
        _act(_engine(engine_channel), message.SerializeToString(), seat, action, NOW)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_start_game_refuses_a_latin_list_it_does_not_have(engine_channel: grpc.Channel) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        _engine(engine_channel).start(options={"latin": "de"}, seed=1, now=NOW)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_lexicon_unreachable_refuses_to_decide_and_changes_nothing(
    orphan_engine: grpc.Channel,
) -> None:
    """As for Lexio (R18): UNAVAILABLE lexicon_unavailable; moves without words still play."""
    engine = _engine(orphan_engine)
    state = _stored(_state("fr", (["C", "H", "A", "T"], ["ب"])))
    with pytest.raises(grpc.RpcError) as caught:
        _act(engine, state, LATIN, _place((10, 1, "C"), (10, 2, "H")), NOW)
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    assert caught.value.details() == "lexicon_unavailable"
    assert _act(engine, state, LATIN, PASS, NOW).accepted
    assert _act(engine, state, ARABIC, {"resign": {}}, NOW).accepted
    _wait_health(orphan_engine, SERVICE, health_pb2.HealthCheckResponse.NOT_SERVING)
