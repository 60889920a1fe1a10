"""The board: M4 (22×22, coordinates for everybody), M5 (red squares), M6 (columns), M17
(what each side reads on a tile)."""

from __future__ import annotations

from mishqaq_positions import A, L, N, board_of, placed

from mishqaq_rules.board import CELLS, RED_SQUARES, SIZE, TARGET_COLUMNS, Board


def test_m4_the_board_is_22_by_22_and_starts_empty() -> None:
    assert (SIZE, CELLS) == (22, 484) and N == SIZE
    rows = Board.empty().rows()
    assert len(rows) == 22 and all(r == [""] * 22 for r in rows)


def test_m4_row_0_is_the_top_and_col_0_the_far_left_in_the_rendering() -> None:
    rows = board_of({(0, 0): "Q+", (21, 21): "ظ", (0, 21): "?ش"}).rows()
    assert rows[0][0] == "Q+" and rows[21][21] == "ظ" and rows[0][21] == "?ش"


def test_m5_red_squares_are_mirror_images() -> None:
    assert RED_SQUARES[L] == (10, 1)
    assert RED_SQUARES[A] == (10, 20)
    row, col = RED_SQUARES[L]
    assert RED_SQUARES[A] == (row, 21 - col)


def test_m6_each_sides_target_column_is_the_opponents_start_column() -> None:
    assert TARGET_COLUMNS[L] == RED_SQUARES[A][1] == 20
    assert TARGET_COLUMNS[A] == RED_SQUARES[L][1] == 1


def test_m17_reading_of_each_kind_of_tile_for_each_side() -> None:
    cases = {
        "C": ("C", None),  # Latin monolingual: opaque to Arabic
        "R+": ("R", "ر"),  # Latin bilingual: Arabic reads ر
        "ر+": ("R", "ر"),  # Arabic bilingual: Latin reads R
        "ش": (None, "ش"),  # Arabic monolingual: opaque to Latin
        "?R": ("R", None),  # M26: a Latin blank is opaque to Arabic, even declared R
        "?ر": (None, "ر"),
    }
    for text, (for_latin, for_arabic) in cases.items():
        cell = placed(text)
        assert (cell.reading(L), cell.reading(A)) == (for_latin, for_arabic), text


def test_m17_a_placed_tiles_owner_is_its_bag() -> None:
    assert placed("R+").owner is L and placed("ر+").owner is A and placed("?ش").owner is A
