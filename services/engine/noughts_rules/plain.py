"""The rules' values as plain JSON-safe data and back (N12): what a stored state is made of.

Reading never trusts its input: anything that is not what :func:`entry_to_plain` or
:func:`ending_to_plain` write is a :class:`StateFormatError` naming the field.

>>> entry = LogEntry.mark(1, 0, 2, 1, at=4.5)
>>> entry_to_plain(entry)
{'number': 1, 'kind': 'mark', 'at': 4.5, 'seat': 0, 'cell': [2, 1]}
>>> entry_from_plain(entry_to_plain(entry), "log[0]") == entry
True
>>> entry_from_plain({"number": 1, "kind": "jump", "at": 0}, "log[0]")
Traceback (most recent call last):
...
rules_core.errors.StateFormatError: log[0].kind: not one of mark, resign, result
"""

from __future__ import annotations

from typing import Any, TypeVar

from noughts_rules.board import SIZE, Cell
from noughts_rules.log import EndCause, Ending, EntryKind, LogEntry
from noughts_rules.reasons import StateFormatError

_E = TypeVar("_E", EntryKind, EndCause)


def fail(where: str, what: str) -> StateFormatError:
    return StateFormatError(f"{where}: {what}")


def obj(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise fail(where, "not an object")
    return value


def field(data: dict[str, Any], name: str, where: str) -> Any:
    if name not in data:
        raise fail(f"{where}.{name}", "missing")
    return data[name]


def integer(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(where, "not an integer")
    return value


def number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(where, "not a number")
    return float(value)


def seat(value: object, where: str) -> int:
    found = integer(value, where)
    if found not in (0, 1):
        raise fail(where, "not a seat (0 or 1)")
    return found


def choice(kind: type[_E], value: object, where: str) -> _E:
    try:
        return kind(value)
    except ValueError:
        names = ", ".join(str(k.value) for k in kind)
        raise fail(where, f"not one of {names}") from None


def cell(value: object, where: str) -> Cell:
    if not isinstance(value, list) or len(value) != 2:
        raise fail(where, "not a [row, col] pair")
    row, col = integer(value[0], f"{where}[0]"), integer(value[1], f"{where}[1]")
    if not (0 <= row < SIZE and 0 <= col < SIZE):
        raise fail(where, "off the board")
    return row, col


def ending_to_plain(ending: Ending) -> dict[str, Any]:
    return {
        "winner": ending.winner,
        "cause": ending.cause.value,
        "at": ending.at,
        "line": [list(c) for c in ending.line],
    }


def ending_from_plain(value: object, where: str) -> Ending:
    data = obj(value, where)
    winner = field(data, "winner", where)
    line = field(data, "line", where)
    if not isinstance(line, list):
        raise fail(f"{where}.line", "not a list")
    return Ending(
        winner=None if winner is None else seat(winner, f"{where}.winner"),
        cause=choice(EndCause, field(data, "cause", where), f"{where}.cause"),
        at=number(field(data, "at", where), f"{where}.at"),
        line=tuple(cell(c, f"{where}.line[{i}]") for i, c in enumerate(line)),
    )


def entry_to_plain(entry: LogEntry) -> dict[str, Any]:
    plain: dict[str, Any] = {"number": entry.number, "kind": entry.kind.value, "at": entry.at}
    if entry.seat is not None:
        plain["seat"] = entry.seat
    if entry.cell is not None:
        plain["cell"] = list(entry.cell)
    if entry.ending is not None:
        plain["ending"] = ending_to_plain(entry.ending)
    return plain


def entry_from_plain(value: object, where: str) -> LogEntry:
    data = obj(value, where)
    kind = choice(EntryKind, field(data, "kind", where), f"{where}.kind")
    entry = LogEntry(
        number=integer(field(data, "number", where), f"{where}.number"),
        kind=kind,
        at=number(field(data, "at", where), f"{where}.at"),
        seat=seat(data["seat"], f"{where}.seat") if "seat" in data else None,
        cell=cell(data["cell"], f"{where}.cell") if "cell" in data else None,
        ending=ending_from_plain(data["ending"], f"{where}.ending") if "ending" in data else None,
    )
    wanted = {
        EntryKind.MARK: (True, True, False),
        EntryKind.RESIGN: (True, False, False),
        EntryKind.RESULT: (False, False, True),
    }[kind]
    found = (entry.seat is not None, entry.cell is not None, entry.ending is not None)
    if found != wanted:
        raise fail(where, f"not the fields of a {kind.value} entry")
    return entry
