"""A finished game as one seat may review it: its record for that seat and its views, step by
step (issue 26). Nothing of a game in play, and nothing another seat would not have seen.

>>> from lexio_rules.actions import Pass
>>> from lexio_rules.game import WordSet, play
>>> from lexio_rules.state import new_game
>>> game = new_game(2, seed=4, now=0.0)
>>> for now in range(1, 5):
...     game = play(game, game.turn, Pass(), now=float(now), lexicon=WordSet(())).state
>>> done = review(game, 0, ["Ana", "Bruno"])
>>> len(done.steps), done.steps[-1].ending is not None, done.steps[0].rack == done.steps[1].rack
(5, True, True)
>>> done.record["final_racks"] == list(game.racks)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lexio_rules.history import replay_history
from lexio_rules.reasons import GameNotOverError
from lexio_rules.seat_record import seat_record
from lexio_rules.state import GameState
from lexio_rules.views import SeatView

__all__ = ["SeatReview", "review"]


@dataclass(frozen=True, slots=True)
class SeatReview:
    record: dict[str, Any]
    """The ``lexio-record/1`` document for the seat (:mod:`lexio_rules.seat_record`)."""
    steps: tuple[SeatView, ...]
    """The seat's view at the start, then after each log entry, without the log."""


def review(state: GameState, seat: int, players: Sequence[str]) -> SeatReview:
    """``state`` (a finished game with its whole log) as ``seat`` may review it.

    :class:`InvalidSeatError` for a seat or names the game does not have,
    :class:`GameNotOverError` before the end, :class:`ReviewUnavailableError` for a state
    that cannot be replayed."""
    state.check_seat(seat)
    if not state.over:
        raise GameNotOverError("the game has not ended")
    history = replay_history(state)
    return SeatReview(seat_record(history, seat, players), history.seat_views(seat))
