"""Applying an accepted action to the state: placement, pass, swap, pause, resignation, flag.

Every function here takes an action the rules have already accepted (:mod:`mishqaq_rules.game`
decides) and returns the next state, its new log entries appended. A pause that ended by
itself before ``now`` is closed first, and logged at its own instant.
"""

from __future__ import annotations

import math
from dataclasses import replace

from mishqaq_rules.actions import TilePlacement
from mishqaq_rules.board import PlacedTile
from mishqaq_rules.log import EndCause, Ending, EntryKind, LogEntry, WordPlay
from mishqaq_rules.placement import FormedMove
from mishqaq_rules.sides import Side, with_side
from mishqaq_rules.state import DEAD_POSITION_PASSES, GameState, draw_count
from mishqaq_rules.tiles import Tile, blank_of, without


def _logged(
    state: GameState,
    kind: EntryKind,
    at: float,
    *,
    side: Side | None = None,
    tiles: tuple[TilePlacement, ...] = (),
    words: tuple[WordPlay, ...] = (),
    count: int = 0,
    winner: Side | None = None,
    cause: EndCause | None = None,
) -> GameState:
    entry = LogEntry(
        state.next_entry_number,
        kind,
        at,
        side=side,
        tiles=tiles,
        words=words,
        count=count,
        winner=winner,
        cause=cause,
    )
    return replace(state, log=(*state.log, entry))


def settled(state: GameState, now: float) -> GameState:
    """The state with a pause that ended by itself by ``now`` closed and logged (M30)."""
    pause = state.clock.expired_pause(now)
    if pause is None:
        return state
    state = replace(state, clock=state.clock.settled(now))
    return _logged(state, EntryKind.PAUSE_EXPIRED, pause.until, side=pause.by)


def _ended(state: GameState, winner: Side | None, cause: EndCause, at: float) -> GameState:
    ending = Ending(winner, cause, at, state.racks)
    return _logged(replace(state, ending=ending), EntryKind.RESULT, at, winner=winner, cause=cause)


def _drawn(
    rack: tuple[Tile, ...], bag: tuple[Tile, ...]
) -> tuple[tuple[Tile, ...], tuple[Tile, ...]]:
    """M11, M34: the rack and the bag once the side has drawn what the cap and the bag allow
    (always from its own bag)."""
    n = draw_count(len(rack), len(bag))
    return (rack + bag[:n], bag[n:]) if n else (rack, bag)


def place(
    state: GameState, side: Side, move: FormedMove, words: tuple[WordPlay, ...], now: float
) -> GameState:
    state = settled(state, now)
    board = state.board.with_tiles((t.row, t.col, t.placed) for t in move.tiles)
    rack = without(state.rack(side), (t.tile for t in move.tiles))
    if move.is_try:  # M23: the game ends at once; nobody draws any more.
        entry = LogEntry(
            state.next_entry_number, EntryKind.PLACE, now, side=side, tiles=move.tiles, words=words
        )
        state = replace(
            state,
            board=board,
            racks=with_side(state.racks, side, rack),
            idle_passes=0,
            clock=state.clock.charged(side, now),
            log=(*state.log, entry),
        )
        return _ended(state, side, EndCause.TRY, now)
    # One replace for the whole turn: this is the hot path of a live table.
    rack_after, bag = _drawn(rack, state.bag(side))
    drawn = len(rack_after) - len(rack)
    entry = LogEntry(
        state.next_entry_number,
        EntryKind.PLACE,
        now,
        side=side,
        tiles=move.tiles,
        words=words,
        count=drawn,
    )
    return replace(
        state,
        board=board,
        racks=with_side(state.racks, side, rack_after),
        bags=with_side(state.bags, side, bag),
        turn=side.other,
        clock=state.clock.charged(side, now),
        idle_passes=0,
        log=(*state.log, entry),
    )


def pass_turn(state: GameState, side: Side, now: float) -> GameState:
    state = settled(state, now)
    rack, bag = _drawn(state.rack(side), state.bag(side))
    drawn = len(rack) - len(state.rack(side))
    idle = state.idle_passes + 1 if drawn == 0 else 0
    entry = LogEntry(state.next_entry_number, EntryKind.PASS, now, side=side, count=drawn)
    state = replace(
        state,
        racks=with_side(state.racks, side, rack),
        bags=with_side(state.bags, side, bag),
        turn=side.other,
        clock=state.clock.charged(side, now),
        idle_passes=idle,
        log=(*state.log, entry),
    )
    if idle >= DEAD_POSITION_PASSES:
        return _ended(state, _more_time_left(state, now), EndCause.DEAD_POSITION, now)
    return state


def _more_time_left(state: GameState, now: float) -> Side | None:
    """M35: more time left wins; equal to the second (whole seconds left), a draw."""
    latin, arabic = (
        math.floor(state.clock.remaining(s, state.turn, now)) for s in (Side.LATIN, Side.ARABIC)
    )
    if latin == arabic:
        return None
    return Side.LATIN if latin > arabic else Side.ARABIC


def swap(state: GameState, side: Side, cell: tuple[int, int], tile: Tile, now: float) -> GameState:
    """M27: ``tile`` takes the blank's cell; the blank goes back to the rack, undeclared."""
    state = settled(state, now)
    row, col = cell
    board = state.board.with_tiles([(row, col, PlacedTile(tile))])
    rack = (*without(state.rack(side), [tile]), blank_of(side))
    state = replace(state, board=board, racks=with_side(state.racks, side, rack))
    return _logged(state, EntryKind.SWAP, now, side=side, tiles=(TilePlacement(row, col, tile),))


def pause(state: GameState, side: Side, now: float) -> GameState:
    state = settled(state, now)
    state = replace(state, clock=state.clock.paused(side, state.turn, now))
    return _logged(state, EntryKind.PAUSE, now, side=side)


def resume(state: GameState, side: Side, now: float) -> GameState:
    state = replace(state, clock=state.clock.resumed(now))
    return _logged(state, EntryKind.RESUME, now, side=side)


def resign(state: GameState, side: Side, now: float) -> GameState:
    """M31: at any moment; the opponent wins at once. The running clock stops at ``now``."""
    state = settled(state, now)
    state = replace(state, clock=state.clock.charged(state.turn, now))
    state = _logged(state, EntryKind.RESIGN, now, side=side)
    return _ended(state, side.other, EndCause.RESIGN, now)


def flag_fall(state: GameState) -> GameState:
    """M29: the mover's bank reached 0; the opponent wins, at the flag instant."""
    mover = state.turn
    at = state.clock.flag_at(mover)
    state = settled(state, at)
    state = replace(state, clock=state.clock.flagged(mover))
    return _ended(state, mover.other, EndCause.FLAG, at)
