"""An al-Mishqaq player that races toward its target column from what one side may see.

From its own view (the board and its own rack) it tries short lines of its rack tiles next to
its most advanced tiles — across in its reading direction, or down and up a column to turn a
corner — keeps those whose form the rules accept (:func:`mishqaq_rules.form_move`) and whose
every word its lexicon knows (any reading of a column), and plays the one that gets furthest
toward the target column (M23). No strong player: tests and load runs use it to play whole
games, to a try, through the real services.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mishqaq_rules import (
    RED_SQUARES,
    SIZE,
    Board,
    FormedMove,
    Lexicon,
    Place,
    PlacedTile,
    Side,
    Tile,
    TilePlacement,
    form_move,
)

ANCHORS = 3
"""How many of its most advanced tiles it builds from."""
MAX_TILES = 3
"""The longest line it tries (the number of rack orderings grows fast)."""


def board_of(cells: Sequence[str]) -> Board:
    """The view's 484 cell texts (mishqaq-record-format.md's board) as the rules' board."""
    placed = []
    for i, text in enumerate(cells):
        if not text:
            continue
        if text.startswith("?"):
            letter = text[1:]
            script = Side.LATIN if letter.isascii() else Side.ARABIC
            placed.append((i // SIZE, i % SIZE, PlacedTile(Tile.parse("?", script), letter)))
        else:
            placed.append((i // SIZE, i % SIZE, PlacedTile(Tile.parse(text))))
    return Board.empty().with_tiles(placed)


class MishqaqBot:
    """``budget``: at most that many candidate placements judged per move (None: every one of
    the lines it looks at). A load generator sharing the machine with the services sets one:
    the exhaustive search costs ~40 ms a move, a budget of 200 a few ms."""

    def __init__(self, lexicon: Lexicon, seed: int = 0, budget: int | None = None) -> None:
        self._lexicon = lexicon
        self.rng = random.Random(seed)
        self._budget = budget

    def _progress(self, side: Side, col: int) -> int:
        return col if side is Side.LATIN else SIZE - 1 - col

    def _known(self, move: FormedMove) -> bool:
        readings = [r for w in move.words for r in w.readings]
        unknown = set(self._lexicon.unknown(readings))
        return all(any(r not in unknown for r in w.readings) for w in move.words)

    def choose(self, view: Mapping[str, Any]) -> dict[str, Any] | None:
        """The placement to play (the protocol's ``action``), or None: nothing found."""
        side = Side(view["side"])
        board = board_of(view["board"])
        rack = tuple(Tile.parse(t["code"], side) for t in view["rack"])
        letters = [t for t in rack if not t.blank]
        best: tuple[tuple[int, int], Place] | None = None
        judged = 0
        for steps in self._lines(side, board):
            for count in range(min(MAX_TILES, len(letters), len(steps)), 0, -1):
                for tiles in self._orderings(letters, count):
                    if self._budget is not None and judged >= self._budget:
                        break
                    judged += 1
                    cells = steps[:count]
                    place = Place(
                        tuple(
                            TilePlacement(r, c, t) for (r, c), t in zip(cells, tiles, strict=True)
                        )
                    )
                    move = form_move(board, side, rack, place)
                    if not isinstance(move, FormedMove) or not self._known(move):
                        continue
                    score = (max(self._progress(side, t.col) for t in place.tiles), count)
                    if best is None or score > best[0]:
                        best = (score, place)
        if best is None:
            return None
        return {
            "place": {
                "tiles": [{"row": t.row, "col": t.col, "tile": t.tile.text} for t in best[1].tiles]
            }
        }

    def _orderings(self, letters: list[Tile], count: int) -> Iterable[tuple[Tile, ...]]:
        """Orderings of ``count`` rack tiles: all of them, or, with a budget, a random few."""
        if self._budget is None:
            return itertools.permutations(letters, count)
        share = max(1, self._budget // (2 * MAX_TILES))
        return [tuple(self.rng.sample(letters, count)) for _ in range(share)]

    def _lines(self, side: Side, board: Board) -> list[list[tuple[int, int]]]:
        """Where to lay tiles: from the red square for the first placement, else next to the
        side's most advanced tiles, forward across and down or up a column, over empty cells."""
        forward = 1 if side is Side.LATIN else -1
        red = RED_SQUARES[side]
        if board.at(*red) is None:
            row, col = red
            across = [(row, col + k * forward) for k in range(MAX_TILES + 1)]
            return [[c for c in across if 0 <= c[1] < SIZE]]
        own = sorted(
            ((r, c) for r, c, t in board.occupied() if t.owner is side),
            key=lambda rc: self._progress(side, rc[1]),
            reverse=True,
        )
        lines = []
        for row, col in own[:ANCHORS]:
            for dr, dc in ((0, forward), (1, 0), (-1, 0)):
                cells = []
                for k in range(1, MAX_TILES + 1):
                    r, c = row + k * dr, col + k * dc
                    if not (0 <= r < SIZE and 0 <= c < SIZE) or board.at(r, c) is not None:
                        break
                    cells.append((r, c))
                if cells:
                    lines.append(cells)
        self.rng.shuffle(lines)
        return lines
