"""The form of a placement and the words it makes, for the mover (M14, M17–M21, M23).

For the mover P, a cell is readable if it holds one of P's tiles (a blank as its declared
letter) or an opponent's non-blank bilingual tile (as its letter in P's script); any other
tile is opaque (M17). A P-run is a maximal line of readable cells. The main word is the P-run
along the placement's line and must hold every placed tile (M18); each placed tile's P-run
across the line is a cross word when it has 2 letters or more (M19). A row reads in P's
direction, a column either way (M20). Nothing here consults the lexicon.

>>> from mishqaq_rules.actions import Place
>>> from mishqaq_rules.tiles import Tile
>>> rack = tuple(Tile.parse(t) for t in ("C", "A", "T"))
>>> move = form_move(Board.empty(), Side.LATIN, rack, Place.of((10, 1, "C"), (10, 2, "A"),
...                                                            (10, 3, "T")))
>>> [w.readings for w in move.words], move.is_try
([('CAT',)], False)
"""

from __future__ import annotations

from dataclasses import dataclass

from mishqaq_rules.actions import Place, TilePlacement
from mishqaq_rules.board import RED_SQUARES, SIZE, TARGET_COLUMNS, Board, Cell
from mishqaq_rules.log import Direction
from mishqaq_rules.reasons import Reason
from mishqaq_rules.sides import Side
from mishqaq_rules.tiles import Tile, holds


@dataclass(frozen=True, slots=True)
class FormedWord:
    """A P-run the move makes: its cells in board order (left→right, top→bottom) and the
    readings the lexicon may know (one for a row; top→bottom then bottom→top for a column)."""

    cells: tuple[int, ...]
    across: bool
    readings: tuple[str, ...]

    def direction(self, reading: int) -> Direction:
        if self.across:
            return Direction.ACROSS
        return Direction.DOWN if reading == 0 else Direction.UP

    def first_cell(self, reading: int, script: Side) -> tuple[int, int]:
        """The (row, col) of the first letter of ``readings[reading]``."""
        if self.across:
            i = self.cells[0] if script is Side.LATIN else self.cells[-1]
        else:
            i = self.cells[0] if reading == 0 else self.cells[-1]
        return divmod(i, SIZE)


@dataclass(frozen=True, slots=True)
class FormedMove:
    """A placement whose form is legal: its tiles and its words, main word first."""

    tiles: tuple[TilePlacement, ...]
    words: tuple[FormedWord, ...]
    is_try: bool
    """A placed tile lies in the mover's target column (M23), if the words are accepted."""


class _Reader:
    """What the mover reads on the board with the new tiles laid on it."""

    __slots__ = ("cells", "new", "side")

    def __init__(self, cells: tuple[Cell, ...], new: dict[int, str], side: Side) -> None:
        self.cells = cells
        self.new = new
        self.side = side

    def letter(self, i: int) -> str | None:
        letter = self.new.get(i)
        if letter is not None:
            return letter
        cell = self.cells[i]
        return None if cell is None else cell.reading(self.side)

    def run(self, i: int, across: bool) -> tuple[int, ...]:
        """The P-run through cell ``i`` (readable itself), in board order."""
        letter = self.letter
        row, col = divmod(i, SIZE)
        if across:
            first = last = col
            base = row * SIZE
            while first > 0 and letter(base + first - 1) is not None:
                first -= 1
            while last < SIZE - 1 and letter(base + last + 1) is not None:
                last += 1
            return tuple(range(base + first, base + last + 1))
        first = last = row
        while first > 0 and letter((first - 1) * SIZE + col) is not None:
            first -= 1
        while last < SIZE - 1 and letter((last + 1) * SIZE + col) is not None:
            last += 1
        return tuple(range(first * SIZE + col, last * SIZE + col + 1, SIZE))

    def anchored(self, run: tuple[int, ...]) -> bool:
        """M21: the run holds an own tile that was on the board before this move."""
        cells, new, side = self.cells, self.new, self.side
        for i in run:
            cell = cells[i]
            if cell is not None and i not in new and cell.tile.script is side:
                return True
        return False

    def word(self, run: tuple[int, ...], across: bool) -> FormedWord:
        text = "".join(self.letter(i) or "" for i in run)
        readings: tuple[str, ...]
        if across:
            readings = (text,) if self.side is Side.LATIN else (text[::-1],)
        else:
            readings = (text, text[::-1])
        return FormedWord(run, across, readings)


def form_move(
    board: Board, side: Side, rack: tuple[Tile, ...], place: Place
) -> FormedMove | Reason:
    """Check a placement's form for ``side`` holding ``rack``; its words, or why it is refused
    (in the precedence order of the record format)."""
    tiles = place.tiles
    for t in tiles:
        if not (0 <= t.row < SIZE and 0 <= t.col < SIZE):
            return Reason.OFF_BOARD
    cells = board.cells
    for t in tiles:
        if cells[t.row * SIZE + t.col] is not None:
            return Reason.OCCUPIED
    rows = {t.row for t in tiles}
    cols = {t.col for t in tiles}
    if len(rows) > 1 and len(cols) > 1:
        return Reason.NOT_IN_LINE
    if not tiles:
        return Reason.NO_NEW_TILE
    if not holds(rack, (t.tile for t in tiles)):
        return Reason.TILES_NOT_IN_RACK
    red_row, red_col = RED_SQUARES[side]
    # M14: the own red square stays empty until the side's first placement covers it (only a
    # try, which ends the game, could put an opponent's tile there).
    first_placement = cells[red_row * SIZE + red_col] is None
    if first_placement and not any(t.row == red_row and t.col == red_col for t in tiles):
        return Reason.FIRST_MOVE_OFF_START

    new = {t.row * SIZE + t.col: t.placed.letter for t in tiles}
    reader = _Reader(cells, new, side)
    first_tile = tiles[0].row * SIZE + tiles[0].col
    if len(tiles) >= 2:
        across = len(rows) == 1
        main = reader.run(first_tile, across)
        if not new.keys() <= set(main):
            return Reason.GAP
        if not first_placement and not reader.anchored(main):
            return Reason.NO_ANCHOR
    else:
        row_run = reader.run(first_tile, True)
        col_run = reader.run(first_tile, False)
        if len(row_run) < 2 and len(col_run) < 2:
            return Reason.TOO_SHORT
        # M18: the row run is the main word if it is a word the mover may play, else the column.
        if len(row_run) >= 2 and (first_placement or reader.anchored(row_run)):
            across, main = True, row_run
        elif len(col_run) >= 2 and (first_placement or reader.anchored(col_run)):
            across, main = False, col_run
        else:
            return Reason.NO_ANCHOR

    words = [reader.word(main, across)]
    for t in tiles:
        cross = reader.run(t.row * SIZE + t.col, not across)
        if len(cross) >= 2:
            words.append(reader.word(cross, not across))
    target = TARGET_COLUMNS[side]
    return FormedMove(tiles, tuple(words), any(t.col == target for t in tiles))
