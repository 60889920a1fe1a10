"""Why an action is refused, and the errors of the rules package, split by cause.

The causes every game shares (an action that cannot be stated, an unreadable state, a lexicon
that cannot answer) are :mod:`rules_core`'s, re-exported here; Lexio adds its own below.
"""

from __future__ import annotations

import enum

from rules_core import errors

# The causes every game shares: rules_core's own classes, under this package's names too.
MalformedActionError = errors.MalformedActionError
StateFormatError = errors.StateFormatError
LexiconUnavailableError = errors.LexiconUnavailableError


class Reason(enum.Enum):
    """Stable refusal codes (record-format.md). When several apply, the first listed wins."""

    GAME_OVER = "game_over"
    NOT_YOUR_TURN = "not_your_turn"
    OFF_BOARD = "off_board"
    OCCUPIED_MISMATCH = "occupied_mismatch"
    NOT_IN_LINE = "not_in_line"
    GAP = "gap"
    NO_NEW_TILE = "no_new_tile"
    TOO_MANY_TILES = "too_many_tiles"
    TILES_NOT_IN_RACK = "tiles_not_in_rack"
    FIRST_MOVE_OFF_SOURCE = "first_move_off_source"
    TOO_SHORT = "too_short"
    NOT_TOUCHING = "not_touching"
    RESERVE_EMPTY = "reserve_empty"
    UNKNOWN_WORDS = "unknown_words"
    BAG_TOO_SMALL = "bag_too_small"


class LexioError(errors.RulesError):
    """Base of the errors only Lexio's rules raise (a seat the game does not have, a record
    that is not ``lexio-record/1``). Every error this package raises is a
    :class:`rules_core.RulesError`: a :class:`MalformedActionError` here is a letter outside
    A–Z, the same cell twice, or no tile to exchange."""


class InvalidSeatError(LexioError, ValueError):
    """A seat index that the game does not have."""


class GameNotOverError(LexioError):
    """A review or a record asked of a game that has not ended: nothing of a game in play is
    shown to anyone but as its views (R6)."""


class ReviewUnavailableError(LexioError):
    """A finished game that cannot be replayed from its seed: a state stored before it kept
    the tiles of its exchanges, or one whose replay does not reach it (never a wrong record)."""
