"""The two sides of the table (M1) and which lexicon judges each (M22).

A side is also a script: the Latin side plays the Latin bag's tiles, the Arabic side the
Arabic bag's (M7), so a tile's script is the side that owns it.

>>> Side.LATIN.other, Side.ARABIC.index, lexicon_id(Side.LATIN, "en"), lexicon_id(Side.ARABIC, "en")
(<Side.ARABIC: 'arabic'>, 1, 'en', 'ar')
"""

from __future__ import annotations

import enum
from typing import Final, TypeVar

_T = TypeVar("_T")

LATIN_LISTS: Final = ("fr", "en")
"""The table's Latin lexicon, chosen at creation (M2): French (the default) or English."""
ARABIC_LIST: Final = "ar"


class Side(enum.Enum):
    LATIN = "latin"
    """Left of the board; reads rows left→right (M1, M20)."""
    ARABIC = "arabic"
    """Right of the board; reads rows right→left."""

    @property
    def other(self) -> Side:
        return Side.ARABIC if self is Side.LATIN else Side.LATIN

    @property
    def index(self) -> int:
        """0 for Latin, 1 for Arabic: the position of this side in every per-side pair."""
        return 0 if self is Side.LATIN else 1


SIDES: Final = (Side.LATIN, Side.ARABIC)
"""Both sides in the order of every per-side pair (racks, bags, banks, reserves)."""


def with_side(pair: tuple[_T, _T], side: Side, value: _T) -> tuple[_T, _T]:
    """A per-side pair with ``side``'s value replaced.

    >>> with_side((1, 2), Side.ARABIC, 5)
    (1, 5)
    """
    return (value, pair[1]) if side is Side.LATIN else (pair[0], value)


def lexicon_id(side: Side, latin: str) -> str:
    """The list that judges ``side``'s words (M22): the table's Latin list, or ``ar``."""
    return latin if side is Side.LATIN else ARABIC_LIST
