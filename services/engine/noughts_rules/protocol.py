"""The game as the site's protocol carries it: a player's action from the client's JSON, and
what a player is shown (N9's log entries, N10's views) as JSON-ready values. docs/noughts.md
shows the frames.

>>> action_from_json({"mark": {"row": 1, "col": 2}})
MarkCell(row=1, col=2)
>>> action_from_json({"mark": {"row": 1, "col": 2.0}})
Traceback (most recent call last):
...
rules_core.errors.MalformedActionError: a mark's row and col are 32-bit integers
>>> entry_json(LogEntry.mark(1, 0, 2, 1, at=4.5))
{'number': 1, 'kind': 'mark', 'at': 4.5, 'seat': 0, 'cell': {'row': 2, 'col': 1}, 'ending': None}
"""

from __future__ import annotations

from typing import Any, Final

from noughts_rules.actions import Action, MarkCell, Resign
from noughts_rules.board import Cell
from noughts_rules.log import Ending, LogEntry
from noughts_rules.reasons import InvalidSeatError, MalformedActionError
from noughts_rules.state import SEATS, GameState
from noughts_rules.views import SeatView, seat_view

#: The actions' names, as the protocol's ``act.action`` keys them and metrics label them.
ACTION_KINDS: Final = ("mark", "resign")
_INT32: Final = range(-(2**31), 2**31)


def _int32(value: object) -> bool:
    return type(value) is int and value in _INT32


def action_from_json(action: object) -> Action:
    """A player's action; MalformedActionError when it cannot be stated. A cell beyond the
    board but within 32 bits is stated: the rules refuse it ``off_board`` (N8)."""
    if not isinstance(action, dict) or len(action) != 1 or next(iter(action)) not in ACTION_KINDS:
        raise MalformedActionError("an action is an object with one of mark, resign")
    kind, body = next(iter(action.items()))
    if kind == "resign":
        if body != {}:
            raise MalformedActionError("resign is an empty object")
        return Resign()
    if not isinstance(body, dict) or body.keys() != {"row", "col"}:
        raise MalformedActionError("mark is an object with col, row")
    if not (_int32(body["row"]) and _int32(body["col"])):
        raise MalformedActionError("a mark's row and col are 32-bit integers")
    return MarkCell(body["row"], body["col"])


def action_kind(action: Action) -> str:
    return "mark" if isinstance(action, MarkCell) else "resign"


def _cell(cell: Cell) -> dict[str, int]:
    return {"row": cell[0], "col": cell[1]}


def ending_json(ending: Ending | None) -> dict[str, Any] | None:
    if ending is None:
        return None
    return {
        "winner": ending.winner,
        "cause": ending.cause.value,
        "at": ending.at,
        "line": [_cell(c) for c in ending.line],
    }


def entry_json(entry: LogEntry) -> dict[str, Any]:
    """A log entry as an ``event`` frame carries it (N9)."""
    return {
        "number": entry.number,
        "kind": entry.kind.value,
        "at": entry.at,
        "seat": entry.seat,
        "cell": _cell(entry.cell) if entry.cell is not None else None,
        "ending": ending_json(entry.ending),
    }


def view_json(view: SeatView, now: float, *, with_log: bool = True) -> dict[str, Any]:
    """A seat's view as a ``view`` frame carries it (N10): the board row by row, 9 cells."""
    return {
        "seat": view.seat,
        "mark": view.mark.value,
        "board": [cell for row in view.board.rows() for cell in row],
        "turn": view.turn,
        "log": [entry_json(e) for e in view.log] if with_log else [],
        "ending": ending_json(view.ending),
        "now": now,
    }


def views_json(state: GameState, now: float) -> list[dict[str, Any]]:
    """Every seat's view after a step, by seat, without the log (the step's events extend it)."""
    return [view_json(seat_view(state, seat), now, with_log=False) for seat in SEATS]


def check_table(seats: int, options: object) -> None:
    """N1: a table of two, with no options; InvalidSeatError otherwise."""
    if seats != len(SEATS) or options:
        raise InvalidSeatError("noughts is played by two, with no table options (N1)")


def end_cause(state: GameState) -> str:
    """Why the game ended (N11), "" while it goes on."""
    return state.ending.cause.value if state.ending is not None else ""
