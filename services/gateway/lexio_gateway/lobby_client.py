"""The gateway's hop to the lobby (lexio.lobby.v1): tables, codes, seats, start."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import grpc

from lexio.lobby.v1 import lobby_pb2 as pb
from lexio.lobby.v1 import lobby_pb2_grpc
from lexio_gateway.games.contract import OptionValue
from lexio_gateway.jsoncodec import to_json
from lexio_gateway.metrics import LOBBY_CALL_SECONDS

log = logging.getLogger(__name__)

CALLER_METADATA: Final = "x-lexio-caller"
RETRY_AFTER_METADATA: Final = "retry-after"

BROWSER_CODES: Final = frozenset(
    {
        "invalid_name",
        "invalid_code",
        "unknown_code",
        "unknown_game",
        "game_unavailable",
        "table_full",
        "game_started",
        "table_closed",
        "not_seated",
        "not_enough_players",
        "not_host",
        "rate_limited",
        "invalid_option",
    }
)
"""The lobby's reasons that mean something to a player (docs/protocol.md). Any other answer
(its store is down, a conflict it gave up on, a code this gateway does not know yet) reaches the
browser as ``unavailable``: nothing changed, try again."""
_RENAMED: Final = {"unknown_table": "table_closed"}  # purged while a seat was away


class LobbyError(Exception):
    """The lobby refused, with a code for the browser (``unavailable`` when it could not
    answer); ``retry_after`` (whole seconds) with ``rate_limited``."""

    def __init__(self, code: str, retry_after: int | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.retry_after = retry_after

    @property
    def params(self) -> dict[str, int]:
        """What the protocol's ``error`` frame carries besides the code."""
        return {} if self.retry_after is None else {"retry_after": self.retry_after}


def _retry_after(error: grpc.aio.AioRpcError) -> int | None:
    for key, value in error.trailing_metadata() or ():
        if key == RETRY_AFTER_METADATA:
            try:
                return max(1, int(value))
            except (TypeError, ValueError):
                return None
    return None


def browser_error(error: grpc.aio.AioRpcError) -> LobbyError:
    """A lobby call's failure as the browser is told of it."""
    details = error.details() or ""
    code = _RENAMED.get(details, details)
    if code not in BROWSER_CODES:
        if details and error.code() is not grpc.StatusCode.UNAVAILABLE:
            log.warning("lobby answer shown as unavailable", extra={"lobby_code": details[:64]})
        return LobbyError("unavailable")
    return LobbyError(code, _retry_after(error) if code == "rate_limited" else None)


@dataclass(frozen=True)
class LobbySeat:
    player_id: str
    name: str
    host: bool


def option_value(value: pb.OptionValue) -> OptionValue:
    return value.text if value.WhichOneof("value") == "text" else value.integer


def options_of(options: Mapping[str, pb.OptionValue]) -> dict[str, OptionValue]:
    return {name: option_value(v) for name, v in sorted(options.items())}


INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1


def _options_pb(options: Mapping[str, OptionValue]) -> dict[str, pb.OptionValue]:
    """The options as the lobby's messages. An integer that ``OptionValue.integer`` (int64)
    cannot hold is no value of any option: ``invalid_option``, as the lobby answers a value
    outside an option's choices (protobuf would raise ValueError, an ``internal``).

    >>> _options_pb({"latin_minutes": 2**63})
    Traceback (most recent call last):
    ...
    lexio_gateway.lobby_client.LobbyError: invalid_option
    """
    for value in options.values():
        if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
            raise LobbyError("invalid_option")
    return {
        name: pb.OptionValue(text=v) if isinstance(v, str) else pb.OptionValue(integer=v)
        for name, v in options.items()
    }


