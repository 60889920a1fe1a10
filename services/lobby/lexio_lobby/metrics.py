"""The lobby's Prometheus metrics. Labels are bounded: RPC names, reason codes, states, games.

Tests build their own :class:`LobbyMetrics` on a fresh registry to read exact values; the
process uses :data:`METRICS` on the default registry (what ``/metrics`` serves).
"""

from __future__ import annotations

from typing import Final

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram

from lexio_lobby.model import Reason, TableState

#: Lobby calls are one SQLite read and maybe one write: sub-millisecond to a few ms.
LATENCY_BUCKETS: Final = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0,
)  # fmt: skip


class LobbyMetrics:
    """RPC latency by method and outcome, tables by state, joins and lookups refused by
    reason."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.rpc_seconds = Histogram(
            "lexio_lobby_rpc_seconds",
            "Time to answer one lobby RPC; outcome is 'ok' or the refusal's reason code.",
            ["method", "outcome"],
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.tables = Gauge(
            "lexio_lobby_tables",
            "Tables in the store by state (recounted by the periodic sweep).",
            ["state"],
            registry=registry,
        )
        self.joins_refused = Counter(
            "lexio_lobby_joins_refused",
            "JoinTable calls refused, by reason code.",
            ["reason"],
            registry=registry,
        )
        self.lookups_refused = Counter(
            "lexio_lobby_lookups_refused",
            "LookupCode calls refused, by reason code (the join limit covers them too).",
            ["reason"],
            registry=registry,
        )
        self.game_ready = Gauge(
            "lexio_lobby_game_ready",
            "1 if the game's last readiness check passed, else 0.",
            ["game"],
            registry=registry,
        )
        # Series exist from the start, so dashboards' rate() and alerts have something to read.
        for state in TableState:
            self.tables.labels(state=state.value)
        for reason in (Reason.UNKNOWN_CODE, Reason.RATE_LIMITED, Reason.TABLE_FULL):
            self.joins_refused.labels(reason=reason.value)
        for reason in (Reason.UNKNOWN_CODE, Reason.RATE_LIMITED):
            self.lookups_refused.labels(reason=reason.value)

    def set_table_counts(self, counts: dict[TableState, int]) -> None:
        for state, count in counts.items():
            self.tables.labels(state=state.value).set(count)


METRICS: Final = LobbyMetrics()
