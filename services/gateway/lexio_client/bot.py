"""A player that finds real moves from what one seat may see: the board and its own rack.

It is no strong opponent: it tries random lexicon words through random tiles and keeps the
first placement whose form the rules accept and whose every word the lexicon knows. Tests
and load runs use it to play whole games through the real services.
"""

from __future__ import annotations

import copy
import random
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from lexio_rules import Place, TilePlacement, form_move
from lexio_rules.board import CENTRE, SIZE, index, is_empty
from lexio_rules.placement import FormedMove
from lexio_rules.tiles import BLANK


class Bot:
    def __init__(self, words: Iterable[str], seed: int, max_length: int = 7) -> None:
        self._words = frozenset(w for w in words if 2 <= len(w) <= max_length)
        self._by_letter: dict[str, list[str]] = defaultdict(list)
        for word in sorted(self._words):
            for letter in set(word):
                self._by_letter[letter].append(word)
        self._all = sorted(self._words)
        self._letters = {w: frozenset(w) for w in self._all}
        self.rng = random.Random(seed)

    def with_seed(self, seed: int) -> Bot:
        """The same player (sharing its word index) with its own random choices."""
        twin = copy.copy(self)
        twin.rng = random.Random(seed)
        return twin

    def knows(self, words: Iterable[str]) -> bool:
        return all(w in self._words for w in words)

    @staticmethod
    def _tiles_for(rack: str, letters: str) -> list[bool] | None:
        """For each letter to place: True if it must be a blank; None if the rack can't."""
        have = Counter(rack)
        blanks = []
        for letter in letters:
            if have[letter] > 0:
                have[letter] -= 1
                blanks.append(False)
            elif have[BLANK] > 0:
                have[BLANK] -= 1
                blanks.append(True)
            else:
                return None
        return blanks

    def _try(
        self, board: str, rack: str, word: str, *, row: int, col: int, across: bool
    ) -> Place | None:
        dr, dc = (0, 1) if across else (1, 0)
        cells = []
        for i, letter in enumerate(word):
            r, c = row + i * dr, col + i * dc
            if not (0 <= r < SIZE and 0 <= c < SIZE):
                return None
            on_cell = board[index(r, c)]
            if on_cell.isalpha():
                if on_cell.upper() != letter:
                    return None
            elif on_cell == "#":
                return None
            else:
                cells.append((r, c, letter))
        if not cells:
            return None
        blanks = self._tiles_for(rack, "".join(letter for _, _, letter in cells))
        if blanks is None:
            return None
        return Place(
            tuple(
                TilePlacement(r, c, letter, b)
                for (r, c, letter), b in zip(cells, blanks, strict=True)
            )
        )

    def _legal(self, board: str, rack: str, place: Place) -> FormedMove | None:
        formed = form_move(board, rack, place)
        if isinstance(formed, FormedMove) and self.knows(w.word for w in formed.words):
            return formed
        return None

    def _candidates(self, rack: str, extra: Iterable[str]) -> list[str]:
        """Words whose letters the rack and ``extra`` (letters on the board) could all cover."""
        if BLANK in rack:
            words = list(self._all)
        else:
            available = frozenset(rack) | frozenset(extra)
            words = [w for w, letters in self._letters.items() if letters <= available]
        self.rng.shuffle(words)
        # Short words fit more often; a stable sort keeps the shuffle within each length.
        words.sort(key=lambda w: len(w) > 4)
        return words

    def find(self, board: str, rack: str, tries: int = 20000) -> Place | None:
        """A placement the rules and the lexicon accept, or None if none was found."""
        if not rack:
            return None
        if is_empty(board):
            return self._first(board, rack, tries)
        anchors: dict[str, list[int]] = defaultdict(list)
        for i, ch in enumerate(board):
            if ch.isalpha():
                anchors[ch.upper()].append(i)
        budget = tries
        for word in self._candidates(rack, anchors):
            for at, letter in enumerate(word):
                for anchor in anchors.get(letter, ()):
                    budget -= 1
                    if budget <= 0:
                        return None
                    r, c = divmod(anchor, SIZE)
                    across = self.rng.random() < 0.5
                    for direction in (across, not across):
                        row, col = (r, c - at) if direction else (r - at, c)
                        place = self._try(board, rack, word, row=row, col=col, across=direction)
                        if place is not None and self._legal(board, rack, place):
                            return place
        return None

    def _first(self, board: str, rack: str, tries: int) -> Place | None:
        for word in self._candidates(rack, ())[:tries]:
            start = 6 - self.rng.randrange(len(word))
            place = self._try(board, rack, word, row=CENTRE[0], col=start, across=True)
            if place is not None and self._legal(board, rack, place):
                return place
        return None

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
