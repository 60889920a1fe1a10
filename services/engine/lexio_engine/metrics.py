"""The engine's Prometheus metrics. Labels are bounded: game, list id, action kind, outcome."""

from __future__ import annotations

from typing import Final

from prometheus_client import Histogram

# Buckets around the targets: an in-process move is ~tens of µs, a turn's budget is 50 ms.
LATENCY_BUCKETS: Final = (
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0,
)  # fmt: skip

EVALUATION_SECONDS: Final = Histogram(
    "lexio_engine_evaluation_seconds",
    "Time the engine spends on one call, lexicon look-up included.",
    ["game", "rpc", "action", "outcome"],
    buckets=LATENCY_BUCKETS,
)

LEXICON_CALL_SECONDS: Final = Histogram(
    "lexio_engine_lexicon_call_seconds",
    "Round trip of the engine's batched call to the lexicon service.",
    ["lexicon", "outcome"],
    buckets=LATENCY_BUCKETS,
)
