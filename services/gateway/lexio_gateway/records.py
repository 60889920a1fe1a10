"""What the gateway keeps about a table: plain values, the same whatever the store."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class TableStatus(enum.Enum):
    OPEN = "open"
    """Seating players in the lobby; no game yet."""
    STARTED = "started"
    OVER = "over"


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
    turn: int = -1
    deadline: float = 0.0
    """Absolute time (Unix seconds) the seat to play must act by (R28)."""
    turn_since: float = 0.0
    rematch_code: str = ""
    rematch_table_id: str = ""


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


def record_fields(record: TableRecord) -> dict[str, Any]:
    """A record's fields other than id, version and state, as plain JSON values."""
    return {
        "game": record.game,
        "code": record.code,
        "status": record.status.value,
        "seq": record.seq,
        "players": [[p.player_id, p.name] for p in record.players],
        "turn": record.turn,
        "deadline": record.deadline,
        "turn_since": record.turn_since,
        "rematch_code": record.rematch_code,
        "rematch_table_id": record.rematch_table_id,
    }


def record_from_fields(
    table_id: str, version: int, state: bytes, fields: Mapping[str, Any]
) -> TableRecord:
    """The inverse of :func:`record_fields`, whatever store the fields were read from."""
    return TableRecord(
        table_id=table_id,
        game=fields["game"],
        code=fields["code"],
        status=TableStatus(fields["status"]),
        version=version,
        seq=fields["seq"],
        players=[Player(p, n) for p, n in fields["players"]],
        state=state,
        turn=fields["turn"],
        deadline=fields["deadline"],
        turn_since=fields["turn_since"],
        rematch_code=fields["rematch_code"],
        rematch_table_id=fields["rematch_table_id"],
    )
