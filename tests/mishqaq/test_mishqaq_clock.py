"""The clock: M28 (per-side banks, only the mover's running), M29 (flag), M30 (meaning pause),
M31 (resignation at any moment), and when the table must next send a timeout."""

from __future__ import annotations

from dataclasses import replace

import pytest
from mishqaq_positions import OPENED, A, AcceptAll, L, accepted, every, place, position, refused

from mishqaq_rules.actions import Action, Pass, Pause, Resign, Resume, Swap, Timeout
from mishqaq_rules.clock import Clock
from mishqaq_rules.game import play
from mishqaq_rules.log import EndCause, EntryKind
from mishqaq_rules.reasons import ClockRefusal, Reason
from mishqaq_rules.sides import Side
from mishqaq_rules.state import GameState
from mishqaq_rules.views import next_clock_event, side_view

ACCEPT = every(AcceptAll())


def game(banks: tuple[float, float] = (1800.0, 1800.0), turn: Side = L) -> GameState:
    g = position({**OPENED, (11, 1): "?S"}, latin=["S", "E"], arabic=["ا"], turn=turn)
    return replace(g, clock=Clock.start(banks, 0.0))


def banks_at(state: GameState, now: float) -> tuple[float, float]:
    return side_view(state, L, now).banks


def act(state: GameState, side: Side, action: Action, now: float) -> GameState:
    return accepted(play(state, side, action, now, ACCEPT)).state


def clock_reason(state: GameState, side: Side, action: Action, now: float) -> object:
    out = refused(play(state, side, action, now, ACCEPT))
    assert out.state == state and not out.state_changed
    return out.refusal.reason


# --- M28 --------------------------------------------------------------------------------------


def test_m28_only_the_movers_bank_runs() -> None:
    assert banks_at(game(), 100.0) == (1700.0, 1800.0)
    after = act(game(), L, place((10, 4, "S")), 100.0)
    assert banks_at(after, 100.0) == (1700.0, 1800.0)
    assert banks_at(after, 130.0) == (1700.0, 1770.0)


def test_m28_a_pass_hands_the_clock_over_without_increment() -> None:
    after = act(game(), L, Pass(), 12.5)
    assert after.clock.banks == (1787.5, 1800.0) and after.clock.since == 12.5


def test_m28_a_refused_placement_or_a_swap_does_not_stop_the_clock() -> None:
    state = game()
    refused(play(state, L, place((5, 5, "S")), 50.0, ACCEPT))
    swapped = act(state, L, Swap(11, 1), 60.0)
    assert banks_at(swapped, 100.0) == (1700.0, 1800.0)


def test_m28_banks_may_differ_per_side() -> None:
    state = game(banks=(1500.0, 2100.0), turn=A)
    assert banks_at(state, 100.0) == (1500.0, 2000.0)


# --- M29: flag ---------------------------------------------------------------------------------


def test_m29_timeout_is_refused_while_the_flag_has_not_fallen() -> None:
    assert clock_reason(game((100.0, 100.0)), L, Timeout(), 99.9) is ClockRefusal.FLAG_NOT_FALLEN


def test_m29_timeout_at_the_flag_instant_ends_the_game_for_the_opponent() -> None:
    outcome = accepted(play(game((100.0, 100.0)), L, Timeout(), 100.0, ACCEPT))
    ending = outcome.state.ending
    assert ending is not None
    assert (ending.winner, ending.cause, ending.at) == (A, EndCause.FLAG, 100.0)
    assert outcome.state.clock.banks == (0.0, 100.0)
    assert outcome.entry.kind is EntryKind.RESULT and outcome.entry.cause is EndCause.FLAG


@pytest.mark.parametrize(
    ("side", "action"),
    [(L, place((10, 4, "S"))), (L, Pass()), (A, Resign()), (L, Resign()), (A, Pause())],
)
def test_m29_an_action_at_or_after_the_flag_finds_the_game_over_by_flag(
    side: Side, action: Action
) -> None:
    for now in (100.0, 250.0):
        out = refused(play(game((100.0, 100.0)), side, action, now, ACCEPT))
        assert out.refusal.reason is Reason.GAME_OVER and out.state_changed
        ending = out.state.ending
        assert ending is not None
        assert (ending.winner, ending.cause, ending.at) == (A, EndCause.FLAG, 100.0)
        assert out.state.log[-1].kind is EntryKind.RESULT


def test_m29_once_recorded_a_late_timeout_changes_nothing() -> None:
    state = accepted(play(game((100.0, 100.0)), L, Timeout(), 100.0, ACCEPT)).state
    out = refused(play(state, A, Timeout(), 120.0, ACCEPT))
    assert out.refusal.reason is Reason.GAME_OVER and out.state == state and not out.state_changed


def test_m29_the_arabic_flag_falls_on_its_own_bank() -> None:
    state = act(game((100.0, 40.0)), L, Pass(), 30.0)  # Arabic's bank runs from 30
    assert next_clock_event(state) == 70.0
    ending = accepted(play(state, A, Timeout(), 70.0, ACCEPT)).state.ending
    assert ending is not None and ending.winner is L


def test_m29_next_clock_event_is_the_flag_instant() -> None:
    assert next_clock_event(game((100.0, 100.0))) == 100.0
    assert side_view(game((100.0, 100.0)), A, 10.0).flag_at == 100.0


