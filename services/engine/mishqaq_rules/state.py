"""The whole state of one game, as plain immutable values (M4–M13, M24, M28–M30, M35).

The state holds both racks and both bags' order: it is for the engine and for storage only.
What a side may see comes from :mod:`mishqaq_rules.views`.

>>> game = new_game(latin="fr", seed=7, now=0.0, opening=Side.ARABIC)
>>> [len(r) for r in game.racks], [len(b) for b in game.bags], game.turn
([6, 6], [69, 69], <Side.ARABIC: 'arabic'>)
>>> GameState.from_dict(game.to_dict()) == game
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Final

from mishqaq_rules import plain
from mishqaq_rules.board import RED_SQUARES, Board
from mishqaq_rules.clock import DEFAULT_BANK_SECONDS, Clock, check_bank
from mishqaq_rules.log import Ending, EntryKind, LogEntry
from mishqaq_rules.opening import draw_opening
from mishqaq_rules.reasons import InvalidOptionError, StateFormatError
from mishqaq_rules.sides import LATIN_LISTS, Side, lexicon_id
from mishqaq_rules.tiles import Tile, bag_tiles
from rules_core.reserve import Reserve

STATE_FORMAT: Final = "mishqaq-state/1"
STARTING_RACK: Final = 6  # M11
DRAW_AFTER_TURN: Final = 3  # M11
RACK_MAX: Final = 12  # M11 (decision)
DEAD_POSITION_PASSES: Final = 4  # M35: two per player


def draw_count(rack_size: int, bag_size: int) -> int:
    """M11: ``min(3, 12 − rack, tiles left in own bag)`` (never negative).

    >>> draw_count(6, 60), draw_count(11, 60), draw_count(12, 60), draw_count(4, 2)
    (3, 1, 0, 2)
    """
    return max(0, min(DRAW_AFTER_TURN, RACK_MAX - rack_size, bag_size))


@dataclass(frozen=True, slots=True)
class GameState:
    latin: str
    """The table's Latin list, ``fr`` or ``en`` (M2); it also picks the Latin bag (M9)."""
    seed: int
    board: Board
    bags: tuple[tuple[Tile, ...], tuple[Tile, ...]]
    """(Latin, Arabic) in draw order: the next tile drawn from a bag is its first."""
    racks: tuple[tuple[Tile, ...], tuple[Tile, ...]]
    turn: Side
    """The mover: whose placement or pass is awaited, and whose bank runs (M28)."""
    clock: Clock
    reserves: tuple[Reserve, Reserve]
    """The anti-probing reserve per side (M24 = Lexio's R20)."""
    idle_passes: int
    """Consecutive turns that were passes drawing nothing (M35)."""
    log: tuple[LogEntry, ...]
    ending: Ending | None = None
    log_offset: int = 0
    """How many entries come before ``log``, kept by whoever holds the state: a service may
    hold a state without its past log, which only numbers the next entry (as in Lexio)."""

    @property
    def over(self) -> bool:
        return self.ending is not None

    @property
    def next_entry_number(self) -> int:
        return self.log_offset + len(self.log) + 1

    def rack(self, side: Side) -> tuple[Tile, ...]:
        return self.racks[side.index]

    def bag(self, side: Side) -> tuple[Tile, ...]:
        return self.bags[side.index]

    def first_placement_due(self, side: Side) -> bool:
        """M14: the side has not placed yet (its red square is still empty)."""
        row, col = RED_SQUARES[side]
        return self.board.at(row, col) is None

    def lexicon_for(self, side: Side) -> str:
        return lexicon_id(side, self.latin)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe plain form, bags' order included: private to the server, never a view."""
        return {
            "format": STATE_FORMAT,
            "latin": self.latin,
            "seed": self.seed,
            "board": plain.board_to_plain(self.board),
            "bags": plain.per_side(self.bags, plain.tiles_to_plain),
            "racks": plain.per_side(self.racks, plain.tiles_to_plain),
            "turn": self.turn.value,
            "clock": plain.clock_to_plain(self.clock),
            "reserves": plain.per_side(self.reserves, plain.reserve_to_plain),
            "idle_passes": self.idle_passes,
            "log": [plain.entry_to_plain(e) for e in self.log],
            "log_offset": self.log_offset,
            "ending": None if self.ending is None else plain.ending_to_plain(self.ending),
        }

    @classmethod
    def from_dict(cls, data: Any) -> GameState:
        """Read :meth:`to_dict`'s form; :class:`StateFormatError` names what is wrong."""
        read = plain.Reader(data, "state")
        if read.field("format") != STATE_FORMAT:
            raise StateFormatError(f'state.format: not "{STATE_FORMAT}"')
        latin = read.field("latin")
        if latin not in LATIN_LISTS:
            raise StateFormatError(f"state.latin: not one of {', '.join(LATIN_LISTS)}")
        bags = read.pair("bags", plain.tiles_from_plain)
        racks = read.pair("racks", plain.tiles_from_plain)
        ending = read.field("ending")
        return cls(
            latin=str(latin),
            seed=read.integer("seed"),
            board=plain.board_from_plain(read.field("board"), "state.board"),
            bags=bags,
            racks=racks,
            turn=read.side("turn"),
            clock=plain.clock_from_plain(read.field("clock"), "state.clock"),
            reserves=read.pair("reserves", plain.reserve_from_plain),
            idle_passes=read.integer("idle_passes", minimum=0),
            log=read.items("log", plain.entry_from_plain),
            ending=None if ending is None else plain.ending_from_plain(ending, "state.ending"),
            log_offset=read.integer("log_offset", minimum=0),
        )


