"""The whole state of one game (N1–N3, N9, N11), and its stored form (N12).

Nothing in it is secret (N10): the state is the board, the seat to move, the log and the
ending.

>>> game = new_game()
>>> game.turn, game.mover, game.board.full, game.over
(0, <Mark.X: 'X'>, False, False)
>>> GameState.from_dict(game.to_dict()) == game
True
>>> GameState.from_dict({**game.to_dict(), "format": "noughts-state/2"})
Traceback (most recent call last):
...
rules_core.errors.StateFormatError: state.format: not "noughts-state/1"
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from noughts_rules import plain
from noughts_rules.board import CELLS, SIZE, Board, Mark
from noughts_rules.log import Ending, LogEntry
from noughts_rules.reasons import InvalidSeatError, StateFormatError

STATE_FORMAT: Final = "noughts-state/1"
"""N12: the ``format`` of a stored state."""

SEATS: Final = (0, 1)
"""N1: seat 0 plays X, seat 1 plays O."""


def check_seat(seat: object) -> int:
    """N1: ``seat`` as a seat of the game, else :class:`InvalidSeatError`.

    >>> check_seat(1)
    1
    >>> check_seat(2)
    Traceback (most recent call last):
    ...
    noughts_rules.reasons.InvalidSeatError: seat: 0 or 1, not 2
    """
    if type(seat) is not int or seat not in SEATS:
        raise InvalidSeatError(f"seat: 0 or 1, not {seat!r}")
    return seat


@dataclass(frozen=True, slots=True)
class GameState:
    board: Board
    turn: int
    """N3: the seat to move; after the end, the seat that would have moved."""
    log: tuple[LogEntry, ...] = ()
    ending: Ending | None = None

    @property
    def over(self) -> bool:
        return self.ending is not None

    @property
    def mover(self) -> Mark:
        return Mark.of_seat(self.turn)

    @property
    def next_entry_number(self) -> int:
        return len(self.log) + 1

    def to_dict(self) -> dict[str, Any]:
        """N12: a JSON-safe plain form."""
        return {
            "format": STATE_FORMAT,
            "board": [cell for row in self.board.rows() for cell in row],
            "turn": self.turn,
            "log": [plain.entry_to_plain(e) for e in self.log],
            "ending": None if self.ending is None else plain.ending_to_plain(self.ending),
        }

    @classmethod
    def from_dict(cls, data: object) -> GameState:
        """Read :meth:`to_dict`'s form; :class:`StateFormatError` names what is wrong."""
        state = plain.obj(data, "state")
        if state.get("format") != STATE_FORMAT:
            raise StateFormatError(f'state.format: not "{STATE_FORMAT}"')
        board = _board_from_plain(plain.field(state, "board", "state"))
        turn = plain.seat(plain.field(state, "turn", "state"), "state.turn")
        # N3: X moves first and marks alternate, so the mover is what X has more than O.
        if board.count(Mark.X) - board.count(Mark.O) != turn:
            raise plain.fail("state.turn", "not the seat the marks on the board say")
        log = plain.field(state, "log", "state")
        if not isinstance(log, list):
            raise plain.fail("state.log", "not a list")
        entries = tuple(plain.entry_from_plain(e, f"state.log[{i}]") for i, e in enumerate(log))
        if [e.number for e in entries] != list(range(1, len(entries) + 1)):
            raise plain.fail("state.log", "not numbered from 1")
        ending = plain.field(state, "ending", "state")
        return cls(
            board=board,
            turn=turn,
            log=entries,
            ending=None if ending is None else plain.ending_from_plain(ending, "state.ending"),
        )


def _board_from_plain(value: object) -> Board:
    if not isinstance(value, list) or len(value) != len(CELLS):
        raise plain.fail("state.board", f"not a list of {SIZE * SIZE} cells")
    cells: list[Mark | None] = []
    for i, text in enumerate(value):
        if text == "":
            cells.append(None)
        elif text in ("X", "O"):
            cells.append(Mark(text))
        else:
            raise plain.fail(f"state.board[{i}]", 'not "", "X" or "O"')
    return Board(tuple(cells))


def new_game() -> GameState:
    """N2, N3: an empty board, X (seat 0) to move."""
    return GameState(board=Board.empty(), turn=0)
