"""What every game's servicer does around a call: count its outcome, and refuse bad input."""

from __future__ import annotations

from typing import NoReturn

import grpc

from lexio_engine.metrics import CALLS, NO_ACTION


class CallOutcome:
    """Counts one call in ``lexio_engine_calls_total``, however it ends: set ``action`` and
    ``outcome`` as the call learns them (a call that ends before is ``invalid``). Its time is
    the gRPC interceptor's, not measured again here."""

    def __init__(self, game: str, rpc: str) -> None:
        self.game = game
        self.rpc = rpc
        self.action = NO_ACTION
        self.outcome = "invalid"

    def __enter__(self) -> CallOutcome:
        return self

    def __exit__(self, *exc: object) -> None:
        CALLS.labels(game=self.game, rpc=self.rpc, action=self.action, outcome=self.outcome).inc()


async def refuse_input(context: grpc.aio.ServicerContext, error: Exception) -> NoReturn:
    """INVALID_ARGUMENT with the error's message (it names what is wrong, never a secret)."""
    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
    raise AssertionError("abort returns only by raising")
