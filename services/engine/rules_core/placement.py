"""A placement: the tiles one action puts on a grid's cells, each cell at most once.

Games differ in what a tile is (Lexio's letter with its blank flag, another game's tile of a
bag with a blank's declared letter), not in what a placement is: :class:`Placement` holds any
values that name their cell (``row``, ``col``) and refuses the same cell twice. A game's
``Place`` derives from it and adds its own constructor.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Token:
...     row: int
...     col: int
>>> Placement((Token(1, 2), Token(1, 3))).cells
((1, 2), (1, 3))
>>> Placement((Token(1, 2), Token(1, 2)))
Traceback (most recent call last):
...
rules_core.errors.MalformedActionError: two tiles on the same cell
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from rules_core.errors import MalformedActionError

__all__ = ["OnCell", "Placement"]


class OnCell(Protocol):
    """A value put on one cell of the board."""

    @property
    def row(self) -> int: ...

    @property
    def col(self) -> int: ...


_Tile = TypeVar("_Tile", bound=OnCell)


@dataclass(frozen=True, slots=True)
class Placement(Generic[_Tile]):
    """Tiles put down by one action. An empty placement can be stated; the rules refuse it."""

    tiles: tuple[_Tile, ...]

    def __post_init__(self) -> None:
        if len(set(self.cells)) != len(self.tiles):
            raise MalformedActionError("two tiles on the same cell")

    @property
    def cells(self) -> tuple[tuple[int, int], ...]:
        """Each tile's ``(row, col)``, in the placement's order."""
        return tuple((t.row, t.col) for t in self.tiles)
