"""al-Mishqaq's rules: a pure, standard-library-only package (mishqaq-rules.md M1–M37).

Small immutable values (:class:`GameState`, actions, views) and functions over them.
"Is it legal?" (:func:`examine`) is kept apart from "apply it" (:func:`conclude`); :func:`play`
does both with local lexicons, keyed by list id (``fr``, ``en``, ``ar``). Time (``now``) and
the seed are parameters: nothing here reads a clock or draws at random by itself.

>>> from dataclasses import replace
>>> from mishqaq_rules import Place, Side, Tile, WordSet, new_game, play
>>> game = new_game(latin="fr", seed=3, now=0.0, opening=Side.LATIN)
>>> rack = tuple(Tile.parse(t, Side.LATIN) for t in ("C", "A", "T", "S", "?", "R+"))
>>> game = replace(game, racks=(rack, game.racks[1]))
>>> outcome = play(game, Side.LATIN, Place.of((10, 1, "C"), (10, 2, "A"), (10, 3, "T")),
...                now=2.0, lexicons={"fr": WordSet(["CAT"])})
>>> outcome.accepted, [(w.word, w.direction.value) for w in outcome.entry.words]
(True, [('CAT', 'across')])
>>> outcome.state.turn, len(outcome.state.rack(Side.LATIN))
(<Side.ARABIC: 'arabic'>, 6)
"""

from __future__ import annotations

from mishqaq_rules.actions import (
    Action,
    Pass,
    Pause,
    Place,
    Resign,
    Resume,
    Swap,
    TilePlacement,
    Timeout,
)
from mishqaq_rules.board import CELLS, RED_SQUARES, SIZE, TARGET_COLUMNS, Board, PlacedTile
from mishqaq_rules.clock import (
    BANK_CHOICES_SECONDS,
    DEFAULT_BANK_SECONDS,
    PAUSE_SECONDS,
    PAUSES_PER_SIDE,
    Clock,
    MeaningPause,
)
from mishqaq_rules.game import (
    Accepted,
    Examined,
    Lexicon,
    Outcome,
    Refusal,
    Refused,
    WordSet,
    conclude,
    examine,
    play,
)
from mishqaq_rules.history import (
    GameNotOverError,
    History,
    HistoryStep,
    NotReplayableError,
    replay_history,
)
from mishqaq_rules.log import Direction, EndCause, Ending, EntryKind, LogEntry, WordPlay
from mishqaq_rules.placement import FormedMove, FormedWord, form_move
from mishqaq_rules.reasons import (
    ClockRefusal,
    InvalidOptionError,
    LexiconUnavailableError,
    MalformedActionError,
    MishqaqError,
    Reason,
    StateFormatError,
)
from mishqaq_rules.side_record import side_record
from mishqaq_rules.sides import ARABIC_LIST, LATIN_LISTS, SIDES, Side, lexicon_id
from mishqaq_rules.state import (
    DEAD_POSITION_PASSES,
    RACK_MAX,
    STARTING_RACK,
    STATE_FORMAT,
    GameState,
    new_game,
)
from mishqaq_rules.tiles import BAG_SIZE, Tile, bag_counts, bag_tiles
from mishqaq_rules.views import PauseView, SideView, next_clock_event, side_view
from rules_core.reserve import REGAIN_SECONDS, RESERVE_MAX, Reserve

__all__ = [
    "ARABIC_LIST",
    "BAG_SIZE",
    "BANK_CHOICES_SECONDS",
    "CELLS",
    "DEAD_POSITION_PASSES",
    "DEFAULT_BANK_SECONDS",
    "LATIN_LISTS",
    "PAUSES_PER_SIDE",
    "PAUSE_SECONDS",
    "RACK_MAX",
    "RED_SQUARES",
    "REGAIN_SECONDS",
    "RESERVE_MAX",
    "SIDES",
    "SIZE",
    "STARTING_RACK",
    "STATE_FORMAT",
    "TARGET_COLUMNS",
    "Accepted",
    "Action",
    "Board",
    "Clock",
    "ClockRefusal",
    "Direction",
    "EndCause",
    "Ending",
    "EntryKind",
    "Examined",
    "FormedMove",
    "FormedWord",
    "GameNotOverError",
    "GameState",
    "History",
    "HistoryStep",
    "InvalidOptionError",
    "Lexicon",
    "LexiconUnavailableError",
    "LogEntry",
    "MalformedActionError",
    "MeaningPause",
    "MishqaqError",
    "NotReplayableError",
    "Outcome",
    "Pass",
    "Pause",
    "PauseView",
    "Place",
    "PlacedTile",
    "Reason",
    "Refusal",
    "Refused",
    "Reserve",
    "Resign",
    "Resume",
    "Side",
    "SideView",
    "StateFormatError",
    "Swap",
    "Tile",
    "TilePlacement",
    "Timeout",
    "WordPlay",
    "WordSet",
    "bag_counts",
    "bag_tiles",
    "conclude",
    "examine",
    "form_move",
    "lexicon_id",
    "new_game",
    "next_clock_event",
    "play",
    "replay_history",
    "side_record",
    "side_view",
]
