"""Placing: R12 (line, gaps), R13 (source, touching), R14 (words), R15 (blanks), R16 (refill)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest
from rules_positions import (
    TABLE_BOARD,
    Exploding,
    N,
    Recording,
    TileSpec,
    accepted,
    board_with,
    position,
    word_at,
    words_of,
)

from lexio_rules.actions import Place
from lexio_rules.game import Refused, play
from lexio_rules.reasons import MalformedActionError, Reason
from lexio_rules.state import GameState


def cell(board: str, r: int, c: int) -> str:
    return board[r * N + c]


def refusal_reason(game: GameState, tiles: Sequence[TileSpec], seat: int = 0) -> Reason:
    outcome = play(game, seat, Place.of(*tiles), now=5.0, lexicon=Exploding())
    assert isinstance(outcome, Refused), outcome
    assert outcome.state == game  # a form refusal changes nothing at all
    return outcome.refusal.reason


# --- R12 --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tiles",
    [
        [(6, 6, "O"), (7, 7, "S")],
        [(6, 5, "O"), (6, 6, "S"), (7, 6, "E")],
        [(5, 6, "O"), (6, 6, "S"), (6, 7, "E")],
    ],
)
def test_r12_tiles_not_in_one_line_are_not_in_line(tiles: list[TileSpec]) -> None:
    assert refusal_reason(position(["OSEAAAA", "EEEEEEE"]), tiles) is Reason.NOT_IN_LINE


def test_r12_not_in_line_on_an_occupied_board() -> None:
    game = position(["OSEAAAA", "EEEEEEE"], board=TABLE_BOARD)
    assert refusal_reason(game, [(7, 2, "O"), (8, 3, "S")]) is Reason.NOT_IN_LINE


@pytest.mark.parametrize(
    "tiles",
    [
        [(6, 5, "O"), (6, 7, "S")],  # the source left empty between them
        [(6, 4, "O"), (6, 5, "S"), (6, 6, "E"), (6, 8, "A")],
        [(4, 6, "O"), (5, 6, "S"), (7, 6, "E")],
    ],
)
def test_r12_an_empty_cell_between_tiles_is_a_gap(tiles: list[TileSpec]) -> None:
    assert refusal_reason(position(["OSEAAAA", "EEEEEEE"]), tiles) is Reason.GAP


def test_r12_gap_on_occupied_board_when_board_does_not_fill_it() -> None:
    game = position(["OSEAAAA", "EEEEEEE"], board=TABLE_BOARD)
    # (7,3) and (7,5) under TABLE, (7,4) left empty.
    assert refusal_reason(game, [(7, 3, "O"), (7, 5, "S")]) is Reason.GAP


def test_r12_board_tiles_may_fill_the_gaps() -> None:
    game = position(["NSEAAAA", "EEEEEEE"], board=board_with([(6, 6, "O")]))
    move = accepted(play(game, 0, Place.of((6, 5, "N"), (6, 7, "S")), 1.0, Recording()))
    assert words_of(move) == [("NOS", 6, 5, True, 3)]


def test_r12_board_tiles_fill_several_gaps_in_a_column() -> None:
    board = board_with([(4, 6, "A"), (6, 6, "E")])
    game = position(["RTSAAAA", "EEEEEEE"], board=board)
    tiles = Place.of((3, 6, "R"), (5, 6, "T"), (7, 6, "S"))
    move = accepted(play(game, 0, tiles, 1.0, Recording()))
    assert words_of(move) == [("RATES", 3, 6, False, 5)]


def test_r12_at_most_seven_tiles_too_many_tiles() -> None:
    game = position(["ABCDEFG", "EEEEEEE"])
    eight = [(6, c, "ABCDEFGH"[c]) for c in range(8)]
    assert refusal_reason(game, eight) is Reason.TOO_MANY_TILES


def test_r12_a_placement_with_no_tile_is_no_new_tile() -> None:
    game = position(["ABCDEFG", "EEEEEEE"], board=TABLE_BOARD)
    outcome = play(game, 0, Place(()), now=1.0, lexicon=Exploding())
    assert isinstance(outcome, Refused)
    assert outcome.refusal.reason is Reason.NO_NEW_TILE


def test_r12_two_tiles_on_one_cell_cannot_be_stated() -> None:
    with pytest.raises(MalformedActionError):
        Place.of((6, 6, "A"), (6, 6, "B"))


@pytest.mark.parametrize("letter", ["a", "É", "1", "AB", ""])
def test_r12_a_tile_letter_must_be_a_to_z(letter: str) -> None:
    with pytest.raises(MalformedActionError):
        Place.of((6, 6, letter))


@pytest.mark.parametrize("letter", ["E", "A"])
def test_r12_a_tile_on_an_occupied_cell_is_occupied_mismatch(letter: str) -> None:
    game = position(["EAAAAAA", "EEEEEEE"], board=TABLE_BOARD)
    # (6,6) already holds E: even the same letter cannot be put on it again.
    assert refusal_reason(game, [(6, 6, letter), (6, 7, "A")]) is Reason.OCCUPIED_MISMATCH


# --- R13 --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tiles",
    [
        [(6, 4, "O"), (6, 5, "S")],
        [(5, 5, "O"), (5, 6, "S")],
        [(0, 5, "O"), (0, 6, "S")],
        [(7, 6, "O"), (8, 6, "S")],
    ],
)
def test_r13_first_move_must_cover_the_source(tiles: list[TileSpec]) -> None:
    game = position(["OSEAAAA", "EEEEEEE"])
    assert refusal_reason(game, tiles) is Reason.FIRST_MOVE_OFF_SOURCE


@pytest.mark.parametrize(
    "tiles",
    [
        [(9, 9, "O"), (9, 10, "S")],  # far away
        [(7, 7, "O"), (7, 8, "S")],  # only diagonal to the E at (6,6)
        [(5, 7, "O"), (4, 7, "S")],  # diagonal, vertical
        [(6, 8, "O"), (6, 9, "S")],  # same row, one empty cell away
    ],
)
def test_r13_later_move_must_touch_a_tile_by_a_side(tiles: list[TileSpec]) -> None:
    game = position(["OSEAAAA", "EEEEEEE"], board=TABLE_BOARD)
    assert refusal_reason(game, tiles) is Reason.NOT_TOUCHING


def test_r13_touching_by_a_side_is_enough() -> None:
    game = position(["OSEAAAA", "EEEEEEE"], board=TABLE_BOARD)
    move = accepted(play(game, 0, Place.of((7, 6, "S")), 1.0, Recording()))
    assert words_of(move) == [("ES", 6, 6, False, 2)]


# --- R14 --------------------------------------------------------------------------------------


def test_r14_main_word_then_cross_words() -> None:
    game = position(["SIAAAAA", "EEEEEEE"], board=TABLE_BOARD)
    move = accepted(play(game, 0, Place.of((7, 3, "S"), (7, 4, "I")), 1.0, Recording()))
    # SI: S1 + I1×3 (L3 at (7,4)) = 4; AS: A1 + S1 = 2; BI: B3 + I1×3 = 6.
    assert words_of(move) == [
        ("SI", 7, 3, True, 4),
        ("AS", 6, 3, False, 2),
        ("BI", 6, 4, False, 6),
    ]
    assert move.entry.score == 12


def test_r14_words_read_left_to_right_and_top_to_bottom() -> None:
    game = position(["OSAAAAA", "EEEEEEE"])
    reversed_row = accepted(play(game, 0, Place.of((6, 7, "S"), (6, 6, "O")), 1.0, Recording()))
    assert words_of(reversed_row) == [("OS", 6, 6, True, 2)]
    assert [(t.row, t.col) for t in reversed_row.entry.tiles] == [(6, 6), (6, 7)]
    reversed_col = accepted(play(game, 0, Place.of((7, 6, "S"), (6, 6, "O")), 1.0, Recording()))
    assert words_of(reversed_col) == [("OS", 6, 6, False, 2)]


def test_r14_word_extends_through_board_tiles_on_both_sides() -> None:
    board = board_with([*word_at(6, 2, "TA"), *word_at(6, 5, "LE")])
    game = position(["BSAAAAA", "EEEEEEE"], board=board)
    move = accepted(play(game, 0, Place.of((6, 4, "B"), (6, 7, "S")), 1.0, Recording()))
    assert words_of(move) == [("TABLES", 6, 2, True, 8)]


def test_r14_single_tile_forming_only_a_row_word() -> None:
    game = position(["SAAAAAA", "EEEEEEE"], board=TABLE_BOARD)
    move = accepted(play(game, 0, Place.of((6, 7, "S")), 1.0, Recording()))
    assert words_of(move) == [("TABLES", 6, 2, True, 8)]


def test_r14_single_tile_forming_only_a_column_word() -> None:
    game = position(["UAAAAAA", "EEEEEEE"], board=TABLE_BOARD)
    move = accepted(play(game, 0, Place.of((7, 2, "U")), 1.0, Recording()))
    assert words_of(move) == [("TU", 6, 2, False, 2)]


def test_r14_single_tile_forming_a_row_and_a_column_word() -> None:
    game = position(["EAAAAAA", "EEEEEEE"], board=board_with([(6, 6, "A"), (5, 7, "B")]))
    move = accepted(play(game, 0, Place.of((6, 7, "E")), 1.0, Recording()))
    assert words_of(move) == [("AE", 6, 6, True, 2), ("BE", 5, 7, False, 4)]
    assert move.entry.score == 6


def test_r14_first_move_needs_two_tiles() -> None:
    game = position(["OSAAAAA", "EEEEEEE"])
    assert refusal_reason(game, [(6, 6, "O")]) is Reason.TOO_SHORT


def test_r14_words_of_one_letter_do_not_count_for_a_multi_tile_move() -> None:
    # A vertical two-tile move with no neighbours sideways forms only its main word.
    game = position(["OSAAAAA", "EEEEEEE"])
    move = accepted(play(game, 0, Place.of((5, 6, "O"), (6, 6, "S")), 1.0, Recording()))
    assert words_of(move) == [("OS", 5, 6, False, 2)]


def test_r14_every_word_is_checked_cross_words_included() -> None:
    lexicon = Recording()
    game = position(["SIAAAAA", "EEEEEEE"], board=TABLE_BOARD)
    accepted(play(game, 0, Place.of((7, 4, "I"), (7, 3, "S")), 1.0, lexicon))
    assert lexicon.calls == [("SI", "AS", "BI")]


# --- R15 --------------------------------------------------------------------------------------


def test_r15_blank_shows_lower_case_scores_zero_and_uses_the_blank_tile() -> None:
    game = position(["?ETAAAA", "EEEEEEE"], bag="QQQQ")
    move = accepted(play(game, 0, Place.of((6, 6, "E", True), (6, 7, "T")), 1.0, Recording()))
    board = move.state.board
    assert cell(board, 6, 6) == "e"
    assert cell(board, 6, 7) == "T"
    assert words_of(move) == [("ET", 6, 6, True, 1)]  # blank 0 + T 1
    # The blank tile left the rack, not the E; two tiles drawn.
    assert Counter(move.state.racks[0]) == Counter("EAAAAQQ")
    tile = move.entry.tiles[0]
    assert (tile.letter, tile.blank, tile.rack_tile, tile.board_char) == ("E", True, "?", "e")


def test_r15_blank_placement_needs_a_blank_on_the_rack() -> None:
    game = position(["ETAAAAA", "EEEEEEE"])
    assert refusal_reason(game, [(6, 6, "E", True), (6, 7, "T")]) is Reason.TILES_NOT_IN_RACK


def test_r15_a_blank_cannot_be_placed_as_a_letter_tile() -> None:
    game = position(["?TAAAAA", "EEEEEEE"])
    assert refusal_reason(game, [(6, 6, "E"), (6, 7, "T")]) is Reason.TILES_NOT_IN_RACK


def test_r15_later_words_crossing_a_blank_use_its_letter_and_keep_it() -> None:
    board = board_with([(6, 6, "e"), (6, 7, "T")])
    lexicon = Recording()
    game = position(["SAAAAAA", "EEEEEEE"], board=board)
    move = accepted(play(game, 0, Place.of((7, 6, "S")), 1.0, lexicon))
    assert lexicon.calls == [("ES",)]
    assert words_of(move) == [("ES", 6, 6, False, 1)]  # the blank still scores 0
    assert cell(move.state.board, 6, 6) == "e"  # it keeps its letter, still a blank
    # And a word along the row through it too.
    again = accepted(play(move.state, 1, Place.of((6, 8, "E")), 2.0, lexicon))
    assert lexicon.calls[-1] == ("ETE",)
    assert words_of(again) == [("ETE", 6, 6, True, 2)]
    assert cell(again.state.board, 6, 6) == "e"


def test_r15_two_blanks_in_one_word() -> None:
    game = position(["??SAAAA", "EEEEEEE"])
    move = accepted(
        play(game, 0, Place.of((6, 5, "O", True), (6, 6, "U", True), (6, 7, "S")), 1.0, Recording())
    )
    assert move.state.board[6 * N + 5 : 6 * N + 8] == "ouS"
    assert words_of(move) == [("OUS", 6, 5, True, 1)]


# --- R16 --------------------------------------------------------------------------------------


def test_r16_rack_refilled_from_the_bag_in_draw_order() -> None:
    game = position(["OSABCDE", "EEEEEEE"], bag="KLMNOPQRST")
    move = accepted(play(game, 0, Place.of((6, 5, "O"), (6, 6, "S")), 1.0, Recording()))
    assert move.state.racks[0] == "ABCDE" + "KL"
    assert move.state.bag == "MNOPQRST"
    assert move.state.racks[1] == "EEEEEEE"


def test_r16_partial_refill_when_the_bag_runs_short() -> None:
    game = position(["OSUABCD", "EEEEEEE"], bag="K")
    move = accepted(
        play(game, 0, Place.of((6, 5, "O"), (6, 6, "S"), (6, 7, "U")), 1.0, Recording())
    )
    assert move.state.racks[0] == "ABCD" + "K"
    assert move.state.bag == ""
    assert not move.state.over


def test_r16_no_refill_from_an_empty_bag() -> None:
    game = position(["OSUABCD", "EEEEEEE"], bag="")
    move = accepted(play(game, 0, Place.of((6, 5, "O"), (6, 6, "S")), 1.0, Recording()))
    assert move.state.racks[0] == "UABCD"
    assert move.state.bag == ""
    assert not move.state.over
