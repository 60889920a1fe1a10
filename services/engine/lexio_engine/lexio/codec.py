"""Lexio's typed messages (lexio.engine.v1) ↔ the rules' values: the only place that knows both.

A stored state is checked on the way in: a state that this engine cannot read is refused
(:class:`StateFormatError`), never half-read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lexio.engine.v1 import engine_pb2 as pb
from lexio_engine.servicing import check_state_format
from lexio_rules import (
    Action,
    EndCause,
    Ending,
    EntryKind,
    Exchange,
    GameState,
    LogEntry,
    Pass,
    PassCause,
    Place,
    Reserve,
    StateFormatError,
    TilePlacement,
    WordScore,
)
from lexio_rules.board import CELLS, EMPTY, WALL
from lexio_rules.state import MAX_PLAYERS, MIN_PLAYERS
from lexio_rules.tiles import BLANK, LETTERS

STATE_FORMAT: Final = 1

_CAUSE_TO_PB: Final = {c: pb.PassCause.Value(f"PASS_CAUSE_{c.name}") for c in PassCause}
_PB_TO_CAUSE: Final = {v: c for c, v in _CAUSE_TO_PB.items()}
_KIND_TO_PB: Final = {k: pb.EntryKind.Value(f"ENTRY_KIND_{k.name}") for k in EntryKind}
_PB_TO_KIND: Final = {v: k for k, v in _KIND_TO_PB.items()}
_END_TO_PB: Final = {e: pb.EndCause.Value(f"END_CAUSE_{e.name}") for e in EndCause}
_PB_TO_END: Final = {v: e for e, v in _END_TO_PB.items()}
_BOARD_CHARS: Final = frozenset(LETTERS + LETTERS.lower() + EMPTY + WALL)
_RACK_CHARS: Final = frozenset(LETTERS + BLANK)


# Actions ---------------------------------------------------------------------------------


def tiles_from_pb(tiles: object) -> tuple[TilePlacement, ...]:
    return tuple(
        TilePlacement(t.row, t.col, t.letter, t.blank)
        for t in tiles  # type: ignore[attr-defined]
    )


_ACTION_KINDS: Final[dict[type, str]] = {Place: "place", Exchange: "exchange", Pass: "pass"}
#: Every action's name for metrics: the label set the engine's call counter starts with.
ACTION_KINDS: Final = tuple(_ACTION_KINDS.values())


def action_kind(action: Action) -> str:
    """The action's name for metrics (one of :data:`ACTION_KINDS`)."""
    return _ACTION_KINDS[type(action)]


# Log and ending --------------------------------------------------------------------------


def _tile_to_pb(t: TilePlacement) -> pb.Tile:
    return pb.Tile(row=t.row, col=t.col, letter=t.letter, blank=t.blank)


def word_to_pb(w: WordScore) -> pb.WordScore:
    """A word where it lies and its score, as a log entry keeps it."""
    return pb.WordScore(word=w.word, score=w.score, row=w.row, col=w.col, across=w.across)


def entry_to_pb(e: LogEntry) -> pb.LogEntry:
    return pb.LogEntry(
        number=e.number,
        seat=e.seat,
        kind=_KIND_TO_PB[e.kind],
        words=[word_to_pb(w) for w in e.words],
        tiles=[_tile_to_pb(t) for t in e.tiles],
        score=e.score,
        bingo=e.bingo,
        count=e.count,
        cause=_CAUSE_TO_PB[e.cause] if e.cause is not None else pb.PASS_CAUSE_UNSPECIFIED,
        at=e.at,
    )


def entry_from_pb(e: pb.LogEntry) -> LogEntry:
    return LogEntry(
        number=e.number,
        seat=e.seat,
        kind=_PB_TO_KIND[e.kind],
        at=e.at,
        words=tuple(WordScore(w.word, w.score, w.row, w.col, w.across) for w in e.words),
        tiles=tiles_from_pb(e.tiles),
        score=e.score,
        bingo=e.bingo,
        count=e.count,
        cause=_PB_TO_CAUSE.get(e.cause),
    )


