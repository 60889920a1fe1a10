"""Noughts' protobuf (lexio.noughts.v1) to and from the rules' values.

The state travels as the rules' plain form (``noughts-state/1``) in one JSON document, log
included: a game has at most eleven entries, so there is no log to keep apart (a longer game's
codec appends to a log it does not read; here reading it all costs less than that). Views
and log entries, which the gateway forwards to browsers, are typed messages.

>>> from noughts_rules import new_game
>>> message = state_to_pb(new_game())
>>> message.format, state_from_pb(message) == new_game()
('noughts-state/1', True)
>>> action_kind(action_from_pb(pb.Action(mark=pb.MarkCell(row=1, col=2))))
'mark'
"""

from __future__ import annotations

import json
from typing import Final

from lexio.noughts.v1 import engine_pb2 as pb
from lexio_engine.servicing import check_state_format
from noughts_rules import (
    SEATS,
    STATE_FORMAT,
    Action,
    Cell,
    Ending,
    GameState,
    LogEntry,
    MalformedActionError,
    MarkCell,
    Refusal,
    Resign,
    SeatView,
    StateFormatError,
    check_seat,
    seat_view,
)

__all__ = [
    "ACTION_KINDS",
    "action_from_pb",
    "action_kind",
    "refusal_to_pb",
    "seat_from_pb",
    "state_from_pb",
    "state_to_pb",
    "view_to_pb",
    "views_to_pb",
]

# The state --------------------------------------------------------------------------------


def state_to_pb(state: GameState) -> pb.GameState:
    plain = json.dumps(state.to_dict(), separators=(",", ":"))
    return pb.GameState(format=STATE_FORMAT, core=plain.encode())


def state_from_pb(message: pb.GameState) -> GameState:
    """The state; StateFormatError if the message is not a state this engine wrote."""
    check_state_format(message.format, STATE_FORMAT)
    try:
        plain = json.loads(message.core)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise StateFormatError(f"state.core: not JSON ({e})") from None
    return GameState.from_dict(plain)


# Actions ----------------------------------------------------------------------------------


def seat_from_pb(seat: int) -> int:
    """N1: 0 or 1, else InvalidSeatError (bad input)."""
    return check_seat(seat)


def action_from_pb(message: pb.Action) -> Action:
    """MalformedActionError when it names no action."""
    match message.WhichOneof("kind"):
        case "mark":
            return MarkCell(message.mark.row, message.mark.col)
        case "resign":
            return Resign()
    raise MalformedActionError("an action is one of mark, resign")


_ACTION_KINDS: Final[dict[type, str]] = {MarkCell: "mark", Resign: "resign"}
#: Every action's name for metrics: the label set the engine's call counter starts with.
ACTION_KINDS: Final = tuple(_ACTION_KINDS.values())


def action_kind(action: Action) -> str:
    """The action's name for metrics (one of :data:`ACTION_KINDS`)."""
    return _ACTION_KINDS[type(action)]


def refusal_to_pb(refusal: Refusal) -> pb.Outcome:
    """A refused action's outcome: its reason's code (N8)."""
    return pb.Outcome(accepted=False, reason=refusal.reason.value)


# Views and events -------------------------------------------------------------------------


def _cell(cell: Cell) -> pb.Cell:
    return pb.Cell(row=cell[0], col=cell[1])


def _enum(prefix: str, value: str) -> int:
    return int(getattr(pb, f"{prefix}_{value.upper()}"))


def ending_to_pb(ending: Ending) -> pb.Ending:
    message = pb.Ending(
        cause=_enum("END_CAUSE", ending.cause.value),  # type: ignore[arg-type]
        at=ending.at,
        line=[_cell(c) for c in ending.line],
    )
    if ending.winner is not None:
        message.winner = ending.winner
    return message


def entry_to_pb(entry: LogEntry) -> pb.LogEntry:
    message = pb.LogEntry(
        number=entry.number,
        kind=_enum("ENTRY_KIND", entry.kind.value),  # type: ignore[arg-type]
        at=entry.at,
    )
    if entry.seat is not None:
        message.seat = entry.seat
    if entry.cell is not None:
        message.cell.CopyFrom(_cell(entry.cell))
    if entry.ending is not None:
        message.ending.CopyFrom(ending_to_pb(entry.ending))
    return message


def view_to_pb(view: SeatView, now: float, *, with_log: bool = True) -> pb.SeatView:
    message = pb.SeatView(
        seat=view.seat,
        mark=view.mark.value,
        board=[cell for row in view.board.rows() for cell in row],
        turn=view.turn,
        now=now,
    )
    if view.ending is not None:
        message.ending.CopyFrom(ending_to_pb(view.ending))
    if with_log:
        message.log.extend(entry_to_pb(e) for e in view.log)
    return message


def views_to_pb(state: GameState, now: float) -> list[pb.SeatView]:
    """Seat 0's view then seat 1's after an action, without the log (the events extend it)."""
    return [view_to_pb(seat_view(state, s), now, with_log=False) for s in SEATS]
