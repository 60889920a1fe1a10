"""The lexicon as the rules see it: which of these words does it not hold?

A game's rules never open a word list: they name the words (or every reading of them, in a
game that reads a column both ways) and take the answer. :class:`Lexicon` is that question;
:class:`WordSet` answers it from a Python set, for records that bring their own list and for
tests.

>>> WordSet(["OS", "SO"]).unknown(["SO", "OSE", "OS", "ZZ"])
['OSE', 'ZZ']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

__all__ = ["Lexicon", "WordSet"]


class Lexicon(Protocol):
    """A table's lexicon (Lexio's R17, and its counterparts): which of these words does it not
    hold? The words come normalised; the answer keeps their order."""

    def unknown(self, words: Sequence[str]) -> Sequence[str]: ...


class WordSet:
    """A lexicon held in a Python set: for records that bring their own list, and for tests."""

    def __init__(self, words: Iterable[str]) -> None:
        self._words = frozenset(words)

    def unknown(self, words: Sequence[str]) -> list[str]:
        return [w for w in words if w not in self._words]
