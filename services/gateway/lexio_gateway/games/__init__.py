"""The site's games as the gateway sees them: the adapter contract, and the registry that
builds the one adapter for each configured game (game name → engine address and the game's
settings). The core imports this package only; each game's registration stays in its module.

Everything here is derived from :data:`lexio_gateway.games.site.GAMES`, each game's
:class:`~lexio_gateway.games.registry.GatewayGame`: this module names no game."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import grpc

from lexio_gateway.games import adapter
from lexio_gateway.games.contract import (
    BadActionError,
    ClockEvent,
    GameAdapter,
    GameTable,
    GameUnavailableError,
    Options,
    OptionValue,
    Step,
    TableClock,
)
from lexio_gateway.games.registry import GatewayGame, registry_of
from lexio_gateway.games.site import GAMES
from lexio_gateway.metrics import GameLabels, initialise_game

__all__ = [
    "ACTION_KINDS",
    "GAMES",
    "METRIC_LABELS",
    "REGISTRY",
    "BadActionError",
    "ClockEvent",
    "GameAdapter",
    "GameTable",
    "GameUnavailableError",
    "GatewayGame",
    "OptionValue",
    "Options",
    "Step",
    "TableClock",
    "build_adapter",
]

REGISTRY: Final[Mapping[str, GatewayGame]] = registry_of(GAMES)
"""Every game this gateway can serve, by name; the configuration says which it does, and where."""

METRIC_LABELS: Final[Mapping[str, GameLabels]] = {
    name: game.metric_labels for name, game in REGISTRY.items()
}
"""Each game's label values, whose series exist from when its adapter is built."""

ACTION_KINDS: Final = frozenset(kind for game in GAMES for kind in game.action_kinds)
"""Every action name of every game: a metric's bounded label set."""


def build_adapter(
    game: str,
    channel: grpc.aio.Channel,
    timeout: float,
    settings: Mapping[str, Any],
    *,
    stream: bool = True,
) -> GameAdapter:
    """The adapter of ``game`` over ``channel``; ValueError for an unknown game or setting."""
    registered = REGISTRY.get(game)
    if registered is None:
        raise ValueError(f"no adapter for the game {game!r} (known: {', '.join(REGISTRY)})")
    built = adapter.build(registered, channel, timeout, settings, stream)
    initialise_game(game, registered.metric_labels)
    return built
