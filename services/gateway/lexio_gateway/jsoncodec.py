"""Protobuf messages as the protocol's JSON, without knowing any message in advance (the
lobby's replies; games' views come from their engine as JSON already).

Field names stay as in the .proto; enum values become lower-case codes without their type's
prefix (``REASON_UNKNOWN_WORDS`` → ``"unknown_words"``); an absent sub-message, or an absent
``optional`` scalar, is ``null``.

>>> from lexio.lobby.v1 import lobby_pb2 as pb
>>> to_json(pb.Seat(index=1, display_name="Ana"))["display_name"]
'Ana'
"""

from __future__ import annotations

import functools
import re
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message


@functools.cache
def _enum_names(enum: EnumDescriptor) -> dict[int, str]:
    prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"
    return {v.number: v.name.removeprefix(prefix).lower() for v in enum.values}


def enum_codes(enum: EnumDescriptor) -> tuple[str, ...]:
    """Every value of ``enum`` as the JSON spells it, but the unspecified zero.

    >>> from lexio.lobby.v1 import lobby_pb2
    >>> enum_codes(lobby_pb2.CloseReason.DESCRIPTOR)[:1]
    ('empty',)
    """
    return tuple(code for number, code in _enum_names(enum).items() if number != 0)


@functools.cache
def _fields(descriptor: Descriptor) -> tuple[FieldDescriptor, ...]:
    return tuple(descriptor.fields)


def _value(field: FieldDescriptor, value: Any) -> Any:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return to_json(value)
    if field.type == FieldDescriptor.TYPE_ENUM:
        return _enum_names(field.enum_type).get(value, str(value))
    return value


def _is_map(field: FieldDescriptor) -> bool:
    entry = field.message_type
    return entry is not None and entry.GetOptions().map_entry


def to_json(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in _fields(message.DESCRIPTOR):
        value = getattr(message, field.name)
        if field.is_repeated and _is_map(field):
            assert field.message_type is not None
            entry = field.message_type.fields_by_name["value"]
            out[field.name] = {k: _value(entry, v) for k, v in sorted(value.items())}
        elif field.is_repeated:
            out[field.name] = [_value(field, v) for v in value]
        elif field.has_presence and not message.HasField(field.name):
            out[field.name] = None
        else:
            out[field.name] = _value(field, value)
    return out
