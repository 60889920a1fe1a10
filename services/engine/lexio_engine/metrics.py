"""The engine's Prometheus metrics. Labels are bounded: game, RPC, action kind, outcome, list.

Every game is served by one gRPC service (``lexio.game.v1.Engine``), so the interceptor's
``grpc_server_handling_seconds`` is the hop's latency for all games together; :data:`CALL_SECONDS`
is each game's. :data:`CALLS` counts what a status code cannot say: the action and whether the
game accepted it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from prometheus_client import Counter, Histogram

# Buckets around the targets: an in-process move is ~tens of µs, a turn's budget is 50 ms.
LATENCY_BUCKETS: Final = (
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0,
)  # fmt: skip

#: What a call's outcome label can be: the game's answer, the lexicon's absence, bad input.
OUTCOMES: Final = ("accepted", "refused", "unavailable", "invalid")
#: The action label of a call that carries no action (or whose action could not be read).
NO_ACTION: Final = "none"
#: What the engine's call to the lexicon can end as.
LEXICON_OUTCOMES: Final = ("ok", "error")

CALLS: Final = Counter(
    "lexio_engine_calls",
    "Calls the engine answered, by game, RPC, action kind and outcome (accepted, refused, "
    "unavailable, invalid); their latency is lexio_engine_call_seconds.",
    ["game", "rpc", "action", "outcome"],
)

CALL_SECONDS: Final = Histogram(
    "lexio_engine_call_seconds",
    "Time the engine spent on a call of one game, by game and RPC, from the request read to "
    "the answer built (a streamed Act counts as Act).",
    ["game", "rpc"],
    buckets=LATENCY_BUCKETS,
)

LEXICON_CALL_SECONDS: Final = Histogram(
    "lexio_engine_lexicon_call_seconds",
    "Round trip of the engine's batched call to the lexicon service.",
    ["lexicon", "outcome"],
    buckets=LATENCY_BUCKETS,
)


def initialise_calls(game: str, rpcs: Iterable[str], actions: Iterable[str]) -> None:
    """Create every (rpc, action, outcome) series of ``game`` at 0. A few never move (a View
    carries no action): the label set stays the product, so nobody has to keep a second
    copy of which RPC can end how."""
    kinds = (NO_ACTION, *actions)
    for rpc in rpcs:
        CALL_SECONDS.labels(game=game, rpc=rpc)
        for action in kinds:
            for outcome in OUTCOMES:
                CALLS.labels(game=game, rpc=rpc, action=action, outcome=outcome)


def initialise_lexicon_calls(lexicons: Iterable[str]) -> None:
    for lexicon in lexicons:
        for outcome in LEXICON_OUTCOMES:
            LEXICON_CALL_SECONDS.labels(lexicon=lexicon, outcome=outcome)
