"""The gateway's Prometheus metrics. Labels are bounded sets (kinds, outcomes, codes)."""

from __future__ import annotations

from typing import Final

from prometheus_client import Counter, Gauge, Histogram

LATENCY_BUCKETS: Final = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0,
)  # fmt: skip

TURN_SECONDS: Final = Histogram(
    "lexio_gateway_turn_seconds",
    "From a game action received to the last frame about it sent.",
    ["game", "action", "outcome"],
    buckets=LATENCY_BUCKETS,
)
ENGINE_CALL_SECONDS: Final = Histogram(
    "lexio_gateway_engine_call_seconds",
    "Round trip of the gateway's calls to a game's engine.",
    ["game", "rpc", "outcome"],
    buckets=LATENCY_BUCKETS,
)
LOBBY_CALL_SECONDS: Final = Histogram(
    "lexio_gateway_lobby_call_seconds",
    "Round trip of the gateway's calls to the lobby.",
    ["rpc", "outcome"],
    buckets=LATENCY_BUCKETS,
)
CONNECTED_CLIENTS: Final = Gauge("lexio_gateway_connected_clients", "Open WebSocket connections.")
ACTIVE_TABLES: Final = Gauge(
    "lexio_gateway_active_tables", "Tables with a game in play held by this gateway."
)
FRAMES: Final = Counter(
    "lexio_gateway_frames_total", "WebSocket frames, by direction.", ["direction"]
)
ERRORS: Final = Counter("lexio_gateway_errors_total", "Error frames sent, by code.", ["code"])
REFUSALS: Final = Counter(
    "lexio_gateway_refusals_total",
    "Game actions refused by the engine, by game and reason.",
    ["game", "reason"],
)
CLOCK_EVENTS: Final = Counter(
    "lexio_gateway_clock_events_total",
    "Actions a table took by itself when its clock fell due, by game and the game's own name "
    "for the action (see docs/operations.md).",
    ["game", "action"],
)
RECONNECTS: Final = Counter(
    "lexio_gateway_reconnects_total", "Seats resumed with a token.", ["mode"]
)
BUS_CONNECTED: Final = Gauge(
    "lexio_gateway_bus_connected",
    "1 while this replica hears the other replicas' commits (subscribed and caught up), else 0.",
)
BUS_RECONNECTS: Final = Counter(
    "lexio_gateway_bus_reconnects_total",
    "Subscriptions to the replicas' bus after the first (each followed by a resync).",
)
BUS_LAST_NOTICE_AGE: Final = Gauge(
    "lexio_gateway_bus_last_notice_age_seconds",
    "Seconds since the bus last delivered a message (every replica publishes one every 2 s).",
)
GAMES_ENDED: Final = Counter(
    "lexio_gateway_games_ended_total",
    "Games that ended, by game and the game's cause (lexio: rack_emptied, no_placement; "
    "mishqaq: try, flag, resign, dead_position).",
    ["game", "cause"],
)
GAME_EVENTS: Final = Histogram(
    "lexio_gateway_game_events",
    "Public log entries of a game when it ended: its length in moves, passes and the like.",
    ["game"],
    buckets=(5, 10, 20, 30, 40, 60, 80, 120, 200),
)
