"""What a seat can do: mark a cell (N4) or resign (N7).

Constructors check only that an action can be stated; whether it is legal is the rules' job.
A cell off the board can be stated (it is refused ``off_board``); a row that is not an
integer cannot.

>>> MarkCell(1, 2)
MarkCell(row=1, col=2)
>>> MarkCell(1, True)
Traceback (most recent call last):
...
rules_core.errors.MalformedActionError: col must be an integer, got True
"""

from __future__ import annotations

from dataclasses import dataclass

from noughts_rules.reasons import MalformedActionError


@dataclass(frozen=True, slots=True)
class MarkCell:
    """N4: put the mover's mark on the cell (row, col)."""

    row: int
    col: int

    def __post_init__(self) -> None:
        for name, value in (("row", self.row), ("col", self.col)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise MalformedActionError(f"{name} must be an integer, got {value!r}")


@dataclass(frozen=True, slots=True)
class Resign:
    """N7: give the game up, at any moment, in or out of turn."""


Action = MarkCell | Resign
