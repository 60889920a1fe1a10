"""Checks of an action's JSON shape, as the client sent it, shared by the games that read
their actions here: a JSON ``[]`` is not an empty object, ``1.0`` or ``true`` is not an
integer, and a number beyond 32 bits is not a row (MalformedActionError, INVALID_ARGUMENT,
before any rule sees the action)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Final

from rules_core import MalformedActionError

INT32_MIN: Final = -(2**31)
INT32_MAX: Final = 2**31 - 1


def is_int(value: object) -> bool:
    """A JSON integer: not a bool (``true == 1``), not a float (``1.0 == 1``)."""
    return type(value) is int


def is_int32(value: object) -> bool:
    """A JSON integer that an ``int32`` field holds. The protocol reads integers of up to 32
    digits; protobuf raises ``ValueError`` on anything wider than its field, which would
    surface as ``internal`` instead of the action's refusal.

    >>> is_int32(2**31 - 1), is_int32(2**31), is_int32(-(2**31) - 1)
    (True, False, False)
    """
    return type(value) is int and INT32_MIN <= value <= INT32_MAX


def one_kind(action: object, kinds: Collection[str]) -> tuple[str, Any]:
    """The action's kind and body: an object with exactly one of ``kinds``."""
    if not isinstance(action, dict) or len(action) != 1:
        raise MalformedActionError(f"an action is an object with one of {', '.join(kinds)}")
    kind, body = next(iter(action.items()))
    if kind not in kinds:
        raise MalformedActionError(f"an action is one of {', '.join(kinds)}")
    return kind, body


def empty_object(kind: str, body: object) -> None:
    if not isinstance(body, dict) or body:
        raise MalformedActionError(f"{kind} is an empty object")


def object_with(
    kind: str, body: object, required: Collection[str], optional: Collection[str] = ()
) -> dict[str, Any]:
    """``body`` as an object holding ``required`` keys and maybe ``optional`` ones only."""
    if not isinstance(body, dict) or not set(required) <= body.keys() <= {*required, *optional}:
        names = ", ".join(sorted(required)) + "".join(f", {o}?" for o in sorted(optional))
        raise MalformedActionError(f"{kind} is an object with {names}")
    return body


def cells(kind: str, tiles: object, fields: dict[str, type], optional: dict[str, type]) -> None:
    """A list of cell objects: ``row`` and ``col`` int32 integers (a cell beyond the board but
    within int32 is the rules' refusal, ``off_board``), the other fields of their types."""
    if not isinstance(tiles, list):
        raise MalformedActionError(f"{kind}'s tiles are a list")
    for tile in tiles:
        entry = object_with(f"a {kind} tile", tile, {"row", "col", *fields}, optional)
        if not (is_int32(entry["row"]) and is_int32(entry["col"])):
            raise MalformedActionError("a tile's row and col are 32-bit integers")
        for name, kind_of in {**fields, **optional}.items():
            if name in entry and type(entry[name]) is not kind_of:
                raise MalformedActionError(f"a tile's {name} is a {kind_of.__name__}")
