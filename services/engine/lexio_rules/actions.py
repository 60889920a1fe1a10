"""What a seat (or the table, for a timeout) can do on its turn (R10): place, exchange, pass.

Constructors check only that an action can be stated; whether it is legal is the rules' job.

>>> Place.of((6, 5, "O"), (6, 6, "S", True)).tiles[1]
TilePlacement(row=6, col=6, letter='S', blank=True)
>>> Exchange("AA?").tiles
'AA?'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from lexio_rules.reasons import MalformedActionError
from lexio_rules.tiles import BLANK, LETTERS, RACK_SIZE
from rules_core.placement import Placement


class PassCause(enum.Enum):
    PLAYER = "player"
    """The seat chose to pass (R27)."""
    CLOCK = "clock"
    """The turn clock ran out; the table passed for the seat (R28)."""
    DISCONNECTED = "disconnected"
    """The seat was away past the grace period; the table passed for it (R29)."""


@dataclass(frozen=True, slots=True)
class TilePlacement:
    """One tile put on one cell. For a blank, ``letter`` is the letter it announces (R15)."""

    row: int
    col: int
    letter: str
    blank: bool = False

    def __post_init__(self) -> None:
        if len(self.letter) != 1 or self.letter not in LETTERS:
            raise MalformedActionError(f"letter must be one of A–Z, got {self.letter!r}")

    @property
    def rack_tile(self) -> str:
        """The rack tile this placement uses."""
        return BLANK if self.blank else self.letter

    @property
    def board_char(self) -> str:
        return self.letter.lower() if self.blank else self.letter


@dataclass(frozen=True, slots=True)
class Place(Placement[TilePlacement]):
    """Put 1–7 tiles on the board, each on its own cell. An empty placement can be stated; the
    rules refuse it."""

    @classmethod
    def of(cls, *tiles: tuple[int, int, str] | tuple[int, int, str, bool]) -> Place:
        return cls(tuple(TilePlacement(*t) for t in tiles))


@dataclass(frozen=True, slots=True)
class Exchange:
    """Give back ``tiles`` (letters, ``?`` for a blank) for as many drawn (R26)."""

    tiles: str

    def __post_init__(self) -> None:
        if not 1 <= len(self.tiles) <= RACK_SIZE:
            raise MalformedActionError(f"exchange 1 to {RACK_SIZE} tiles, got {len(self.tiles)}")
        if any(t != BLANK and t not in LETTERS for t in self.tiles):
            raise MalformedActionError(f"tiles must be A–Z or '?', got {self.tiles!r}")


@dataclass(frozen=True, slots=True)
class Pass:
    cause: PassCause = PassCause.PLAYER


Action = Place | Exchange | Pass
