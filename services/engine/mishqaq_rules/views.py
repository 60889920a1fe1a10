"""What one side may see (M12, M24, M28–M30, M37), and when the table must next look at the
clock.

A view holds the side's own rack, only the size of the other's, only the sizes of the bags,
and the public record: board, log, both banks, the mover, the flag instant, the pause, the
side's own reserve. The other rack appears only once the game has ended, in ``ending``.

>>> from mishqaq_rules.state import new_game
>>> game = new_game(latin="fr", seed=5, now=0.0, opening=Side.LATIN)
>>> v = side_view(game, Side.ARABIC, now=10.0)
>>> v.rack == game.rack(Side.ARABIC), v.rack_counts, v.bag_counts, v.banks, v.flag_at
(True, (6, 6), (69, 69), (1790.0, 1800.0), 1800.0)
>>> next_clock_event(game)
1800.0
"""

from __future__ import annotations

from dataclasses import dataclass

from mishqaq_rules.board import Board
from mishqaq_rules.log import Ending, LogEntry
from mishqaq_rules.sides import Side
from mishqaq_rules.state import GameState
from mishqaq_rules.tiles import Tile
from rules_core.reserve import RESERVE_MAX


@dataclass(frozen=True, slots=True)
class PauseView:
    by: Side
    until: float
    """When the pause ends by itself, unless its caller ends it first (M30)."""


@dataclass(frozen=True, slots=True)
class SideView:
    side: Side
    latin: str
    rack: tuple[Tile, ...]
    rack_counts: tuple[int, int]
    """(Latin, Arabic): sizes only."""
    bag_counts: tuple[int, int]
    board: Board
    turn: Side
    banks: tuple[float, float]
    """(Latin, Arabic) seconds left at the view's instant."""
    flag_at: float | None
    """When the mover's flag falls if nobody acts; None during a pause or after the end."""
    pause: PauseView | None
    pauses_left: tuple[int, int]
    reserve_tries: int
    reserve_next_in: float
    reserve_max: int
    log: tuple[LogEntry, ...]
    ending: Ending | None
    """Once the game is over: winner, cause, and both racks revealed."""


def side_view(state: GameState, side: Side, now: float) -> SideView:
    clock = state.clock
    if state.ending is not None:
        banks, flag_at, pause = clock.banks, None, None
    else:
        banks = (
            clock.remaining(Side.LATIN, state.turn, now),
            clock.remaining(Side.ARABIC, state.turn, now),
        )
        paused = clock.paused_at(now)
        flag_at = None if paused else clock.flag_at(state.turn)
        pause = (
            PauseView(clock.pause.by, clock.pause.until)
            if paused and clock.pause is not None
            else None
        )
    reserve = state.reserves[side.index]
    return SideView(
        side=side,
        latin=state.latin,
        rack=state.rack(side),
        rack_counts=(len(state.racks[0]), len(state.racks[1])),
        bag_counts=(len(state.bags[0]), len(state.bags[1])),
        board=state.board,
        turn=state.turn,
        banks=banks,
        flag_at=flag_at,
        pause=pause,
        pauses_left=clock.pauses_left,
        reserve_tries=reserve.available(now),
        reserve_next_in=reserve.next_in(now),
        reserve_max=RESERVE_MAX,
        log=state.log,
        ending=state.ending,
    )


def next_clock_event(state: GameState) -> float | None:
    """When the table must send :class:`~mishqaq_rules.actions.Timeout` if nothing else
    happens: the mover's flag instant (during a pause, the pause's end plus the mover's bank);
    None once the game is over."""
    if state.ending is not None:
        return None
    return state.clock.flag_at(state.turn)
