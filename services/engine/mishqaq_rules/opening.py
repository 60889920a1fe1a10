"""Who opens (M13): each side draws one tile from its own bag; the lower rank opens.

Equal ranks, or a blank on either side, and both tiles go back and both redraw. The drawn
tiles always go back: the bags are shuffled only afterwards (:func:`mishqaq_rules.state.new_game`).

>>> from mishqaq_rules.tiles import Tile
>>> opener_of(Tile.parse("C"), Tile.parse("ب")), opener_of(Tile.parse("B+"), Tile.parse("ب"))
(<Side.ARABIC: 'arabic'>, None)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from mishqaq_rules.sides import Side
from mishqaq_rules.tiles import Tile, rank


@dataclass(frozen=True, slots=True)
class OpeningDraw:
    rounds: tuple[tuple[Tile, Tile], ...]
    """Each round's (Latin tile, Arabic tile); only the last one decided."""
    opener: Side


def opener_of(latin: Tile, arabic: Tile) -> Side | None:
    """The side whose tile ranks nearer the start of its alphabet; None: both redraw."""
    latin_rank, arabic_rank = rank(latin), rank(arabic)
    if latin_rank is None or arabic_rank is None or latin_rank == arabic_rank:
        return None
    return Side.LATIN if latin_rank < arabic_rank else Side.ARABIC


def draw_opening(
    latin_bag: Sequence[Tile], arabic_bag: Sequence[Tile], rng: random.Random
) -> OpeningDraw:
    """Draw rounds until one decides (a redraw happens on about 8.5 % of draws, appendix A.6)."""
    rounds: list[tuple[Tile, Tile]] = []
    while True:
        latin, arabic = rng.choice(latin_bag), rng.choice(arabic_bag)
        rounds.append((latin, arabic))
        opener = opener_of(latin, arabic)
        if opener is not None:
            return OpeningDraw(tuple(rounds), opener)
