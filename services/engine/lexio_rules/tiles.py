"""Tiles, their values and the bag's contents (R4, R5).

A tile is written as one character: ``"A"``–``"Z"`` for a letter tile, ``"?"`` for a blank
(on a rack or in the bag). On the board a blank shows the letter it stands for in lower case.

>>> TILE_COUNT, letter_value("K"), rack_value("K?E")
(102, 10, 11)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Final

BLANK: Final = "?"
RACK_SIZE: Final = 7
LETTERS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# R4 (decision): 100 letter tiles; E has 14; every 8- and 10-point letter has exactly one.
DISTRIBUTION: Final[dict[str, int]] = {
    "A": 9, "B": 2, "C": 3, "D": 3, "E": 14, "F": 2, "G": 2, "H": 2, "I": 8, "J": 1,
    "K": 1, "L": 5, "M": 3, "N": 6, "O": 6, "P": 2, "Q": 1, "R": 6, "S": 6, "T": 6,
    "U": 6, "V": 2, "W": 1, "X": 1, "Y": 1, "Z": 1, BLANK: 2,
}  # fmt: skip

# R5
VALUES: Final[dict[str, int]] = {
    **dict.fromkeys("EAISNRTULO", 1),
    **dict.fromkeys("DCMP", 2),
    **dict.fromkeys("GB", 3),
    **dict.fromkeys("VFH", 4),
    **dict.fromkeys("QJX", 8),
    **dict.fromkeys("YKWZ", 10),
    BLANK: 0,
}

TILE_COUNT: Final = sum(DISTRIBUTION.values())


def letter_value(tile: str) -> int:
    """Value of a rack tile (``"?"`` is 0) or of a board cell (lower case = blank = 0)."""
    if tile.islower():
        return 0
    return VALUES[tile]


def rack_value(tiles: Iterable[str]) -> int:
    """What a rack costs at the end of the game (R30–R32: a blank costs nothing)."""
    return sum(VALUES[t] for t in tiles)


def full_set() -> str:
    """Every tile of a new game, in a fixed (sorted) order."""
    return "".join(tile * count for tile, count in sorted(DISTRIBUTION.items()))


def contains_tiles(rack: str, tiles: Iterable[str]) -> bool:
    """Does ``rack`` hold every tile of ``tiles`` (as a multiset)?

    >>> contains_tiles("AAB?", "A?A"), contains_tiles("AB", "AA")
    (True, False)
    """
    need = Counter(tiles)
    have = Counter(rack)
    return all(have[t] >= n for t, n in need.items())


def remove_tiles(rack: str, tiles: Iterable[str]) -> str:
    """``rack`` without ``tiles`` (first occurrences), keeping the order of the rest."""
    remaining = list(rack)
    for tile in tiles:
        remaining.remove(tile)
    return "".join(remaining)
