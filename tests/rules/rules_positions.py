"""Helpers shared by the rules tests: positions built by hand, stand-in lexicons, outcome checks,
and the tables of lexio-rules.md copied from the rules text (never from the implementation)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from lexio_rules.actions import Place
from lexio_rules.board import EMPTY_BOARD
from lexio_rules.game import Accepted, Outcome, Refused
from lexio_rules.state import GameState, new_game

N = 13
TileSpec = tuple[int, int, str] | tuple[int, int, str, bool]

# --- the rules text ---------------------------------------------------------------------------

# R4, copied from lexio-rules.md: "A9 B2 C3 D3 E14 F2 G2 H2 I8 J1 K1 L5 M3 N6 O6 P2 Q1 R6 S6 T6
# U6 V2 W1 X1 Y1 Z1, blanks 2".
RULES_DISTRIBUTION = {
    "A": 9, "B": 2, "C": 3, "D": 3, "E": 14, "F": 2, "G": 2, "H": 2, "I": 8, "J": 1,
    "K": 1, "L": 5, "M": 3, "N": 6, "O": 6, "P": 2, "Q": 1, "R": 6, "S": 6, "T": 6,
    "U": 6, "V": 2, "W": 1, "X": 1, "Y": 1, "Z": 1, "?": 2,
}  # fmt: skip

# R5, copied from lexio-rules.md.
RULES_VALUES = {
    **dict.fromkeys("EAISNRTULO", 1),
    **dict.fromkeys("DCMP", 2),
    **dict.fromkeys("GB", 3),
    **dict.fromkeys("VFH", 4),
    **dict.fromkeys("QJX", 8),
    **dict.fromkeys("YKWZ", 10),
    "?": 0,
}

# The grid of lexio-rules.md R9, copied verbatim (row label first): '##' walled, '*' the source,
# W3/W2 word cells, L3/L2 letter cells, X crossings.
RULES_GRID = """
 0   ## ##  .  . W3  .  .  . W3  .  . ## ##
 1   ## ## W2  .  .  .  .  .  .  . W2 ## ##
 2    . W2  .  . L2  .  .  . L2  .  . W2  .
 3    .  .  .  X  .  .  .  .  .  X  .  .  .
 4   W3  . L2  .  . L3  . L3  .  . L2  . W3
 5    .  .  .  . L3  .  .  . L3  .  .  .  .
 6    .  .  .  .  .  .  *  .  .  .  .  .  .
 7    .  .  .  . L3  .  .  . L3  .  .  .  .
 8   W3  . L2  .  . L3  . L3  .  . L2  . W3
 9    .  .  .  X  .  .  .  .  .  X  .  .  .
10    . W2  .  . L2  .  .  . L2  .  . W2  .
11   ## ## W2  .  .  .  .  .  .  . W2 ## ##
12   ## ##  .  . W3  .  .  . W3  .  . ## ##
"""


def worth(rack: str) -> int:
    """A rack's value by R5 (a blank is worth nothing)."""
    return sum(RULES_VALUES[t] for t in rack)


# --- positions --------------------------------------------------------------------------------


def board_with(cells: Iterable[tuple[int, int, str]]) -> str:
    """The empty board with the given letters on it (each on an empty playable cell)."""
    chars = list(EMPTY_BOARD)
    for r, c, ch in cells:
        assert chars[r * N + c] == "."
        chars[r * N + c] = ch
    return "".join(chars)


def word_at(row: int, col: int, word: str, across: bool = True) -> list[tuple[int, int, str]]:
    dr, dc = (0, 1) if across else (1, 0)
    return [(row + i * dr, col + i * dc, ch) for i, ch in enumerate(word)]


def position(
    racks: Sequence[str],
    board: str = EMPTY_BOARD,
    bag: str = "EEEEEEEEEE",
    turn: int = 0,
    now: float = 0.0,
) -> GameState:
    """A new game (seed 1) given these racks, board, bag and seat to play."""
    game = new_game(len(racks), seed=1, now=now)
    return replace(game, racks=tuple(racks), board=board, bag=bag, turn=turn)


TABLE_BOARD = board_with(word_at(6, 2, "TABLE"))  # TABLE across, cols 2..6 of row 6
OS = Place.of((6, 5, "O"), (6, 6, "S"))  # a valid first move for a rack holding O and S

# --- lexicons ---------------------------------------------------------------------------------


class AcceptAll:
    """Knows every word; counts how often it is asked."""

    def __init__(self) -> None:
        self.calls = 0

    def unknown(self, words: Sequence[str]) -> list[str]:
        self.calls += 1
        return []


class Recording:
    """Knows ``known`` (or every word when None); writes down each consultation."""

    def __init__(self, known: Iterable[str] | None = None) -> None:
        self.known = None if known is None else frozenset(known)
        self.calls: list[tuple[str, ...]] = []

    def unknown(self, words: Sequence[str]) -> list[str]:
        self.calls.append(tuple(words))
        return [] if self.known is None else [w for w in words if w not in self.known]


class Exploding:
    """A lexicon that must not be consulted at all."""

    def unknown(self, words: Sequence[str]) -> list[str]:
        raise AssertionError(f"the lexicon must not be consulted (asked {words})")


# --- outcomes ---------------------------------------------------------------------------------


def accepted(outcome: Outcome) -> Accepted:
    assert isinstance(outcome, Accepted), outcome
    return outcome


def refused(outcome: Outcome) -> Refused:
    assert isinstance(outcome, Refused), outcome
    return outcome


def words_of(outcome: Accepted) -> list[tuple[str, int, int, bool, int]]:
    """Each word of an accepted placement as (word, row, col, across, score)."""
    return [(w.word, w.row, w.col, w.across, w.score) for w in outcome.entry.words]
