"""Lexio's registration in the gateway tier: its metrics' labels, its settings, and its clock's
absence policy (lexio-rules.md R28, R29): the engine names the mover's deadline and
``pass:clock``; a mover who is not connected gets only a short grace once its turn has begun or
it left, whichever is later, and the table then passes for it with ``pass:disconnected``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from lexio_common.config import env_float
from lexio_gateway.games.registry import Absence, GameSettings, GatewayGame
from lexio_gateway.metrics import GameLabels

PASS_FOR_ABSENCE: Final = "pass:disconnected"
METRIC_LABELS: Final = GameLabels(
    actions=("place", "exchange", "pass_turn"),
    end_causes=("rack_emptied", "no_placement"),
    clock_actions=("pass:clock", PASS_FOR_ABSENCE),
    # R19–R24's codes (record-format.md), which the engine sends as text.
    refusal_reasons=tuple(
        [
            "game_over",
            "not_your_turn",
            "off_board",
            "occupied_mismatch",
            "not_in_line",
            "gap",
            "no_new_tile",
            "too_many_tiles",
            "tiles_not_in_rack",
            "first_move_off_source",
            "too_short",
            "not_touching",
            "reserve_empty",
            "unknown_words",
            "bag_too_small",
        ]
    ),
)


def settings(given: Mapping[str, Any]) -> GameSettings:
    """``turn_seconds`` (R28's time per turn of new games; 0: the engine's own setting,
    ``LEXIO_TURN_SECONDS``) and ``disconnect_grace`` (R29's seconds), over the environment's
    ``LEXIO_TURN_SECONDS`` and ``LEXIO_DISCONNECT_GRACE`` (default 5)."""
    unknown = set(given) - {"turn_seconds", "disconnect_grace"}
    if unknown:
        raise ValueError(f"lexio: unknown settings {sorted(unknown)}")
    defaults = {
        "turn_seconds": env_float("LEXIO_TURN_SECONDS", 0.0, minimum=1.0),
        "disconnect_grace": env_float("LEXIO_DISCONNECT_GRACE", 5.0, minimum=0.0),
    }
    values = {k: float(v) for k, v in {**defaults, **given}.items()}
    if any(v < 0 for v in values.values()):
        raise ValueError("lexio: settings are seconds, not negative")
    engine = {"turn_seconds": values["turn_seconds"]} if values["turn_seconds"] else {}
    return GameSettings(engine, Absence(values["disconnect_grace"], PASS_FOR_ABSENCE))


GAME: Final = GatewayGame(name="lexio", metric_labels=METRIC_LABELS, settings=settings)
