"""Why an action is refused, and the errors of the rules package, split by cause."""

from __future__ import annotations

import enum


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


class LexioError(Exception):
    """Base of every error this package raises."""


class MalformedActionError(LexioError, ValueError):
    """The action cannot even be stated: a letter outside A–Z, the same cell twice, no tile to
    exchange. Such input never reaches the rules; callers answer it as bad input."""


class InvalidSeatError(LexioError, ValueError):
    """A seat index that the game does not have."""


class StateFormatError(LexioError, ValueError):
    """A stored state that this version of the rules cannot read."""


class LexiconUnavailableError(LexioError):
    """The lexicon could not answer; the action is not decided and nothing changed."""
