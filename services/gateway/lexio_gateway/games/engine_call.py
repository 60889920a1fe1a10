"""One call of a game's engine service, timed and with its failures sorted by cause.

``Act``, called for every move of every table the gateway holds, goes over one long-lived
stream per engine channel (``ActStream``, lexio_common.streamed_calls) unless it is turned
off (``LEXIO_GATEWAY_ENGINE_STREAM=0``) or the engine does not have it (an older version:
unary calls from then on). Either way the caller sees the same answers and the same errors.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final, Generic, Self, TypeVar

import grpc

from lexio_common.streamed_calls import StreamBrokenError, StreamedCalls, StreamUnsupportedError
from lexio_gateway.games.contract import (
    BadActionError,
    GameReview,
    GameUnavailableError,
    ReviewUnavailableError,
)
from lexio_gateway.metrics import ENGINE_CALL_SECONDS

Settings = TypeVar("Settings")
"""A game adapter's own settings (its ``LEXIO_GATEWAY_GAMES`` entry's, parsed)."""

_UNAVAILABLE: Final = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED}
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


class EngineAdapter(Generic[Settings]):
    """What every game's adapter shares: its engine service's caller (``Act`` over that
    service's ``ActStream`` unless ``stream`` is off) and its settings. A game's adapter names
    its engine as class attributes: the generated stub and the message carrying one ``Act``
    on the stream."""

    name: str
    """The game's name: its registration's, and its metrics' ``game`` label."""
    stub: ClassVar[type[Any]]
    """The generated ``EngineStub`` of its service."""
    act_call: ClassVar[type[Any]]
    """Its service's ``ActCall`` message."""
    settings_type: ClassVar[Any]
    """Its settings' type, whose ``of(mapping)`` reads them (ValueError for a setting the
    game does not have)."""

    @classmethod
    def build(
        cls, channel: grpc.aio.Channel, timeout: float, settings: Mapping[str, Any], stream: bool
    ) -> Self:
        """The factory a game's registration gives the gateway's registry: (channel, call
        timeout, the game's settings from ``LEXIO_GATEWAY_GAMES``, whether Act goes over a
        stream) → adapter."""
        return cls(channel, timeout=timeout, settings=cls.settings_type.of(settings), stream=stream)

    def __init__(
        self, channel: grpc.aio.Channel, *, timeout: float, settings: Settings, stream: bool = True
    ) -> None:
        self._call = EngineCaller(
            self.stub(channel),
            game=self.name,
            timeout=timeout,
            streamed={"Act": self.act_call} if stream else None,
        )
        self._settings = settings

    async def _review(self, request: Any) -> Any:
        """The engine's ``Review`` of a finished game. Its FAILED_PRECONDITION (a state that
        cannot be replayed; or not over, which the gateway checked before asking, so a table
        whose state says otherwise has no review either) is :class:`ReviewUnavailableError`;
        INVALID_ARGUMENT (an unreadable state) too: the stored game cannot be reviewed."""
        try:
            return await self._call("Review", request)
        except grpc.aio.AioRpcError as e:
            if e.code() == grpc.StatusCode.FAILED_PRECONDITION:
                raise ReviewUnavailableError(e.details() or "review_unavailable") from e
            if e.code() == grpc.StatusCode.UNIMPLEMENTED:
                # An engine older than Review, for the time of a rolling upgrade.
                raise GameUnavailableError("the engine has no Review yet") from e
            raise
        except BadActionError as e:
            raise ReviewUnavailableError(str(e)) from e


def game_review(
    record_text: str, entries: Sequence[dict[str, Any]], steps: Sequence[dict[str, Any]]
) -> GameReview:
    """A review from the engine's answer, checked for what the contract promises (one view per
    entry and one before the first): an engine that broke it has no review to give."""
    if len(steps) != len(entries) + 1:
        raise ReviewUnavailableError(f"{len(steps)} steps for {len(entries)} entries")
    try:
        record = json.loads(record_text)
    except json.JSONDecodeError as e:
        raise ReviewUnavailableError(f"the engine's record is not JSON: {e}") from e
    if not isinstance(record, dict):
        raise ReviewUnavailableError("the engine's record is not an object")
    return GameReview(record=record, entries=list(entries), steps=list(steps))
