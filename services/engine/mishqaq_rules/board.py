"""The 22×22 board of placed tiles (M4–M6) and what each side can read on it (M17, M26).

Cells are ``(row, col)``, 0-based from the top-left, for everybody (M4: the board is never
mirrored). The board is an immutable tuple of 484 cells, row-major, each ``None`` or a
:class:`PlacedTile`.

>>> from mishqaq_rules.tiles import Tile
>>> board = Board.empty().with_tiles([(10, 1, PlacedTile(Tile.parse("R+")))])
>>> board.at(10, 1).reading(Side.ARABIC), board.rows()[10][:3]
('ر', ['', 'R+', ''])
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from mishqaq_rules.reasons import MalformedActionError
from mishqaq_rules.sides import Side
from mishqaq_rules.tiles import ALPHABETS, BLANK, Tile

SIZE: Final = 22
CELLS: Final = SIZE * SIZE

# M5, M6: mirror images under col → 21 − col.
RED_SQUARES: Final[dict[Side, tuple[int, int]]] = {Side.LATIN: (10, 1), Side.ARABIC: (10, 20)}
TARGET_COLUMNS: Final[dict[Side, int]] = {Side.LATIN: 20, Side.ARABIC: 1}


def on_board(row: int, col: int) -> bool:
    return 0 <= row < SIZE and 0 <= col < SIZE


def index(row: int, col: int) -> int:
    return row * SIZE + col


@dataclass(frozen=True, slots=True)
class PlacedTile:
    """A tile on the board; a blank carries the letter its owner declared (M26)."""

    tile: Tile
    as_letter: str | None = None

    def __post_init__(self) -> None:
        if self.tile.blank != (self.as_letter is not None):
            raise MalformedActionError("a placed blank, and only a blank, declares a letter")
        if self.as_letter is not None and self.as_letter not in ALPHABETS[self.tile.script]:
            raise MalformedActionError(
                f"a {self.tile.script.value} blank cannot stand for {self.as_letter!r}"
            )

    @property
    def owner(self) -> Side:
        """Each side draws only from its own bag (M7), so a tile's owner is its script."""
        return self.tile.script

    @property
    def letter(self) -> str:
        """The letter its owner reads: the primary letter, or a blank's declared letter."""
        letter = self.as_letter if self.as_letter is not None else self.tile.letter
        assert letter is not None
        return letter

    def reading(self, side: Side) -> str | None:
        """What ``side`` reads on this cell (M17): its own tile's letter, an opponent's non-blank
        bilingual tile's letter in ``side``'s script, or None: the cell is opaque to ``side``."""
        if self.tile.script is side:
            return self.as_letter if self.as_letter is not None else self.tile.letter
        return self.tile.partner

    @property
    def text(self) -> str:
        """As the record's board writes it: the tile, a placed blank as ``"?S"``."""
        return BLANK + self.as_letter if self.as_letter is not None else self.tile.text


Cell = PlacedTile | None


@dataclass(frozen=True, slots=True, repr=False)
class Board:
    cells: tuple[Cell, ...]

    def __post_init__(self) -> None:
        if len(self.cells) != CELLS:
            raise ValueError(f"a board has {CELLS} cells, not {len(self.cells)}")

    @classmethod
    def empty(cls) -> Board:
        return _EMPTY

    def at(self, row: int, col: int) -> Cell:
        return self.cells[row * SIZE + col]

    def with_tiles(self, placed: Iterable[tuple[int, int, PlacedTile]]) -> Board:
        """This board with ``placed`` put down (an occupied cell is replaced: a swap, M27)."""
        cells = list(self.cells)
        for row, col, tile in placed:
            cells[row * SIZE + col] = tile
        return Board(tuple(cells))

    def occupied(self) -> Iterator[tuple[int, int, PlacedTile]]:
        for i, cell in enumerate(self.cells):
            if cell is not None:
                yield i // SIZE, i % SIZE, cell

    def __repr__(self) -> str:
        tiles = ", ".join(f"({r}, {c}): {t.text!r}" for r, c, t in self.occupied())
        return f"Board({{{tiles}}})"

    def rows(self) -> list[list[str]]:
        """22 rows of 22 cells, each ``""`` or the tile as written (the record's ``board``)."""
        return [
            ["" if c is None else c.text for c in self.cells[r * SIZE : (r + 1) * SIZE]]
            for r in range(SIZE)
        ]


_EMPTY: Final = Board((None,) * CELLS)
