"""A player that finds real moves from what one seat may see: the board and its own rack.

It is no strong opponent: its move is the first that :func:`lexio_rules.legal_placements`
finds, random lexicon words laid through random tiles of the board, kept if the rules accept
the placement's form and the lexicon knows its every word. Tests and load runs use it to play
whole games through the real services.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable
from typing import Any

from lexio_rules import DEFAULT_TRIES, Place, WordIndex, legal_placements


class Bot:
    def __init__(self, words: Iterable[str], seed: int, max_length: int = 7) -> None:
        self.words = WordIndex.of(words, max_length)
        """The words it knows (built once, shared by :meth:`with_seed`'s twins)."""
        self.rng = random.Random(seed)

    def with_seed(self, seed: int) -> Bot:
        """The same player (sharing its word index) with its own random choices."""
        twin = copy.copy(self)
        twin.rng = random.Random(seed)
        return twin

    def knows(self, words: Iterable[str]) -> bool:
        return self.words.knows(words)

    def find(self, board: str, rack: str, tries: int = DEFAULT_TRIES) -> Place | None:
        """A placement the rules and the lexicon accept, or None if none was found."""
        return next(legal_placements(board, rack, self.words, self.rng, tries=tries), None)

    def choose(self, view: dict[str, Any]) -> dict[str, Any]:
        """The protocol action for this seat's view: a placement if one is found, else an
        exchange while the bag allows it, else a pass."""
        place = self.find(view["board"], view["rack"])
        if place is not None:
            tiles = [
                {"row": t.row, "col": t.col, "letter": t.letter, "blank": t.blank}
                for t in place.tiles
            ]
            return {"place": {"tiles": tiles}}
        rack = view["rack"]
        count = min(len(rack), view["bag_count"], self.rng.randint(1, 3))
        if count > 0 and self.rng.random() < 0.5:
            return {"exchange": {"tiles": "".join(self.rng.sample(rack, count))}}
        return {"pass_turn": {}}
