"""How a dictionary entry becomes a board word, for each list's alphabet.

Latin lists (``fr``, ``en``): tiles carry only the 26 letters A–Z, so accents are dropped
(É is played with an E tile), the ligatures Œ/Æ are spelled out with two tiles, and
entries that cannot be laid on the board at all (compounds with a hyphen, elisions with
an apostrophe, abbreviations, single letters) are left out.

The Arabic list (``ar``, al-Mishqaq appendix C.1): NFKC, tashkeel, Quranic marks and
tatweel deleted, the hamza carriers folded (أ إ آ ٱ → ا, ؤ → و, ئ → ي) while ء ة ى stay
letters of their own, and only entries of 31-letter tile alphabet survive.

This module is pure so that the list builders, the service, the engines and the tests
agree on it: :func:`normalise_for` is what the rest of the code calls.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "ARABIC_CARRIERS",
    "ARABIC_CARRIERS_TABLE",
    "ARABIC_LETTERS",
    "ARABIC_MARKS_TABLE",
    "ARABIC_WORD",
    "LATIN_WORD",
    "LIGATURES",
    "MIN_LENGTH",
    "arabic_spelling",
    "fold_arabic",
    "fold_spelling",
    "normalise",
    "normalise_for",
    "word_pattern",
]

#: Shortest word the list keeps: a single letter is never a move.
MIN_LENGTH = 2

#: Ligatures that NFD does not decompose; spelled out before accents are stripped.
LIGATURES: dict[str, str] = {"œ": "oe", "Œ": "OE", "æ": "ae", "Æ": "AE"}

#: The 31 letters of the Arabic tiles (M10): the 28 letters ا…ي, then ء ة ى, in code point order.
ARABIC_LETTERS = "ءابةتثجحخدذرزسشصضطظعغفقكلمنهوىي"

#: A well-formed word of each alphabet (what the service accepts in a request).
LATIN_WORD: re.Pattern[str] = re.compile(r"[A-Z]+")
ARABIC_WORD: re.Pattern[str] = re.compile(f"[{ARABIC_LETTERS}]+")

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


def _deleted_marks() -> dict[int, None]:
    """C.1 step 2: tashkeel, superscript alef, Quranic marks and tatweel."""
    marks = [*range(0x064B, 0x0660), 0x0670, *range(0x0610, 0x061B), *range(0x06D6, 0x06EE)]
    return dict.fromkeys([*marks, 0x0640])


#: C.1 step 2 as a str.translate table (every mark deleted).
ARABIC_MARKS_TABLE: dict[int, None] = _deleted_marks()
#: C.1 step 3: the hamza carriers and their tile letter.
ARABIC_CARRIERS: dict[str, str] = {"أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ؤ": "و", "ئ": "ي"}
ARABIC_CARRIERS_TABLE: dict[int, int] = {ord(k): ord(v) for k, v in ARABIC_CARRIERS.items()}


def arabic_spelling(entry: str) -> str:
    """C.1 steps 1–2 only: the dictionary spelling, hamza carriers kept (what C.3 shows).

    >>> arabic_spelling("كِتَابٌ"), arabic_spelling("ﻷن"), arabic_spelling("مسؤولـ")
    ('كتاب', 'لأن', 'مسؤول')
    """
    return unicodedata.normalize("NFKC", entry.strip()).translate(ARABIC_MARKS_TABLE)


def fold_spelling(spelling: str) -> str | None:
    """C.1 steps 3–5 on an :func:`arabic_spelling`: carriers folded, alphabet checked.

    >>> fold_spelling("أمن"), fold_spelling("ک") is None
    ('امن', True)
    """
    letters = spelling.translate(ARABIC_CARRIERS_TABLE)
    if len(letters) < MIN_LENGTH or ARABIC_WORD.fullmatch(letters) is None:
        return None
    return letters


def fold_arabic(entry: str) -> str | None:
    """Return the tile spelling of an Arabic entry (appendix C.1), or None if unplayable.

    >>> fold_arabic("كِتَابٌ")
    'كتاب'
    >>> fold_arabic("مسؤول"), fold_arabic("سأل"), fold_arabic("ﻻ")
    ('مسوول', 'سال', 'لا')
    >>> fold_arabic("مدرسة"), fold_arabic("فى")
    ('مدرسة', 'فى')
    >>> fold_arabic("ك") is None, fold_arabic("گل") is None, fold_arabic("عبد الله") is None
    (True, True, True)
    """
    return fold_spelling(arabic_spelling(entry))


def normalise_for(list_id: str, text: str) -> str | None:
    """The board spelling of ``text`` in the alphabet of list ``list_id``, or None.

    ``fr`` and ``en`` share the Latin rule (:func:`normalise`); ``ar`` folds (appendix
    C.1). None means the text is not a playable word in that alphabet. An unknown list id
    is a programming error and raises ValueError.

    >>> normalise_for("fr", "Cœur"), normalise_for("en", "colour")
    ('COEUR', 'COLOUR')
    >>> normalise_for("ar", "أَكَلَ")
    'اكل'
    >>> normalise_for("ar", "TABLE") is None, normalise_for("en", "مدرسة") is None
    (True, True)
    """
    if list_id in ("fr", "en"):
        return normalise(text)
    if list_id == "ar":
        return fold_arabic(text)
    raise ValueError(f"unknown word list {list_id!r} (known: fr, en, ar)")


def word_pattern(list_id: str) -> re.Pattern[str]:
    """The regex a normalised word of list ``list_id`` fully matches (ValueError if unknown).

    >>> bool(word_pattern("en").fullmatch("COLOUR")), bool(word_pattern("ar").fullmatch("امن"))
    (True, True)
    """
    if list_id in ("fr", "en"):
        return LATIN_WORD
    if list_id == "ar":
        return ARABIC_WORD
    raise ValueError(f"unknown word list {list_id!r} (known: fr, en, ar)")
