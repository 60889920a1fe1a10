"""The shipped French list, for the suites that find moves: read once from its file (a set,
what judges a move) and indexed once for :func:`lexio_rules.legal_placements` (the index is
never the judge of its own moves)."""

from __future__ import annotations

import functools
import itertools

from lexio_lexicon.words import DEFAULT_WORDLIST_PATH
from lexio_rules import FormedMove, Place, TilePlacement, WordIndex, form_move
from lexio_rules.board import SIZE

__all__ = ["french_index", "french_words", "refused_move"]


@functools.cache
def french_words() -> frozenset[str]:
    return frozenset(DEFAULT_WORDLIST_PATH.read_text(encoding="ascii").split())


@functools.cache
def french_index() -> WordIndex:
    return WordIndex.of(french_words())


def refused_move(board: str, rack: str) -> tuple[Place, list[str]]:
    """Two rack tiles side by side whose form is legal but whose words (at least two: the
    main word and a cross word) the lexicon does not know: a refusal naming several words."""
    letters = sorted({letter for letter in rack if letter != "?"})
    known = french_words()
    for row, col, across in itertools.product(range(SIZE), range(SIZE), (True, False)):
        second = (row, col + 1) if across else (row + 1, col)
        for a, b in itertools.permutations(letters, 2):
            place = Place(
                (TilePlacement(row, col, a, False), TilePlacement(*second, b, False)),
            )
            formed = form_move(board, rack, place)
            if not isinstance(formed, FormedMove) or len(formed.words) < 2:
                continue
            words = [w.word for w in formed.words]
            if not any(w in known for w in words):
                return place, words
    raise AssertionError(f"no refusable placement for rack {rack}")
