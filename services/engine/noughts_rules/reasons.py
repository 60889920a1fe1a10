"""Why an action is refused (N8), and the errors of the rules package, split by cause.

:class:`Reason` holds the stable refusal codes in their precedence order: when several
apply, the first listed is given. The causes every game shares (an action that cannot be
stated, an unreadable state) are :mod:`rules_core`'s, re-exported here; noughts adds only
its own seat error.

>>> [r.value for r in Reason]
['game_over', 'not_your_turn', 'off_board', 'occupied']
>>> issubclass(InvalidSeatError, ValueError), issubclass(InvalidSeatError, errors.RulesError)
(True, True)
"""

from __future__ import annotations

import enum

from rules_core import errors

__all__ = [
    "InvalidSeatError",
    "MalformedActionError",
    "NoughtsError",
    "Reason",
    "StateFormatError",
]


class Reason(enum.Enum):
    """N8: the stable refusal codes, first listed first given."""

    GAME_OVER = "game_over"
    """The game has ended (N5–N7)."""
    NOT_YOUR_TURN = "not_your_turn"
    """A mark from the seat that is not to move (N3)."""
    OFF_BOARD = "off_board"
    """A row or column outside 0–2 (N2)."""
    OCCUPIED = "occupied"
    """The cell already holds a mark (N4)."""


class NoughtsError(errors.RulesError):
    """Base of the errors only noughts' rules raise. Every error this package raises is a
    :class:`rules_core.RulesError`."""


class InvalidSeatError(NoughtsError, ValueError):
    """N1: a seat other than 0 or 1."""


# The causes every game shares: rules_core's own classes, under this package's names too.
MalformedActionError = errors.MalformedActionError
StateFormatError = errors.StateFormatError
