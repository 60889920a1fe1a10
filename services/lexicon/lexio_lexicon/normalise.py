"""How a dictionary entry becomes a Lexio word: upper-case A–Z, no accents, no ligatures.

Tiles carry only the 26 letters A–Z, so the word list must speak the same alphabet:
accents are dropped (É is played with an E tile), the ligatures Œ/Æ are spelled out
with two tiles, and entries that cannot be laid on the board at all (compounds with a
hyphen, elisions with an apostrophe, abbreviations, single letters) are left out.
This module is pure so that the list builder, the service and the tests agree on it.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["LIGATURES", "MIN_LENGTH", "normalise"]

#: Shortest word the list keeps: a single letter is never a move.
MIN_LENGTH = 2

#: Ligatures that NFD does not decompose; spelled out before accents are stripped.
LIGATURES: dict[str, str] = {"œ": "oe", "Œ": "OE", "æ": "ae", "Æ": "AE"}

_LIGATURE_TABLE = str.maketrans(LIGATURES)
# Checked before upper-casing: str.upper() maps "ß" to "SS" and "ﬁ" to "FI", which would
# smuggle letters that the entry never had past an after-the-fact A–Z check.
_ASCII_LETTERS = re.compile(r"[A-Za-z]+")


def normalise(entry: str) -> str | None:
    """Return the board spelling of a dictionary entry, or None if it must be dropped.

    Leading/trailing whitespace (such as the line's newline) is ignored; anything else
    outside A–Z after folding accents and ligatures drops the entry, so a hyphen, an
    apostrophe, a digit, an inner space or a full stop all drop it.

    >>> normalise("Cœur")
    'COEUR'
    >>> normalise("été")
    'ETE'
    >>> normalise("Ægypte")
    'AEGYPTE'
    >>> normalise("aujourd'hui") is None
    True
    >>> normalise("à") is None
    True
    >>> normalise("straße") is None
    True
    """
    folded = unicodedata.normalize("NFD", entry.strip().translate(_LIGATURE_TABLE))
    letters = "".join(ch for ch in folded if not unicodedata.combining(ch))
    if len(letters) < MIN_LENGTH or _ASCII_LETTERS.fullmatch(letters) is None:
        return None
    return letters.upper()
