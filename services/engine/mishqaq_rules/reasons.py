"""Why an action is refused, and the errors of the rules package, split by cause.

:class:`Reason` holds exactly the record format's codes (mishqaq-record-format.md), in its
precedence order. Refusals that only live play can meet (the clock, the pause) have their own
enum, :class:`ClockRefusal`, so a record's codes never grow by accident.

The causes every game shares (an action that cannot be stated, an unreadable state, a lexicon
that cannot answer) are :mod:`rules_core`'s, re-exported here; al-Mishqaq adds its own below.

>>> [r.value for r in Reason][:3], ClockRefusal.PAUSED.value
(['game_over', 'not_your_turn', 'off_board'], 'paused')
"""

from __future__ import annotations

import enum

from rules_core import errors


class Reason(enum.Enum):
    """Stable refusal codes of the record format. When several apply, the first listed wins."""

    GAME_OVER = "game_over"
    NOT_YOUR_TURN = "not_your_turn"
    OFF_BOARD = "off_board"
    OCCUPIED = "occupied"
    NOT_IN_LINE = "not_in_line"
    NO_NEW_TILE = "no_new_tile"
    TILES_NOT_IN_RACK = "tiles_not_in_rack"
    FIRST_MOVE_OFF_START = "first_move_off_start"
    GAP = "gap"
    TOO_SHORT = "too_short"
    NO_ANCHOR = "no_anchor"
    RESERVE_EMPTY = "reserve_empty"
    UNKNOWN_WORDS = "unknown_words"
    SWAP_INVALID = "swap_invalid"


class ClockRefusal(enum.Enum):
    """Refusals of live play only (M29, M30): a record has no clock and never meets them."""

    PAUSED = "paused"
    """A placement, pass or swap during a meaning pause (M30); resign stays possible."""
    ALREADY_PAUSED = "already_paused"
    """A pause asked for while one is running."""
    NO_PAUSE_LEFT = "no_pause_left"
    """The side has used its 3 pauses (M30)."""
    NOT_THE_PAUSER = "not_the_pauser"
    """Only the side that called the pause may end it early (M30)."""
    NOT_PAUSED = "not_paused"
    """A resume with no pause running (it may have ended by itself at 60 s)."""
    FLAG_NOT_FALLEN = "flag_not_fallen"
    """The table's timeout came before the mover's flag instant (M29)."""


class MishqaqError(errors.RulesError):
    """Base of the errors only al-Mishqaq's rules raise (a table option, a record that is not
    ``mishqaq-record/1``). Every error this package raises is a :class:`rules_core.RulesError`:
    a :class:`MalformedActionError` here is not a tile, a blank without its letter, or the
    same cell twice."""


class InvalidOptionError(MishqaqError, ValueError):
    """A table option that the game does not have: a Latin list other than fr/en, a bank that
    is not a positive number of seconds."""


# The causes every game shares: rules_core's own classes, under this package's names too.
LexiconUnavailableError = errors.LexiconUnavailableError
MalformedActionError = errors.MalformedActionError
StateFormatError = errors.StateFormatError
