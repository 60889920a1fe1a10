"""al-Mishqaq's registration in the gateway tier: its metrics' labels and its one setting. Its
clock is a chess clock (M28): the engine names when the mover's flag falls and ``timeout``;
a player's absence changes nothing (M32), so it has no absence policy.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

from lexio_gateway.games.registry import GameSettings, GatewayGame
from lexio_gateway.metrics import GameLabels

log = logging.getLogger(__name__)

#: No refusal reasons: the engine sends them as text, counted as they happen.
METRIC_LABELS: Final = GameLabels(
    actions=("place", "pass_turn", "swap", "pause", "resume", "resign"),
    end_causes=("try", "flag", "resign", "dead_position"),
    clock_actions=("timeout",),
)


def settings(given: Mapping[str, Any]) -> GameSettings:
    """``bank_minute_seconds``: seconds in one minute of the banks a table chose (M3). Only
    tests set it lower, to see a flag fall in seconds; a gateway started with another value
    says so in its log."""
    unknown = set(given) - {"bank_minute_seconds"}
    if unknown:
        raise ValueError(f"mishqaq: unknown settings {sorted(unknown)}")
    if "bank_minute_seconds" not in given:
        return GameSettings()
    value = float(given["bank_minute_seconds"])
    if value <= 0:
        raise ValueError("mishqaq: bank_minute_seconds must be positive")
    if value != 60.0:
        log.warning(
            "al-Mishqaq banks run fast (a test setting)", extra={"bank_minute_seconds": value}
        )
    return GameSettings(engine={"bank_minute_seconds": value})


GAME: Final = GatewayGame(name="mishqaq", metric_labels=METRIC_LABELS, settings=settings)
