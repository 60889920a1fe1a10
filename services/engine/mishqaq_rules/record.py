"""The game record ``mishqaq-record/1`` and its replay through the rules
(mishqaq-record-format.md).

A record names the opener and may write down racks, so the bags' randomness does not matter:
before an entry with a ``rack`` the replay puts that rack in place (its tiles taken out of the
side's bag, the previous rack put back); an entry without one gets a rack that surely holds
the tiles it uses (rack checks skipped, and with them the cap of M11). Then the entry is played
with the very functions a live table uses. Entries carry no time: the reserve never regains a
try (M24), no flag falls, and a dead position (M35) is always a draw.

>>> rec = parse_record({"format": "mishqaq-record/1", "latin": "fr", "opening": "latin",
...     "moves": [{"side": "latin", "place": [{"row": 10, "col": 1, "tile": "O"},
...                                          {"row": 10, "col": 2, "tile": "S+"}]}]})
>>> replay(rec, {"fr": WordSet(["OS"]), "ar": WordSet([])})["moves"][0]["words"]
[{'word': 'OS', 'direction': 'across'}]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from mishqaq_rules.actions import Action, Pass, Place, Resign, Swap, TilePlacement
from mishqaq_rules.board import on_board
from mishqaq_rules.game import Accepted, Lexicon, WordSet, play
from mishqaq_rules.reasons import MalformedActionError, MishqaqError, Reason
from mishqaq_rules.sides import LATIN_LISTS, SIDES, Side, lexicon_id, with_side
from mishqaq_rules.state import RACK_MAX, GameState, new_game
from mishqaq_rules.tiles import Tile, bag_counts
from rules_core import errors

FORMAT: Final = "mishqaq-record/1"
_REPLAY_TIME: Final = 0.0
_REPLAY_SEED: Final = 0
_KINDS: Final = ("place", "pass", "swap", "resign")

__all__ = [
    "FORMAT",
    "Record",
    "RecordError",
    "RecordMove",
    "WordSet",
    "lexicon_ids",
    "parse_record",
    "replay",
]


class RecordError(MishqaqError, errors.RecordError):
    """The document is not a valid ``mishqaq-record/1``; the message names the field."""


@dataclass(frozen=True, slots=True)
class RecordMove:
    side: Side
    kind: str
    """``place``, ``pass``, ``swap`` or ``resign``."""
    action: Action
    rack: tuple[Tile, ...] | None = None
    """The side's rack before this entry, when the record gives it."""


@dataclass(frozen=True, slots=True)
class Record:
    latin: str
    opening: Side
    moves: tuple[RecordMove, ...]
    lexicon: Mapping[Side, tuple[str, ...]]
    """The record's own words per side, as written (to be normalised as the real lists are);
    a side absent here plays with the shipped list."""


def lexicon_ids(record: Record) -> dict[Side, str]:
    """The list id each side's words are judged by (M22)."""
    return {side: lexicon_id(side, record.latin) for side in SIDES}


# Reading ----------------------------------------------------------------------------------


