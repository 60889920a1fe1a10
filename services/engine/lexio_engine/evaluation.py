"""What every game's servicer does around a call: time it, and refuse bad input."""

from __future__ import annotations

import time
from typing import NoReturn

import grpc

from lexio_engine.metrics import EVALUATION_SECONDS


class EvaluationTimer:
    """Observes one call into the evaluation histogram, whatever its outcome: set ``action``
    and ``outcome`` as the call learns them."""

    def __init__(self, game: str, rpc: str) -> None:
        self.game = game
        self.rpc = rpc
        self.action = "none"
        self.outcome = "invalid"
        self._started = time.perf_counter()

    def __enter__(self) -> EvaluationTimer:
        return self

    def __exit__(self, *exc: object) -> None:
        EVALUATION_SECONDS.labels(
            game=self.game, rpc=self.rpc, action=self.action, outcome=self.outcome
        ).observe(time.perf_counter() - self._started)


async def refuse_input(context: grpc.aio.ServicerContext, error: Exception) -> NoReturn:
    """INVALID_ARGUMENT with the error's message (it names what is wrong, never a secret)."""
    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
    raise AssertionError("abort returns only by raising")
