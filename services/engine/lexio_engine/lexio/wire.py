"""Lexio's views and log entries as the protocol carries them (docs/protocol.md), built from
the rules' values: enums as their lower-case codes (a pass cause of an entry that is no pass
``"unspecified"``, a finisher of no one ``-1``, as the first release's typed messages wrote
them), instants and seconds as floats. tests/rules/test_lexio_protocol_json.py holds them to
what players were sent since the first release.

>>> from lexio_rules import EntryKind, LogEntry
>>> entry_json(LogEntry(1, 0, EntryKind.EXCHANGE, at=5, count=3))["cause"]
'unspecified'
"""

from __future__ import annotations

from typing import Any

from lexio_rules import Ending, LogEntry, SeatView

JsonObject = dict[str, Any]


def entry_json(entry: LogEntry) -> JsonObject:
    """A log entry as an ``event`` frame carries it (an exchange names no letters: R27)."""
    return {
        "number": entry.number,
        "seat": entry.seat,
        "kind": entry.kind.name.lower(),
        "words": [
            {"word": w.word, "score": w.score, "row": w.row, "col": w.col, "across": w.across}
            for w in entry.words
        ],
        "tiles": [
            {"row": t.row, "col": t.col, "letter": t.letter, "blank": t.blank} for t in entry.tiles
        ],
        "score": entry.score,
        "bingo": entry.bingo,
        "count": entry.count,
        "cause": entry.cause.name.lower() if entry.cause is not None else "unspecified",
        "at": float(entry.at),
    }


def _ending_json(ending: Ending) -> JsonObject:
    return {
        "cause": ending.cause.name.lower(),
        "finisher": -1 if ending.finisher is None else ending.finisher,
        "adjustments": list(ending.adjustments),
        "final_scores": list(ending.final_scores),
        "winners": list(ending.winners),
        "racks": list(ending.racks),
    }


def view_json(view: SeatView, *, with_log: bool = False) -> JsonObject:
    """A seat's view as a ``view`` frame carries it: its own rack, the others' rack sizes
    (R6); its log only ``with_log`` (the events of a step extend it)."""
    return {
        "seat": view.seat,
        "rack": view.rack,
        "rack_counts": list(view.rack_counts),
        "bag_count": view.bag_count,
        "board": view.board,
        "log": [entry_json(e) for e in view.log] if with_log else [],
        "scores": list(view.scores),
        "turn": view.turn,
        "turn_deadline": float(view.turn_deadline),
        "reserve_tries": view.reserve_tries,
        "reserve_next_in": float(view.reserve_next_in),
        "reserve_max": view.reserve_max,
        "ending": _ending_json(view.ending) if view.ending is not None else None,
    }
