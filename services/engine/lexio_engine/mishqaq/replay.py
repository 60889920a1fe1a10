"""``lexio replay`` of an al-Mishqaq record (``mishqaq-record/1``, mishqaq-record-format.md).

It runs the very rules code of a live table. Each side's lexicon is the shipped list of its
id (``fr``/``en``, ``ar``), or the record's own list for that side, normalised like the real
list: the command line's :class:`~rules_core.WordLists` gives either (a shipped list opened
when the replay first looks a word up in it: a replay that never places a side's word never
needs that side's list built).
"""

from __future__ import annotations

from typing import Any

from mishqaq_rules import record as mishqaq_record
from rules_core import WordLists


def replay_document(document: Any, lists: WordLists) -> dict[str, Any]:
    """The result document of a decoded record: ``RecordError`` if it is not valid (the
    message names the field), :class:`~rules_core.LexiconUnavailableError` if a shipped list
    it needs cannot be opened."""
    record = mishqaq_record.parse_record(document)
    lexicons = {
        list_id: lists.lexicon(list_id, record.lexicon.get(side))
        for side, list_id in mishqaq_record.lexicon_ids(record).items()
    }
    return mishqaq_record.replay(record, lexicons)
