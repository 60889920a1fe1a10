"""Deciding actions: "is it legal?" (:func:`examine`) apart from "apply it" (:func:`conclude`).

:func:`play` does both. Time (``now``) only stamps the log (N9): nothing here reads a clock.

>>> from noughts_rules.state import new_game
>>> game = new_game()
>>> examine(game, 1, MarkCell(0, 0), now=1.0)
Refusal(reason=<Reason.NOT_YOUR_TURN: 'not_your_turn'>)
>>> outcome = play(game, 0, MarkCell(1, 1), now=1.0)
>>> outcome.accepted, outcome.state.turn, outcome.entries[0].kind.value
(True, 1, 'mark')
>>> play(outcome.state, 1, MarkCell(1, 1), now=2.0).refusal.reason.value
'occupied'
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from noughts_rules.actions import Action, MarkCell, Resign
from noughts_rules.board import Mark, on_board
from noughts_rules.log import EndCause, Ending, LogEntry
from noughts_rules.reasons import Reason
from noughts_rules.state import GameState, check_seat

__all__ = ["Accepted", "Examined", "Outcome", "Refusal", "Refused", "conclude", "examine", "play"]


@dataclass(frozen=True, slots=True)
class Refusal:
    """N8: why an action is refused; nothing changes."""

    reason: Reason


@dataclass(frozen=True, slots=True)
class Examined:
    """An action that passed every check (N8): :func:`conclude` applies it."""

    state: GameState
    seat: int
    action: Action
    now: float


@dataclass(frozen=True, slots=True)
class Accepted:
    state: GameState
    entries: tuple[LogEntry, ...]
    """The log entries this action added, in order (the action's, then a result)."""
    accepted = True

    @property
    def entry(self) -> LogEntry:
        """The action's own entry."""
        return self.entries[0]


@dataclass(frozen=True, slots=True)
class Refused:
    """N8: nothing changed; ``state`` is the state the action was refused on."""

    state: GameState
    refusal: Refusal
    accepted = False
    state_changed = False


Outcome = Accepted | Refused


def examine(state: GameState, seat: int, action: Action, now: float) -> Examined | Refusal:
    """N8's checks, in precedence order: the game's end, the turn (a resignation has none),
    the board, the cell. :class:`~noughts_rules.InvalidSeatError` for a seat the game does
    not have (N1): that is bad input, not a refusal."""
    check_seat(seat)
    if state.over:
        return Refusal(Reason.GAME_OVER)
    if isinstance(action, MarkCell):
        if seat != state.turn:
            return Refusal(Reason.NOT_YOUR_TURN)
        if not on_board(action.row, action.col):
            return Refusal(Reason.OFF_BOARD)
        if state.board.at(action.row, action.col) is not None:
            return Refusal(Reason.OCCUPIED)
    return Examined(state, seat, action, now)


def conclude(examined: Examined) -> Accepted:
    """Apply an examined action: N4–N6 for a mark, N7 for a resignation."""
    state, seat, now = examined.state, examined.seat, examined.now
    number = state.next_entry_number
    entries: list[LogEntry]
    ending: Ending | None
    match examined.action:
        case MarkCell(row=row, col=col):
            mark = Mark.of_seat(seat)
            board = state.board.with_mark(row, col, mark)
            entries = [LogEntry.mark(number, seat, row, col, at=now)]
            ending = None
            line = board.line_of(mark)
            if line is not None:  # N5
                ending = Ending(seat, EndCause.LINE, now, line)
            elif board.full:  # N6
                ending = Ending(None, EndCause.FULL_BOARD, now)
            after = replace(state, board=board, turn=1 - seat)
        case Resign():  # N7
            entries = [LogEntry.resign(number, seat, at=now)]
            ending = Ending(1 - seat, EndCause.RESIGN, now)
            after = state
    if ending is not None:
        entries.append(LogEntry.result(number + len(entries), ending))
    added = tuple(entries)
    return Accepted(replace(after, log=(*state.log, *added), ending=ending), added)


def play(state: GameState, seat: int, action: Action, now: float) -> Outcome:
    """Examine, then conclude: the outcome of ``seat``'s ``action`` at ``now``."""
    examined = examine(state, seat, action, now)
    if isinstance(examined, Refusal):
        return Refused(state, examined)
    return conclude(examined)
