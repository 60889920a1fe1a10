"""``lexio replay`` of an al-Mishqaq record (``mishqaq-record/1``, mishqaq-record-format.md).

It runs the very rules code of a live table. Each side's lexicon is the shipped list of its
id (``fr``/``en``, ``ar``), opened when the replay first needs it, or the record's own list for
that side, normalised like the real list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lexio_lexicon.catalog import open_list
from lexio_lexicon.normalise import normalise_for
from lexio_lexicon.words import WordList, WordListError
from mishqaq_rules import Lexicon, LexiconUnavailableError, WordSet
from mishqaq_rules import record as mishqaq_record


class _ShippedList:
    """A shipped list (``lexio_lexicon.catalog``), opened at its first look-up: a replay that
    never places a side's word never needs that side's list built."""

    def __init__(self, list_id: str) -> None:
        self._list_id = list_id
        self._words: WordList | None = None

    def unknown(self, words: Sequence[str]) -> Sequence[str]:
        if self._words is None:
            self._words = open_list(self._list_id)
        return self._words.unknown(words)


def _lexicons(record: mishqaq_record.Record) -> dict[str, Lexicon]:
    lexicons: dict[str, Lexicon] = {}
    for side, list_id in mishqaq_record.lexicon_ids(record).items():
        own = record.lexicon.get(side)
        if own is None:
            lexicons[list_id] = _ShippedList(list_id)
        else:
            normalised = (normalise_for(list_id, w) for w in own)
            lexicons[list_id] = WordSet(w for w in normalised if w is not None)
    return lexicons


def replay_document(document: Any) -> dict[str, Any]:
    """The result document of a decoded record: ``RecordError`` if it is not valid (the
    message names the field), :class:`LexiconUnavailableError` if a shipped list it needs
    cannot be opened."""
    record = mishqaq_record.parse_record(document)
    try:
        return mishqaq_record.replay(record, _lexicons(record))
    except WordListError as e:
        raise LexiconUnavailableError(str(e)) from e
