"""Tiles, the two alphabets, the bilingual pairs and the bags' contents (M7–M10, M13, appx A).

A tile is written as in the record (mishqaq-record-format.md): its primary letter (``"C"``,
``"ش"``), with ``+`` for a bilingual tile (``"R+"`` is the Latin bag's R that also bears ر,
``"ر+"`` the Arabic bag's ر that also bears R), ``"?"`` for a blank. A blank's script is the
bag it comes from, which its text alone does not say.

>>> r = Tile.parse("R+")
>>> r.script, r.letter, r.partner, r.text
(<Side.LATIN: 'latin'>, 'R', 'ر', 'R+')
>>> Tile.parse("ر+").partner, Tile.parse("?", Side.ARABIC).blank, rank(Tile.parse("ى"))
('R', True, 28)
>>> len(bag_tiles(Side.LATIN, "fr")), len(bag_tiles(Side.ARABIC, "en"))
(75, 75)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from mishqaq_rules.reasons import InvalidOptionError, MalformedActionError
from mishqaq_rules.sides import LATIN_LISTS, Side

BLANK: Final = "?"
BILINGUAL_MARK: Final = "+"

# M10: Latin = A–Z without accents; Arabic = the 28 letters, plus ة, ى and standalone ء
# (hamza carriers folded; appendix C).
LATIN_LETTERS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
ARABIC_LETTERS: Final = "ءابتةثجحخدذرزسشصضطظعغفقكلمنهوىي"
ALPHABETS: Final[dict[Side, frozenset[str]]] = {
    Side.LATIN: frozenset(LATIN_LETTERS),
    Side.ARABIC: frozenset(ARABIC_LETTERS),
}

# M8: the 17 sound pairs (standard transliteration; long vowels ا و ي ↔ A W Y).
PAIRS: Final[dict[str, str]] = dict(zip("ABDFHJKLMNQRSTWYZ", "ابدفهجكلمنقرستويز", strict=True))
_PARTNER: Final[dict[str, str]] = {**PAIRS, **{a: latin for latin, a in PAIRS.items()}}

# M13: Latin A=1 … Z=26; Arabic in the hijā'ī order, ء ranked as ا, ة as ت, ى as ي.
_HIJAI: Final = "ابتثجحخدذرزسشصضطظعغفقكلمنهوي"
RANKS: Final[dict[str, int]] = {
    **{letter: i for i, letter in enumerate(LATIN_LETTERS, start=1)},
    **{letter: i for i, letter in enumerate(_HIJAI, start=1)},
    "ء": 1,
    "ة": 3,
    "ى": 28,
}

# Appendix A.2–A.4: 73 letter tiles per bag, of which one copy of each paired letter is the
# bilingual tile, plus 2 blanks.
BLANKS_PER_BAG: Final = 2
DISTRIBUTIONS: Final[dict[str, dict[str, int]]] = {
    "fr": {
        "A": 6, "B": 1, "C": 2, "D": 2, "E": 11, "F": 1, "G": 1, "H": 1, "I": 5, "J": 1,
        "K": 1, "L": 3, "M": 2, "N": 5, "O": 4, "P": 2, "Q": 1, "R": 5, "S": 6, "T": 5,
        "U": 3, "V": 1, "W": 1, "X": 1, "Y": 1, "Z": 1,
    },
    "en": {
        "A": 5, "B": 1, "C": 2, "D": 3, "E": 8, "F": 1, "G": 2, "H": 3, "I": 5, "J": 1,
        "K": 1, "L": 3, "M": 2, "N": 5, "O": 5, "P": 2, "Q": 1, "R": 5, "S": 5, "T": 6,
        "U": 2, "V": 1, "W": 1, "X": 1, "Y": 1, "Z": 1,
    },
    "ar": {
        "ا": 11, "ل": 8, "ي": 5, "م": 4, "ن": 4, "ت": 3, "ر": 3, "و": 3, "ب": 2, "د": 2,
        "ع": 2, "ف": 2, "ق": 2, "ك": 2, "س": 2, "ه": 2, "ة": 2, "ء": 1, "ث": 1, "ج": 1,
        "ح": 1, "خ": 1, "ذ": 1, "ز": 1, "ش": 1, "ص": 1, "ض": 1, "ط": 1, "ظ": 1, "غ": 1,
        "ى": 1,
    },
}  # fmt: skip
BAG_SIZE: Final = 75


@dataclass(frozen=True, slots=True)
class Tile:
    """One tile of a bag: its script (= its bag, = its owner), its primary letter (``None``
    for a blank) and, for a bilingual tile, the letter of the other script it also bears."""

    script: Side
    letter: str | None
    partner: str | None = None
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Tiles are hashed in every rack check; the generated hash would hash the Side enum
        # in Python each time.
        object.__setattr__(self, "_hash", hash((self.script.value, self.letter, self.partner)))
        if self.letter is None:
            if self.partner is not None:
                raise MalformedActionError("a blank bears no letter")
            return
        if self.letter not in ALPHABETS[self.script]:
            raise MalformedActionError(f"{self.letter!r} is not a {self.script.value} letter")
        if self.partner is not None and _PARTNER.get(self.letter) != self.partner:
            raise MalformedActionError(f"{self.letter!r} and {self.partner!r} are not a pair")

    def __hash__(self) -> int:
        return self._hash

    @property
    def blank(self) -> bool:
        return self.letter is None

    @property
    def bilingual(self) -> bool:
        return self.partner is not None

    @property
    def text(self) -> str:
        """As the record writes it: ``"C"``, ``"R+"``, ``"ر+"``, ``"?"``."""
        if self.letter is None:
            return BLANK
        return self.letter + BILINGUAL_MARK if self.partner is not None else self.letter

    @classmethod
    def parse(cls, text: str, script: Side | None = None) -> Tile:
        """The tile written ``text``; a blank needs its ``script``. When ``script`` is given,
        a letter of the other script is refused.

        >>> Tile.parse("E+")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        rules_core.errors.MalformedActionError: 'E+' is not a tile (a bilingual tile is ...)
        """
        if text == BLANK:
            if script is None:
                raise MalformedActionError("a blank's script must be given")
            return _BLANKS[script]
        tile = _BY_TEXT.get(text)
        if tile is None:
            hint = " (a bilingual tile is one of M8's pairs)" if text.endswith("+") else ""
            raise MalformedActionError(f"{text!r} is not a tile{hint}")
        if script is not None and tile.script is not script:
            raise MalformedActionError(f"{text!r} is not a tile of the {script.value} bag")
        return tile


def _all_tiles() -> dict[str, Tile]:
    tiles: dict[str, Tile] = {}
    for script, letters in ((Side.LATIN, LATIN_LETTERS), (Side.ARABIC, ARABIC_LETTERS)):
        for letter in letters:
            tiles[letter] = Tile(script, letter)
            if letter in _PARTNER:
                bilingual = Tile(script, letter, _PARTNER[letter])
                tiles[bilingual.text] = bilingual
    return tiles


_BY_TEXT: Final = _all_tiles()
_BLANKS: Final = {side: Tile(side, None) for side in Side}


def blank_of(script: Side) -> Tile:
    return _BLANKS[script]


def alphabet(script: Side) -> frozenset[str]:
    return ALPHABETS[script]


def script_of_letter(letter: str) -> Side | None:
    """The script a single letter belongs to, or None if it is on no tile."""
    if letter in ALPHABETS[Side.LATIN]:
        return Side.LATIN
    if letter in ALPHABETS[Side.ARABIC]:
        return Side.ARABIC
    return None


def rank(tile: Tile) -> int | None:
    """M13's opening rank of a tile (a bilingual tile by its primary letter); None for a blank."""
    return None if tile.letter is None else RANKS[tile.letter]


