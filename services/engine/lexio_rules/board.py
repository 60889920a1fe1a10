"""The board, "la clairière" (R7–R9): 13×13, walled corners, the source, 36 bonus cells.

The board is an immutable string of 169 characters, row-major: ``'.'`` empty, ``'#'``
walled, ``'A'``–``'Z'`` a letter tile, ``'a'``–``'z'`` a blank standing for that letter.

>>> square_at(6, 6), square_at(0, 4), square_at(0, 0)
(<Square.SOURCE: 'source'>, <Square.WORD_3: 'word3'>, <Square.WALL: 'wall'>)
"""

from __future__ import annotations

import enum
from typing import Final

SIZE: Final = 13
CELLS: Final = SIZE * SIZE
CENTRE: Final = (6, 6)
EMPTY: Final = "."
WALL: Final = "#"


class Square(enum.Enum):
    PLAIN = "plain"
    WALL = "wall"
    SOURCE = "source"
    LETTER_2 = "letter2"
    LETTER_3 = "letter3"
    WORD_2 = "word2"
    WORD_3 = "word3"
    CROSSING = "crossing"


# R9 (decision): the canonical layout. Tokens: ## walled, * source, L2 L3 W2 W3 X, . plain.
_LAYOUT_ROWS: Final = (
    "## ## .  .  W3 .  .  .  W3 .  .  ## ##",
    "## ## W2 .  .  .  .  .  .  .  W2 ## ##",
    ".  W2 .  .  L2 .  .  .  L2 .  .  W2 .",
    ".  .  .  X  .  .  .  .  .  X  .  .  .",
    "W3 .  L2 .  .  L3 .  L3 .  .  L2 .  W3",
    ".  .  .  .  L3 .  .  .  L3 .  .  .  .",
    ".  .  .  .  .  .  *  .  .  .  .  .  .",
    ".  .  .  .  L3 .  .  .  L3 .  .  .  .",
    "W3 .  L2 .  .  L3 .  L3 .  .  L2 .  W3",
    ".  .  .  X  .  .  .  .  .  X  .  .  .",
    ".  W2 .  .  L2 .  .  .  L2 .  .  W2 .",
    "## ## W2 .  .  .  .  .  .  .  W2 ## ##",
    "## ## .  .  W3 .  .  .  W3 .  .  ## ##",
)
_TOKENS: Final = {
    "##": Square.WALL,
    "*": Square.SOURCE,
    "L2": Square.LETTER_2,
    "L3": Square.LETTER_3,
    "W2": Square.WORD_2,
    "W3": Square.WORD_3,
    "X": Square.CROSSING,
    ".": Square.PLAIN,
}

LAYOUT: Final[tuple[Square, ...]] = tuple(
    _TOKENS[token] for row in _LAYOUT_ROWS for token in row.split()
)
assert len(LAYOUT) == CELLS

LETTER_MULTIPLIER: Final[tuple[int, ...]] = tuple(
    3 if s is Square.LETTER_3 else 2 if s is Square.LETTER_2 else 1 for s in LAYOUT
)
WORD_MULTIPLIER: Final[tuple[int, ...]] = tuple(
    3 if s is Square.WORD_3 else 2 if s is Square.WORD_2 else 1 for s in LAYOUT
)
IS_CROSSING: Final[tuple[bool, ...]] = tuple(s is Square.CROSSING for s in LAYOUT)

EMPTY_BOARD: Final = "".join(WALL if s is Square.WALL else EMPTY for s in LAYOUT)


def index(row: int, col: int) -> int:
    return row * SIZE + col


def on_board(row: int, col: int) -> bool:
    """Inside the square and not walled (R7): where a tile may lie."""
    return 0 <= row < SIZE and 0 <= col < SIZE and LAYOUT[row * SIZE + col] is not Square.WALL


def square_at(row: int, col: int) -> Square:
    if not (0 <= row < SIZE and 0 <= col < SIZE):
        raise ValueError(f"({row}, {col}) is outside the {SIZE}×{SIZE} square")
    return LAYOUT[row * SIZE + col]


def is_empty(board: str) -> bool:
    return board == EMPTY_BOARD


def rows(board: str) -> list[str]:
    """The board as 13 strings of 13 characters (the record format's ``board``)."""
    return [board[r * SIZE : (r + 1) * SIZE] for r in range(SIZE)]
