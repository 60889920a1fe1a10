"""al-Mishqaq through the one contract (lexio.game.v1): the client's JSON in, its rules, the
protocol's JSON out. No rule lives here (mishqaq_rules holds them); the state stays its own
typed message (``lexio.mishqaq.v1.GameState``, codec.py), so that every stored game loads.

Seats are the table's (the host is seat 0); sides are the game's: the host chose one with the
``host_side`` option, the other player has the other (M1). The options also fix the Latin list
and both time banks (M2, M3). A placement whose form is legal costs one batched lexicon call,
naming the mover's list (M22), with every reading of every word (M20) and the dictionary
spellings of the known ones (M37). The clock is a chess clock (M28): each step names the
instant the mover's flag falls, and the table then sends ``timeout`` (M29); a player's
absence changes nothing (M32).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from google.protobuf.message import DecodeError

from lexio.mishqaq.v1 import engine_pb2 as pb
from lexio_engine import json_shape as shape
from lexio_engine.contract import Clock, JsonObject, NotOfferedError, Review, Step, Table
from lexio_engine.lexicon_client import LexiconAnswer
from lexio_engine.mishqaq import codec
from lexio_engine.mishqaq.wire import entry_json, view_json
from lexio_engine.servicing import GAME_NOT_OVER, REVIEW_UNAVAILABLE, Call
from mishqaq_rules import (
    SIDES,
    Accepted,
    Action,
    Examined,
    GameNotOverError,
    GameState,
    MalformedActionError,
    NotReplayableError,
    Outcome,
    Refusal,
    Refused,
    Side,
    StateFormatError,
    conclude,
    examine,
    new_game,
    next_clock_event,
    replay_history,
    side_view,
)

#: The players' actions, as the protocol's ``act.action`` keys them.
PLAYER_ACTIONS: Final = ("place", "pass_turn", "swap", "pause", "resume", "resign")
#: The table's own action: the mover's flag fell (M29).
TIMEOUT: Final = "timeout"
DEFAULT_OPTIONS: Final[Mapping[str, str | int]] = {
    "host_side": "latin",
    "latin": "fr",
    "latin_minutes": 30,
    "arabic_minutes": 30,
}
_SIDES: Final = {"latin": Side.LATIN, "arabic": Side.ARABIC}


class WordJudge(Protocol):
    """al-Mishqaq's question to the lexicon: which readings does the mover's list not hold,
    and how does the dictionary spell the others?"""

    async def check(
        self, words: Sequence[str], *, lexicon: str, with_spellings: bool = False
    ) -> LexiconAnswer: ...


def _tile_text(value: object) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= 2:
        raise MalformedActionError("a tile is written as the record writes it: C, R+, ش, ?")
    return value


def action_message(action: object) -> pb.Action:
    """A player's action as the client sent it, as the rules' codec reads it;
    MalformedActionError when it cannot be stated (the rules refuse what is stated but
    illegal). Only the table sends a timeout.

    >>> action_message({"swap": {"row": 10, "col": 4}}).swap.col
    4
    >>> action_message({"timeout": {}})
    Traceback (most recent call last):
    ...
    rules_core.errors.MalformedActionError: an action is one of place, pass_turn, swap, \
