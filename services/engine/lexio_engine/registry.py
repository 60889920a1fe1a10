"""A game as the engine tier knows it: one registration, :class:`EngineGame`, per game.

Each game's engine package (``lexio_engine/<game>/``) exports its registration as ``GAME``,
and :data:`lexio_engine.games.GAMES` lists the games this build ships. The engine process
(:mod:`lexio_engine.server`) and the command line (:mod:`lexio_cli.main`) derive from that
list everything a game changes: the games the one service answers for, their health names,
the metrics' label sets, each game's rules object (built from the one :class:`EngineContext`),
and which record format ``lexio replay`` hands to which game. Neither names a game.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from lexio_common.streamed_calls import StreamDrain
from lexio_engine.contract import GameRules
from lexio_engine.lexicon_client import LexiconClient
from rules_core import WordLists

#: The one service every game is served through.
SERVICE_NAME = "lexio.game.v1.Engine"
#: The contract's calls as metrics count them (a streamed Act counts as Act).
RPCS = ("Start", "Act", "View", "Preview", "Review")


@dataclass(frozen=True)
class EngineContext:
    """What the engine process gives every game's rules object."""

    lexicon: LexiconClient
    """The one client of the lexicon service: each game asks its own lists."""
    turn_seconds: float = 0.0
    """The site's turn clock for games that have one (``LEXIO_TURN_SECONDS``); 0: each
    game's own default."""
    drain: StreamDrain = field(default_factory=StreamDrain)
    """Begun when the process stops: every game's streams end, answered."""
    clock: Callable[[], float] = time.time
    """The engine's clock, for calls that send no ``now``."""


@dataclass(frozen=True)
class EngineGame:
    """One game's registration in the engine tier: what the process and the command line need
    to know of it, and nothing of its rules."""

    name: str
    """The game's name: the calls' ``game`` field, the ``game`` label of its metrics (and the
    lobby's and the gateway's name for it). Lower-case letters, digits and ``_``."""
    build: Callable[[EngineContext], GameRules]
    """Its rules object, from what the process shares."""
    action_kinds: tuple[str, ...]
    """Every action's metrics label (what its rules object sets as ``Call.action``)."""
    lexicons: tuple[str, ...] = ()
    """The lexicon's lists its words are judged in; none for a game without words (its
    health does not follow the lexicon's)."""
    record_format: str | None = None
    """The ``format`` of its game records, which ``lexio replay`` hands to :attr:`replay`."""
    replay: Callable[[Any, WordLists], dict[str, Any]] | None = None
    """A decoded record document replayed, its words judged in the lists given: the result
    document. Raises
    :class:`rules_core.RecordError` for a record that is not valid,
    :class:`rules_core.LexiconUnavailableError` when a list it needs cannot be opened."""
    health_service: str = ""
    """Its name on grpc.health.v1, which the lobby asks before offering the game; empty:
    ``lexio.game.v1.Engine/<name>``. (A game served before the one contract keeps the name
    the lobby's configuration was given then.)"""

    @property
    def health_name(self) -> str:
        return self.health_service or f"{SERVICE_NAME}/{self.name}"

    @property
    def asks_words(self) -> bool:
        """Whether its calls ask the lexicon: then it is offered only while the lexicon is."""
        return bool(self.lexicons)


def replay_in(module: str) -> Callable[[Any, WordLists], dict[str, Any]]:
    """A game's :attr:`EngineGame.replay`: ``module``'s ``replay_document``, imported when a
    record is replayed (the engine process never replays: only the command line does)."""

    def replay(document: Any, lists: WordLists) -> dict[str, Any]:
        result: dict[str, Any] = importlib.import_module(module).replay_document(document, lists)
        return result

    return replay


def lexicons_of(games: Iterable[EngineGame]) -> tuple[str, ...]:
    """Every list the games ask, each once, in the games' order."""
    return tuple(dict.fromkeys(name for game in games for name in game.lexicons))