def bag_counts(script: Side, latin: str) -> Counter[Tile]:
    """What a full bag holds (M7–M9, appendix A): ``latin`` picks the Latin bag."""
    if latin not in LATIN_LISTS:
        raise InvalidOptionError(f"the Latin lexicon is one of {LATIN_LISTS}, not {latin!r}")
    distribution = DISTRIBUTIONS[latin if script is Side.LATIN else "ar"]
    counts: Counter[Tile] = Counter()
    for letter, copies in distribution.items():
        bilingual = 1 if letter in _PARTNER else 0  # M8: one bilingual copy per pair
        if bilingual:
            counts[_BY_TEXT[letter + BILINGUAL_MARK]] = 1
        if copies > bilingual:
            counts[_BY_TEXT[letter]] = copies - bilingual
    counts[_BLANKS[script]] = BLANKS_PER_BAG
    return counts


def bag_tiles(script: Side, latin: str) -> tuple[Tile, ...]:
    """Every tile of a full bag in a fixed order (by text), before any shuffle."""
    counts = bag_counts(script, latin)
    return tuple(t for t in sorted(counts, key=lambda t: t.text) for _ in range(counts[t]))


def holds(rack: Iterable[Tile], tiles: Iterable[Tile]) -> bool:
    """Does ``rack`` hold every tile of ``tiles``, as a multiset?"""
    need = Counter(tiles)
    have = Counter(rack)
    return all(have[t] >= n for t, n in need.items())


def without(rack: tuple[Tile, ...], tiles: Iterable[Tile]) -> tuple[Tile, ...]:
    """``rack`` without ``tiles`` (first occurrences), the rest in order."""
    remaining = list(rack)
    for tile in tiles:
        remaining.remove(tile)
    return tuple(remaining)
