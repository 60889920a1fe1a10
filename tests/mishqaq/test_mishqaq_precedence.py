"""Reason precedence (mishqaq-record-format.md): when several reasons apply, the first listed
wins — game_over, not_your_turn, off_board, occupied, not_in_line, no_new_tile,
tiles_not_in_rack, first_move_off_start, gap, too_short, no_anchor, reserve_empty,
unknown_words; for a swap swap_invalid. Live-only refusals (M29, M30) are ClockRefusal."""

from __future__ import annotations

from dataclasses import replace

import pytest
from mishqaq_positions import OPENED, A, L, accepted, place, position, reason, refused, words

from lexio_rules.reserve import Reserve
from mishqaq_rules.actions import Action, Pause, Place, Resign, Swap
from mishqaq_rules.game import play
from mishqaq_rules.reasons import ClockRefusal, Reason
from mishqaq_rules.state import GameState

RECORD_CODES = [
    "game_over",
    "not_your_turn",
    "off_board",
    "occupied",
    "not_in_line",
    "no_new_tile",
    "tiles_not_in_rack",
    "first_move_off_start",
    "gap",
    "too_short",
    "no_anchor",
    "reserve_empty",
    "unknown_words",
    "swap_invalid",
]


def opened(rack: list[str] | None = None, empty_reserve: bool = False) -> GameState:
    game = position({**OPENED, (11, 1): "?R"}, latin=rack or ["S", "E", "T"])
    if empty_reserve:
        game = replace(game, reserves=(Reserve(0, 0.0), Reserve(0, 0.0)))
    return game


def ended() -> GameState:
    return accepted(play(opened(), A, Resign(), 0.5, {})).state


def test_reason_holds_exactly_the_record_formats_codes_in_order() -> None:
    assert [r.value for r in Reason] == RECORD_CODES
    assert not {c.value for c in ClockRefusal} & set(RECORD_CODES)


@pytest.mark.parametrize(
    ("game", "side", "action", "expected"),
    [
        (ended(), A, place((22, 4, "S")), Reason.GAME_OVER),
        (opened(), A, place((22, 4, "S")), Reason.NOT_YOUR_TURN),
        (opened(), L, place((22, 4, "S"), (10, 1, "E")), Reason.OFF_BOARD),
        (opened(), L, place((10, 1, "S"), (11, 2, "E")), Reason.OCCUPIED),
        (opened(), L, place((12, 4, "Q"), (13, 5, "E")), Reason.NOT_IN_LINE),
        (opened(empty_reserve=True), L, Place(()), Reason.NO_NEW_TILE),
        (position(latin=["E"]), L, Place(()), Reason.NO_NEW_TILE),
        (position(latin=["E"]), L, place((5, 5, "Q"), (5, 7, "E")), Reason.TILES_NOT_IN_RACK),
        (
            position(latin=["E", "S"]),
            L,
            place((5, 5, "S"), (5, 7, "E")),
            Reason.FIRST_MOVE_OFF_START,
        ),
        (opened(empty_reserve=True), L, place((5, 5, "S"), (5, 7, "E")), Reason.GAP),
        (opened(empty_reserve=True), L, place((5, 5, "S")), Reason.TOO_SHORT),
        (opened(empty_reserve=True), L, place((5, 5, "S"), (5, 6, "E")), Reason.NO_ANCHOR),
        (opened(empty_reserve=True), L, place((10, 4, "S")), Reason.RESERVE_EMPTY),
    ],
)
def test_the_first_applicable_reason_is_reported(
    game: GameState, side: object, action: Action, expected: Reason
) -> None:
    assert reason(game, action, side=side) is expected  # type: ignore[arg-type]


def test_unknown_words_come_last_for_a_placement() -> None:
    out = refused(play(opened(), L, place((10, 4, "S")), 1.0, words(fr=[])))
    assert out.refusal.reason is Reason.UNKNOWN_WORDS and out.refusal.unknown_words == ("CAPS",)


@pytest.mark.parametrize(
    ("game", "side", "expected"),
    [
        (ended(), L, Reason.GAME_OVER),
        (opened(), A, Reason.NOT_YOUR_TURN),
        (opened(), L, Reason.SWAP_INVALID),
    ],
)
def test_a_swap_is_refused_game_over_not_your_turn_or_swap_invalid(
    game: GameState, side: object, expected: Reason
) -> None:
    assert reason(game, Swap(22, 0), side=side) is expected  # type: ignore[arg-type]


def test_the_clocks_refusals_come_after_game_over_and_the_turn() -> None:
    paused = accepted(play(opened(), A, Pause(), 1.0, {})).state
    assert reason(paused, place((22, 4, "S")), side=A, now=2.0) is Reason.NOT_YOUR_TURN
    assert reason(paused, place((22, 4, "S")), side=L, now=2.0) is ClockRefusal.PAUSED
    over = accepted(play(paused, L, Resign(), 2.0, {})).state
    assert reason(over, place((22, 4, "S")), side=L, now=3.0) is Reason.GAME_OVER
