"""The lobby's gRPC servicer: protobuf in, :class:`~lexio_lobby.lobby.Lobby` calls, protobuf out.

Thin on purpose. It reads the caller identity from metadata, maps each
:class:`~lexio_lobby.model.Reason` to its gRPC status code (the details string is the reason
code itself), and counts each call's outcome. No rule lives here. A store that cannot be reached
(:class:`~lexio_lobby.store.StoreUnavailableError`) becomes ``UNAVAILABLE`` /
``store_unavailable``.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import Final, NoReturn, TypeVar

import grpc

from lexio.lobby.v1 import lobby_pb2 as pb
from lexio.lobby.v1 import lobby_pb2_grpc
from lexio_lobby.codes import format_code
from lexio_lobby.lobby import Lobby
from lexio_lobby.metrics import LobbyMetrics
from lexio_lobby.model import CloseReason, LobbyError, Reason, Table, TableState
from lexio_lobby.options import Options, OptionSpec, OptionValue
from lexio_lobby.store import StoreUnavailableError

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Metadata key carrying the end client's identity, set by the gateway.
CALLER_METADATA: Final = "x-lexio-caller"
#: Trailing metadata of a "rate_limited" refusal, and of a "store_unavailable" one when the
#: store knows (a Redis Cluster's passing state): whole seconds before trying again.
RETRY_AFTER_METADATA: Final = "retry-after"
MAX_CALLER_LENGTH: Final = 256
#: At most one "store unavailable" log line per this many seconds (an outage fails every call).
STORE_LOG_INTERVAL: Final = 5.0

STATUS: Final[dict[Reason, grpc.StatusCode]] = {
    Reason.INVALID_NAME: grpc.StatusCode.INVALID_ARGUMENT,
    Reason.INVALID_PLAYER: grpc.StatusCode.INVALID_ARGUMENT,
    Reason.INVALID_CODE: grpc.StatusCode.INVALID_ARGUMENT,
    Reason.INVALID_OPTION: grpc.StatusCode.INVALID_ARGUMENT,
    Reason.UNKNOWN_GAME: grpc.StatusCode.NOT_FOUND,
    Reason.UNKNOWN_CODE: grpc.StatusCode.NOT_FOUND,
    Reason.UNKNOWN_TABLE: grpc.StatusCode.NOT_FOUND,
    Reason.GAME_UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    Reason.TABLE_FULL: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.GAME_STARTED: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.TABLE_CLOSED: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.NOT_SEATED: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.NOT_ENOUGH_PLAYERS: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.NOT_HOST: grpc.StatusCode.PERMISSION_DENIED,
    Reason.RATE_LIMITED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    Reason.CONFLICT: grpc.StatusCode.ABORTED,
    Reason.STORE_UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
}

_STATE: Final = {
    TableState.OPEN: pb.TABLE_STATE_OPEN,
    TableState.STARTED: pb.TABLE_STATE_STARTED,
    TableState.CLOSED: pb.TABLE_STATE_CLOSED,
}
_CLOSE_REASON: Final = {
    None: pb.CLOSE_REASON_UNSPECIFIED,
    CloseReason.EMPTY: pb.CLOSE_REASON_EMPTY,
    CloseReason.HOST: pb.CLOSE_REASON_HOST,
    CloseReason.EXPIRED: pb.CLOSE_REASON_EXPIRED,
}


def value_to_pb(value: OptionValue) -> pb.OptionValue:
    return pb.OptionValue(text=value) if isinstance(value, str) else pb.OptionValue(integer=value)


def value_from_pb(value: pb.OptionValue) -> OptionValue | None:
    """The value as Python, or None when neither ``text`` nor ``integer`` is set (which the
    lobby then refuses as a value of the wrong type)."""
    kind = value.WhichOneof("value")
    if kind == "text":
        return value.text
    if kind == "integer":
        return value.integer
    return None


def options_to_pb(options: Options) -> dict[str, pb.OptionValue]:
    return {name: value_to_pb(value) for name, value in options}


def option_spec_to_pb(spec: OptionSpec) -> pb.OptionSpec:
    return pb.OptionSpec(
        name=spec.name,
        choices=[value_to_pb(choice) for choice in spec.choices],
        default_value=value_to_pb(spec.default),
    )


def caller_identity(context: grpc.aio.ServicerContext) -> str:
    """The gateway-provided client identity, else the peer's address without its port."""
    for key, value in context.invocation_metadata() or ():
        if key == CALLER_METADATA and value:
            text = value if isinstance(value, str) else value.decode("utf-8", "replace")
            return "caller:" + text[:MAX_CALLER_LENGTH]
    peer = context.peer() or "unknown"
    host, _, port = peer.rpartition(":")
    return "peer:" + (host if host and port.isdigit() else peer)


