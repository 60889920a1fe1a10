"""The gateway's Prometheus metrics. Labels are bounded sets (kinds, outcomes, codes).

Every label set known in advance has its series from the start, at 0, so that rates, ratios
and the dashboard read 0 rather than nothing on a gateway that has not seen it yet: the
gateway's own at import, each game's when its adapter is built (:func:`initialise_game`,
from what the game's adapter declares). Values only an engine or the lobby knows (the refusal
reasons of a game whose engine sends them as text, the lobby's refusal codes as call outcomes)
appear when first seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from prometheus_client import Counter, Gauge, Histogram

from lexio.lobby.v1 import lobby_pb2
from lexio_gateway.protocol import ERROR_CODES

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
STORE_COMMIT_SECONDS: Final = Histogram(
    "lexio_gateway_store_commit_seconds",
    "A commit in the shared store (Redis), from the call to its answer, by outcome: applied, "
    "conflict (another replica got there first), unreplicated (applied, but fewer replicas "
    "than LEXIO_REDIS_WAIT_REPLICAS confirmed it in time: not acknowledged) or unavailable.",
    ["outcome"],
    buckets=LATENCY_BUCKETS,
)
STORE_COMMIT_OUTCOMES: Final = ("applied", "conflict", "unreplicated", "unavailable")
STORE_CONFIRM_SECONDS: Final = Histogram(
    "lexio_gateway_store_confirm_seconds",
    "A check that Redis's replicas have a table's earlier commits, made before a record not "
    "told on the bus is shown to a seat or built on (after a failover, a failed commit), by "
    "outcome: confirmed, unreplicated (fewer replicas than LEXIO_REDIS_WAIT_REPLICAS had them "
    "in time: answered unavailable) or unavailable.",
    ["outcome"],
    buckets=LATENCY_BUCKETS,
)
STORE_CONFIRM_OUTCOMES: Final = ("confirmed", "unreplicated", "unavailable")
TABLES_REWOUND: Final = Counter(
    "lexio_gateway_tables_rewound_total",
    "Tables this replica found older in the store than it had seen them: Redis lost commits "
    "it had acknowledged (a failover, a crash). Each got its seats a snapshot and played on.",
)
RECONNECTS: Final = Counter(
    "lexio_gateway_reconnects_total", "Seats resumed with a token.", ["mode"]
)
SEATS_SENT_AWAY: Final = Counter(
    "lexio_gateway_sent_away_total",
    "Connections told to reconnect elsewhere as this replica stops (SIGTERM), a batch at a time.",
)
RESUMES_WAITING: Final = Gauge(
    "lexio_gateway_resumes_waiting",
    "Seats come back with a token waiting for their turn to be resumed (admission.py).",
)
RESUMES_REFUSED: Final = Counter(
    "lexio_gateway_resumes_refused_total",
    "Seats come back with a token told to come back later: they waited past the patience.",
)
RESUME_WAIT_SECONDS: Final = Histogram(
    "lexio_gateway_resume_wait_seconds",
    "How long a seat come back with a token waited for its turn to be resumed.",
    buckets=(0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0),
)
BUS_CONNECTED: Final = Gauge(
    "lexio_gateway_bus_connected",
    "1 while this replica hears the other replicas' commits (subscribed and caught up), else 0.",
)
BUS_RECONNECTS: Final = Counter(
    "lexio_gateway_bus_reconnects_total",
    "Subscriptions to the replicas' bus after the first (each followed by a resync).",
)
BUS_RESYNCS_REPUBLISHED: Final = Counter(
    "lexio_gateway_bus_resyncs_republished_total",
    "Resyncs of a table published after one of its notices could not be (Redis away or failing "
    "over): the other replicas' seats are caught up from the store.",
)
BUS_LAST_NOTICE_AGE: Final = Gauge(
    "lexio_gateway_bus_last_notice_age_seconds",
    "Seconds since the bus last delivered a message (every replica publishes one every 2 s).",
)
BUS_NOTICE_DELAY_BUCKETS: Final = (
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
)  # fmt: skip
BUS_NOTICE_DELAY: Final = Histogram(
    "lexio_gateway_bus_notice_delay_seconds",
    "From a commit in Redis (its TIME, stamped by the commit's script) to this replica having "
    "handled the commit's notice, by source: 'other' for another replica's commit (what a seat "
    "held here waits for a move made there), 'own' for this replica's commit come back.",
    ["source"],
    buckets=BUS_NOTICE_DELAY_BUCKETS,
)
#: Whose commit a notice is (see BUS_NOTICE_DELAY).
BUS_NOTICE_SOURCES: Final = ("other", "own")
BUS_NOTICE_KINDS: Final = (
    "event", "changed", "confirmed", "seats", "presence", "taken", "who", "here", "alive",
    "other",
)  # fmt: skip
"""What a notice says (bus.py); a kind not listed (a later release's) counts as "other"."""
BUS_NOTICES: Final = Counter(
    "lexio_gateway_bus_notices_total",
    "Notices this replica received from the bus, by kind: with the per-table bus (issue 28) "
    "only those of the tables it holds, and the replicas' heartbeats.",
    ["kind"],
)
BUS_NOTICE_FAILURES: Final = Counter(
    "lexio_gateway_bus_notice_failures_total",
    "Notices this replica could not apply, each followed by a resync of its table, by cause: "
    "'store_unavailable' or 'game_unavailable' (an outage or an overload: a read timed out), "
    "'other' (a bug: logged at error level with its traceback).",
    ["cause"],
)
#: Why a notice was not applied (see BUS_NOTICE_FAILURES).
BUS_NOTICE_FAILURE_CAUSES: Final = ("store_unavailable", "game_unavailable", "other")
BUS_TABLES_FOLLOWED: Final = Gauge(
    "lexio_gateway_bus_tables_followed",
    "Tables whose bus channel this replica subscribes to: those it holds a room of.",
)
GAMES_ENDED: Final = Counter(
    "lexio_gateway_games_ended_total",
    "Games that ended, by game and the game's cause (each game's adapter names its causes: "
    "see docs/operations.md).",
    ["game", "cause"],
)
GAME_EVENTS: Final = Histogram(
    "lexio_gateway_game_events",
    "Public log entries of a game when it ended: its length in moves, passes and the like.",
    ["game"],
    buckets=(5, 10, 20, 30, 40, 60, 80, 120, 200),
)
REVIEW_SECONDS: Final = Histogram(
    "lexio_gateway_review_seconds",
    "A finished game's review or record served over HTTP, from the request to the answer, by "
    "game and outcome (ok or the error code; game 'unknown' before the token names a table).",
    ["game", "outcome"],
    buckets=LATENCY_BUCKETS,
)
RECORDS_EXPIRED: Final = Counter(
    "lexio_gateway_records_expired_total",
    "Finished games whose record passed its retention and was deleted (a tombstone stays).",
)

#: What a turn ends as: room.py's answers (accepted, refused, duplicate), and "error" for an
#: error frame (ws.py's default).
TURN_OUTCOMES: Final = ("accepted", "refused", "duplicate", "error")
#: Call outcomes every call can have whatever it asks: the rules and the dashboard read the
#: timeouts. A call's other failures are spelt by the callee (a lobby reason, a status code).
CALL_OUTCOMES: Final = ("ok", "deadline_exceeded", "unavailable")
FRAME_DIRECTIONS: Final = ("in", "out")
#: How a seat resumes (delivery.py): the missed events replayed, or a snapshot.
RECONNECT_MODES: Final = ("replay", "snapshot")
#: What a review request ends as (review.py): served, or its error code.
REVIEW_OUTCOMES: Final = (
    "ok",
    "missing_token",
    "bad_token",
    "game_not_over",
    "record_expired",
    "review_unavailable",
    "unavailable",
)
#: The outcomes of a request whose token named no table (yet): its series' game.
REVIEW_UNKNOWN_GAME: Final = "unknown"
REVIEW_OUTCOMES_BEFORE_A_TABLE: Final = ("missing_token", "bad_token", "unavailable")


ENGINE_CALLS: Final = ("Start", "Act", "View", "Preview", "Review")
"""The engine contract's calls (lexio.game.v1.Engine), the same for every game: the ``rpc``
label of the engine-call series."""


@dataclass(frozen=True)
class GameLabels:
    """The label values of one game's series, as its registration names them."""

    actions: tuple[str, ...]
    """Its players' actions (the protocol's ``act.action`` keys)."""
    end_causes: tuple[str, ...]
    clock_actions: tuple[str, ...] = ()
    """What its table sends by itself (its engine's clock actions, its absence's action)."""
    refusal_reasons: tuple[str, ...] = ()
    """Known in advance only to start their series at 0 (a code first seen is counted too)."""
    engine_rpcs: tuple[str, ...] = ENGINE_CALLS
    """The engine contract's calls, the same for every game."""


def initialise_game(game: str, labels: GameLabels) -> None:
    """Create every series of ``game`` at 0 (again is harmless)."""
    for action in labels.actions:
        for outcome in TURN_OUTCOMES:
            TURN_SECONDS.labels(game=game, action=action, outcome=outcome)
    for rpc in labels.engine_rpcs:
        for outcome in CALL_OUTCOMES:
            ENGINE_CALL_SECONDS.labels(game=game, rpc=rpc, outcome=outcome)
    for reason in labels.refusal_reasons:
        REFUSALS.labels(game=game, reason=reason)
    for action in labels.clock_actions:
        CLOCK_EVENTS.labels(game=game, action=action)
    for cause in labels.end_causes:
        GAMES_ENDED.labels(game=game, cause=cause)
    GAME_EVENTS.labels(game=game)
    for outcome in REVIEW_OUTCOMES:
        REVIEW_SECONDS.labels(game=game, outcome=outcome)


def _initialise_gateway() -> None:
    for rpc in lobby_pb2.DESCRIPTOR.services_by_name["Lobby"].methods_by_name:
        for outcome in CALL_OUTCOMES:
            LOBBY_CALL_SECONDS.labels(rpc=rpc, outcome=outcome)
    for direction in FRAME_DIRECTIONS:
        FRAMES.labels(direction=direction)
    for code in ERROR_CODES:
        ERRORS.labels(code=code)
    for mode in RECONNECT_MODES:
        RECONNECTS.labels(mode=mode)
    for source in BUS_NOTICE_SOURCES:
        BUS_NOTICE_DELAY.labels(source=source)
    for kind in BUS_NOTICE_KINDS:
        BUS_NOTICES.labels(kind=kind)
    for cause in BUS_NOTICE_FAILURE_CAUSES:
        BUS_NOTICE_FAILURES.labels(cause=cause)
    for outcome in STORE_COMMIT_OUTCOMES:
        STORE_COMMIT_SECONDS.labels(outcome=outcome)
    for outcome in STORE_CONFIRM_OUTCOMES:
        STORE_CONFIRM_SECONDS.labels(outcome=outcome)
    for outcome in REVIEW_OUTCOMES_BEFORE_A_TABLE:
        REVIEW_SECONDS.labels(game=REVIEW_UNKNOWN_GAME, outcome=outcome)


_initialise_gateway()