pause, resume, resign
    """
    kind, body = shape.one_kind(action, PLAYER_ACTIONS)
    if kind == "place":
        tiles = shape.object_with(kind, body, {"tiles"})["tiles"]
        shape.cells(kind, tiles, {"tile": str}, {"as": str})
        placed = [
            pb.Placement(
                row=t["row"], col=t["col"], tile=_tile_text(t["tile"]), as_letter=t.get("as", "")
            )
            for t in tiles
        ]
        return pb.Action(place=pb.Place(tiles=placed))
    if kind == "swap":
        swap = shape.object_with(kind, body, {"row", "col"}, {"tile"})
        if not (shape.is_int32(swap["row"]) and shape.is_int32(swap["col"])):
            raise MalformedActionError("a swap's row and col are 32-bit integers")
        tile = _tile_text(swap["tile"]) if "tile" in swap else ""
        return pb.Action(swap=pb.Swap(row=swap["row"], col=swap["col"], tile=tile))
    shape.empty_object(kind, body)
    return pb.Action(**{kind: getattr(pb, _MESSAGES[kind])()})


_MESSAGES: Final = {"pass_turn": "Pass", "pause": "Pause", "resume": "Resume", "resign": "Resign"}


def side_of(options: Mapping[str, Any], seat: int) -> Side:
    """M1: the host (seat 0) plays the side it chose, the other seat the other side."""
    host = options.get("host_side", DEFAULT_OPTIONS["host_side"])
    if host not in _SIDES or seat not in (0, 1):
        raise ValueError("al-Mishqaq: host_side is latin or arabic, seats are 0 and 1 (M1)")
    side = _SIDES[host]
    return side if seat == 0 else side.other


def _seat_of(options: Mapping[str, Any], side: Side) -> int:
    return 0 if side_of(options, 0) is side else 1


def _bank_minute(settings: Mapping[str, Any]) -> float:
    unknown = set(settings) - {"bank_minute_seconds"}
    if unknown:
        raise ValueError(f"mishqaq: unknown settings {sorted(unknown)}")
    value = settings.get("bank_minute_seconds", 60.0)
    if type(value) not in (int, float) or value <= 0:
        raise ValueError("mishqaq: bank_minute_seconds must be positive")
    return float(value)


@dataclass(frozen=True)
class _Move:
    """An action read and ready to examine: the stored message (its log goes back as it came),
    the state without its log, the seat, its side and the action."""

    message: pb.GameState
    state: GameState
    seat: int
    side: Side
    action: Action


def _minutes(options: Mapping[str, Any], name: str) -> int:
    """M3: a bank in whole minutes (the lobby offers the choices)."""
    minutes = options[name]
    if type(minutes) is not int or minutes <= 0:
        raise ValueError(f"al-Mishqaq: {name} is a positive number of minutes (M3)")
    return minutes


def _read(table: Table, seat: int, *, with_log: bool) -> tuple[pb.GameState, GameState, Side]:
    try:
        message = pb.GameState.FromString(table.state)
    except DecodeError as e:
        raise StateFormatError(f"state: not an al-Mishqaq state ({e})") from None
    side = side_of(table.options, seat)
    return message, codec.state_from_pb(message, with_log=with_log), side


def _move(table: Table, seat: int, action: object) -> _Move:
    """``action``: the client's JSON, or the table's own message."""
    message, state, side = _read(table, seat, with_log=False)
    chosen = action if isinstance(action, pb.Action) else action_message(action)
    return _Move(message, state, seat, side, codec.action_from_pb(chosen, side))


class Mishqaq:
    """al-Mishqaq's rules object: each side's words asked of its list."""

    def __init__(self, lexicon: WordJudge) -> None:
        self._lexicon = lexicon

    def _step(self, options: Mapping[str, Any], game: GameState, now: float, **step: Any) -> Step:
        """The step to ``game``: its views by seat, its end, and the mover's flag (M29)."""
        by_side = [view_json(side_view(game, s, now), now) for s in SIDES]  # Latin's, Arabic's
        views = by_side if _seat_of(options, Side.LATIN) == 0 else by_side[::-1]
        ending = views[0]["ending"]
        due = next_clock_event(game)
        clock = None if due is None else Clock(due, _seat_of(options, game.turn), TIMEOUT)
        cause = ending["cause"] if ending is not None else ""
        return Step(views=views, over=ending is not None, end_cause=cause, clock=clock, **step)

    async def start(
        self,
        seats: int,
        options: Mapping[str, Any],
        settings: Mapping[str, Any],
        seed: int,
        call: Call,
    ) -> Step:
        """M1–M3: two seats; the Latin list and both banks from the table's options."""

        def begin() -> GameState:
            if seats != 2:
                raise ValueError("al-Mishqaq is played by two (M1)")
            unknown = set(options) - set(DEFAULT_OPTIONS)
            if unknown:
                raise ValueError(f"al-Mishqaq has no table options {sorted(unknown)}")
            side_of(options, 0)
            chosen = {**DEFAULT_OPTIONS, **options}
            minute = _bank_minute(settings)
            banks = (
                _minutes(chosen, "latin_minutes") * minute,
                _minutes(chosen, "arabic_minutes") * minute,
            )
            if not isinstance(chosen["latin"], str):
                raise ValueError("al-Mishqaq: latin names a list (M2)")
            return new_game(latin=chosen["latin"], seed=seed, now=call.now, banks=banks)

        state = await call.read(begin)
        return self._step(
            options,
            state,
            call.now,
            accepted=True,
            state_changed=True,
            state=codec.state_to_pb(state).SerializeToString(),
            events=[entry_json(e) for e in state.log],
        )

    async def act(self, table: Table, seat: int, action: object, call: Call) -> Step:
        return await self._play(table, await call.read(lambda: _move(table, seat, action)), call)

    async def on_clock(self, table: Table, seat: int, action: str, call: Call) -> Step:
        def read() -> _Move:
            if action != TIMEOUT:
                raise ValueError(f"mishqaq: no clock action {action[:40]!r}")
            return _move(table, seat, pb.Action(timeout=pb.Timeout()))

        return await self._play(table, await call.read(read), call)

    async def _play(self, table: Table, move: _Move, call: Call) -> Step:
        message, state, seat, action = move.message, move.state, move.seat, move.action
        side = move.side
        call.action = codec.action_kind(action)
        examined = examine(state, side, action, call.now)
        outcome: Outcome
        if isinstance(examined, Refusal):
            outcome = Refused.of(state, examined)
        else:
            answer = await self._judge(examined, call)
            outcome = conclude(examined, answer.unknown, answer.spellings)
        changed = isinstance(outcome, Accepted) or outcome.state_changed
        events = []
        if isinstance(outcome, Accepted):
            events = [entry_json(e) for e in outcome.entries]
        elif changed:
            # A refusal that recorded the flag's end still logged the result.
            events = [entry_json(e) for e in outcome.state.log]
        state_bytes = (
            codec.state_to_pb(outcome.state, message.log).SerializeToString()
            if changed
            else table.state
        )
        step = self._step(
            table.options,
            outcome.state,
            call.now,
            accepted=isinstance(outcome, Accepted),
            state_changed=changed,
            state=state_bytes,
            events=events,
        )
        if isinstance(outcome, Accepted):
            return step
        view = step.views[seat]
        refusal = {
            "reason": outcome.refusal.reason.value,
            "words": list(outcome.refusal.unknown_words),
            "reserve_tries": view["reserve_tries"],
            "reserve_next_in": view["reserve_next_in"],
        }
        return dataclasses.replace(step, refusal=refusal)

    async def _judge(self, examined: Examined, call: Call) -> LexiconAnswer:
        """The lexicon's answer for a placement's readings; none asked for other actions."""
        if examined.lexicon is None or not examined.readings:
            return LexiconAnswer((), {})
        question = self._lexicon.check(
            examined.readings, lexicon=examined.lexicon, with_spellings=True
        )
        return await call.ask_lexicon(question)

    async def view(self, table: Table, seat: int, with_log: bool, call: Call) -> JsonObject:
        _, state, side = await call.read(lambda: _read(table, seat, with_log=with_log))
        view = side_view(state, side, call.now)
        return view_json(view, call.now, with_log=with_log)

    async def preview(self, table: Table, seat: int, action: object, call: Call) -> JsonObject:
        raise NotOfferedError("al-Mishqaq has no preview (M25)")

    async def review(self, table: Table, seat: int, players: Sequence[str], call: Call) -> Review:
        """A finished game replayed from its seed and log (no lexicon: the log says which
        words were known), as ``seat``'s side may review it; FAILED_PRECONDITION
        game_not_over before the end, review_unavailable if its log does not follow from its
        seed. The record names its players by side (mishqaq-record-format.md)."""
        _, state, side = await call.read(lambda: _read(table, seat, with_log=True))
        try:
            history = replay_history(state)
        except GameNotOverError:
            await call.fail_precondition(GAME_NOT_OVER)
        except NotReplayableError:
            await call.fail_precondition(REVIEW_UNAVAILABLE)
        # The state's log is the public one, entry for entry what the event frames carried.
        entries = [entry_json(e) for e in state.log]
        steps = [view_json(side_view(s.state, side, s.at), s.at) for s in history.steps]
        return Review(record=codec.record_text(history, side), entries=entries, steps=steps)