class LobbyServicer(lobby_pb2_grpc.LobbyServicer):
    """Implements lexio.lobby.v1.Lobby over a :class:`Lobby`."""

    def __init__(self, lobby: Lobby, metrics: LobbyMetrics) -> None:
        self._lobby = lobby
        self._metrics = metrics
        #: The calls that take an invite code count their refusals by reason.
        self._refusals = {
            "JoinTable": metrics.joins_refused,
            "LookupCode": metrics.lookups_refused,
        }
        self._store_logged_at = -math.inf
        self._store_failures_unlogged = 0

    def table_to_pb(self, table: Table) -> pb.Table:
        return pb.Table(
            table_id=table.table_id,
            game=table.game,
            state=_STATE[table.state],
            seats=[
                pb.Seat(
                    index=i,
                    player_id=s.player_id,
                    display_name=s.display_name,
                    host=i == 0 and table.state is not TableState.CLOSED,
                    joined_at=s.joined_at,
                )
                for i, s in enumerate(table.seats)
            ],
            min_seats=table.min_seats,
            max_seats=table.max_seats,
            created_at=table.created_at,
            updated_at=table.updated_at,
            expires_at=self._lobby.expires_at(table),
            close_reason=_CLOSE_REASON[table.close_reason],
            version=table.version,
            options=options_to_pb(table.options),
        )

    async def _call(
        self, method: str, context: grpc.aio.ServicerContext, work: Callable[[], Awaitable[T]]
    ) -> T:
        """Run ``work``, count its outcome, and turn a LobbyError into its status and reason
        code (its time is the gRPC interceptor's).

        Metrics are recorded before the reply leaves (abort sends the status at once), so a
        caller that has its answer also sees it counted.
        """
        try:
            try:
                result = await work()
            except StoreUnavailableError as e:
                self._log_store_failure(method, e)
                # retry-after when known: a Redis Cluster's passing state outlasted the store's
                # retries (a slot in motion, a failover), not a Redis that is away.
                raise LobbyError(Reason.STORE_UNAVAILABLE, retry_after=e.retry_after) from e
        except LobbyError as e:
            self._count(method, e.reason.value)
            refused = self._refusals.get(method)
            if refused is not None:
                refused.labels(reason=e.reason.value).inc()
            await _abort(context, e)
        except Exception:
            self._count(method, "error")
            raise
        self._count(method, "ok")
        return result

    def _log_store_failure(self, method: str, error: StoreUnavailableError) -> None:
        """Log a store failure, at most once per :data:`STORE_LOG_INTERVAL` (with a count of
        the failures in between); the metrics count every one."""
        self._store_failures_unlogged += 1
        now = time.monotonic()
        if now - self._store_logged_at < STORE_LOG_INTERVAL:
            return
        failures = self._store_failures_unlogged
        log.warning(
            "store unavailable",
            extra={"method": method, "error": str(error), "failures": failures},
        )
        self._store_logged_at = now
        self._store_failures_unlogged = 0

    def _count(self, method: str, outcome: str) -> None:
        self._metrics.calls.labels(method=method, outcome=outcome).inc()

    async def CreateTable(
        self, request: pb.CreateTableRequest, context: grpc.aio.ServicerContext
    ) -> pb.CreateTableResponse:
        async def work() -> pb.CreateTableResponse:
            table, code = await self._lobby.create(
                request.game,
                request.player_id,
                request.display_name,
                {name: value_from_pb(value) for name, value in request.options.items()},
            )
            return pb.CreateTableResponse(
                table=self.table_to_pb(table), invite_code=format_code(code)
            )

        return await self._call("CreateTable", context, work)

    async def JoinTable(
        self, request: pb.JoinTableRequest, context: grpc.aio.ServicerContext
    ) -> pb.JoinTableResponse:
        async def work() -> pb.JoinTableResponse:
            table, seat, already = await self._lobby.join(
                request.invite_code,
                request.player_id,
                request.display_name,
                caller_identity(context),
            )
            return pb.JoinTableResponse(
                table=self.table_to_pb(table), seat=seat, already_seated=already
            )

        return await self._call("JoinTable", context, work)

    async def LeaveTable(
        self, request: pb.LeaveTableRequest, context: grpc.aio.ServicerContext
    ) -> pb.LeaveTableResponse:
        async def work() -> pb.LeaveTableResponse:
            table = await self._lobby.leave(request.table_id, request.player_id)
            return pb.LeaveTableResponse(table=self.table_to_pb(table))

        return await self._call("LeaveTable", context, work)

    async def StartTable(
        self, request: pb.StartTableRequest, context: grpc.aio.ServicerContext
    ) -> pb.StartTableResponse:
        async def work() -> pb.StartTableResponse:
            table = await self._lobby.start(request.table_id, request.player_id)
            return pb.StartTableResponse(table=self.table_to_pb(table))

        return await self._call("StartTable", context, work)

    async def CloseTable(
        self, request: pb.CloseTableRequest, context: grpc.aio.ServicerContext
    ) -> pb.CloseTableResponse:
        async def work() -> pb.CloseTableResponse:
            table = await self._lobby.close(request.table_id, request.player_id)
            return pb.CloseTableResponse(table=self.table_to_pb(table))

        return await self._call("CloseTable", context, work)

    async def GetTable(
        self, request: pb.GetTableRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetTableResponse:
        async def work() -> pb.GetTableResponse:
            table, code = await self._lobby.get(request.table_id, request.player_id)
            return pb.GetTableResponse(
                table=self.table_to_pb(table), invite_code=format_code(code) if code else ""
            )

        return await self._call("GetTable", context, work)

    async def ListGames(
        self, request: pb.ListGamesRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListGamesResponse:
        async def work() -> pb.ListGamesResponse:
            games = await self._lobby.games()
            return pb.ListGamesResponse(
                games=[
                    pb.Game(
                        name=spec.name,
                        min_seats=spec.min_seats,
                        max_seats=spec.max_seats,
                        available=ready,
                        options=[option_spec_to_pb(option) for option in spec.options],
                    )
                    for spec, ready in games
                ]
            )

        return await self._call("ListGames", context, work)

    async def LookupCode(
        self, request: pb.LookupCodeRequest, context: grpc.aio.ServicerContext
    ) -> pb.LookupCodeResponse:
        async def work() -> pb.LookupCodeResponse:
            found = await self._lobby.lookup(request.invite_code, caller_identity(context))
            return pb.LookupCodeResponse(
                game=found.game,
                options=options_to_pb(found.options),
                seated=found.seated,
                min_seats=found.min_seats,
                max_seats=found.max_seats,
                state=_STATE[found.state],
            )

        return await self._call("LookupCode", context, work)


async def _abort(context: grpc.aio.ServicerContext, error: LobbyError) -> NoReturn:
    if error.retry_after is not None:
        context.set_trailing_metadata(
            ((RETRY_AFTER_METADATA, str(max(1, math.ceil(error.retry_after)))),)
        )
    await context.abort(STATUS[error.reason], error.reason.value)
    raise AssertionError("abort returns only by raising")
