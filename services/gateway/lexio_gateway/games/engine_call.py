"""One call of a game's engine service, timed and with its failures sorted by cause."""

from __future__ import annotations

import time
from typing import Any, Final

import grpc

from lexio_gateway.games.contract import BadActionError, GameUnavailableError
from lexio_gateway.metrics import ENGINE_CALL_SECONDS

_UNAVAILABLE: Final = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED}
)


class EngineCaller:
    """Calls ``stub``'s methods by name with a deadline: UNAVAILABLE-like failures become
    :class:`GameUnavailableError`, INVALID_ARGUMENT becomes :class:`BadActionError`."""

    def __init__(self, stub: Any, *, game: str, timeout: float) -> None:
        self._stub = stub
        self._game = game
        self._timeout = timeout

    async def __call__(self, rpc: str, request: Any) -> Any:
        started = time.perf_counter()
        outcome = "ok"
        try:
            return await getattr(self._stub, rpc)(request, timeout=self._timeout)
        except grpc.aio.AioRpcError as e:
            outcome = e.code().name.lower()
            if e.code() in _UNAVAILABLE:
                raise GameUnavailableError(e.details() or e.code().name) from e
            if e.code() == grpc.StatusCode.INVALID_ARGUMENT:
                raise BadActionError(e.details() or "invalid") from e
            raise
        finally:
            ENGINE_CALL_SECONDS.labels(game=self._game, rpc=rpc, outcome=outcome).observe(
                time.perf_counter() - started
            )
