"""al-Mishqaq's views and log entries as the protocol carries them (docs/protocol.md), built
from the rules' values: sides and enums as their lower-case codes, a side-less field ``null``,
instants and seconds as floats. tests/mishqaq/test_mishqaq_protocol_json.py holds them to
what players were sent since the first release.

>>> from mishqaq_rules import Side, Tile
>>> tile_json(Tile.parse("R+"))
{'code': 'R+', 'letter': 'R', 'partner': 'ر', 'blank': False, 'owner': 'latin'}
"""

from __future__ import annotations

from typing import Any

from mishqaq_rules import Ending, LogEntry, Side, SideView, Tile, WordPlay

JsonObject = dict[str, Any]


def _side(side: Side | None) -> str | None:
    return side.value if side is not None else None


def tile_json(tile: Tile, as_letter: str | None = None) -> JsonObject:
    """A tile as a view shows it: its record text, the letter it bears (a placed blank's
    declared one), a bilingual tile's other letter (M8), and whose bag it is from."""
    return {
        "code": tile.text,
        "letter": as_letter or tile.letter or "",
        "partner": tile.partner or "",
        "blank": tile.blank,
        "owner": tile.script.value,
    }


def _word_json(word: WordPlay) -> JsonObject:
    return {
        "word": word.word,
        "direction": word.direction.value,
        "script": word.script.value,
        "row": word.row,
        "col": word.col,
        "spellings": list(word.spellings),
    }


def entry_json(entry: LogEntry) -> JsonObject:
    """A log entry as an ``event`` frame carries it."""
    return {
        "number": entry.number,
        "kind": entry.kind.value,
        "at": float(entry.at),
        "side": _side(entry.side),
        "tiles": [
            {"row": t.row, "col": t.col, "tile": tile_json(t.tile, t.as_letter)}
            for t in entry.tiles
        ],
        "words": [_word_json(w) for w in entry.words],
        "count": entry.count,
        "draws": [{"latin": tile_json(a), "arabic": tile_json(b)} for a, b in entry.draws],
        "winner": _side(entry.winner),
        "cause": entry.cause.value if entry.cause is not None else None,
    }


def _ending_json(ending: Ending) -> JsonObject:
    return {
        "winner": _side(ending.winner),
        "cause": ending.cause.value,
        "at": float(ending.at),
        "latin_rack": [tile_json(t) for t in ending.racks[0]],
        "arabic_rack": [tile_json(t) for t in ending.racks[1]],
    }


def view_json(view: SideView, now: float, *, with_log: bool = False) -> JsonObject:
    """A side's view as a ``view`` frame carries it: the board row by row, a string per cell
    (``""`` or the record's text of its tile); its log only ``with_log`` (the events of a
    step extend it)."""
    pause = view.pause
    return {
        "side": view.side.value,
        "latin": view.latin,
        "rack": [tile_json(t) for t in view.rack],
        "latin_rack_count": view.rack_counts[0],
        "arabic_rack_count": view.rack_counts[1],
        "latin_bag_count": view.bag_counts[0],
        "arabic_bag_count": view.bag_counts[1],
        "board": [cell for row in view.board.rows() for cell in row],
        "turn": view.turn.value,
        "latin_bank": float(view.banks[0]),
        "arabic_bank": float(view.banks[1]),
        "flag_at": float(view.flag_at) if view.flag_at is not None else None,
        "pause": {"by": pause.by.value, "until": float(pause.until)} if pause else None,
        "latin_pauses_left": view.pauses_left[0],
        "arabic_pauses_left": view.pauses_left[1],
        "reserve_tries": view.reserve_tries,
        "reserve_next_in": float(view.reserve_next_in),
        "reserve_max": view.reserve_max,
        "log": [entry_json(e) for e in view.log] if with_log else [],
        "ending": _ending_json(view.ending) if view.ending is not None else None,
        "now": float(now),
    }
