"""The game record ``lexio-record/1`` and its replay through the rules (record-format.md).

A record writes down every rack, so the bag's randomness does not matter: before each entry
the replay puts the recorded rack (and the recorded bag size) in place, then plays the entry
with the very functions a live table uses.

>>> rec = parse_record({"format": "lexio-record/1", "players": ["Ana", "Bruno"],
...     "moves": [{"player": 0, "place": {"row": 6, "col": 5, "dir": "across", "word": "OS"}}]})
>>> replay(rec, WordSet(["OS"]))["moves"][0]["score"]
2
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from lexio_rules.actions import Action, Exchange, Pass, Place, TilePlacement
from lexio_rules.board import SIZE, index, on_board, rows
from lexio_rules.game import Accepted, Lexicon, WordSet, final_reckoning, play
from lexio_rules.reasons import LexioError, Reason
from lexio_rules.state import MAX_PLAYERS, MIN_PLAYERS, EntryKind, GameState, new_game
from lexio_rules.tiles import BLANK, LETTERS, RACK_SIZE, full_set
from rules_core import errors

FORMAT: Final = "lexio-record/1"
_WORD_LETTERS: Final = frozenset(LETTERS + LETTERS.lower())
_REPLAY_TIME: Final = 0.0  # Entries carry no time: the reserve never regains a try (R20).

__all__ = ["FORMAT", "Record", "RecordError", "RecordMove", "WordSet", "parse_record", "replay"]


class RecordError(LexioError, errors.RecordError):
    """The document is not a valid ``lexio-record/1``."""


@dataclass(frozen=True, slots=True)
class WordPlacement:
    row: int
    col: int
    across: bool
    word: str
    """Upper case: a letter tile; lower case: a blank newly placed for that letter."""


@dataclass(frozen=True, slots=True)
class RecordMove:
    player: int
    place: WordPlacement | None = None
    exchange: str | int | None = None
    """The tiles given back, or how many when the record's reader does not know which (R27)."""
    rack: str | None = None
    bag: int | None = None

    @property
    def kind(self) -> str:
        return "place" if self.place else "exchange" if self.exchange is not None else "pass"


@dataclass(frozen=True, slots=True)
class Record:
    players: tuple[str, ...]
    moves: tuple[RecordMove, ...]
    lexicon: tuple[str, ...] | None = None
    final_racks: tuple[str, ...] | None = None


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise RecordError(message)


def _int(value: Any, what: str) -> int:
    _require(isinstance(value, int) and not isinstance(value, bool), f"{what} must be an integer")
    return int(value)


def _rack(value: Any, what: str) -> str:
    ok = isinstance(value, str) and all(t == BLANK or t in LETTERS for t in value)
    _require(ok, f"{what} must be letters A–Z and '?'")
    return str(value)


def _move(i: int, raw: Any, players: int) -> RecordMove:
    where = f"moves[{i}]"
    _require(isinstance(raw, Mapping), f"{where} must be an object")
    player = _int(raw.get("player"), f"{where}.player")
    _require(0 <= player < players, f"{where}.player must be a seat index below {players}")
    kinds = [k for k in ("place", "exchange", "pass") if k in raw]
    _require(len(kinds) == 1, f"{where} must have exactly one of place, exchange, pass")
    rack = _rack(raw["rack"], f"{where}.rack") if "rack" in raw else None
    bag = _int(raw["bag"], f"{where}.bag") if "bag" in raw else None
    _require(bag is None or bag >= 0, f"{where}.bag must not be negative")
    if "place" in raw:
        p = raw["place"]
        _require(isinstance(p, Mapping), f"{where}.place must be an object")
        word = p.get("word")
        _require(
            isinstance(word, str) and len(word) >= 1 and all(ch in _WORD_LETTERS for ch in word),
            f"{where}.place.word must be letters A–Z (lower case for a blank)",
        )
        _require(p.get("dir") in ("across", "down"), f"{where}.place.dir must be across or down")
        placement = WordPlacement(
            _int(p.get("row"), f"{where}.place.row"),
            _int(p.get("col"), f"{where}.place.col"),
            p["dir"] == "across",
            str(word),
        )
        return RecordMove(player, place=placement, rack=rack, bag=bag)
    if "exchange" in raw:
        given = raw["exchange"]
        if isinstance(given, int) and not isinstance(given, bool):
            _require(given >= 1, f"{where}.exchange must give back at least one tile")
            return RecordMove(player, exchange=int(given), rack=rack, bag=bag)
        tiles = _rack(given, f"{where}.exchange")
        _require(len(tiles) >= 1, f"{where}.exchange must give back at least one tile")
        return RecordMove(player, exchange=tiles, rack=rack, bag=bag)
    _require(raw["pass"] is True, f"{where}.pass must be true")
    return RecordMove(player, rack=rack, bag=bag)


