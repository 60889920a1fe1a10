"""Noughts and crosses in the gateway: its metrics' labels (no settings, no clock)."""

from __future__ import annotations

from typing import Final

from lexio_gateway.games.registry import GatewayGame
from lexio_gateway.metrics import GameLabels

GAME: Final = GatewayGame(
    name="noughts",
    metric_labels=GameLabels(
        actions=("mark", "resign"),
        end_causes=("line", "full_board", "resign"),
        refusal_reasons=("game_over", "not_your_turn", "off_board", "occupied"),
    ),
)
