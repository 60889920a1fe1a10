"""Tables and seats as plain values, and every change a table can go through.

A :class:`Table` is immutable; each transition (:func:`join`, :func:`leave`, :func:`start`,
:func:`close`, :func:`expire`) returns the next value with ``version`` one higher, or raises
:class:`LobbyError` with a stable :class:`Reason`. Keeping the rules here, free of storage and
gRPC, is what lets any store apply them with a compare-and-set on ``version``.

Seats are a tuple in arrival order, and a seat's index is its position: the host is always
seat 0 (the earliest arrival still seated), a leave before the start moves later arrivals up,
and at the start the order freezes into the turn order. A table's options are fixed when it is
created: no transition changes them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from lexio_lobby.options import Options


class Reason(enum.StrEnum):
    """Why a call is refused. The values are the contract's stable reason codes."""

    INVALID_NAME = "invalid_name"
    INVALID_PLAYER = "invalid_player"
    INVALID_CODE = "invalid_code"
    INVALID_OPTION = "invalid_option"
    UNKNOWN_GAME = "unknown_game"
    UNKNOWN_CODE = "unknown_code"
    UNKNOWN_TABLE = "unknown_table"
    GAME_UNAVAILABLE = "game_unavailable"
    TABLE_FULL = "table_full"
    GAME_STARTED = "game_started"
    TABLE_CLOSED = "table_closed"
    NOT_SEATED = "not_seated"
    NOT_ENOUGH_PLAYERS = "not_enough_players"
    NOT_HOST = "not_host"
    RATE_LIMITED = "rate_limited"
    CONFLICT = "conflict"
    #: The table store cannot be reached (Redis down): nothing was changed; retry later.
    STORE_UNAVAILABLE = "store_unavailable"


class LobbyError(Exception):
    """A refused call. ``retry_after`` (seconds) is set for :attr:`Reason.RATE_LIMITED`, and
    for :attr:`Reason.STORE_UNAVAILABLE` when the store knows it (a passing state)."""

    def __init__(self, reason: Reason, retry_after: float | None = None) -> None:
        super().__init__(reason.value)
        self.reason = reason
        self.retry_after = retry_after


class TableState(enum.StrEnum):
    OPEN = "open"
    STARTED = "started"
    CLOSED = "closed"


class CloseReason(enum.StrEnum):
    EMPTY = "empty"
    HOST = "host"
    EXPIRED = "expired"


@dataclass(frozen=True)
class Seat:
    player_id: str
    display_name: str
    joined_at: float


@dataclass(frozen=True)
class Table:
    """One table. ``code`` is the canonical invite code: a secret, never logged."""

    table_id: str
    code: str
    game: str
    min_seats: int
    max_seats: int
    state: TableState
    seats: tuple[Seat, ...]
    created_at: float
    updated_at: float
    version: int = 1
    close_reason: CloseReason | None = None
    #: Every option the game registered at creation, defaults filled in (registration order).
    options: Options = ()

    def __repr__(self) -> str:  # the dataclass repr would print the code
        return (
            f"Table({self.table_id!r}, game={self.game!r}, state={self.state.value}, "
            f"seats={len(self.seats)}, version={self.version})"
        )

    @property
    def host(self) -> Seat | None:
        return self.seats[0] if self.seats and self.state is not TableState.CLOSED else None

    def seat_of(self, player_id: str) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.player_id == player_id:
                return index
        return None

    def idle_expired(self, now: float, ttl: float) -> bool:
        """An open table whose seats and state have not changed for ``ttl`` seconds."""
        return self.state is TableState.OPEN and now >= self.updated_at + ttl

    def _next(
        self,
        now: float,
        *,
        seats: tuple[Seat, ...] | None = None,
        state: TableState | None = None,
        close_reason: CloseReason | None = None,
    ) -> Table:
        """The next version of this table, changed at ``now``."""
        return replace(
            self,
            seats=self.seats if seats is None else seats,
            state=state or self.state,
            close_reason=close_reason or self.close_reason,
            updated_at=now,
            version=self.version + 1,
        )


def new_table(
    *,
    table_id: str,
    code: str,
    game: str,
    min_seats: int,
    max_seats: int,
    host: Seat,
    now: float,
    options: Options = (),
) -> Table:
    """An open table with its creator, the host, in seat 0."""
    return Table(
        table_id=table_id,
        code=code,
        game=game,
        min_seats=min_seats,
        max_seats=max_seats,
        state=TableState.OPEN,
        seats=(host,),
        created_at=now,
        updated_at=now,
        options=options,
    )


@dataclass(frozen=True)
class Invitation:
    """What an invite code shows before joining: the game, its options and counts — on
    purpose nothing that names the table or a person (no id, no names, no player ids)."""

    game: str
    options: Options
    seated: int
    min_seats: int
    max_seats: int
    state: TableState


def invitation(table: Table) -> Invitation:
    """The invitation of an open or started table (a closed one is refused before this)."""
    return Invitation(
        game=table.game,
        options=table.options,
        seated=len(table.seats),
        min_seats=table.min_seats,
        max_seats=table.max_seats,
        state=table.state,
    )


def _refuse_closed(table: Table) -> None:
    if table.state is TableState.CLOSED:
        raise LobbyError(Reason.TABLE_CLOSED)


def join(table: Table, seat: Seat, now: float) -> tuple[Table, int, bool]:
    """(next table, seat index, already seated). A seated player gets their seat back as is."""
    _refuse_closed(table)
    index = table.seat_of(seat.player_id)
    if index is not None:
        return table, index, True
    if table.state is TableState.STARTED:
        raise LobbyError(Reason.GAME_STARTED)
    if len(table.seats) >= table.max_seats:
        raise LobbyError(Reason.TABLE_FULL)
    return table._next(now, seats=(*table.seats, seat)), len(table.seats), False


def leave(table: Table, player_id: str, now: float) -> Table:
    """Free a seat before the start; the earliest remaining arrival becomes (or stays) host."""
    _refuse_closed(table)
    index = table.seat_of(player_id)
    if index is None:
        raise LobbyError(Reason.NOT_SEATED)
    if table.state is TableState.STARTED:
        raise LobbyError(Reason.GAME_STARTED)
    seats = table.seats[:index] + table.seats[index + 1 :]
    if not seats:
        return table._next(
            now, seats=seats, state=TableState.CLOSED, close_reason=CloseReason.EMPTY
        )
    return table._next(now, seats=seats)


def _require_host(table: Table, player_id: str) -> None:
    index = table.seat_of(player_id)
    if index is None:
        raise LobbyError(Reason.NOT_SEATED)
    if index != 0:
        raise LobbyError(Reason.NOT_HOST)


def start(table: Table, player_id: str, now: float) -> Table:
    """The host starts an open table holding at least the game's minimum."""
    _refuse_closed(table)
    _require_host(table, player_id)
    if table.state is TableState.STARTED:
        raise LobbyError(Reason.GAME_STARTED)
    if len(table.seats) < table.min_seats:
        raise LobbyError(Reason.NOT_ENOUGH_PLAYERS)
    return table._next(now, state=TableState.STARTED)


def close(table: Table, player_id: str, now: float) -> Table:
    """The host closes an open (cancel) or started (game over) table; seats are kept."""
    _refuse_closed(table)
    _require_host(table, player_id)
    return table._next(now, state=TableState.CLOSED, close_reason=CloseReason.HOST)


def expire(table: Table, now: float) -> Table:
    """Close an open table that stayed idle too long (see :meth:`Table.idle_expired`)."""
    return table._next(now, state=TableState.CLOSED, close_reason=CloseReason.EXPIRED)