@dataclass(frozen=True)
class LobbyTable:
    table_id: str
    game: str
    state: str
    seats: tuple[LobbySeat, ...]
    min_seats: int
    max_seats: int
    options: Mapping[str, OptionValue] = field(default_factory=dict)
    """Every option the game registered, as the table fixed them (defaults filled in)."""

    @classmethod
    def of(cls, table: pb.Table) -> LobbyTable:
        return cls(
            table_id=table.table_id,
            game=table.game,
            state=to_json(table)["state"],
            seats=tuple(LobbySeat(s.player_id, s.display_name, s.host) for s in table.seats),
            min_seats=table.min_seats,
            max_seats=table.max_seats,
            options=options_of(table.options),
        )

    def seat_of(self, player_id: str) -> int:
        for index, seat in enumerate(self.seats):
            if seat.player_id == player_id:
                return index
        return -1


class LobbyClient:
    def __init__(self, channel: grpc.aio.Channel, timeout: float) -> None:
        self._stub = lobby_pb2_grpc.LobbyStub(channel)
        self._timeout = timeout

    async def _call(
        self, rpc: str, request: Any, caller: str | None = None, timeout: float | None = None
    ) -> Any:
        started = time.perf_counter()
        outcome = "ok"
        metadata = ((CALLER_METADATA, caller),) if caller else None
        try:
            return await getattr(self._stub, rpc)(
                request, timeout=timeout or self._timeout, metadata=metadata
            )
        except grpc.aio.AioRpcError as e:
            details = e.details() or ""
            known = details.isidentifier() and details.islower()
            outcome = details if known else e.code().name.lower()
            raise browser_error(e) from e
        finally:
            LOBBY_CALL_SECONDS.labels(rpc=rpc, outcome=outcome[:32]).observe(
                time.perf_counter() - started
            )

    async def create(
        self,
        game: str,
        player_id: str,
        name: str,
        caller: str,
        options: Mapping[str, OptionValue] | None = None,
    ) -> tuple[LobbyTable, str]:
        request = pb.CreateTableRequest(
            game=game, player_id=player_id, display_name=name, options=_options_pb(options or {})
        )
        reply = await self._call("CreateTable", request, caller)
        return LobbyTable.of(reply.table), reply.invite_code

    async def lookup(self, code: str, caller: str) -> dict[str, Any]:
        """What an invite code opens, in the protocol's JSON: game, options, seats."""
        reply = await self._call("LookupCode", pb.LookupCodeRequest(invite_code=code), caller)
        return {
            "game": reply.game,
            "options": options_of(reply.options),
            "seated": reply.seated,
            "min_seats": reply.min_seats,
            "max_seats": reply.max_seats,
            "state": to_json(reply)["state"],
        }

    async def join(self, code: str, player_id: str, name: str, caller: str) -> LobbyTable:
        request = pb.JoinTableRequest(invite_code=code, player_id=player_id, display_name=name)
        return LobbyTable.of((await self._call("JoinTable", request, caller)).table)

    async def leave(self, table_id: str, player_id: str) -> LobbyTable:
        request = pb.LeaveTableRequest(table_id=table_id, player_id=player_id)
        return LobbyTable.of((await self._call("LeaveTable", request)).table)

    async def start(self, table_id: str, player_id: str) -> LobbyTable:
        request = pb.StartTableRequest(table_id=table_id, player_id=player_id)
        return LobbyTable.of((await self._call("StartTable", request)).table)

    async def close(self, table_id: str, player_id: str) -> LobbyTable:
        request = pb.CloseTableRequest(table_id=table_id, player_id=player_id)
        return LobbyTable.of((await self._call("CloseTable", request)).table)

    async def get(self, table_id: str, player_id: str) -> tuple[LobbyTable, str]:
        request = pb.GetTableRequest(table_id=table_id, player_id=player_id)
        reply = await self._call("GetTable", request)
        return LobbyTable.of(reply.table), reply.invite_code

    async def games(self) -> dict[str, bool]:
        # Asked on every welcome: a lobby that is down must not hold the page up for long.
        reply = await self._call("ListGames", pb.ListGamesRequest(), timeout=0.5)
        return {g.name: g.available for g in reply.games}
