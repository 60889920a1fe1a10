"""The plain, JSON-safe form of the state's values (``GameState.to_dict``/``from_dict``).

Tiles are written as in the record (``"R+"``, ``"?"``); a blank's script always follows from
where it is written (a side's rack or bag, a placed blank's declared letter). Reading checks
everything and names the faulty field in :class:`StateFormatError`, so a state is never
half-read.

>>> board_to_plain(board_from_plain([{"row": 10, "col": 1, "tile": "?", "as": "S"}], "b"))
[{'row': 10, 'col': 1, 'tile': '?', 'as': 'S'}]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from mishqaq_rules.actions import TilePlacement
from mishqaq_rules.board import SIZE, Board, PlacedTile
from mishqaq_rules.clock import PAUSES_PER_SIDE, Clock, MeaningPause
from mishqaq_rules.log import Direction, EndCause, Ending, EntryKind, LogEntry, WordPlay
from mishqaq_rules.reasons import StateFormatError
from mishqaq_rules.sides import SIDES, Side
from mishqaq_rules.tiles import BLANK, Tile, script_of_letter
from rules_core.errors import RulesError
from rules_core.reserve import RESERVE_MAX, Reserve

_T = TypeVar("_T")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _fail(where: str, what: str) -> StateFormatError:
    return StateFormatError(f"{where}: {what}")


class Reader:
    """Reads the fields of one object of the plain form, naming them in errors."""

    __slots__ = ("data", "where")

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, Mapping):
            raise _fail(where, "not an object")
        self.data: Mapping[str, Any] = data
        self.where = where

    def at(self, name: str) -> str:
        return f"{self.where}.{name}"

    def field(self, name: str) -> Any:
        if name not in self.data:
            raise _fail(self.at(name), "missing")
        return self.data[name]

    def integer(self, name: str, minimum: int | None = None, default: int | None = None) -> int:
        value = self.data.get(name, default) if default is not None else self.field(name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise _fail(self.at(name), "not an integer")
        if minimum is not None and value < minimum:
            raise _fail(self.at(name), f"below {minimum}")
        return value

    def number(self, name: str) -> float:
        value = self.field(name)
        if not _is_number(value):
            raise _fail(self.at(name), "not a finite number")
        return float(value)

    def side(self, name: str) -> Side:
        side = self.optional_side(name)
        if side is None:
            raise _fail(self.at(name), "not latin or arabic")
        return side

    def optional_side(self, name: str) -> Side | None:
        value = self.data.get(name)
        if value is None:
            return None
        try:
            return Side(value)
        except ValueError:
            raise _fail(self.at(name), "not latin or arabic") from None

    def enum(self, name: str, kind: type[_T]) -> _T:
        try:
            return kind(self.field(name))  # type: ignore[call-arg]
        except ValueError:
            raise _fail(self.at(name), f"not a {kind.__name__}") from None

    def items(
        self, name: str, read: Callable[[Any, str], _T], default: bool = False
    ) -> tuple[_T, ...]:
        value = self.data.get(name, []) if default else self.field(name)
        if not isinstance(value, list):
            raise _fail(self.at(name), "not a list")
        return tuple(read(item, f"{self.at(name)}[{i}]") for i, item in enumerate(value))

    def pair(self, name: str, read: Callable[[Any, str, Side], _T]) -> tuple[_T, _T]:
        sides = Reader(self.field(name), self.at(name))
        latin, arabic = (read(sides.field(s.value), sides.at(s.value), s) for s in SIDES)
        return latin, arabic


def per_side(pair: Sequence[_T], write: Callable[[_T], Any]) -> dict[str, Any]:
    return {side.value: write(pair[side.index]) for side in SIDES}


def _number_pair(pair: Sequence[float]) -> dict[str, float]:
    return per_side(pair, float)


# Tiles ------------------------------------------------------------------------------------


def tile_from_plain(value: Any, where: str, script: Side | None) -> Tile:
    if not isinstance(value, str):
        raise _fail(where, "not a tile")
    try:
        return Tile.parse(value, script)
    except RulesError as e:
        raise _fail(where, str(e)) from None


def tiles_to_plain(tiles: Sequence[Tile]) -> list[str]:
    return [t.text for t in tiles]


def tiles_from_plain(value: Any, where: str, script: Side) -> tuple[Tile, ...]:
    if not isinstance(value, list):
        raise _fail(where, "not a list of tiles")
    return tuple(tile_from_plain(v, f"{where}[{i}]", script) for i, v in enumerate(value))


def placement_to_plain(row: int, col: int, placed: PlacedTile) -> dict[str, Any]:
    out: dict[str, Any] = {"row": row, "col": col, "tile": placed.tile.text}
    if placed.as_letter is not None:
        out["as"] = placed.as_letter
    return out


@functools.lru_cache(maxsize=512)
def _known_placed(text: object, as_letter: object) -> PlacedTile | None:
    """The placed tile a well-formed cell names (there are a few hundred), or None."""
    if not isinstance(text, str) or not (as_letter is None or isinstance(as_letter, str)):
        return None
    script = script_of_letter(as_letter) if text == BLANK and as_letter is not None else None
    try:
        return PlacedTile(Tile.parse(text, script), as_letter)
    except RulesError:
        return None


def _placement_from_plain(value: Any, where: str) -> tuple[int, int, PlacedTile]:
    # Fast path: a board holds up to 484 of these, read at every call of the engine.
    if type(value) is dict and len(value) <= 4:
        row, col, as_letter = value.get("row"), value.get("col"), value.get("as")
        if (
            type(row) is int
            and type(col) is int
            and 0 <= row < SIZE
            and 0 <= col < SIZE
            and len(value) == (3 if as_letter is None else 4)
            and (placed := _known_placed(value.get("tile"), as_letter)) is not None
        ):
            return row, col, placed
    read = Reader(value, where)
    row, col = read.integer("row", minimum=0), read.integer("col", minimum=0)
    if row >= SIZE or col >= SIZE:
        raise _fail(where, "off the board")
    as_letter = read.data.get("as")
    script = None
    if read.field("tile") == BLANK:
        script = script_of_letter(as_letter) if isinstance(as_letter, str) else None
        if script is None:
            raise _fail(read.at("as"), "a placed blank declares a letter")
    tile = tile_from_plain(read.field("tile"), read.at("tile"), script)
    try:
        return row, col, PlacedTile(tile, as_letter)
    except RulesError as e:
        raise _fail(where, str(e)) from None


# Board ------------------------------------------------------------------------------------


def board_to_plain(board: Board) -> list[dict[str, Any]]:
    """Occupied cells only, row-major."""
    return [placement_to_plain(row, col, placed) for row, col, placed in board.occupied()]


def board_from_plain(value: Any, where: str) -> Board:
    if not isinstance(value, list):
        raise _fail(where, "not a list")
    placed = [_placement_from_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if len({(r, c) for r, c, _ in placed}) != len(placed):
        raise _fail(where, "two tiles on one cell")
    return Board.empty().with_tiles(placed)


# Clock and reserve ------------------------------------------------------------------------


def clock_to_plain(clock: Clock) -> dict[str, Any]:
    pause = clock.pause
    return {
        "banks": _number_pair(clock.banks),
        "since": clock.since,
        "pause": None if pause is None else {"by": pause.by.value, "started_at": pause.started_at},
        "pauses_left": per_side(clock.pauses_left, int),
    }


def clock_from_plain(value: Any, where: str) -> Clock:
    read = Reader(value, where)

    def bank(v: Any, at: str, _side: Side) -> float:
        if not _is_number(v) or v < 0:
            raise _fail(at, "not a number of seconds")
        return float(v)

    def left(v: Any, at: str, _side: Side) -> int:
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= PAUSES_PER_SIDE:
            raise _fail(at, f"not an integer 0–{PAUSES_PER_SIDE}")
        return v

    pause = None
    if read.field("pause") is not None:
        p = Reader(read.field("pause"), read.at("pause"))
        pause = MeaningPause(p.side("by"), p.number("started_at"))
    return Clock(
        read.pair("banks", bank), read.number("since"), pause, read.pair("pauses_left", left)
    )


def reserve_to_plain(reserve: Reserve) -> dict[str, Any]:
    return {"tries": reserve.tries, "since": reserve.since}


def reserve_from_plain(value: Any, where: str, _side: Side) -> Reserve:
    read = Reader(value, where)
    tries = read.integer("tries", minimum=0)
    if tries > RESERVE_MAX:
        raise _fail(read.at("tries"), f"above {RESERVE_MAX}")
    return Reserve(tries, read.number("since"))


# Log and ending ---------------------------------------------------------------------------


def _word_to_plain(w: WordPlay) -> dict[str, Any]:
    return {
        "word": w.word,
        "direction": w.direction.value,
        "script": w.script.value,
        "row": w.row,
        "col": w.col,
        "spellings": list(w.spellings),
    }


def _word_from_plain(value: Any, where: str) -> WordPlay:
    read = Reader(value, where)
    word, spellings = read.field("word"), read.data.get("spellings", [])
    if not isinstance(word, str) or not word:
        raise _fail(read.at("word"), "not a word")
    if not isinstance(spellings, list) or not all(isinstance(s, str) for s in spellings):
        raise _fail(read.at("spellings"), "not a list of strings")
    return WordPlay(
        word,
        read.enum("direction", Direction),
        read.side("script"),
        read.integer("row", minimum=0),
        read.integer("col", minimum=0),
        tuple(spellings),
    )


def entry_to_plain(e: LogEntry) -> dict[str, Any]:
    """Only the fields this kind of entry sets."""
    out: dict[str, Any] = {"number": e.number, "kind": e.kind.value, "at": e.at}
    if e.side is not None:
        out["side"] = e.side.value
    if e.tiles:
        out["tiles"] = [placement_to_plain(t.row, t.col, t.placed) for t in e.tiles]
    if e.words:
        out["words"] = [_word_to_plain(w) for w in e.words]
    if e.count:
        out["count"] = e.count
    if e.draws:
        out["draws"] = [[latin.text, arabic.text] for latin, arabic in e.draws]
    if e.kind is EntryKind.RESULT:
        out["winner"] = None if e.winner is None else e.winner.value
    if e.cause is not None:
        out["cause"] = e.cause.value
    return out


def _draw_from_plain(value: Any, where: str) -> tuple[Tile, Tile]:
    if not isinstance(value, list) or len(value) != 2:
        raise _fail(where, "not a [latin tile, arabic tile] pair")
    return (
        tile_from_plain(value[0], f"{where}[0]", Side.LATIN),
        tile_from_plain(value[1], f"{where}[1]", Side.ARABIC),
    )


def _tile_placement_from_plain(value: Any, where: str) -> TilePlacement:
    row, col, placed = _placement_from_plain(value, where)
    return TilePlacement(row, col, placed.tile, placed.as_letter)


def entry_from_plain(value: Any, where: str) -> LogEntry:
    read = Reader(value, where)
    cause = read.data.get("cause")
    return LogEntry(
        number=read.integer("number", minimum=1),
        kind=read.enum("kind", EntryKind),
        at=read.number("at"),
        side=read.optional_side("side"),
        tiles=read.items("tiles", _tile_placement_from_plain, default=True),
        words=read.items("words", _word_from_plain, default=True),
        count=read.integer("count", minimum=0, default=0),
        draws=read.items("draws", _draw_from_plain, default=True),
        winner=read.optional_side("winner"),
        cause=None if cause is None else read.enum("cause", EndCause),
    )


def ending_to_plain(ending: Ending) -> dict[str, Any]:
    return {
        "winner": None if ending.winner is None else ending.winner.value,
        "cause": ending.cause.value,
        "at": ending.at,
        "racks": per_side(ending.racks, tiles_to_plain),
    }


def ending_from_plain(value: Any, where: str) -> Ending:
    read = Reader(value, where)
    return Ending(
        read.optional_side("winner"),
        read.enum("cause", EndCause),
        read.number("at"),
        read.pair("racks", tiles_from_plain),
    )
