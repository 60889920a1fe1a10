"""Lexio's rules: a pure, standard-library-only package (lexio-rules.md R4–R33).

Small immutable values (:class:`GameState`, actions, views) and functions over them.
"Is it legal?" (:func:`examine`, :func:`preview`) is kept apart from "apply it"
(:func:`conclude`); :func:`play` does both with a local lexicon. Apart from the rules,
:func:`legal_placements` finds placements they accept, for bots and tests.

>>> from dataclasses import replace
>>> from lexio_rules import Place, WordSet, new_game, play
>>> game = replace(new_game(2, seed=3, now=0.0), racks=("OS?ABCD", "EEEEEEE"))
>>> outcome = play(game, 0, Place.of((6, 5, "O"), (6, 6, "S")), now=1.0, lexicon=WordSet(["OS"]))
>>> outcome.accepted, outcome.state.scores
(True, (2, 0))
"""

from __future__ import annotations

from lexio_rules.actions import Action, Exchange, Pass, PassCause, Place, TilePlacement
from lexio_rules.game import (
    Accepted,
    Examined,
    Lexicon,
    Outcome,
    Refusal,
    Refused,
    WordSet,
    conclude,
    examine,
    final_reckoning,
    play,
    preview,
)
from lexio_rules.history import History, replay_history
from lexio_rules.placement import BINGO_BONUS, FormedMove, FormedWord, form_move
from lexio_rules.reasons import (
    GameNotOverError,
    InvalidSeatError,
    LexiconUnavailableError,
    LexioError,
    MalformedActionError,
    Reason,
    ReviewUnavailableError,
    StateFormatError,
)
from lexio_rules.reserve import REGAIN_SECONDS, RESERVE_MAX, Reserve
from lexio_rules.review import SeatReview, review
from lexio_rules.search import DEFAULT_TRIES, WordIndex, legal_placements
from lexio_rules.state import (
    DEFAULT_TURN_SECONDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    EndCause,
    Ending,
    EntryKind,
    GameState,
    LogEntry,
    WordScore,
    new_game,
)
from lexio_rules.views import SeatView, all_views, seat_view

__all__ = [
    "BINGO_BONUS",
    "DEFAULT_TRIES",
    "DEFAULT_TURN_SECONDS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "REGAIN_SECONDS",
    "RESERVE_MAX",
    "Accepted",
    "Action",
    "EndCause",
    "Ending",
    "EntryKind",
    "Examined",
    "Exchange",
    "FormedMove",
    "FormedWord",
    "GameNotOverError",
    "GameState",
    "History",
    "InvalidSeatError",
    "Lexicon",
    "LexiconUnavailableError",
    "LexioError",
    "LogEntry",
    "MalformedActionError",
    "Outcome",
    "Pass",
    "PassCause",
    "Place",
    "Reason",
    "Refusal",
    "Refused",
    "Reserve",
    "ReviewUnavailableError",
    "SeatReview",
    "SeatView",
    "StateFormatError",
    "TilePlacement",
    "WordIndex",
    "WordScore",
    "WordSet",
    "all_views",
    "conclude",
    "examine",
    "final_reckoning",
    "form_move",
    "legal_placements",
    "new_game",
    "play",
    "preview",
    "replay_history",
    "review",
    "seat_view",
]