def ending_to_pb(e: Ending) -> pb.Ending:
    return pb.Ending(
        cause=_END_TO_PB[e.cause],
        finisher=-1 if e.finisher is None else e.finisher,
        adjustments=e.adjustments,
        final_scores=e.final_scores,
        winners=e.winners,
        racks=e.racks,
    )


def ending_from_pb(e: pb.Ending) -> Ending:
    return Ending(
        cause=_PB_TO_END[e.cause],
        finisher=None if e.finisher < 0 else e.finisher,
        adjustments=tuple(e.adjustments),
        final_scores=tuple(e.final_scores),
        winners=tuple(e.winners),
        racks=tuple(e.racks),
    )


# State -----------------------------------------------------------------------------------


def state_to_pb(s: GameState, earlier_log: Sequence[pb.LogEntry] = ()) -> pb.GameState:
    """``earlier_log``: the entries before ``s.log`` (``s.log_offset`` of them), as received."""
    if len(earlier_log) != s.log_offset:
        raise ValueError(f"{len(earlier_log)} earlier entries given, the state has {s.log_offset}")
    message = pb.GameState(
        format=STATE_FORMAT,
        seed=s.seed,
        shuffles=s.shuffles,
        board=s.board,
        racks=s.racks,
        bag=s.bag,
        scores=s.scores,
        turn=s.turn,
        turn_started_at=s.turn_started_at,
        turn_seconds=s.turn_seconds,
        reserves=[pb.Reserve(tries=r.tries, since=r.since) for r in s.reserves],
        turns_without_placement=s.turns_without_placement,
        exchanged=s.exchanged,
    )
    # Entries already in protobuf are copied as they are, in C: no Python object per entry.
    message.log.extend(earlier_log)
    message.log.extend(entry_to_pb(e) for e in s.log)
    if s.ending is not None:
        message.ending.CopyFrom(ending_to_pb(s.ending))
    return message


def state_from_pb(m: pb.GameState, *, with_log: bool = True) -> GameState:
    """Read a stored state; StateFormatError if it is not one this engine wrote.

    ``with_log=False`` leaves the past log in ``m`` (``log_offset`` counts it): enough to apply
    an action, and :func:`state_to_pb` puts it back in front of the new entries."""
    check_state_format(m.format, STATE_FORMAT)
    players = len(m.racks)
    checks = (
        (MIN_PLAYERS <= players <= MAX_PLAYERS, "2 to 4 racks"),
        (len(m.scores) == players and len(m.reserves) == players, "one score and reserve a seat"),
        (len(m.board) == CELLS and set(m.board) <= _BOARD_CHARS, "a board of 169 cells"),
        (all(set(r) <= _RACK_CHARS for r in (*m.racks, m.bag)), "racks and bag of tiles"),
        (all(r and set(r) <= _RACK_CHARS for r in m.exchanged), "exchanges of tiles"),
        (0 <= m.turn < players, "a turn within the seats"),
        (m.turn_seconds > 0, "a positive turn clock"),
    )
    for ok, what in checks:
        if not ok:
            raise StateFormatError(f"the state must have {what}")
    try:
        log = tuple(entry_from_pb(e) for e in m.log) if with_log else ()
        ending = ending_from_pb(m.ending) if m.HasField("ending") else None
    except (KeyError, ValueError) as e:
        raise StateFormatError(f"unreadable log or ending: {e}") from None
    return GameState(
        seed=m.seed,
        shuffles=m.shuffles,
        board=m.board,
        racks=tuple(m.racks),
        bag=m.bag,
        scores=tuple(m.scores),
        turn=m.turn,
        turn_started_at=m.turn_started_at,
        turn_seconds=m.turn_seconds,
        reserves=tuple(Reserve(r.tries, r.since) for r in m.reserves),
        turns_without_placement=m.turns_without_placement,
        log=log,
        ending=ending,
        log_offset=0 if with_log else len(m.log),
        exchanged=tuple(m.exchanged),
    )
