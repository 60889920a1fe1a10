"""The lobby's Prometheus metrics. Labels are bounded: RPC names, reason codes, states, games.

A call's latency is the gRPC interceptor's ``grpc_server_handling_seconds`` (one latency
series per hop); ``lexio_lobby_calls_total`` counts what a status code cannot say: which of
the lobby's reasons refused it.

Tests build their own :class:`LobbyMetrics` on a fresh registry to read exact values; the
process uses :data:`METRICS` on the default registry (what ``/metrics`` serves).
"""

from __future__ import annotations

from typing import Final

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge

from lexio.lobby.v1 import lobby_pb2
from lexio_common.redis_client import RETRY_REASONS
from lexio_lobby.model import Reason, TableState

#: A call's outcome: answered, refused for one of the lobby's reasons, or failed on a bug.
OUTCOMES: Final = ("ok", *(reason.value for reason in Reason), "error")


class LobbyMetrics:
    """Calls by method and outcome, tables by state, joins and lookups refused by reason,
    each game's readiness, and the store's calls sent again (a Redis Cluster's passing
    states)."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.calls = Counter(
            "lexio_lobby_calls",
            "Lobby RPCs answered, by method and outcome: 'ok', the refusal's reason code, or "
            "'error'; their latency is grpc_server_handling_seconds.",
            ["method", "outcome"],
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
        self.store_retries = Counter(
            "lexio_lobby_store_retries",
            "Redis commands sent again because Redis did not run them, by reason: "
            "'redirected' (a slot in motion: ASK, MOVED, TRYAGAIN), 'cluster_down' (a failover), "
            "'slot_not_covered', 'refused' (a master just died). Each call is retried for about "
            "a second; what outlasts that is a store_unavailable call with retry-after.",
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
        # Every method may end with every outcome as far as the labels know (which method can
        # raise which reason is the lobby's logic, not a second list here).
        for method in lobby_pb2.DESCRIPTOR.services_by_name["Lobby"].methods_by_name:
            for outcome in OUTCOMES:
                self.calls.labels(method=method, outcome=outcome)
        for state in TableState:
            self.tables.labels(state=state.value)
        for reason in (Reason.UNKNOWN_CODE, Reason.RATE_LIMITED, Reason.TABLE_FULL):
            self.joins_refused.labels(reason=reason.value)
        for reason in (Reason.UNKNOWN_CODE, Reason.RATE_LIMITED):
            self.lookups_refused.labels(reason=reason.value)
        for retry in RETRY_REASONS:
            self.store_retries.labels(reason=retry)

    def store_retried(self, reason: str) -> None:
        """One store command sent again (``reason``: one of :data:`RETRY_REASONS`)."""
        self.store_retries.labels(reason=reason).inc()

    def game_checked(self, game: str, ready: bool) -> None:
        self.game_ready.labels(game=game).set(int(ready))

    def set_table_counts(self, counts: dict[TableState, int]) -> None:
        for state, count in counts.items():
            self.tables.labels(state=state.value).set(count)


METRICS: Final = LobbyMetrics()
