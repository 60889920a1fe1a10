"""Moves for the browser tests, found from what one seat may see (its view)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

from lexio_words import french_index, refused_move

from lexio_rules import FormedMove, Place, form_move, legal_placements

# refused_move is the support module's, shared with the screen reader's tests.
__all__ = ["legal_move", "legal_moves", "refused_move", "showy_move"]


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
