"""A game as the engine tier knows it: one registration, :class:`EngineGame`, per game.

Each game's engine package (``lexio_engine/<game>/``) exports its registration as ``GAME``,
and :data:`lexio_engine.games.GAMES` lists the games this build ships. The engine process
(:mod:`lexio_engine.server`) and the command line (:mod:`lexio_engine.cli`) derive from that
list everything a game changes: the services served and their health names, the metrics'
label sets, each servicer (built from the one :class:`EngineContext`), and which record
format ``lexio replay`` hands to which game. Neither names a game.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import grpc

from lexio_common.streamed_calls import StreamDrain, unary_methods
from lexio_engine.lexicon_client import LexiconClient


@dataclass(frozen=True)
class EngineContext:
    """What the engine process gives every game's servicer."""

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
    """The game's name: the ``game`` label of its metrics (and the lobby's and the gateway's
    name for it)."""
    service: Any
    """Its gRPC service's descriptor (``<game>_pb2.DESCRIPTOR.services_by_name[...]``)."""
    add_servicer: Callable[[Any, grpc.aio.Server], None]
    """The generated ``add_<Service>Servicer_to_server``."""
    build: Callable[[EngineContext], Any]
    """Its servicer, from what the process shares."""
    action_kinds: tuple[str, ...]
    """Every action's metrics label (its codec's ``ACTION_KINDS``)."""
    lexicons: tuple[str, ...] = ()
    """The lexicon's lists its words are judged in; none for a game without words."""
    record_format: str | None = None
    """The ``format`` of its game records, which ``lexio replay`` hands to :attr:`replay`."""
    replay: Callable[[Any], dict[str, Any]] | None = None
    """A decoded record document replayed: the result document. Raises
    :class:`rules_core.RecordError` for a record that is not valid,
    :class:`rules_core.LexiconUnavailableError` when a list it needs cannot be opened."""

    @property
    def service_name(self) -> str:
        """The gRPC service's full name."""
        return str(self.service.full_name)

    @property
    def health_name(self) -> str:
        """Its name on grpc.health.v1, which the lobby asks before offering the game: its
        service's name, SERVING while the lexicon is."""
        return self.service_name

    @property
    def rpcs(self) -> tuple[str, ...]:
        """Its RPCs as metrics count them (a streamed call counts as the unary one)."""
        return unary_methods(self.service.methods_by_name)


def replay_in(module: str) -> Callable[[Any], dict[str, Any]]:
    """A game's :attr:`EngineGame.replay`: ``module``'s ``replay_document``, imported when a
    record is replayed. A replay opens the lexicon's shipped lists, which the command line has
    and the engine process does without (its image does not install the lexicon's packages)."""

    def replay(document: Any) -> dict[str, Any]:
        result: dict[str, Any] = importlib.import_module(module).replay_document(document)
        return result

    return replay


def lexicons_of(games: Iterable[EngineGame]) -> tuple[str, ...]:
    """Every list the games ask, each once, in the games' order."""
    return tuple(dict.fromkeys(name for game in games for name in game.lexicons))
