"""Ending by a try: M23, and the end of game of M33 (cause, winner, racks revealed)."""

from __future__ import annotations

from mishqaq_positions import (
    OPENED,
    A,
    AcceptAll,
    L,
    accepted,
    every,
    place,
    position,
    refused,
    row_of,
    words,
)

from mishqaq_rules.game import play
from mishqaq_rules.log import EndCause, EntryKind
from mishqaq_rules.state import GameState

LATIN_NEAR_TARGET = {**OPENED, **row_of(5, 16, ["C", "A", "R", "T"])}
ARABIC_NEAR_TARGET = {**OPENED, **row_of(5, 5, ["ك", "ت", "ا", "ب"], step=-1)}


def latin_game(board: dict[tuple[int, int], str] = LATIN_NEAR_TARGET) -> GameState:
    return position(board, latin=["S", "E", "R+"])


def test_m23_a_new_latin_tile_in_col_20_wins_at_once() -> None:
    """Appendix D."""
    outcome = accepted(play(latin_game(), L, place((5, 20, "S")), 7.0, words(fr=["CARTS"])))
    ending = outcome.state.ending
    assert ending is not None
    assert (ending.winner, ending.cause, ending.at) == (L, EndCause.TRY, 7.0)
    assert [e.kind for e in outcome.entries] == [EntryKind.PLACE, EntryKind.RESULT]
    assert outcome.entry.count == 0  # nobody draws after the end
    assert ending.racks == outcome.state.racks  # M12: both racks revealed


def test_m23_a_new_arabic_tile_in_col_1_wins_at_once() -> None:
    """Appendix D."""
    game = position(ARABIC_NEAR_TARGET, arabic=["ة"], turn=A)
    outcome = accepted(play(game, A, place((5, 1, "ة")), 7.0, words(ar=["كتابة"])))
    ending = outcome.state.ending
    assert ending is not None and (ending.winner, ending.cause) == (A, EndCause.TRY)


def test_m23_a_cross_word_tile_in_the_target_column_is_a_try_too() -> None:
    game = latin_game({**OPENED, **row_of(5, 16, ["C", "A", "R", "T"]), (4, 20): "E"})
    outcome = accepted(play(game, L, place((5, 20, "S")), 7.0, every(AcceptAll())))
    assert outcome.state.ending is not None and outcome.state.ending.cause is EndCause.TRY


def test_m23_reading_through_an_opponent_tile_in_the_target_column_is_no_try() -> None:
    game = latin_game({**LATIN_NEAR_TARGET, (5, 20): "س+"})
    outcome = accepted(play(game, L, place((5, 21, "E")), 7.0, words(fr=["CARTSE"])))
    assert outcome.state.ending is None
    assert [w.word for w in outcome.entry.words] == ["CARTSE"]


def test_m23_a_refused_placement_into_the_target_column_is_no_try() -> None:
    out = refused(play(latin_game(), L, place((5, 20, "S")), 7.0, words(fr=[])))
    assert out.state.ending is None


def test_m23_a_placement_short_of_the_target_column_goes_on() -> None:
    game = latin_game({**OPENED, **row_of(5, 15, ["C", "A", "R", "T"])})
    outcome = accepted(play(game, L, place((5, 19, "S")), 7.0, words(fr=["CARTS"])))
    assert outcome.state.ending is None and outcome.state.turn is A


def test_m33_the_result_entry_names_winner_and_cause() -> None:
    outcome = accepted(play(latin_game(), L, place((5, 20, "S")), 7.0, words(fr=["CARTS"])))
    result = outcome.state.log[-1]
    assert (result.kind, result.winner, result.cause, result.side) == (
        EntryKind.RESULT,
        L,
        EndCause.TRY,
        None,
    )
