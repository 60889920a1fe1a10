"""The WebSocket protocol's frames (docs/protocol.md): parsing, checking, error codes."""

from __future__ import annotations

import json
import math
import re
import unicodedata
from typing import Any, Final, NoReturn

PROTOCOL_VERSION: Final = 1
MAX_ID_LENGTH: Final = 64
MAX_NAME_LENGTH: Final = 24
MAX_NUMBER_DIGITS: Final = 32
"""No field of the protocol needs a longer number; Python would spend time on (and, past 4,300
digits, refuse) a huge integer, so a frame holding one is refused before it is converted."""

CLIENT_TYPES: Final = frozenset(
    {"hello", "create", "lookup", "join", "leave", "start", "act", "preview", "rematch", "ping"}
)
MAX_OPTIONS: Final = 16
ERROR_CODES: Final = frozenset(
    {
        "bad_json",
        "bad_frame",
        "unknown_type",
        "protocol_version",
        "rate_limited",
        "hello_first",
        "bad_token",
        "not_seated",
        "already_seated",
        "invalid_name",
        "invalid_code",
        "unknown_code",
        "table_full",
        "game_started",
        "table_closed",
        "not_host",
        "not_enough_players",
        "game_unavailable",
        "unknown_game",
        "invalid_option",
        "bad_options",
        "not_started",
        "not_over",
        "bad_action",
        "unavailable",
        "internal",
    }
)
"""Every ``error`` frame's code (docs/protocol.md, "Error codes"; tests/gateway holds the
documentation, the gateway's own raises and the lobby's codes let through to it): the bounded
label set of ``lexio_gateway_errors_total``."""


class ProtocolError(Exception):
    """An answer of type ``error``: a stable ``code`` and its parameters."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def _refuse_number(text: str) -> NoReturn:
    raise ProtocolError("bad_json", reason="number")


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        _refuse_number(text)
    return int(text)


def _real(text: str) -> float:
    value = float(text)
    if len(text) > 2 * MAX_NUMBER_DIGITS or not math.isfinite(value):
        _refuse_number(text)  # 1e999 would become infinity
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all different: JSON leaves a repeated key's meaning open, and a
    proxy or a client-side check that read the first value would see another frame than the
    one applied (Python keeps the last)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise ProtocolError("bad_json", reason="duplicate_key")
    return obj


_DECODER: Final = json.JSONDecoder(
    object_pairs_hook=_object,
    parse_int=_integer,
    parse_float=_real,
    parse_constant=_refuse_number,  # NaN and Infinity are not JSON, although Python reads them
)


_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _holds_surrogate(value: object) -> bool:
    """Whether a decoded JSON value holds a lone surrogate anywhere, a key or a string (a loop,
    not recursion: the decoder accepts nesting as deep as the interpreter's whole stack)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def parse_frame(text: str) -> dict[str, Any]:
    """A client frame as a dict with a known ``type``; ProtocolError otherwise.

    >>> parse_frame('{"type": "ping"}')
    {'type': 'ping'}
    >>> parse_frame('{"type": "act", "n": ' + "9" * 5000 + "}")
    Traceback (most recent call last):
    ...
    lexio_gateway.protocol.ProtocolError: bad_json
    >>> parse_frame('{"type": "act", "action": {"pass_turn": {}}, "action": {}}')
    Traceback (most recent call last):
    ...
    lexio_gateway.protocol.ProtocolError: bad_json
    """
    try:
        frame = _DECODER.decode(text)
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        raise ProtocolError("bad_json") from None
    # A text frame is valid UTF-8, but JSON can still escape half a character ("\ud800"),
    # which no protobuf string, no store and no echo back to the client can encode.
    if "\\u" in text and _holds_surrogate(frame):
        raise ProtocolError("bad_json", reason="text")
    if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
        raise ProtocolError("bad_frame", field="type")
    if frame["type"] not in CLIENT_TYPES:
        raise ProtocolError("unknown_type", got=frame["type"][:MAX_ID_LENGTH])
    if "id" in frame:
        action_id = frame["id"]
        if not isinstance(action_id, str) or not 1 <= len(action_id) <= MAX_ID_LENGTH:
            raise ProtocolError("bad_frame", field="id")
    return frame


def request_id(frame: dict[str, Any]) -> str:
    """The client's id of a request that must carry one."""
    action_id = frame.get("id")
    if not isinstance(action_id, str):
        raise ProtocolError("bad_frame", field="id")
    return action_id


def text_field(frame: dict[str, Any], name: str, max_length: int) -> str:
    value = frame.get(name)
    if not isinstance(value, str) or len(value) > max_length:
        raise ProtocolError("bad_frame", field=name)
    return value


def display_name(frame: dict[str, Any]) -> str:
    """Trimmed, 1–24 printable characters, no control or format characters."""
    raw = frame.get("name")
    if not isinstance(raw, str):
        raise ProtocolError("invalid_name")
    name = unicodedata.normalize("NFC", raw).strip()
    if not 1 <= len(name) <= MAX_NAME_LENGTH or any(
        unicodedata.category(ch)[0] in "CZ" and ch != " " for ch in name
    ):
        raise ProtocolError("invalid_name")
    return name


def encode(frame: dict[str, Any]) -> str:
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))


def options_field(frame: dict[str, Any], action_id: str) -> dict[str, str | int]:
    """``create``'s ``options``: an object of at most 16 names to strings or integers (the lobby
    checks them against what the game registered)."""
    options = frame.get("options", {})
    if not isinstance(options, dict) or len(options) > MAX_OPTIONS:
        raise ProtocolError("bad_frame", id=action_id, field="options")
    for name, value in options.items():
        bad_value = not isinstance(value, str | int) or isinstance(value, bool)
        if len(name) > MAX_ID_LENGTH or bad_value or (isinstance(value, str) and len(value) > 64):
            raise ProtocolError("bad_frame", id=action_id, field="options")
    return options
