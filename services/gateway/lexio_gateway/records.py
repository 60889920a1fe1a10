"""What the gateway keeps about a table: plain values, the same whatever the store."""

from __future__ import annotations

import enum
import math
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from lexio_gateway.games.contract import OptionValue, TableClock


class TableStatus(enum.Enum):
    OPEN = "open"
    """Seating players in the lobby; no game yet."""
    STARTED = "started"
    OVER = "over"
    EXPIRED = "expired"
    """A finished game past its record's retention: a tombstone (the table's id, game and end
    instant; no names, no state, no events), kept one more retention so that a late visitor
    hears that its record expired rather than that its token is unknown."""


@dataclass(frozen=True)
class Player:
    player_id: str
    name: str


@dataclass
class TableRecord:
    """One table. ``state`` is the game engine's state, stored as the engine returned it."""

    table_id: str
    game: str
    code: str
    status: TableStatus
    version: int = 0
    seq: int = 0
    """Number of the last public event."""
    players: list[Player] = field(default_factory=list)
    """Seat order, fixed at the start."""
    state: bytes = b""
    clock: TableClock | None = None
    """When the table acts by itself next, as the game's adapter set it (None: never)."""
    min_seats: int = 0
    max_seats: int = 0
    """The seat limits the lobby gave the table."""
    options: dict[str, OptionValue] = field(default_factory=dict)
    """The table's options, fixed with the invitation."""
    rematch_code: str = ""
    rematch_table_id: str = ""
    ended_at: float | None = None
    """When the game ended (Unix seconds; None before). The commit that ends it stores it: the
    record's retention counts from it."""
    commit: str = ""
    """Which commit wrote this version: a random id each (:func:`new_commit_id`). A store that
    replicas share keeps it and compares it with the version: after Redis lost an
    acknowledged commit, the next one reuses its version, and only this tells them apart
    (docs/replicas.md, "What a failover can lose"). Not kept by a store of one gateway."""
    parent: str = ""
    """The commit this one was computed from (kept with it): a replica that held that one
    knows, without reading more, that this one follows from what it told its seats."""

    @property
    def clock_due(self) -> float:
        """The clock's instant, or +inf when it never falls (stores sort tables by it)."""
        return self.clock.due if self.clock is not None else math.inf


def new_commit_id() -> str:
    """A commit's id: 64 random bits, so that two commits of one table never share one.

    >>> len(new_commit_id()), new_commit_id() != new_commit_id()
    (16, True)
    """
    return secrets.token_hex(8)


@dataclass(frozen=True)
class SeatToken:
    table_id: str
    player_id: str
    name: str


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    entry: dict[str, Any]


@dataclass(frozen=True)
class ActionReply:
    """What an action answered, kept so a resent action id answers the same and applies once."""

    player_id: str
    action_id: str
    reply: dict[str, Any]


def clock_fields(clock: TableClock | None) -> dict[str, Any] | None:
    if clock is None:
        return None
    return {"due": clock.due, "seat": clock.seat, "since": clock.since, "action": clock.action}


def clock_from_fields(fields: Mapping[str, Any]) -> TableClock | None:
    """The stored clock; a record written before clocks were the game's (when the site had one
    game, whose clock was a turn's: its ``turn``, ``deadline`` and ``turn_since``) reads as the
    same clock, with no action name (:data:`LEGACY_CLOCK_ACTION`)."""
    clock = fields.get("clock")
    if isinstance(clock, Mapping):
        return TableClock(
            float(clock["due"]), int(clock["seat"]), float(clock["since"]), str(clock["action"])
        )
    if "clock" not in fields and fields.get("status") == TableStatus.STARTED.value:
        return TableClock(
            float(fields["deadline"]),
            int(fields["turn"]),
            float(fields["turn_since"]),
            LEGACY_CLOCK_ACTION,
        )
    return None


def record_fields(record: TableRecord) -> dict[str, Any]:
    """A record's fields other than id, version and state, as plain JSON values."""
    return {
        "game": record.game,
        "code": record.code,
        "status": record.status.value,
        "seq": record.seq,
        "players": [[p.player_id, p.name] for p in record.players],
        "clock": clock_fields(record.clock),
        "seats": [record.min_seats, record.max_seats],
        "options": record.options,
        "rematch_code": record.rematch_code,
        "rematch_table_id": record.rematch_table_id,
        "ended_at": record.ended_at,
    }


def record_from_fields(
    table_id: str, version: int, state: bytes, fields: Mapping[str, Any]
) -> TableRecord:
    """The inverse of :func:`record_fields`, whatever store the fields were read from (and
    records written by the gateway before table options: no options, :data:`LEGACY_SEATS`)."""
    min_seats, max_seats = fields.get("seats") or LEGACY_SEATS
    return TableRecord(
        table_id=table_id,
        game=fields["game"],
        code=fields["code"],
        status=TableStatus(fields["status"]),
        version=version,
        seq=fields["seq"],
        players=[Player(p, n) for p, n in fields["players"]],
        state=state,
        clock=clock_from_fields(fields),
        min_seats=min_seats,
        max_seats=max_seats,
        options=dict(fields.get("options") or {}),
        rematch_code=fields["rematch_code"],
        rematch_table_id=fields["rematch_table_id"],
        ended_at=_ended_at(fields),
    )


def _ended_at(fields: Mapping[str, Any]) -> float | None:
    ended_at = fields.get("ended_at")
    return float(ended_at) if ended_at is not None else None


def tombstone(record: TableRecord) -> TableRecord:
    """What is kept of a finished table once its record expired: its id, game and end instant
    (for the answer ``record_expired``, and to know when to forget it), nothing of its players
    or its game; version + 1, so that a replica still holding the table cannot write it back."""
    return TableRecord(
        table_id=record.table_id,
        game=record.game,
        code="",
        status=TableStatus.EXPIRED,
        version=record.version + 1,
        ended_at=record.ended_at,
    )


LEGACY_SEATS: Final = (2, 4)
"""The seat limits of every table stored before the lobby's limits were stored with it: the site
then had one game, played by 2 to 4. Only such old rows read it; every table since carries its
own."""
LEGACY_CLOCK_ACTION: Final = ""
"""The action name of a clock stored before clocks were the game's (its old ``turn`` columns):
none (the game those rows hold decides what its clock does without one)."""
