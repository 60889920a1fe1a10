"""The form of a placement (R12–R15) and the words it makes (R14); its score (R21–R24).

Nothing here consults the lexicon: the same code serves validation before the lexicon look-up
and the preview of R25, which must never probe the lexicon.

>>> from lexio_rules.board import EMPTY_BOARD
>>> move = form_move(EMPTY_BOARD, "TABLEUS", Place.of((6, 2, "T"), (6, 3, "A"), (6, 4, "B"),
...                                                  (6, 5, "L"), (6, 6, "E")))
>>> [(w.word, w.score) for w in move.words], move.score
([('TABLE', 7)], 7)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from lexio_rules.actions import Place, TilePlacement
from lexio_rules.board import (
    CENTRE,
    EMPTY,
    IS_CROSSING,
    LETTER_MULTIPLIER,
    SIZE,
    WORD_MULTIPLIER,
    index,
    is_empty,
    on_board,
)
from lexio_rules.reasons import Reason
from lexio_rules.tiles import RACK_SIZE, VALUES, contains_tiles

BINGO_BONUS: Final = 30
_CENTRE_INDEX: Final = index(*CENTRE)


@dataclass(frozen=True, slots=True)
class FormedWord:
    """A word the move makes, where it starts, and what it scores in this move."""

    word: str
    row: int
    col: int
    across: bool
    score: int


@dataclass(frozen=True, slots=True)
class FormedMove:
    """A placement whose form is legal: the words it makes (main word first) and its score."""

    tiles: tuple[TilePlacement, ...]
    words: tuple[FormedWord, ...]
    board: str
    """The board once the tiles lie on it."""
    bingo: bool
    score: int


def _word_cells(board: str, row: int, col: int, across: bool) -> tuple[int, int, list[int]]:
    """The maximal run of tiles through (row, col) along a direction: start and cell indexes."""
    dr, dc = (0, 1) if across else (1, 0)
    r, c = row, col
    while r - dr >= 0 and c - dc >= 0 and board[index(r - dr, c - dc)].isalpha():
        r, c = r - dr, c - dc
    start_r, start_c = r, c
    cells = []
    while r < SIZE and c < SIZE and board[index(r, c)].isalpha():
        cells.append(index(r, c))
        r, c = r + dr, c + dc
    return start_r, start_c, cells


def _score(board: str, cells: list[int], new: set[int], doubling_crossings: set[int]) -> int:
    """R21–R23: letter cells multiply new tiles, word cells and live crossings the word."""
    total = 0
    multiplier = 1
    for i in cells:
        ch = board[i]
        value = 0 if ch.islower() else VALUES[ch]
        if i in new:
            value *= LETTER_MULTIPLIER[i]
            multiplier *= WORD_MULTIPLIER[i]
            if i in doubling_crossings:
                multiplier *= 2
        total += value
    return total * multiplier


def _line_reason(board: str, tiles: tuple[TilePlacement, ...]) -> Reason | None:
    """R12: one row or one column, no empty cell between the tiles."""
    rows = {t.row for t in tiles}
    cols = {t.col for t in tiles}
    if len(rows) > 1 and len(cols) > 1:
        return Reason.NOT_IN_LINE
    if len(tiles) < 2:
        return None
    placed = {(t.row, t.col) for t in tiles}
    if len(rows) == 1:
        (row,) = rows
        line = [(row, c) for c in range(min(cols), max(cols) + 1)]
    else:
        (col,) = cols
        line = [(r, col) for r in range(min(rows), max(rows) + 1)]
    for r, c in line:
        if (r, c) not in placed and not board[index(r, c)].isalpha():
            return Reason.GAP
    return None


def form_move(board: str, rack: str | None, place: Place) -> FormedMove | Reason:
    """Check a placement's form and compute its words and score, or say why its form is refused.

    ``rack`` is the placing seat's rack; ``None`` skips the rack check (a record without racks).
    Reasons come in the precedence order of record-format.md.
    """
    tiles = place.tiles
    for t in tiles:
        if not on_board(t.row, t.col):
            return Reason.OFF_BOARD
    for t in tiles:
        if board[index(t.row, t.col)] != EMPTY:
            return Reason.OCCUPIED_MISMATCH
    line_reason = _line_reason(board, tiles)
    if line_reason is not None:
        return line_reason
    if not tiles:
        return Reason.NO_NEW_TILE
    if len(tiles) > RACK_SIZE:
        return Reason.TOO_MANY_TILES
    if rack is not None and not contains_tiles(rack, (t.rack_tile for t in tiles)):
        return Reason.TILES_NOT_IN_RACK
    first_move = is_empty(board)
    new = {index(t.row, t.col) for t in tiles}
    if first_move and _CENTRE_INDEX not in new:
        return Reason.FIRST_MOVE_OFF_SOURCE

    cells = list(board)
    for t in tiles:
        cells[index(t.row, t.col)] = t.board_char
    after = "".join(cells)

    ordered = sorted(tiles, key=lambda t: (t.row, t.col))
    # For each new tile, its across run and its down run (R14).
    runs = {
        index(t.row, t.col): (
            _word_cells(after, t.row, t.col, True),
            _word_cells(after, t.row, t.col, False),
        )
        for t in ordered
    }
    if len(tiles) >= 2:
        across = ordered[0].row == ordered[-1].row
    else:
        (across_run, _down_run) = runs[index(ordered[0].row, ordered[0].col)]
        across = len(across_run[2]) >= 2
    first = index(ordered[0].row, ordered[0].col)
    main = runs[first][0] if across else runs[first][1]
    if len(main[2]) < 2:
        return Reason.TOO_SHORT
    if not first_move and not _touches(board, tiles):
        return Reason.NOT_TOUCHING

    runs_of_move = [(main, across)]
    for t in ordered:
        cross = runs[index(t.row, t.col)][1 if across else 0]
        if len(cross[2]) >= 2:
            runs_of_move.append((cross, not across))
    # R23: a crossing pays only if its new tile serves in two words of the move.
    doubling = {
        i
        for i, (a_run, d_run) in runs.items()
        if IS_CROSSING[i] and len(a_run[2]) >= 2 and len(d_run[2]) >= 2
    }
    words = tuple(
        FormedWord(
            word="".join(after[i] for i in run_cells).upper(),
            row=r,
            col=c,
            across=run_across,
            score=_score(after, run_cells, new, doubling),
        )
        for (r, c, run_cells), run_across in runs_of_move
    )
    bingo = len(tiles) == RACK_SIZE
    score = sum(w.score for w in words) + (BINGO_BONUS if bingo else 0)
    return FormedMove(tuple(ordered), words, after, bingo, score)


def _touches(board: str, tiles: tuple[TilePlacement, ...]) -> bool:
    """R13: at least one new tile has a side against a tile already on the board."""
    for t in tiles:
        for r, c in (
            (t.row - 1, t.col),
            (t.row + 1, t.col),
            (t.row, t.col - 1),
            (t.row, t.col + 1),
        ):
            if 0 <= r < SIZE and 0 <= c < SIZE and board[index(r, c)].isalpha():
                return True
    return False
