"""The public game log (M37) and the game's result (M33).

Both players can reread the log: the opening draw, every accepted placement (its tiles and
cells, each word with its reading direction, script and, when the lexicon gave them, its
dictionary spellings), swaps, passes (how many tiles drawn, never which), pauses and their
ends, a resignation, and the result with its cause.

>>> w = WordPlay("كتب", Direction.ACROSS, Side.ARABIC, 10, 20)
>>> list(w.cells())
[(10, 20), (10, 19), (10, 18)]
>>> list(WordPlay("CAT", Direction.UP, Side.LATIN, 7, 4).cells())
[(7, 4), (6, 4), (5, 4)]
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass

from mishqaq_rules.actions import TilePlacement
from mishqaq_rules.sides import Side
from mishqaq_rules.tiles import Tile


class EntryKind(enum.Enum):
    OPENING = "opening"
    """M13: the draws (each round's Latin and Arabic tile) and the side that opens."""
    PLACE = "place"
    SWAP = "swap"
    PASS = "pass"
    PAUSE = "pause"
    RESUME = "resume"
    """The pauser ended their pause early."""
    PAUSE_EXPIRED = "pause_expired"
    """The pause ended by itself, 60 s after it began (logged at that instant)."""
    RESIGN = "resign"
    RESULT = "result"


class Direction(enum.Enum):
    """How a word is read (M20): a row in its side's direction, a column either way."""

    ACROSS = "across"
    DOWN = "down"
    UP = "up"


class EndCause(enum.Enum):
    TRY = "try"
    """M23: a new own tile in the target column."""
    FLAG = "flag"
    """M29: the mover's bank reached 0."""
    RESIGN = "resign"
    """M31."""
    DEAD_POSITION = "dead_position"
    """M35: four consecutive passes that drew nothing; more time left wins."""


@dataclass(frozen=True, slots=True)
class WordPlay:
    """A word of an accepted placement: its letters in reading order, in the mover's script."""

    word: str
    direction: Direction
    script: Side
    row: int
    col: int
    """The cell of its first letter in reading order."""
    spellings: tuple[str, ...] = ()
    """The dictionary's spellings of the word, when the lexicon gave them (M30, M37)."""

    def cells(self) -> Iterator[tuple[int, int]]:
        """Its cells in reading order."""
        if self.direction is Direction.ACROSS:
            dr, dc = 0, (1 if self.script is Side.LATIN else -1)
        else:
            dr, dc = (1 if self.direction is Direction.DOWN else -1), 0
        for i in range(len(self.word)):
            yield self.row + i * dr, self.col + i * dc


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of the log, numbered from 1. Which fields are set depends on ``kind``."""

    number: int
    kind: EntryKind
    at: float
    side: Side | None = None
    """Who acted (for a pause's end, who had called it; for the opening, who opens)."""
    tiles: tuple[TilePlacement, ...] = ()
    """A placement's tiles, or the tile a swap put in the blank's cell."""
    words: tuple[WordPlay, ...] = ()
    """A placement's words, main word first, then the cross words in the order of the tiles."""
    count: int = 0
    """Tiles drawn after a placement or a pass (how many, never which)."""
    draws: tuple[tuple[Tile, Tile], ...] = ()
    """The opening's rounds, each (Latin tile, Arabic tile); none when the opener was given."""
    winner: Side | None = None
    """A result's winner; None with a result is a draw (M35)."""
    cause: EndCause | None = None


@dataclass(frozen=True, slots=True)
class Ending:
    winner: Side | None
    """None: a draw (M35, equal time to the second)."""
    cause: EndCause
    at: float
    racks: tuple[tuple[Tile, ...], tuple[Tile, ...]]
    """Both racks at the end, revealed to both players (M12)."""
