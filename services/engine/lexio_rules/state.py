"""The whole state of one game, as plain immutable values.

The state holds every rack and the bag's order: it is for the engine and for storage only.
What a player may see comes from :mod:`lexio_rules.views`.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass
from typing import Final

from lexio_rules.actions import PassCause, TilePlacement
from lexio_rules.board import EMPTY_BOARD
from lexio_rules.reasons import InvalidSeatError
from lexio_rules.reserve import Reserve
from lexio_rules.tiles import RACK_SIZE, full_set

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4  # R33: 4 racks renewed twice take 84 of the 102 tiles.
DEFAULT_TURN_SECONDS: Final = 120.0  # R28 (decision)


class EntryKind(enum.Enum):
    PLACE = "place"
    EXCHANGE = "exchange"
    PASS = "pass"


class EndCause(enum.Enum):
    RACK_EMPTIED = "rack_emptied"
    """R30: a player placed their last tile with the bag empty."""
    NO_PLACEMENT = "no_placement"
    """R31: two full rounds of the table without a placement."""


@dataclass(frozen=True, slots=True)
class WordScore:
    word: str
    score: int
    row: int
    col: int
    across: bool


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of the public game log (R11). Exchanges say how many tiles, never which."""

    number: int
    seat: int
    kind: EntryKind
    at: float
    words: tuple[WordScore, ...] = ()
    tiles: tuple[TilePlacement, ...] = ()
    score: int = 0
    bingo: bool = False
    count: int = 0
    cause: PassCause | None = None


@dataclass(frozen=True, slots=True)
class Ending:
    cause: EndCause
    finisher: int | None
    adjustments: tuple[int, ...]
    final_scores: tuple[int, ...]
    winners: tuple[int, ...]
    racks: tuple[str, ...]
    """Every rack at the end, revealed to the whole table (R32)."""


@dataclass(frozen=True, slots=True)
class GameState:
    seed: int
    shuffles: int
    board: str
    racks: tuple[str, ...]
    bag: str
    """Draw order: the next tile drawn is ``bag[0]``."""
    scores: tuple[int, ...]
    turn: int
    turn_started_at: float
    turn_seconds: float
    reserves: tuple[Reserve, ...]
    turns_without_placement: int
    log: tuple[LogEntry, ...]
    ending: Ending | None = None
    log_offset: int = 0
    """How many entries come before ``log``, kept by whoever holds the state: the engine
    service reads a state without its past log, which only numbers the next entry, and puts
    the new entries after the past ones it received (converting the whole log both ways
    on every move took ~15 % of its CPU and grew with the game)."""
    exchanged: tuple[str, ...] = ()
    """The tiles each exchange gave back, in the log's order (``?`` for a blank): private like
    the racks (R27: the log says only how many), kept because the bag is reshuffled with them
    (R26), so that the game can be replayed from ``seed`` for its review
    (:mod:`lexio_rules.history`)."""

    @property
    def next_entry_number(self) -> int:
        """The number of the next log entry (R11 numbers them from 1)."""
        return self.log_offset + len(self.log) + 1

    @property
    def players(self) -> int:
        return len(self.racks)

    @property
    def over(self) -> bool:
        return self.ending is not None

    @property
    def turn_deadline(self) -> float:
        return self.turn_started_at + self.turn_seconds

    def check_seat(self, seat: int) -> None:
        if not 0 <= seat < self.players:
            raise InvalidSeatError(f"seat {seat} is not in a game of {self.players}")


def shuffled(tiles: str, seed: int, shuffles: int) -> str:
    """The bag's order after its ``shuffles``-th shuffle: reproducible from the seed alone."""
    order = list(tiles)
    random.Random(f"lexio/{seed}/{shuffles}").shuffle(order)
    return "".join(order)


def new_game(
    players: int, seed: int, now: float, turn_seconds: float = DEFAULT_TURN_SECONDS
) -> GameState:
    """A shuffled bag (R4), seven tiles per rack in seat order (R6), seat 0 to play (R2).

    >>> game = new_game(2, seed=7, now=0.0)
    >>> [len(r) for r in game.racks], len(game.bag), game.turn
    ([7, 7], 88, 0)
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InvalidSeatError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    if turn_seconds <= 0:
        raise ValueError("turn_seconds must be positive")
    bag = shuffled(full_set(), seed, 0)
    racks = tuple(bag[i * RACK_SIZE : (i + 1) * RACK_SIZE] for i in range(players))
    return GameState(
        seed=seed,
        shuffles=0,
        board=EMPTY_BOARD,
        racks=racks,
        bag=bag[players * RACK_SIZE :],
        scores=(0,) * players,
        turn=0,
        turn_started_at=now,
        turn_seconds=turn_seconds,
        reserves=(Reserve.full(),) * players,
        turns_without_placement=0,
        log=(),
    )
