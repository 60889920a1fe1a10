"""R7 (walls), R8 (the source), R9 (bonus layout)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rules_positions import (
    RULES_GRID,
    AcceptAll,
    N,
    accepted,
    board_with,
    position,
    refused,
    words_of,
)

from lexio_rules.actions import Place
from lexio_rules.board import EMPTY_BOARD, Square, on_board, square_at
from lexio_rules.game import play
from lexio_rules.reasons import Reason

Cell = tuple[int, int]

TOKEN_SQUARE = {
    "##": Square.WALL,
    "*": Square.SOURCE,
    ".": Square.PLAIN,
    "W3": Square.WORD_3,
    "W2": Square.WORD_2,
    "L3": Square.LETTER_3,
    "L2": Square.LETTER_2,
    "X": Square.CROSSING,
}
BONUSES = (Square.WORD_3, Square.WORD_2, Square.LETTER_3, Square.LETTER_2, Square.CROSSING)
# R9: "W3 = word×3 at (0,4) and its 8 images; W2 at (1,2); X at (3,3); L3 at (4,5); L2 at (2,4)".
BASE_CELL = {
    Square.WORD_3: (0, 4),
    Square.WORD_2: (1, 2),
    Square.CROSSING: (3, 3),
    Square.LETTER_3: (4, 5),
    Square.LETTER_2: (2, 4),
}
SYMMETRIES: tuple[Callable[[int, int], Cell], ...] = (
    lambda r, c: (r, c),
    lambda r, c: (c, N - 1 - r),  # rotate 90°
    lambda r, c: (N - 1 - r, N - 1 - c),  # rotate 180°
    lambda r, c: (N - 1 - c, r),  # rotate 270°
    lambda r, c: (r, N - 1 - c),  # mirror left/right
    lambda r, c: (N - 1 - r, c),  # mirror top/bottom
    lambda r, c: (c, r),  # transpose
    lambda r, c: (N - 1 - c, N - 1 - r),  # anti-transpose
)
ALL_CELLS = [(r, c) for r in range(N) for c in range(N)]


def rules_grid() -> dict[Cell, Square]:
    grid: dict[Cell, Square] = {}
    for line in RULES_GRID.strip().splitlines():
        row, *tokens = line.split()
        assert len(tokens) == N
        for col, token in enumerate(tokens):
            grid[(int(row), col)] = TOKEN_SQUARE[token]
    assert len(grid) == N * N
    return grid


def cells_of(square: Square) -> set[Cell]:
    return {(r, c) for r, c in ALL_CELLS if square_at(r, c) is square}


def images(cell: Cell) -> set[Cell]:
    return {f(*cell) for f in SYMMETRIES}


def neighbours(r: int, c: int) -> list[Cell]:
    return [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]


def is_border(r: int, c: int) -> bool:
    """R9: a playable cell with a side on the edge or on a walled cell."""
    return on_board(r, c) and any(not on_board(nr, nc) for nr, nc in neighbours(r, c))


# --- R7 ---------------------------------------------------------------------------------------


def test_r7_sixteen_walled_cells_in_the_four_corner_blocks() -> None:
    corners = {
        (r, c) for r0 in (0, 11) for c0 in (0, 11) for r in (r0, r0 + 1) for c in (c0, c0 + 1)
    }
    assert cells_of(Square.WALL) == corners
    assert len(corners) == 16
    assert {(r, c) for r, c in ALL_CELLS if not on_board(r, c)} == corners
    assert EMPTY_BOARD.count("#") == 16
    assert EMPTY_BOARD.count(".") == 153
    assert len(EMPTY_BOARD) == 169
    for r, c in corners:
        assert EMPTY_BOARD[r * N + c] == "#"


@pytest.mark.parametrize("cell", [(-1, 6), (13, 6), (6, -1), (6, 13), (0, 0), (1, 1), (12, 11)])
def test_r7_outside_and_walled_cells_are_not_on_board(cell: Cell) -> None:
    assert not on_board(*cell)


@pytest.mark.parametrize(
    "tiles",
    [
        ((1, 1, "A"), (1, 2, "S")),  # a walled cell, then a playable one
        ((0, 1, "A"), (0, 2, "S")),
        ((11, 11, "A"), (11, 10, "S")),
        ((12, 12, "S"),),
        ((6, 12, "A"), (6, 13, "S")),  # past the edge
        ((-1, 6, "S"),),
    ],
)
def test_r7_placing_onto_a_wall_or_outside_is_off_board(
    tiles: tuple[tuple[int, int, str], ...],
) -> None:
    # The board holds a tile next to each target so that only the wall/edge is wrong.
    board = board_with([(2, 2, "E"), (2, 1, "E"), (10, 10, "E"), (12, 10, "E"), (6, 11, "E")])
    game = position(["ASEEEEE", "EEEEEEE"], board=board)
    outcome = refused(play(game, 0, Place.of(*tiles), now=1.0, lexicon=AcceptAll()))
    assert outcome.refusal.reason is Reason.OFF_BOARD
    assert outcome.state == game


def test_r7_a_word_starts_right_after_a_wall() -> None:
    # (1,1) is walled: the row word starting at (1,2) ends there exactly as at the edge.
    game = position(["SELEEEE", "EEEEEEE"], board=board_with([(2, 2, "E")]))
    move = accepted(
        play(game, 0, Place.of((1, 2, "S"), (1, 3, "E"), (1, 4, "L")), 1.0, AcceptAll())
    )
    words = words_of(move)
    # SEL: (S1 + E1 + L1) × 2 (W2 at (1,2)) = 6; SE (down): (S1 + E1) × 2 = 4.
    assert words == [("SEL", 1, 2, True, 6), ("SE", 1, 2, False, 4)]
    assert move.entry.score == 10


def test_r7_a_word_ends_right_before_a_wall() -> None:
    # (1,11) is walled: the row word ending at (1,10) is complete.
    game = position(["ZEEEEEE", "EEEEEEE"], board=board_with([(2, 10, "A")]))
    move = accepted(play(game, 0, Place.of((1, 9, "Z"), (1, 10, "E")), 1.0, AcceptAll()))
    words = words_of(move)
    # ZE: (Z10 + E1) × 2 (W2 at (1,10)) = 22; EA (down from (1,10)): (E1 + A1) × 2 = 4.
    assert words == [("ZE", 1, 9, True, 22), ("EA", 1, 10, False, 4)]
    assert move.entry.score == 26


def test_r7_a_column_word_stops_at_the_wall_below() -> None:
    # Column 2: (11,2) is W2 and (12,2) is playable; column 1: (11,1) is walled.
    game = position(["OSEEEEE", "EEEEEEE"], board=board_with([(9, 1, "N")]))
    move = accepted(play(game, 0, Place.of((10, 1, "O")), 1.0, AcceptAll()))
    # NO down from (9,1): N1 + O1 on W2 (10,1) → ×2 = 4; (11,1) is walled so the word stops.
    assert words_of(move) == [("NO", 9, 1, False, 4)]


# --- R8 ---------------------------------------------------------------------------------------


def test_r8_the_source_is_the_centre_cell() -> None:
    assert cells_of(Square.SOURCE) == {(6, 6)}


def test_r8_first_word_must_cover_the_source() -> None:
    game = position(["OSEEEEE", "EEEEEEE"])
    off = refused(play(game, 0, Place.of((6, 4, "O"), (6, 5, "S")), 1.0, AcceptAll()))
    assert off.refusal.reason is Reason.FIRST_MOVE_OFF_SOURCE
    on = accepted(play(game, 0, Place.of((6, 5, "O"), (6, 6, "S")), 1.0, AcceptAll()))
    assert on.state.board[6 * N + 5 : 6 * N + 7] == "OS"


@pytest.mark.parametrize(
    "tiles",
    [
        ((6, 6, "Z"), (6, 7, "A")),
        ((6, 6, "Z"), (7, 6, "A")),
        ((6, 5, "Z"), (6, 6, "A")),
        ((5, 6, "Z"), (6, 6, "A")),
    ],
)
def test_r8_the_source_multiplies_nothing(tiles: tuple[tuple[int, int, str], ...]) -> None:
    game = position(["ZAEEEEE", "EEEEEEE"])
    move = accepted(play(game, 0, Place.of(*tiles), 1.0, AcceptAll()))
    assert [(w.word, w.score) for w in move.entry.words] == [("ZA", 11)]
    assert move.entry.score == 11


def test_r8_a_seven_tile_first_word_reaches_no_bonus() -> None:
    # Every 7-tile first word through the source scores its plain sum (+30).
    rack = "ZKWYQJX"  # 10+10+10+10+8+8+8 = 64
    for across in (True, False):
        for start in range(0, 7):
            cells = [(6, start + i) if across else (start + i, 6) for i in range(7)]
            place = Place.of(*[(r, c, rack[i]) for i, (r, c) in enumerate(cells)])
            move = accepted(play(position([rack, "EEEEEEE"]), 0, place, 1.0, AcceptAll()))
            assert move.entry.score == 64 + 30


# --- R9 ---------------------------------------------------------------------------------------


def test_r9_layout_matches_the_rules_grid_cell_by_cell() -> None:
    grid = rules_grid()
    for r, c in ALL_CELLS:
        assert square_at(r, c) is grid[(r, c)], (r, c)


@pytest.mark.parametrize("square", list(BASE_CELL))
def test_r9_each_bonus_is_its_base_cell_and_images(square: Square) -> None:
    assert cells_of(square) == images(BASE_CELL[square])


def test_r9_exact_bonus_coordinates() -> None:
    assert cells_of(Square.WORD_3) == {
        (0, 4), (0, 8), (4, 0), (8, 0), (4, 12), (8, 12), (12, 4), (12, 8),
    }  # fmt: skip
    assert cells_of(Square.WORD_2) == {
        (1, 2), (1, 10), (2, 1), (2, 11), (10, 1), (10, 11), (11, 2), (11, 10),
    }  # fmt: skip
    assert cells_of(Square.LETTER_3) == {
        (4, 5), (4, 7), (5, 4), (5, 8), (7, 4), (7, 8), (8, 5), (8, 7),
    }  # fmt: skip
    assert cells_of(Square.LETTER_2) == {
        (2, 4), (2, 8), (4, 2), (4, 10), (8, 2), (8, 10), (10, 4), (10, 8),
    }  # fmt: skip
    assert cells_of(Square.CROSSING) == {(3, 3), (3, 9), (9, 3), (9, 9)}


def test_r9_counts_8_8_8_8_4() -> None:
    counts = {square: len(cells_of(square)) for square in BONUSES}
    assert counts == {
        Square.WORD_3: 8,
        Square.WORD_2: 8,
        Square.LETTER_3: 8,
        Square.LETTER_2: 8,
        Square.CROSSING: 4,
    }
    assert sum(counts.values()) == 36
    assert len(cells_of(Square.PLAIN)) == 169 - 16 - 1 - 36


@pytest.mark.parametrize("symmetry", range(8))
def test_r9_layout_symmetric_under_all_rotations_and_mirrors(symmetry: int) -> None:
    f = SYMMETRIES[symmetry]
    for r, c in ALL_CELLS:
        assert square_at(*f(r, c)) is square_at(r, c)


@pytest.mark.parametrize("square", [Square.WORD_2, Square.WORD_3])
def test_r9_word_bonuses_on_border(square: Square) -> None:
    for r, c in cells_of(square):
        assert is_border(r, c), (square, r, c)


@pytest.mark.parametrize("square", [Square.LETTER_2, Square.LETTER_3, Square.CROSSING])
def test_r9_letter_bonuses_and_crossings_inside(square: Square) -> None:
    for r, c in cells_of(square):
        assert on_board(r, c)
        assert not is_border(r, c), (square, r, c)


def test_r9_no_bonus_touches_another_by_a_side() -> None:
    bonus = {cell for square in BONUSES for cell in cells_of(square)}
    assert len(bonus) == 36
    for r, c in bonus:
        assert not any(n in bonus for n in neighbours(r, c)), (r, c)


def test_r9_no_bonus_on_row_6_or_column_6() -> None:
    for i in range(N):
        assert square_at(6, i) in (Square.PLAIN, Square.SOURCE)
        assert square_at(i, 6) in (Square.PLAIN, Square.SOURCE)


def test_r9_square_at_outside_the_square_raises() -> None:
    with pytest.raises(ValueError):
        square_at(13, 0)
    with pytest.raises(ValueError):
        square_at(0, -1)
