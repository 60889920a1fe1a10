"""One call of a game's engine service, timed and with its failures sorted by cause.

``Act``, called for every move of every table the gateway holds, goes over one long-lived
stream per game and engine channel (``ActStream``, lexio_common.streamed_calls) unless it is
turned off (``LEXIO_GATEWAY_ENGINE_STREAM=0``) or the engine does not have it (unary calls
from then on). Either way the caller sees the same answers and the same errors. An engine
that does not serve the contract yet (UNIMPLEMENTED: a rolling update that reached the
gateways first) cannot answer now: :class:`GameUnavailableError`, retried by the player.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Final

import grpc

from lexio_common.streamed_calls import StreamBrokenError, StreamedCalls, StreamUnsupportedError
from lexio_gateway.games.contract import BadActionError, GameUnavailableError
from lexio_gateway.metrics import ENGINE_CALL_SECONDS

_UNAVAILABLE: Final = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.UNIMPLEMENTED,
    }
)


class EngineCaller:
    """Calls ``stub``'s methods by name with a deadline: UNAVAILABLE-like failures become
    :class:`GameUnavailableError`, INVALID_ARGUMENT becomes :class:`BadActionError`."""

    def __init__(
        self,
        stub: Any,
        *,
        game: str,
        timeout: float,
        streamed: Mapping[str, type[Any]] | None = None,
    ) -> None:
        """``streamed``: the RPCs to send over their ``<rpc>Stream`` method, each with the
        message type that carries one call on it (e.g. ``{"Act": ActCall}``)."""
        self._stub = stub
        self._game = game
        self._timeout = timeout
        self._streams: dict[str, tuple[StreamedCalls[Any, Any], type[Any]]] = {
            rpc: (StreamedCalls(getattr(stub, f"{rpc}Stream"), name=f"{game}-{rpc}"), carrier)
            for rpc, carrier in (streamed or {}).items()
        }

    async def __call__(self, rpc: str, request: Any) -> Any:
        started = time.perf_counter()
        outcome = "ok"
        try:
            streamed = self._streams.get(rpc)
            if streamed is not None and not streamed[0].unsupported:
                try:
                    return await self._ask(*streamed, request)
                except StreamUnsupportedError:
                    pass  # an older engine: unary calls from now on
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

    async def _ask(self, stream: StreamedCalls[Any, Any], carrier: type[Any], request: Any) -> Any:
        """One call over the stream; a failure as the unary call's AioRpcError would be."""
        try:
            result = await stream.ask(carrier(request=request), self._timeout)
        except StreamUnsupportedError:
            raise
        except StreamBrokenError as e:
            raise _rpc_error(e.code, "the engine's stream ended") from e
        except TimeoutError as e:
            raise _rpc_error(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded") from e
        if result.code != grpc.StatusCode.OK.value[0]:
            raise _rpc_error(_CODES.get(result.code, grpc.StatusCode.UNKNOWN), result.message)
        return result.response


_CODES: Final = {code.value[0]: code for code in grpc.StatusCode}


def _rpc_error(code: grpc.StatusCode, details: str) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details=details)
