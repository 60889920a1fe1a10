"""Checks of an action's JSON shape, shared by the adapters, done before protobuf sees it:
``json_format.ParseDict`` reads ``[]`` as an empty message and ``1.0`` or ``true`` where an
integer is expected, which would let a malformed frame through as a legal action."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from lexio_gateway.games.contract import BadActionError


def is_int(value: object) -> bool:
    """A JSON integer: not a bool (``true == 1``), not a float (``1.0 == 1``)."""
    return type(value) is int


def one_kind(action: object, kinds: Collection[str]) -> tuple[str, Any]:
    """The action's kind and body: an object with exactly one of ``kinds``."""
    if not isinstance(action, dict) or len(action) != 1:
        raise BadActionError(f"an action is an object with one of {', '.join(kinds)}")
    kind, body = next(iter(action.items()))
    if kind not in kinds:
        raise BadActionError(f"an action is one of {', '.join(kinds)}")
    return kind, body


def empty_object(kind: str, body: object) -> None:
    if not isinstance(body, dict) or body:
        raise BadActionError(f"{kind} is an empty object")


def object_with(
    kind: str, body: object, required: Collection[str], optional: Collection[str] = ()
) -> dict[str, Any]:
    """``body`` as an object holding ``required`` keys and maybe ``optional`` ones only."""
    if not isinstance(body, dict) or not set(required) <= body.keys() <= {*required, *optional}:
        names = ", ".join(sorted(required)) + "".join(f", {o}?" for o in sorted(optional))
        raise BadActionError(f"{kind} is an object with {names}")
    return body


def cells(kind: str, tiles: object, fields: dict[str, type], optional: dict[str, type]) -> None:
    """A list of cell objects: ``row`` and ``col`` integers, the other fields of their types."""
    if not isinstance(tiles, list):
        raise BadActionError(f"{kind}'s tiles are a list")
    for tile in tiles:
        entry = object_with(f"a {kind} tile", tile, {"row", "col", *fields}, optional)
        if not (is_int(entry["row"]) and is_int(entry["col"])):
            raise BadActionError("a tile's row and col are integers")
        for name, kind_of in {**fields, **optional}.items():
            if name in entry and type(entry[name]) is not kind_of:
                raise BadActionError(f"a tile's {name} is a {kind_of.__name__}")
