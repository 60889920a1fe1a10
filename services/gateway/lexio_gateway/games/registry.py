"""A game as the gateway tier knows it: one registration, :class:`GatewayGame`, per game.

Each game's adapter module (``lexio_gateway/games/<game>.py``) exports its registration as
``GAME``, and :data:`lexio_gateway.games.site.GAMES` lists the games this build ships. The
gateway derives from that list everything a game changes: which adapter a configured game gets
(:func:`lexio_gateway.games.build_adapter`), its metrics' label sets, the protocol's bounded set
of action names, and the games served when ``LEXIO_GATEWAY_GAMES`` is unset. No other module of
the gateway names a game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import grpc

from lexio_gateway.games.contract import GameAdapter
from lexio_gateway.metrics import GameLabels

AdapterFactory = Callable[[grpc.aio.Channel, float, Mapping[str, Any], bool], GameAdapter]
"""(channel, call timeout, the game's settings, whether Act goes over a stream) → adapter; a
ValueError for settings the adapter does not accept."""


@dataclass(frozen=True)
class GatewayGame:
    """One game's registration in the gateway tier: what the gateway's core and its metrics need
    to know of it, and nothing of its rules (those stay behind :attr:`build`'s adapter)."""

    name: str
    """The game's name: the protocol's ``game``, the lobby's and the engine's name for it, the
    ``game`` label of its metrics and its key in ``LEXIO_GATEWAY_GAMES``."""
    build: AdapterFactory
    """Its adapter over a channel to its engine, with the settings the configuration gives it
    (the adapter checks them)."""
    metric_labels: GameLabels
    """The label values of its series, which exist at 0 from when its adapter is built."""

    @property
    def action_kinds(self) -> tuple[str, ...]:
        """The names of its players' actions (the keys of the protocol's ``act.action``): the
        same as its metrics' ``action`` labels."""
        return self.metric_labels.actions


def registry_of(games: Iterable[GatewayGame]) -> Mapping[str, GatewayGame]:
    """The games by name, in their order; ValueError for two games of one name (a list that
    registers a game twice is a build that cannot say which adapter it means)."""
    registry: dict[str, GatewayGame] = {}
    for game in games:
        if game.name in registry:
            raise ValueError(f"the game {game.name!r} is registered twice")
        registry[game.name] = game
    return registry
