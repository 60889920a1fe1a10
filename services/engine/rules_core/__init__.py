"""What every game's rules package shares: a pure, standard-library-only kernel.

Every game's rules package (``lexio_rules`` and the others) imports it, and none imports
another's. It holds only what means the same in every game:

- the errors (:mod:`rules_core.errors`): one base, :class:`RulesError`, and one class per
  shared cause — an action that cannot be stated, a state that cannot be read, a record that
  is not valid, a lexicon that cannot answer;
- the lexicon as the rules see it (:mod:`rules_core.lexicon`): :class:`Lexicon`, the question
  "which of these words do you not hold?", :class:`WordSet`, a local answer, and
  :class:`WordLists`, where a record's replay gets its lexicons;
- the anti-probing reserve (:mod:`rules_core.reserve`, Lexio's R20 and its counterparts);
- a placement (:mod:`rules_core.placement`): tiles on cells, each cell once.

Like the games' packages: small frozen values, time passed in, no I/O.

>>> from rules_core import Reserve, WordSet
>>> WordSet(["OS"]).unknown(["OS", "SO"]), Reserve.full().spend(now=0.0).available(15.0)
(['SO'], 10)
"""

from __future__ import annotations

from rules_core.errors import (
    LexiconUnavailableError,
    MalformedActionError,
    RecordError,
    RulesError,
    StateFormatError,
)
from rules_core.lexicon import Lexicon, WordLists, WordSet
from rules_core.placement import OnCell, Placement
from rules_core.reserve import REGAIN_SECONDS, RESERVE_MAX, Reserve

__all__ = [
    "REGAIN_SECONDS",
    "RESERVE_MAX",
    "Lexicon",
    "LexiconUnavailableError",
    "MalformedActionError",
    "OnCell",
    "Placement",
    "RecordError",
    "Reserve",
    "RulesError",
    "StateFormatError",
    "WordLists",
    "WordSet",
]
