"""What one seat may see (R6, R11, R20, R28, R32).

A view holds the seat's own rack, only the size of the others', only the size of the bag,
and the whole public record: board, log, scores, whose turn, the turn's deadline, and the
seat's own reserve. Other racks appear only once the game has ended, in ``ending``.

>>> from lexio_rules.state import new_game
>>> game = new_game(3, seed=5, now=0.0)
>>> v = seat_view(game, 1, now=0.0)
>>> v.rack == game.racks[1], v.rack_counts, v.bag_count, v.turn_deadline
(True, (7, 7, 7), 81, 120.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from lexio_rules.reserve import RESERVE_MAX
from lexio_rules.state import Ending, GameState, LogEntry


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    rack: str
    rack_counts: tuple[int, ...]
    bag_count: int
    board: str
    log: tuple[LogEntry, ...]
    scores: tuple[int, ...]
    turn: int
    turn_deadline: float
    reserve_tries: int
    reserve_next_in: float
    reserve_max: int
    ending: Ending | None


def seat_view(state: GameState, seat: int, now: float) -> SeatView:
    state.check_seat(seat)
    reserve = state.reserves[seat]
    return SeatView(
        seat=seat,
        rack=state.racks[seat],
        rack_counts=tuple(len(r) for r in state.racks),
        bag_count=len(state.bag),
        board=state.board,
        log=state.log,
        scores=state.scores,
        turn=state.turn,
        turn_deadline=state.turn_deadline,
        reserve_tries=reserve.available(now),
        reserve_next_in=reserve.next_in(now),
        reserve_max=RESERVE_MAX,
        ending=state.ending,
    )


def all_views(state: GameState, now: float) -> tuple[SeatView, ...]:
    return tuple(seat_view(state, seat, now) for seat in range(state.players))
