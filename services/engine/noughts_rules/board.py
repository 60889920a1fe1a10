"""The 3×3 board (N2) and the eight lines that win (N5).

>>> board = Board.empty().with_mark(0, 0, Mark.X).with_mark(1, 1, Mark.X)
>>> board.at(1, 1), board.at(2, 2), board.line_of(Mark.X)
(<Mark.X: 'X'>, None, None)
>>> board.with_mark(2, 2, Mark.X).line_of(Mark.X)
((0, 0), (1, 1), (2, 2))
>>> board.rows()
(('X', '', ''), ('', 'X', ''), ('', '', ''))
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

SIZE: Final = 3
"""N2: rows and columns are numbered 0–2."""

Cell = tuple[int, int]
"""(row, col)."""

CELLS: Final[tuple[Cell, ...]] = tuple((r, c) for r in range(SIZE) for c in range(SIZE))
"""Every cell, row by row."""

LINES: Final[tuple[tuple[Cell, Cell, Cell], ...]] = (
    *(((r, 0), (r, 1), (r, 2)) for r in range(SIZE)),
    *(((0, c), (1, c), (2, c)) for c in range(SIZE)),
    ((0, 0), (1, 1), (2, 2)),
    ((0, 2), (1, 1), (2, 0)),
)
"""N5: the three rows, the three columns, then the two diagonals."""


class Mark(enum.Enum):
    """N1: seat 0 plays X, seat 1 plays O."""

    X = "X"
    O = "O"  # noqa: E741

    @property
    def seat(self) -> int:
        return 0 if self is Mark.X else 1

    @classmethod
    def of_seat(cls, seat: int) -> Mark:
        """The mark seat ``seat`` plays (0 or 1, checked by the caller)."""
        return cls.X if seat == 0 else cls.O


def on_board(row: int, col: int) -> bool:
    return 0 <= row < SIZE and 0 <= col < SIZE


@dataclass(frozen=True, slots=True)
class Board:
    cells: tuple[Mark | None, ...]
    """Nine cells, row by row: a mark or None (empty)."""

    def __post_init__(self) -> None:
        if len(self.cells) != SIZE * SIZE:
            raise ValueError(f"a board has {SIZE * SIZE} cells, not {len(self.cells)}")

    @classmethod
    def empty(cls) -> Board:
        return cls((None,) * (SIZE * SIZE))

    def at(self, row: int, col: int) -> Mark | None:
        """The mark on an on-board cell, or None."""
        return self.cells[row * SIZE + col]

    def with_mark(self, row: int, col: int, mark: Mark) -> Board:
        cells = list(self.cells)
        cells[row * SIZE + col] = mark
        return Board(tuple(cells))

    def count(self, mark: Mark) -> int:
        return self.cells.count(mark)

    @property
    def full(self) -> bool:
        return None not in self.cells

    def line_of(self, mark: Mark) -> tuple[Cell, Cell, Cell] | None:
        """N5: the first line (rows, columns, diagonals) all of ``mark``, or None."""
        for line in LINES:
            if all(self.at(r, c) is mark for r, c in line):
                return line
        return None

    def rows(self) -> tuple[tuple[str, ...], ...]:
        """The board as text, row by row: "X", "O" or "" per cell."""
        return tuple(
            tuple("" if (m := self.at(r, c)) is None else m.value for c in range(SIZE))
            for r in range(SIZE)
        )
