"""The errors of every game's rules: one base, and one class per cause that means the same in
any game.

A game's rules package re-exports these and adds only what is its own (Lexio's seat that the
game does not have, another game's table option, each record format's errors), derived from
:class:`RulesError`. A caller serving several games catches each cause once.

>>> issubclass(MalformedActionError, ValueError), issubclass(LexiconUnavailableError, ValueError)
(True, False)
"""

from __future__ import annotations

__all__ = [
    "LexiconUnavailableError",
    "MalformedActionError",
    "RecordError",
    "RulesError",
    "StateFormatError",
]


class RulesError(Exception):
    """Base of every error a game's rules package raises."""


class MalformedActionError(RulesError, ValueError):
    """The action cannot even be stated (each game's actions say when: a letter on no tile,
    the same cell twice…). Such input never reaches the rules; callers answer it as bad input."""


class StateFormatError(RulesError, ValueError):
    """A stored state that this version of the rules cannot read."""


class RecordError(RulesError, ValueError):
    """A game record that is not a valid document of its format (each format derives its own);
    the message names the field."""


class LexiconUnavailableError(RulesError):
    """The lexicon could not answer; the action is not decided and nothing changed."""
