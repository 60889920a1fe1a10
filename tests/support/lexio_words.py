"""The shipped French list, for the suites that find moves: read once from its file (a set,
what judges a move) and indexed once for :func:`lexio_rules.legal_placements` (the index is
never the judge of its own moves)."""

from __future__ import annotations

import functools

from lexio_lexicon.words import DEFAULT_WORDLIST_PATH
from lexio_rules import WordIndex

__all__ = ["french_index", "french_words"]


@functools.cache
def french_words() -> frozenset[str]:
    return frozenset(DEFAULT_WORDLIST_PATH.read_text(encoding="ascii").split())


@functools.cache
def french_index() -> WordIndex:
    return WordIndex.of(french_words())
