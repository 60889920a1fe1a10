"""The public log (N9) and the game's ending (N11).

>>> LogEntry.mark(1, 0, 1, 1, at=5.0).cell
(1, 1)
>>> Ending(None, EndCause.FULL_BOARD, at=9.0).draw
True
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from noughts_rules.board import Cell


class EntryKind(enum.Enum):
    MARK = "mark"
    """N4: a seat marked a cell."""
    RESIGN = "resign"
    """N7: a seat resigned."""
    RESULT = "result"
    """N5–N7: the game ended (winner, cause, line)."""


class EndCause(enum.Enum):
    LINE = "line"
    """N5: three in a row, column or diagonal."""
    FULL_BOARD = "full_board"
    """N6: the ninth mark made no line (a draw)."""
    RESIGN = "resign"
    """N7: the other player resigned."""


@dataclass(frozen=True, slots=True)
class Ending:
    """N11: how the game ended."""

    winner: int | None
    """The winning seat; None for a draw."""
    cause: EndCause
    at: float
    line: tuple[Cell, ...] = ()
    """For :attr:`EndCause.LINE`, its three cells."""

    @property
    def draw(self) -> bool:
        return self.winner is None


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One public log entry (N9), numbered from 1."""

    number: int
    kind: EntryKind
    at: float
    seat: int | None = None
    """Who marked or resigned; None for a result."""
    cell: Cell | None = None
    """A mark's cell."""
    ending: Ending | None = None
    """A result's ending."""

    @classmethod
    def mark(cls, number: int, seat: int, row: int, col: int, *, at: float) -> LogEntry:
        return cls(number, EntryKind.MARK, at, seat=seat, cell=(row, col))

    @classmethod
    def resign(cls, number: int, seat: int, *, at: float) -> LogEntry:
        return cls(number, EntryKind.RESIGN, at, seat=seat)

    @classmethod
    def result(cls, number: int, ending: Ending) -> LogEntry:
        return cls(number, EntryKind.RESULT, ending.at, ending=ending)