def parse_record(data: Any) -> Record:
    """Check and read a decoded JSON record; :class:`RecordError` says what is wrong."""
    _require(isinstance(data, Mapping), "a record is a JSON object")
    _require(data.get("format") == FORMAT, f'format must be "{FORMAT}"')
    players = data.get("players")
    _require(
        isinstance(players, list)
        and MIN_PLAYERS <= len(players) <= MAX_PLAYERS
        and all(isinstance(p, str) for p in players),
        f"players must be a list of {MIN_PLAYERS} to {MAX_PLAYERS} names",
    )
    moves = data.get("moves")
    _require(isinstance(moves, list), "moves must be a list")
    lexicon = data.get("lexicon")
    _require(
        lexicon is None or (isinstance(lexicon, list) and all(isinstance(w, str) for w in lexicon)),
        "lexicon must be a list of words",
    )
    final_racks = data.get("final_racks")
    if final_racks is not None:
        _require(
            isinstance(final_racks, list) and len(final_racks) == len(players),
            "final_racks must hold one rack per player",
        )
        final_racks = tuple(_rack(r, f"final_racks[{i}]") for i, r in enumerate(final_racks))
    return Record(
        players=tuple(players),
        moves=tuple(_move(i, m, len(players)) for i, m in enumerate(moves)),
        lexicon=tuple(lexicon) if lexicon is not None else None,
        final_racks=final_racks,
    )


def _tiles_of(board: str, p: WordPlacement) -> tuple[TilePlacement, ...] | Reason:
    """The new tiles a written word puts down, or why it cannot lie there."""
    dr, dc = (0, 1) if p.across else (1, 0)
    tiles = []
    for i, ch in enumerate(p.word):
        r, c = p.row + i * dr, p.col + i * dc
        if not on_board(r, c):
            return Reason.OFF_BOARD
        on_cell = board[index(r, c)]
        if on_cell.isalpha():
            if on_cell.upper() != ch.upper():
                return Reason.OCCUPIED_MISMATCH
        else:
            tiles.append(TilePlacement(r, c, ch.upper(), blank=ch.islower()))
    return tuple(tiles)


def _holding(tracked: str, needed: str) -> str:
    """A rack that surely holds ``needed`` (no rack recorded: rack checks are skipped)."""
    rest = list(tracked)
    for t in needed:
        if t in rest:
            rest.remove(t)
    keep = max(len(tracked), len(needed)) - len(needed)
    return needed + "".join(rest[:keep])


def _bag_of(state: GameState, size: int) -> str:
    """A bag of ``size`` tiles: the tracked bag cut short, or padded with unseen tiles."""
    if len(state.bag) >= size:
        return state.bag[:size]
    seen = Counter(ch.upper() if ch.isupper() else BLANK for ch in state.board if ch.isalpha())
    seen.update("".join(state.racks) + state.bag)
    unseen = "".join((Counter(full_set()) - seen).elements())
    return (state.bag + unseen + "E" * size)[:size]


