"""The shipped word lists, as a record's replay asks for them (:class:`rules_core.WordLists`).

A shipped list is opened at its first look-up (a replay that never places a side's word never
needs that side's list built); a record's own words are normalised as the list's are. A list
that cannot be opened is :class:`rules_core.LexiconUnavailableError`, the rules' one error for
a lexicon that cannot answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from lexio_lexicon.catalog import open_list
from lexio_lexicon.normalise import normalise_for
from lexio_lexicon.words import WordList, WordListError
from rules_core import Lexicon, LexiconUnavailableError, WordSet


class _Shipped:
    def __init__(self, list_id: str) -> None:
        self._list_id = list_id
        self._words: WordList | None = None

    def unknown(self, words: Sequence[str]) -> Sequence[str]:
        if self._words is None:
            try:
                self._words = open_list(self._list_id)
            except WordListError as e:
                raise LexiconUnavailableError(str(e)) from e
        return self._words.unknown(words)


class ShippedLists:
    """The lists of ``lexio_lexicon.catalog``, each opened once."""

    def __init__(self) -> None:
        self._opened: dict[str, Lexicon] = {}

    def lexicon(self, list_id: str, own: Iterable[str] | None = None) -> Lexicon:
        if own is not None:
            return WordSet(w for w in (normalise_for(list_id, x) for x in own) if w is not None)
        if list_id not in self._opened:
            self._opened[list_id] = _Shipped(list_id)
        return self._opened[list_id]
