"""``lexio replay`` of a Lexio record (``lexio-record/1``, record-format.md).

It runs the very rules code of a live table. The lexicon is the shipped French list, or the
record's own ``lexicon``, normalised like the real list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lexio_lexicon.normalise import normalise
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH, WordList, WordListError
from lexio_rules import Lexicon, LexiconUnavailableError, WordSet
from lexio_rules.record import parse_record, replay


def _lexicon_for(words: Sequence[str] | None) -> Lexicon:
    if words is None:
        return WordList.load(DEFAULT_WORDLIST_PATH)
    return WordSet(n for w in words if (n := normalise(w)) is not None)


def replay_document(document: Any) -> dict[str, Any]:
    """The result document of a decoded record: ``RecordError`` if it is not valid,
    :class:`LexiconUnavailableError` if the shipped list cannot be read."""
    record = parse_record(document)
    try:
        lexicon = _lexicon_for(record.lexicon)
    except WordListError as e:
        raise LexiconUnavailableError(str(e)) from e
    return replay(record, lexicon)
