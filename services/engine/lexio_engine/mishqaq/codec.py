"""al-Mishqaq's typed messages (lexio.mishqaq.v1) to and from the rules' values.

The state travels as the rules' own versioned plain form (``mishqaq-state/1``) in JSON: a
``core`` (everything but the log) and the log as one JSON object per entry. Act reads only the
core and appends the new entries to the ones it received, untouched, so a call costs the same
at move 5 and at move 80 (Lexio's engine does the same with its log). Views and log entries
are typed messages, which game.py writes as the protocol's JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any, Final

from lexio.mishqaq.v1 import engine_pb2 as pb
from lexio_engine.servicing import check_state_format
from mishqaq_rules import (
    SIDES,
    STATE_FORMAT,
    Action,
    Board,
    Ending,
    GameState,
    History,
    LogEntry,
    MalformedActionError,
    Pass,
    Pause,
    Place,
    Resign,
    Resume,
    Side,
    SideView,
    StateFormatError,
    Swap,
    Tile,
    TilePlacement,
    Timeout,
    WordPlay,
    side_record,
    side_view,
)
from mishqaq_rules.plain import entry_from_plain, entry_to_plain

_SIDES: Final = {Side.LATIN: pb.SIDE_LATIN, Side.ARABIC: pb.SIDE_ARABIC}
_FROM_PB_SIDE: Final = {v: k for k, v in _SIDES.items()}


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


# The state --------------------------------------------------------------------------------


def state_to_pb(state: GameState, past_log: Sequence[bytes] = ()) -> pb.GameState:
    """``state`` (whose ``log`` holds only what came after ``past_log``) as the message."""
    plain = state.to_dict()
    plain["log"] = []
    plain["log_offset"] = 0
    return pb.GameState(
        format=STATE_FORMAT,
        core=_json(plain),
        log=[*past_log, *(_json(entry_to_plain(e)) for e in state.log)],
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


def side_from_pb(side: int) -> Side:
    try:
        return _FROM_PB_SIDE[side]  # type: ignore[index]
    except KeyError:
        raise MalformedActionError("side: latin or arabic") from None


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


# Views and events -------------------------------------------------------------------------


def tile_to_pb(tile: Tile, as_letter: str | None = None) -> pb.Tile:
    return pb.Tile(
        code=tile.text,
        letter=as_letter or tile.letter or "",
        partner=tile.partner or "",
        blank=tile.blank,
        owner=_SIDES[tile.script],
    )


def _cells(cells: Iterable[tuple[int, int, Tile, str | None]]) -> list[pb.Cell]:
    return [pb.Cell(row=r, col=c, tile=tile_to_pb(t, a)) for r, c, t, a in cells]


def board_to_pb(board: Board) -> list[str]:
    """Every cell, row by row: "" or the record's text of its tile."""
    return [cell for row in board.rows() for cell in row]


_DIRECTIONS: Final = {
    "across": pb.DIRECTION_ACROSS,
    "down": pb.DIRECTION_DOWN,
    "up": pb.DIRECTION_UP,
}


def _word_to_pb(word: WordPlay) -> pb.Word:
    return pb.Word(
        word=word.word,
        direction=_DIRECTIONS[word.direction.value],
        script=_SIDES[word.script],
        row=word.row,
        col=word.col,
        spellings=word.spellings,
    )


def _pb_enum(prefix: str, value: str) -> int:
    return int(getattr(pb, f"{prefix}_{value.upper()}"))


def entry_to_pb(entry: LogEntry) -> pb.LogEntry:
    return pb.LogEntry(
        number=entry.number,
        kind=_pb_enum("ENTRY_KIND", entry.kind.value),  # type: ignore[arg-type]
        at=entry.at,
        side=_SIDES[entry.side] if entry.side else pb.SIDE_UNSPECIFIED,
        tiles=_cells((t.row, t.col, t.tile, t.as_letter) for t in entry.tiles),
        words=[_word_to_pb(w) for w in entry.words],
        count=entry.count,
        draws=[pb.OpeningDraw(latin=tile_to_pb(a), arabic=tile_to_pb(b)) for a, b in entry.draws],
        winner=_SIDES[entry.winner] if entry.winner else pb.SIDE_UNSPECIFIED,
        cause=(
            _pb_enum("END_CAUSE", entry.cause.value)  # type: ignore[arg-type]
            if entry.cause
            else pb.END_CAUSE_UNSPECIFIED
        ),
    )


def _ending_to_pb(ending: Ending) -> pb.Ending:
    return pb.Ending(
        winner=_SIDES[ending.winner] if ending.winner else pb.SIDE_UNSPECIFIED,
        cause=_pb_enum("END_CAUSE", ending.cause.value),  # type: ignore[arg-type]
        at=ending.at,
        latin_rack=[tile_to_pb(t) for t in ending.racks[0]],
        arabic_rack=[tile_to_pb(t) for t in ending.racks[1]],
    )


def view_to_pb(view: SideView, now: float, *, with_log: bool = True) -> pb.SideView:
    message = pb.SideView(
        side=_SIDES[view.side],
        latin=view.latin,
        rack=[tile_to_pb(t) for t in view.rack],
        latin_rack_count=view.rack_counts[0],
        arabic_rack_count=view.rack_counts[1],
        latin_bag_count=view.bag_counts[0],
        arabic_bag_count=view.bag_counts[1],
        board=board_to_pb(view.board),
        turn=_SIDES[view.turn],
        latin_bank=view.banks[0],
        arabic_bank=view.banks[1],
        latin_pauses_left=view.pauses_left[0],
        arabic_pauses_left=view.pauses_left[1],
        reserve_tries=view.reserve_tries,
        reserve_next_in=view.reserve_next_in,
        reserve_max=view.reserve_max,
        now=now,
    )
    if view.flag_at is not None:
        message.flag_at = view.flag_at
    if view.pause is not None:
        message.pause.CopyFrom(pb.MeaningPause(by=_SIDES[view.pause.by], until=view.pause.until))
    if view.ending is not None:
        message.ending.CopyFrom(_ending_to_pb(view.ending))
    if with_log:
        message.log.extend(entry_to_pb(e) for e in view.log)
    return message


def views_to_pb(state: GameState, now: float) -> list[pb.SideView]:
    """Latin's view then Arabic's after an action, without the log (the events extend it)."""
    return [view_to_pb(side_view(state, s, now), now, with_log=False) for s in SIDES]


def review_steps(history: History, side: Side) -> tuple[str, list[pb.SideView]]:
    """A finished game as ``side`` may review it: its record (JSON text, as a downloaded file
    is) and its view at the start and after each log entry, each at that entry's instant
    (the clocks as they stood then) and without the log, as the views after an action are."""
    record = _json(side_record(history, side)).decode()
    steps = [
        view_to_pb(side_view(step.state, side, step.at), step.at, with_log=False)
        for step in history.steps
    ]
    return record, steps