def new_game(
    *,
    latin: str,
    seed: int,
    now: float,
    banks: tuple[float, float] = (DEFAULT_BANK_SECONDS, DEFAULT_BANK_SECONDS),
    opening: Side | None = None,
) -> GameState:
    """Both bags full (M7–M9), the opening draw (M13) unless ``opening`` names the opener
    (records, tests), the bags shuffled, 6 tiles per rack (M11), the opener to move.

    Everything random comes from ``seed``: the same seed gives the same draw and bags.

    >>> game = new_game(latin="en", seed=3, now=5.0)
    >>> entry = game.log[0]
    >>> entry.kind.value, entry.side is game.turn, len(entry.draws) >= 1
    ('opening', True, True)
    """
    if latin not in LATIN_LISTS:
        raise InvalidOptionError(f"the Latin lexicon is one of {LATIN_LISTS}, not {latin!r}")
    if len(banks) != 2 or not all(check_bank(b) for b in banks):
        raise InvalidOptionError(f"banks must be two positive numbers of seconds, not {banks!r}")
    rng = random.Random(f"mishqaq/{seed}")
    latin_bag = list(bag_tiles(Side.LATIN, latin))
    arabic_bag = list(bag_tiles(Side.ARABIC, latin))
    draws: tuple[tuple[Tile, Tile], ...] = ()
    if opening is None:
        drawn = draw_opening(latin_bag, arabic_bag, rng)
        opening, draws = drawn.opener, drawn.rounds
    rng.shuffle(latin_bag)
    rng.shuffle(arabic_bag)
    entry = LogEntry(1, EntryKind.OPENING, now, side=opening, draws=draws)
    return GameState(
        latin=latin,
        seed=seed,
        board=Board.empty(),
        bags=(tuple(latin_bag[STARTING_RACK:]), tuple(arabic_bag[STARTING_RACK:])),
        racks=(tuple(latin_bag[:STARTING_RACK]), tuple(arabic_bag[:STARTING_RACK])),
        turn=opening,
        clock=Clock.start((float(banks[0]), float(banks[1])), now),
        reserves=(Reserve.full(), Reserve.full()),
        idle_passes=0,
        log=(entry,),
    )
