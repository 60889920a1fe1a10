"""What a side (or the table, for a flag) can do (M15, M27, M29–M31).

Constructors check only that an action can be stated; whether it is legal is the rules' job.
A cell off the board can be stated (it is refused ``off_board``); a blank without its letter,
or a letter that is on no tile, cannot.

>>> Place.of((10, 1, "C"), (10, 2, "?", "A")).tiles[1].placed.text
'?A'
>>> Place.of((10, 1, "?", "ش")).tiles[0].tile.script
<Side.ARABIC: 'arabic'>
"""

from __future__ import annotations

from dataclasses import dataclass

from mishqaq_rules.board import PlacedTile
from mishqaq_rules.reasons import MalformedActionError
from mishqaq_rules.tiles import BLANK, Tile, script_of_letter
from rules_core.placement import Placement


@dataclass(frozen=True, slots=True)
class TilePlacement:
    """One tile put on one cell; a blank declares the letter it stands for (M26)."""

    row: int
    col: int
    tile: Tile
    as_letter: str | None = None

    def __post_init__(self) -> None:
        for name, value in (("row", self.row), ("col", self.col)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise MalformedActionError(f"{name} must be an integer, got {value!r}")
        PlacedTile(self.tile, self.as_letter)  # the blank/letter checks of the board

    @property
    def placed(self) -> PlacedTile:
        return PlacedTile(self.tile, self.as_letter)


@dataclass(frozen=True, slots=True)
class Place(Placement[TilePlacement]):
    """Put tiles down in one line (M18), each on its own cell. An empty placement can be
    stated; the rules refuse it."""

    @classmethod
    def of(cls, *specs: tuple[int, int, str] | tuple[int, int, str, str]) -> Place:
        """``(row, col, tile)`` or, for a blank, ``(row, col, "?", letter)``: the blank's script
        is the declared letter's."""
        tiles = []
        for spec in specs:
            row, col, text = spec[0], spec[1], spec[2]
            as_letter = spec[3] if len(spec) == 4 else None
            script = None
            if text == BLANK:
                script = script_of_letter(as_letter) if as_letter is not None else None
                if script is None:
                    raise MalformedActionError(f"a blank must declare a letter, got {as_letter!r}")
            tiles.append(TilePlacement(row, col, Tile.parse(text, script), as_letter))
        return cls(tuple(tiles))


@dataclass(frozen=True, slots=True)
class Pass:
    """End the turn without placing; draw (M11, M16)."""


@dataclass(frozen=True, slots=True)
class Swap:
    """Replace one's own blank at (row, col) by a rack tile bearing its declared letter as
    primary letter (M27). ``tile`` None: the rules pick one, a monolingual tile if the rack
    has one (a bilingual tile would open the cell to the opponent)."""

    row: int
    col: int
    tile: Tile | None = None

    def __post_init__(self) -> None:
        for name, value in (("row", self.row), ("col", self.col)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise MalformedActionError(f"{name} must be an integer, got {value!r}")
        if self.tile is not None and self.tile.blank:
            raise MalformedActionError("a blank is swapped for a letter tile, not a blank")


@dataclass(frozen=True, slots=True)
class Resign:
    """Give the game up, at any moment, in or out of turn, also during a pause (M31)."""


@dataclass(frozen=True, slots=True)
class Pause:
    """Stop both clocks for up to 60 s to look into a word's meaning (M30)."""


@dataclass(frozen=True, slots=True)
class Resume:
    """End one's own pause early (M30)."""


@dataclass(frozen=True, slots=True)
class Timeout:
    """Sent by the table when the mover's flag falls (M29); refused before that instant."""


Action = Place | Pass | Swap | Resign | Pause | Resume | Timeout
