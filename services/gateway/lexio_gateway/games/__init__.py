"""The site's games as the gateway sees them: the adapter contract, and the registry that
builds one adapter per configured game (game name → engine address and the adapter's own
settings). The core imports this package only; each game's module stays with its game."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import grpc

from lexio_gateway.games import lexio, mishqaq
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
from lexio_gateway.games.lexio import LexioAdapter, LexioSettings
from lexio_gateway.games.mishqaq import MishqaqAdapter, MishqaqSettings
from lexio_gateway.metrics import GameLabels, initialise_game

__all__ = [
    "ACTION_KINDS",
    "ADAPTER_TYPES",
    "METRIC_LABELS",
    "BadActionError",
    "ClockEvent",
    "GameAdapter",
    "GameTable",
    "GameUnavailableError",
    "OptionValue",
    "Options",
    "Step",
    "TableClock",
    "build_adapter",
]

AdapterFactory = Callable[[grpc.aio.Channel, float, Mapping[str, Any], bool], GameAdapter]
"""(channel, call timeout, the game's settings, whether Act goes over a stream) → adapter."""

ADAPTER_TYPES: Final[Mapping[str, AdapterFactory]] = {
    "lexio": lambda channel, timeout, settings, stream: LexioAdapter(
        channel, timeout=timeout, settings=LexioSettings.of(settings), stream=stream
    ),
    "mishqaq": lambda channel, timeout, settings, stream: MishqaqAdapter(
        channel, timeout=timeout, settings=MishqaqSettings.of(settings), stream=stream
    ),
}
"""Every game this gateway can serve; the configuration says which it does, and where."""

METRIC_LABELS: Final[Mapping[str, GameLabels]] = {
    "lexio": lexio.METRIC_LABELS,
    "mishqaq": mishqaq.METRIC_LABELS,
}
"""Each game's label values, whose series exist from when its adapter is built."""

ACTION_KINDS: Final = frozenset(lexio.KINDS) | frozenset(mishqaq.KINDS)
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
    factory = ADAPTER_TYPES.get(game)
    if factory is None:
        raise ValueError(f"no adapter for the game {game!r} (known: {', '.join(ADAPTER_TYPES)})")
    adapter = factory(channel, timeout, settings, stream)
    initialise_game(game, METRIC_LABELS[game])
    return adapter