def _prepare(state: GameState, move: RecordMove, needed: str, blind: bool) -> GameState:
    """The state with the move's recorded rack and bag size in place. A ``blind`` player's
    recorded racks are not used: after an exchange by count, the replay no longer knows which
    of its tiles went back, so their checks would not mean anything."""
    if move.rack is not None and not blind:
        rack = move.rack
    else:
        rack = _holding(state.racks[move.player], needed)
    racks = (*state.racks[: move.player], rack, *state.racks[move.player + 1 :])
    bag = _bag_of(state, move.bag) if move.bag is not None else state.bag
    return replace(state, racks=racks, bag=bag)


def _refused(i: int, move: RecordMove, reason: Reason, words: Sequence[str] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {
        "index": i,
        "player": move.player,
        "status": "refused",
        "kind": move.kind,
        "reason": reason.value,
    }
    if reason is Reason.UNKNOWN_WORDS:
        out["unknown_words"] = list(words)
    return out


def replay(record: Record, lexicon: Lexicon, seed: int = 0) -> dict[str, Any]:
    """Play every entry through the rules; the result document of record-format.md."""
    state = new_game(len(record.players), seed, now=_REPLAY_TIME)
    results: list[dict[str, Any]] = []
    blind: set[int] = set()  # players who exchanged by count: no more rack checks (R27)
    for i, move in enumerate(record.moves):
        if state.over:
            results.append(_refused(i, move, Reason.GAME_OVER))
            continue
        if move.player != state.turn:
            results.append(_refused(i, move, Reason.NOT_YOUR_TURN))
            continue
        action: Action
        if move.place is not None:
            tiles = _tiles_of(state.board, move.place)
            if isinstance(tiles, Reason):
                results.append(_refused(i, move, tiles))
                continue
            action = Place(tiles)
            needed = "".join(t.rack_tile for t in tiles)
        elif move.exchange is not None:
            count = move.exchange if isinstance(move.exchange, int) else len(move.exchange)
            if count > RACK_SIZE:
                results.append(_refused(i, move, Reason.TOO_MANY_TILES))
                continue
            if isinstance(move.exchange, str):
                needed = move.exchange
            else:
                # Which tiles went back is unknown: any of the rack the replay holds will do.
                rack = state.racks[move.player]
                if len(rack) < count:
                    results.append(_refused(i, move, Reason.TILES_NOT_IN_RACK))
                    continue
                needed = rack[:count]
                blind.add(move.player)
            action = Exchange(needed)
        else:
            action, needed = Pass(), ""
        state = _prepare(state, move, needed, move.player in blind)
        outcome = play(state, move.player, action, _REPLAY_TIME, lexicon)
        state = outcome.state
        if not isinstance(outcome, Accepted):
            refusal = outcome.refusal
            results.append(_refused(i, move, refusal.reason, refusal.unknown_words))
            continue
        entry = outcome.entry
        done: dict[str, Any] = {
            "index": i,
            "player": move.player,
            "status": "accepted",
            "kind": entry.kind.value,
        }
        if entry.kind is EntryKind.PLACE:
            done["words"] = [{"word": w.word, "score": w.score} for w in entry.words]
            done["bingo"] = entry.bingo
            done["score"] = entry.score
        elif entry.kind is EntryKind.EXCHANGE:
            done["count"] = entry.count
        results.append(done)
        if state.ending is not None and record.final_racks is not None:
            ending = final_reckoning(
                state.scores, record.final_racks, state.ending.cause, state.ending.finisher
            )
            state = replace(state, racks=record.final_racks, ending=ending)
    document: dict[str, Any] = {
        "moves": results,
        "scores": list(state.scores),
        "board": rows(state.board),
    }
    if state.ending is not None:
        document["ended"] = True
        document["final_scores"] = list(state.ending.final_scores)
        document["winners"] = list(state.ending.winners)
    assert len(document["board"]) == SIZE
    return document