# --- M30: meaning pause ------------------------------------------------------------------------


def test_m30_a_pause_stops_both_clocks_and_either_player_may_call_it() -> None:
    paused = act(game(), A, Pause(), 10.0)  # out of turn
    view = side_view(paused, L, 40.0)
    assert view.banks == (1790.0, 1800.0) and view.flag_at is None
    assert view.pause is not None and (view.pause.by, view.pause.until) == (A, 70.0)
    assert view.pauses_left == (3, 2)


@pytest.mark.parametrize("action", [place((10, 4, "S")), Pass(), Swap(11, 1)])
def test_m30_no_placement_pass_or_swap_during_a_pause(action: Action) -> None:
    paused = act(game(), L, Pause(), 10.0)
    assert clock_reason(paused, L, action, 30.0) is ClockRefusal.PAUSED


def test_m30_resign_is_accepted_during_a_pause() -> None:
    paused = act(game(), L, Pause(), 10.0)
    ending = act(paused, L, Resign(), 30.0).ending
    assert ending is not None and (ending.winner, ending.cause) == (A, EndCause.RESIGN)


def test_m30_a_pause_ends_by_itself_after_60_seconds() -> None:
    paused = act(game(), A, Pause(), 10.0)
    view = side_view(paused, L, 75.0)
    assert view.pause is None and view.banks == (1785.0, 1800.0) and view.flag_at == 1860.0
    outcome = accepted(play(paused, L, place((10, 4, "S")), 75.0, ACCEPT))
    kinds = [(e.kind, e.at, e.side) for e in outcome.entries]
    assert kinds[0] == (EntryKind.PAUSE_EXPIRED, 70.0, A)
    assert kinds[1][0] is EntryKind.PLACE and outcome.entry.kind is EntryKind.PLACE
    assert outcome.state.clock.banks == (1785.0, 1800.0)


def test_m30_only_the_caller_may_end_it_early() -> None:
    paused = act(game(), A, Pause(), 10.0)
    assert clock_reason(paused, L, Resume(), 20.0) is ClockRefusal.NOT_THE_PAUSER
    resumed = act(paused, A, Resume(), 30.0)
    assert banks_at(resumed, 40.0) == (1780.0, 1800.0)
    assert resumed.log[-1].kind is EntryKind.RESUME


def test_m30_resume_without_a_running_pause_is_refused() -> None:
    assert clock_reason(game(), L, Resume(), 5.0) is ClockRefusal.NOT_PAUSED
    paused = act(game(), L, Pause(), 10.0)
    assert clock_reason(paused, L, Resume(), 70.0) is ClockRefusal.NOT_PAUSED  # ended by itself


def test_m30_no_second_pause_while_one_runs() -> None:
    paused = act(game(), L, Pause(), 10.0)
    assert clock_reason(paused, A, Pause(), 20.0) is ClockRefusal.ALREADY_PAUSED


def test_m30_three_pauses_per_player() -> None:
    state, now = game(), 0.0
    for _ in range(3):
        state = act(state, A, Pause(), now + 1.0)
        state = act(state, A, Resume(), now + 2.0)
        now += 2.0
    assert clock_reason(state, A, Pause(), now + 1.0) is ClockRefusal.NO_PAUSE_LEFT
    assert act(state, L, Pause(), now + 1.0).clock.pauses_left == (2, 0)


def test_m30_next_clock_event_during_a_pause_is_its_end_plus_the_movers_bank() -> None:
    paused = act(game(), A, Pause(), 10.0)
    assert next_clock_event(paused) == 70.0 + 1790.0


def test_m30_the_flag_after_a_pause_that_ended_by_itself() -> None:
    paused = act(game((100.0, 100.0)), L, Pause(), 50.0)
    assert next_clock_event(paused) == 160.0
    assert clock_reason(paused, L, Timeout(), 159.0) is ClockRefusal.FLAG_NOT_FALLEN
    outcome = accepted(play(paused, L, Timeout(), 160.0, ACCEPT))
    assert [(e.kind, e.at) for e in outcome.entries] == [
        (EntryKind.PAUSE_EXPIRED, 110.0),
        (EntryKind.RESULT, 160.0),
    ]


def test_m30_a_refused_action_during_a_pause_does_not_log_its_end() -> None:
    paused = act(game(), L, Pause(), 10.0)
    out = refused(play(paused, L, Resume(), 80.0, ACCEPT))
    assert out.state == paused


# --- M31: resignation --------------------------------------------------------------------------


@pytest.mark.parametrize("side", [L, A])
def test_m31_either_side_may_resign_at_any_moment(side: Side) -> None:
    outcome = accepted(play(game(), side, Resign(), 42.0, ACCEPT))
    ending = outcome.state.ending
    assert ending is not None
    assert (ending.winner, ending.cause, ending.at) == (side.other, EndCause.RESIGN, 42.0)
    assert [e.kind for e in outcome.entries] == [EntryKind.RESIGN, EntryKind.RESULT]
    assert outcome.state.clock.banks == (1758.0, 1800.0)  # the running clock stopped at 42


def test_m31_nothing_is_accepted_after_the_end() -> None:
    over = act(game(), A, Resign(), 1.0)
    for side, action in ((L, Pass()), (A, Resign()), (L, Pause()), (L, Timeout())):
        assert clock_reason(over, side, action, 2.0) is Reason.GAME_OVER
