"""What one seat sees (N10): everything, since nothing in noughts is hidden, and for whom.

>>> from noughts_rules.game import play
>>> from noughts_rules.actions import MarkCell
>>> from noughts_rules.state import new_game
>>> after = play(new_game(), 0, MarkCell(0, 2), now=3.0).state
>>> view = seat_view(after, 1)
>>> view.seat, view.mark, view.turn, view.board.rows()[0], len(view.log)
(1, <Mark.O: 'O'>, 1, ('', '', 'X'), 1)
"""

from __future__ import annotations

from dataclasses import dataclass

from noughts_rules.board import Board, Mark
from noughts_rules.log import Ending, LogEntry
from noughts_rules.state import GameState, check_seat


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    mark: Mark
    """The mark this seat plays (N1)."""
    board: Board
    turn: int
    """The seat to move (N3)."""
    log: tuple[LogEntry, ...]
    ending: Ending | None
    """Once the game is over (N11)."""


def seat_view(state: GameState, seat: int) -> SeatView:
    """``seat``'s view; :class:`~noughts_rules.InvalidSeatError` for a seat the game does not
    have."""
    check_seat(seat)
    return SeatView(
        seat=seat,
        mark=Mark.of_seat(seat),
        board=state.board,
        turn=state.turn,
        log=state.log,
        ending=state.ending,
    )
