"""al-Mishqaq's typed messages (lexio.mishqaq.v1) to and from the rules' values.

The state travels as the rules' own versioned plain form (``mishqaq-state/1``) in JSON: a
``core`` (everything but the log) and the log as one JSON object per entry. Act reads only the
core and appends the new entries to the ones it received, untouched, so a call costs the same
at move 5 and at move 80 (Lexio's engine does the same with its log). Views and log entries
cross as JSON, built in wire.py; actions are read through the typed messages here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from lexio.mishqaq.v1 import engine_pb2 as pb
from lexio_engine.service import encode
from lexio_engine.servicing import check_state_format
from mishqaq_rules import (
    STATE_FORMAT,
    Action,
    GameState,
    History,
    MalformedActionError,
    Pass,
    Pause,
    Place,
    Resign,
    Resume,
    Side,
    StateFormatError,
    Swap,
    Tile,
    TilePlacement,
    Timeout,
    side_record,
)
from mishqaq_rules.plain import entry_from_plain, entry_to_plain

# The state --------------------------------------------------------------------------------


def state_to_pb(state: GameState, past_log: Sequence[bytes] = ()) -> pb.GameState:
    """``state`` (whose ``log`` holds only what came after ``past_log``) as the message."""
    plain = state.to_dict()
    plain["log"] = []
    plain["log_offset"] = 0
    return pb.GameState(
        format=STATE_FORMAT,
        core=encode(plain),
        log=[*past_log, *(encode(entry_to_plain(e)) for e in state.log)],
    )


def state_from_pb(message: pb.GameState, *, with_log: bool = True) -> GameState:
    """The state; without its log, ``log_offset`` still numbers the next entry.
    StateFormatError if the message is not a state this engine wrote."""
    check_state_format(message.format, STATE_FORMAT)
    try:
        plain = json.loads(message.core)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise StateFormatError(f"state.core: not JSON ({e})") from None
    if not isinstance(plain, dict):
        raise StateFormatError("state.core: not an object")
    state = GameState.from_dict(plain)
    if not with_log:
        return replace(state, log=(), log_offset=len(message.log))
    entries = []
    for i, raw in enumerate(message.log):
        try:
            entries.append(entry_from_plain(json.loads(raw), f"state.log[{i}]"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise StateFormatError(f"state.log[{i}]: not JSON ({e})") from None
    return replace(state, log=tuple(entries), log_offset=0)


# Actions ----------------------------------------------------------------------------------


def _tile(text: str, side: Side) -> Tile:
    # A blank is always the mover's own (its script is the mover's); a letter names its bag.
    return Tile.parse(text, side if text == "?" else None)


def action_from_pb(message: pb.Action, side: Side) -> Action:
    """MalformedActionError when it cannot even be stated (no kind, an unknown tile)."""
    kind = message.WhichOneof("kind")
    if kind == "place":
        return Place(
            tuple(
                TilePlacement(t.row, t.col, _tile(t.tile, side), t.as_letter or None)
                for t in message.place.tiles
            )
        )
    if kind == "swap":
        swap = message.swap
        return Swap(swap.row, swap.col, _tile(swap.tile, side) if swap.tile else None)
    simple: dict[str | None, Action] = {
        "pass_turn": Pass(),
        "resign": Resign(),
        "pause": Pause(),
        "resume": Resume(),
        "timeout": Timeout(),
    }
    if kind not in simple:
        raise MalformedActionError("an action is one of place, pass_turn, swap, resign, "
                                   "pause, resume, timeout")  # fmt: skip
    return simple[kind]


_ACTION_KINDS: Final[dict[type, str]] = {
    Place: "place",
    Pass: "pass",
    Swap: "swap",
    Resign: "resign",
    Pause: "pause",
    Resume: "resume",
    Timeout: "timeout",
}
#: Every action's name for metrics: the label set the engine's call counter starts with.
ACTION_KINDS: Final = tuple(_ACTION_KINDS.values())


def action_kind(action: Action) -> str:
    """The action's name for metrics (one of :data:`ACTION_KINDS`)."""
    return _ACTION_KINDS[type(action)]


def record_text(history: History, side: Side) -> str:
    """A finished game's record as ``side`` may review it: JSON text, as a downloaded file is."""
    return encode(side_record(history, side)).decode()
