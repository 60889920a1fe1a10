"""A naive player for benchmarks and load: finds real French moves through real words.

It is no opponent: it picks random lexicon words that cross a tile on the board and keeps
the first whose every word the lexicon knows. Racks are ignored (the caller supplies the
tiles), so it only serves to reach realistic mid-game boards and moves quickly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from lexio_rules import Examined, GameState, Lexicon, Place, TilePlacement, examine
from lexio_rules.board import CENTRE, SIZE, index, is_empty, on_board


def candidate(state: GameState, words: Sequence[str], rng: random.Random) -> Place | None:
    """A placement of one random word through one random tile (or the source, first)."""
    word = rng.choice(words)
    across = rng.random() < 0.5
    if is_empty(state.board):
        anchor, at = CENTRE, rng.randrange(len(word))
    else:
        tiles = [
            (r, c) for r in range(SIZE) for c in range(SIZE) if state.board[index(r, c)].isalpha()
        ]
        anchor = rng.choice(tiles)
        letter = state.board[index(*anchor)].upper()
        spots = [i for i, ch in enumerate(word) if ch == letter]
        if not spots:
            return None
        at = rng.choice(spots)
    dr, dc = (0, 1) if across else (1, 0)
    row, col = anchor[0] - at * dr, anchor[1] - at * dc
    placed = []
    for i, ch in enumerate(word):
        r, c = row + i * dr, col + i * dc
        if not on_board(r, c):
            return None
        on_cell = state.board[index(r, c)]
        if on_cell.isalpha():
            if on_cell.upper() != ch:
                return None
        else:
            placed.append(TilePlacement(r, c, ch))
    if not placed or len(placed) > 7:
        return None
    return Place(tuple(placed))


def with_tiles(state: GameState, seat: int, place: Place) -> GameState:
    """The state with ``seat`` holding the placement's tiles (benchmarks ignore the bag)."""
    needed = "".join(t.rack_tile for t in place.tiles)
    racks = list(state.racks)
    racks[seat] = (needed + racks[seat])[: max(7, len(needed))]
    return replace(state, racks=tuple(racks))


def find_move(
    state: GameState, words: Sequence[str], lexicon: Lexicon, rng: random.Random, tries: int = 5000
) -> tuple[GameState, Place] | None:
    """A legal placement for the seat to play whose words the lexicon all knows."""
    for _ in range(tries):
        place = candidate(state, words, rng)
        if place is None:
            continue
        ready = with_tiles(state, state.turn, place)
        examined = examine(ready, state.turn, place, state.turn_started_at)
        if isinstance(examined, Examined) and not lexicon.unknown(examined.words_to_check):
            return ready, place
    return None