def _require(condition: bool, where: str, what: str) -> None:
    if not condition:
        raise RecordError(f"{where}: {what}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _object(value: Any, where: str) -> Mapping[str, Any]:
    _require(isinstance(value, Mapping), where, "not an object")
    return value  # type: ignore[no-any-return]


def _side(value: Any, where: str) -> Side:
    _require(value in ("latin", "arabic"), where, "not latin or arabic")
    return Side(value)


def _tile(value: Any, where: str, side: Side) -> Tile:
    _require(isinstance(value, str), where, "not a tile")
    try:
        return Tile.parse(value, side)
    except MalformedActionError as e:
        raise RecordError(f"{where}: {e}") from None


def _rack(value: Any, where: str, side: Side, latin: str) -> tuple[Tile, ...]:
    _require(isinstance(value, list), where, "not a list of tiles")
    rack = tuple(_tile(t, f"{where}[{i}]", side) for i, t in enumerate(value))
    _require(len(rack) <= RACK_MAX, where, f"more than {RACK_MAX} tiles (M11)")
    full = bag_counts(side, latin)
    for tile, n in Counter(rack).items():
        _require(
            n <= full[tile], where, f"{n} × {tile.text}, the {side.value} bag holds {full[tile]}"
        )
    return rack


def _cell(raw: Mapping[str, Any], where: str) -> tuple[int, int]:
    for name in ("row", "col"):
        _require(_is_int(raw.get(name)), f"{where}.{name}", "not an integer")
    return int(raw["row"]), int(raw["col"])


def _place(value: Any, where: str, side: Side) -> Place:
    _require(isinstance(value, list), where, "not a list of tiles placed")
    tiles: list[TilePlacement] = []
    seen: dict[tuple[int, int], int] = {}
    for j, item in enumerate(value):
        at = f"{where}[{j}]"
        raw = _object(item, at)
        row, col = _cell(raw, at)
        _require((row, col) not in seen, at, f"the same cell as place[{seen.get((row, col))}]")
        seen[(row, col)] = j
        tile = _tile(raw.get("tile"), f"{at}.tile", side)
        as_letter = raw.get("as")
        if tile.blank:
            _require(isinstance(as_letter, str), f"{at}.as", "a blank must say what it stands for")
        else:
            _require(as_letter is None, f"{at}.as", "only a blank carries as")
        try:
            tiles.append(TilePlacement(row, col, tile, as_letter))
        except MalformedActionError as e:
            raise RecordError(f"{at}.as: {e}") from None
    return Place(tuple(tiles))


def _move(i: int, value: Any, latin: str) -> RecordMove:
    where = f"moves[{i}]"
    raw = _object(value, where)
    side = _side(raw.get("side"), f"{where}.side")
    kinds = [k for k in _KINDS if k in raw]
    _require(len(kinds) == 1, where, "not exactly one of place, pass, swap, resign")
    kind = kinds[0]
    rack = _rack(raw["rack"], f"{where}.rack", side, latin) if "rack" in raw else None
    action: Action
    if kind == "place":
        action = _place(raw["place"], f"{where}.place", side)
    elif kind == "swap":
        swap = _object(raw["swap"], f"{where}.swap")
        row, col = _cell(swap, f"{where}.swap")
        tile = _tile(swap["tile"], f"{where}.swap.tile", side) if "tile" in swap else None
        _require(tile is None or not tile.blank, f"{where}.swap.tile", "a blank is not swapped in")
        action = Swap(row, col, tile)
    else:
        _require(raw[kind] is True, f"{where}.{kind}", "not true")
        action = Pass() if kind == "pass" else Resign()
    return RecordMove(side, kind, action, rack)


def _lexicon(value: Any) -> dict[Side, tuple[str, ...]]:
    if value is None:
        return {}
    raw = _object(value, "lexicon")
    words: dict[Side, tuple[str, ...]] = {}
    for key, listed in raw.items():
        side = _side(key, f"lexicon.{key}")
        _require(
            isinstance(listed, list) and all(isinstance(w, str) for w in listed),
            f"lexicon.{key}",
            "not a list of words",
        )
        words[side] = tuple(listed)
    return words


def parse_record(document: Any) -> Record:
    """Check and read a decoded JSON record; :class:`RecordError` names what is wrong.

    >>> parse_record({"format": "mishqaq-record/1", "latin": "fr", "opening": "latin",
    ...     "moves": [{"side": "latin", "place": [{"row": "ten", "col": 1, "tile": "C"}]}]})
    Traceback (most recent call last):
    ...
    mishqaq_rules.record.RecordError: moves[0].place[0].row: not an integer
    """
    raw = _object(document, "record")
    _require(raw.get("format") == FORMAT, "format", f'not "{FORMAT}"')
    latin = raw.get("latin")
    _require(latin in LATIN_LISTS, "latin", f"not one of {', '.join(LATIN_LISTS)}")
    opening = _side(raw.get("opening"), "opening")
    moves = raw.get("moves")
    _require(isinstance(moves, list), "moves", "not a list")
    assert isinstance(moves, list)
    return Record(
        latin=str(latin),
        opening=opening,
        moves=tuple(_move(i, m, str(latin)) for i, m in enumerate(moves)),
        lexicon=_lexicon(raw.get("lexicon")),
    )


# Replaying --------------------------------------------------------------------------------


def _with_rack(state: GameState, side: Side, rack: tuple[Tile, ...]) -> GameState:
    """``rack`` in place: the previous rack back in the bag, ``rack``'s tiles out of it."""
    bag = [*state.bag(side), *state.rack(side)]
    for tile in rack:
        if tile in bag:
            bag.remove(tile)
    return replace(
        state,
        racks=with_side(state.racks, side, rack),
        bags=with_side(state.bags, side, tuple(bag)),
    )


def _holding(state: GameState, side: Side, needed: list[Tile]) -> GameState:
    """A rack that surely holds ``needed``, as large as before when it can be: each missing
    tile comes out of the bag (or, if the bag lacks it, is taken as given) for a spare one."""
    rack, bag = list(state.rack(side)), list(state.bag(side))
    spare = list(rack)
    missing = []
    for tile in needed:
        if tile in spare:
            spare.remove(tile)
        else:
            missing.append(tile)
    if not missing:
        return state
    for tile in missing:
        if tile in bag:
            bag.remove(tile)
        if spare:
            given_back = spare.pop()
            rack.remove(given_back)
            bag.append(given_back)
        rack.append(tile)
    return replace(
        state,
        racks=with_side(state.racks, side, tuple(rack)),
        bags=with_side(state.bags, side, tuple(bag)),
    )


def _swap_needs(state: GameState, side: Side, swap: Swap) -> list[Tile]:
    """The tile a swap without a recorded rack needs: the one it names, else one bearing the
    blank's declared letter, preferably monolingual (M27), from the rack, else the bag, else
    the bag's kind of it (a record written before swaps named their tile)."""
    if not on_board(swap.row, swap.col):
        return []
    cell = state.board.at(swap.row, swap.col)
    if cell is None or cell.owner is not side or not cell.tile.blank:
        return []
    if swap.tile is not None:
        return [swap.tile]
    letter = cell.as_letter

    def fitting(tiles: Iterable[Tile]) -> list[Tile]:
        return sorted((t for t in tiles if t.letter == letter), key=lambda t: t.bilingual)

    for source in (state.rack(side), state.bag(side), bag_counts(side, state.latin)):
        found = fitting(source)
        if found:
            return [found[0]]
    return []


def _prepare(state: GameState, move: RecordMove) -> GameState:
    """The state before ``move`` with the side's rack as the record has it (or, without a
    recorded rack, holding what the move uses); after the end nothing needs preparing."""
    if state.over:
        return state
    if move.rack is not None:
        return _with_rack(state, move.side, move.rack)
    if move.side is not state.turn:
        return state
    match move.action:
        case Place(tiles=tiles):
            return _holding(state, move.side, [t.tile for t in tiles])
        case Swap():
            return _holding(state, move.side, _swap_needs(state, move.side, move.action))
    return state


def replay(record: Record, lexicons: Mapping[str, Lexicon]) -> dict[str, Any]:
    """Play every entry through the rules; the output document of mishqaq-record-format.md.

    ``lexicons`` by list id: the table's Latin list (``record.latin``) and ``ar``.
    """
    state = new_game(
        latin=record.latin, seed=_REPLAY_SEED, now=_REPLAY_TIME, opening=record.opening
    )
    results: list[dict[str, Any]] = []
    for i, move in enumerate(record.moves):
        state = _prepare(state, move)
        outcome = play(state, move.side, move.action, _REPLAY_TIME, lexicons)
        state = outcome.state
        out: dict[str, Any] = {"index": i, "side": move.side.value}
        if isinstance(outcome, Accepted):
            out |= {"status": "accepted", "kind": move.kind}
            if move.kind == "place":
                words = outcome.entry.words
                out["words"] = [{"word": w.word, "direction": w.direction.value} for w in words]
        else:
            refusal = outcome.refusal
            out |= {"status": "refused", "kind": move.kind, "reason": refusal.reason.value}
            if refusal.reason is Reason.UNKNOWN_WORDS:
                out["unknown_words"] = list(refusal.unknown_words)
        results.append(out)
    document: dict[str, Any] = {"moves": results}
    if state.ending is not None:
        winner = state.ending.winner
        document["result"] = {
            "winner": None if winner is None else winner.value,
            "cause": state.ending.cause.value,
        }
    document["board"] = state.board.rows()
    return document
