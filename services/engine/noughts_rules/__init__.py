"""Noughts and crosses (RULES.md, N1–N12): the site's example game, pure and standard-library
only.

Small immutable values (:class:`GameState`, actions, views) and functions over them. "Is it
legal?" (:func:`examine`) is kept apart from "apply it" (:func:`conclude`); :func:`play` does
both. Time (``now``) is a parameter that only stamps the log; there is no randomness, no
clock and no word list. Built on :mod:`rules_core` (its errors) and on no other game.

>>> from noughts_rules import MarkCell, new_game, play
>>> game = new_game()
>>> for seat, (row, col) in enumerate([(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)]):
...     outcome = play(game, seat % 2, MarkCell(row, col), now=float(seat))
...     game = outcome.state
>>> [e.kind.value for e in outcome.entries], game.ending.winner, game.ending.line
(['mark', 'result'], 0, ((0, 0), (0, 1), (0, 2)))
>>> play(game, 1, MarkCell(2, 2), now=9.0).refusal.reason.value
'game_over'
"""

from __future__ import annotations

from noughts_rules.actions import Action, MarkCell, Resign
from noughts_rules.board import CELLS, LINES, SIZE, Board, Cell, Mark, on_board
from noughts_rules.game import (
    Accepted,
    Examined,
    Outcome,
    Refusal,
    Refused,
    conclude,
    examine,
    play,
)
from noughts_rules.log import EndCause, Ending, EntryKind, LogEntry
from noughts_rules.reasons import (
    InvalidSeatError,
    MalformedActionError,
    NoughtsError,
    Reason,
    StateFormatError,
)
from noughts_rules.state import SEATS, STATE_FORMAT, GameState, check_seat, new_game
from noughts_rules.views import SeatView, seat_view

__all__ = [
    "CELLS",
    "LINES",
    "SEATS",
    "SIZE",
    "STATE_FORMAT",
    "Accepted",
    "Action",
    "Board",
    "Cell",
    "EndCause",
    "Ending",
    "EntryKind",
    "Examined",
    "GameState",
    "InvalidSeatError",
    "LogEntry",
    "MalformedActionError",
    "Mark",
    "MarkCell",
    "NoughtsError",
    "Outcome",
    "Reason",
    "Refusal",
    "Refused",
    "Resign",
    "SeatView",
    "StateFormatError",
    "check_seat",
    "conclude",
    "examine",
    "new_game",
    "on_board",
    "play",
    "seat_view",
]
