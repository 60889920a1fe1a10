"""``lexio replay`` of a Lexio record (``lexio-record/1``, record-format.md).

It runs the very rules code of a live table. The lexicon is the shipped French list, or the
record's own ``lexicon``, normalised like the real list: the command line's
:class:`~rules_core.WordLists` gives either.
"""

from __future__ import annotations

from typing import Any

from lexio_engine.lexio import LEXICON
from lexio_rules.record import parse_record, replay
from rules_core import WordLists


def replay_document(document: Any, lists: WordLists) -> dict[str, Any]:
    """The result document of a decoded record: ``RecordError`` if it is not valid,
    :class:`~rules_core.LexiconUnavailableError` if the shipped list cannot be read."""
    record = parse_record(document)
    return replay(record, lists.lexicon(LEXICON, record.lexicon))
