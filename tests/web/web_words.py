"""Moves for the browser tests, found from what one seat may see (its view)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

from lexio_words import french_index, french_words

from lexio_rules import FormedMove, Place, TilePlacement, form_move, legal_placements
from lexio_rules.board import SIZE


def legal_moves(board: str, rack: str, seed: int) -> Iterator[Place]:
    """Placements the rules and the lexicon accept, in the order the seed draws."""
    return legal_placements(board, rack, french_index(), random.Random(seed))


def legal_move(board: str, rack: str, seed: int = 0) -> Place:
    """A placement the rules and the lexicon accept (the test's seed makes one exist)."""
    place = next(legal_moves(board, rack, seed), None)
    assert place is not None, f"no move found for rack {rack}"
    return place


def showy_move(board: str, rack: str, seed: int = 0, tries: int = 12) -> Place:
    """Of a few legal moves, the one placing the most tiles (for good-looking screenshots)."""
    moves = list(itertools.islice(legal_moves(board, rack, seed), tries))
    assert moves, f"no move found for rack {rack}"

    def worth(place: Place) -> tuple[int, int]:
        formed = form_move(board, rack, place)
        return len(place.tiles), formed.score if isinstance(formed, FormedMove) else 0

    return max(moves, key=worth)


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
