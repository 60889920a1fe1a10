"""The lexicon as the rules see it: which of these words does it not hold?

A game's rules never open a word list: they name the words (or every reading of them, in a
game that reads a column both ways) and take the answer. :class:`Lexicon` is that question;
:class:`WordSet` answers it from a Python set, for records that bring their own list and for
tests. :class:`WordLists` is where a replay of a record gets its lexicons: the command line
hands it the shipped lists, so that no game's replay opens one itself.

>>> WordSet(["OS", "SO"]).unknown(["SO", "OSE", "OS", "ZZ"])
['OSE', 'ZZ']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

__all__ = ["Lexicon", "WordLists", "WordSet"]


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


class WordLists(Protocol):
    """The lists a record's replay judges its words in, by list id (``fr``, ``en``, ``ar``):
    the shipped list, or the record's ``own`` words normalised as that list's are. A list that
    cannot be opened raises :class:`rules_core.LexiconUnavailableError` (when asked, or when
    first looked up)."""

    def lexicon(self, list_id: str, own: Iterable[str] | None = None) -> Lexicon: ...
