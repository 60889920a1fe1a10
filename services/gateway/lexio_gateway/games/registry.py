"""A game as the gateway tier knows it: one registration, :class:`GatewayGame`, per game.

Every game is served by the one adapter (:mod:`lexio_gateway.games.adapter`) over the engine's
one service; a registration says only what the gateway needs to know of a game: its name, its
metrics' label values, and what its configuration's settings mean (those the engine reads,
and an absence policy for its clock). Each game's module (``lexio_gateway/games/<game>.py``)
exports its registration as ``GAME``, and :data:`lexio_gateway.games.site.GAMES` lists the
games this build ships. No other module of the gateway names a game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from lexio_gateway.metrics import GameLabels


@dataclass(frozen=True)
class Absence:
    """How the table's clock treats a mover who is away: it acts ``grace`` seconds after the
    turn began or the mover left, whichever is later (if that comes before the clock's own
    instant), and then sends ``action`` instead of the clock's."""

    grace: float
    action: str


@dataclass(frozen=True)
class GameSettings:
    """A game's configuration (``LEXIO_GATEWAY_GAMES``'s ``settings``), read."""

    engine: Mapping[str, Any] = field(default_factory=dict)
    """What the engine reads when a game starts (the contract's ``StartRequest.settings``)."""
    absence: Absence | None = None
    """None: the mover's absence changes nothing."""


def no_settings(settings: Mapping[str, Any]) -> GameSettings:
    """A game with nothing to set: its configuration's ``settings`` must be empty."""
    if settings:
        raise ValueError(f"unknown settings {sorted(settings)}")
    return GameSettings()


@dataclass(frozen=True)
class GatewayGame:
    """One game's registration in the gateway tier: what the gateway's core and its metrics need
    to know of it, and nothing of its rules (those stay in the engine)."""

    name: str
    """The game's name: the protocol's ``game``, the lobby's and the engine's name for it, the
    ``game`` label of its metrics and its key in ``LEXIO_GATEWAY_GAMES``."""
    metric_labels: GameLabels
    """The label values of its series, which exist at 0 from when its adapter is built."""
    settings: Callable[[Mapping[str, Any]], GameSettings] = no_settings
    """Its configuration's settings read (ValueError for one the game does not have)."""

    @property
    def action_kinds(self) -> tuple[str, ...]:
        """The names of its players' actions (the keys of the protocol's ``act.action``): the
        same as its metrics' ``action`` labels."""
        return self.metric_labels.actions


def registry_of(games: Iterable[GatewayGame]) -> Mapping[str, GatewayGame]:
    """The games by name, in their order; ValueError for two games of one name (a list that
    registers a game twice is a build that cannot say which game it means)."""
    registry: dict[str, GatewayGame] = {}
    for game in games:
        if game.name in registry:
            raise ValueError(f"the game {game.name!r} is registered twice")
        registry[game.name] = game
    return registry
