"""Lexio through the one contract (lexio.game.v1): the client's JSON in, its rules, the
protocol's JSON out. No rule lives here (lexio_rules holds them); the state stays Lexio's own
typed message (``lexio.engine.v1.GameState``, codec.py), so that every stored game loads.

The table's clock (R28): each step names the mover's deadline and ``pass:clock``; the gateway
brings it forward for an absent mover (R29) and sends ``pass:disconnected`` instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from google.protobuf.message import DecodeError

from lexio.engine.v1 import engine_pb2 as pb
from lexio_engine import json_shape as shape
from lexio_engine.contract import Clock, JsonObject, Review, Step, Table
from lexio_engine.lexio import codec
from lexio_engine.lexio.wire import entry_json, view_json
from lexio_engine.service import encode
from lexio_engine.servicing import GAME_NOT_OVER, REVIEW_UNAVAILABLE, Call
from lexio_rules import (
    Accepted,
    Action,
    Exchange,
    GameNotOverError,
    GameState,
    InvalidSeatError,
    MalformedActionError,
    Pass,
    PassCause,
    Place,
    Reason,
    Refusal,
    ReviewUnavailableError,
    StateFormatError,
    TilePlacement,
    all_views,
    conclude,
    examine,
    new_game,
    preview,
    review,
    seat_view,
)

#: The players' actions, as the protocol's ``act.action`` keys them.
PLAYER_ACTIONS: Final = ("place", "exchange", "pass_turn")
#: The table's own actions (R28, R29): what its clock sends, and the pass's cause.
CLOCK_ACTIONS: Final = {"pass:clock": PassCause.CLOCK, "pass:disconnected": PassCause.DISCONNECTED}
_ON_TIME: Final = "pass:clock"


class WordChecker(Protocol):
    """Lexio's question to the lexicon: which of these words does the French list not hold?"""

    async def unknown(self, words: Sequence[str]) -> Sequence[str]: ...


def action_from_json(action: object) -> Action:
    """A player's action as the client sent it; MalformedActionError when it cannot be stated
    (the rules refuse what is stated but illegal: a cell off the board is ``off_board``). A
    player's pass is always the player's own: only the table passes for the clock.

    >>> action_from_json({"pass_turn": {}})
    Pass(cause=<PassCause.PLAYER: 'player'>)
    >>> action_from_json({"pass_turn": []})
    Traceback (most recent call last):
    ...
    rules_core.errors.MalformedActionError: pass_turn is an empty object
    """
    kind, body = shape.one_kind(action, PLAYER_ACTIONS)
    if kind == "pass_turn":
        shape.empty_object(kind, body)
        return Pass(PassCause.PLAYER)
    tiles = shape.object_with(kind, body, {"tiles"})["tiles"]
    if kind == "exchange":
        if not isinstance(tiles, str):
            raise MalformedActionError("exchange's tiles are a string of letters")
        return Exchange(tiles)
    shape.cells(kind, tiles, {"letter": str}, {"blank": bool})
    return Place(
        tuple(TilePlacement(t["row"], t["col"], t["letter"], t.get("blank", False)) for t in tiles)
    )


def _message(table: Table) -> pb.GameState:
    try:
        return pb.GameState.FromString(table.state)
    except DecodeError as e:
        raise StateFormatError(f"state: not a Lexio state ({e})") from None


@dataclass(frozen=True)
class _Move:
    """An action read and ready to examine: the stored message (its log goes back as it came),
    the state without its log, the seat and the action."""

    message: pb.GameState
    state: GameState
    seat: int
    action: Action


def _read(table: Table, seat: int, *, with_log: bool) -> tuple[pb.GameState, GameState]:
    message = _message(table)
    state = codec.state_from_pb(message, with_log=with_log)
    state.check_seat(seat)
    return message, state


def _turn_seconds(settings: Mapping[str, Any], default: float) -> float:
    unknown = set(settings) - {"turn_seconds"}
    if unknown:
        raise ValueError(f"lexio: unknown settings {sorted(unknown)}")
    seconds = settings.get("turn_seconds", 0)
    if type(seconds) not in (int, float) or seconds < 0:
        raise ValueError("lexio: turn_seconds is a number of seconds, not negative")
    return float(seconds) or default


def _views(state: GameState, now: float) -> list[JsonObject]:
    return [view_json(v) for v in all_views(state, now)]


def _clock(view: JsonObject) -> Clock | None:
    """R28: the mover's deadline, unless the game is over."""
    if view["ending"] is not None:
        return None
    return Clock(view["turn_deadline"], view["turn"], _ON_TIME)


def _refusal(refusal: Refusal, view: JsonObject) -> JsonObject:
    """R19, R20: the reason, the unknown words, and what is left of the reserve."""
    return {
        "reason": refusal.reason.name.lower(),
        "words": list(refusal.unknown_words),
        "reserve_tries": view["reserve_tries"],
        "reserve_next_in": view["reserve_next_in"],
    }


def _step(state: bytes, views: list[JsonObject], **step: Any) -> Step:
    ending = views[0]["ending"]
    return Step(
        state=state,
        views=views,
        over=ending is not None,
        end_cause=ending["cause"] if ending is not None else "",
        clock=_clock(views[0]),
        **step,
    )


class Lexio:
    """Lexio's rules object: the French list's words asked of the lexicon (R17)."""

    def __init__(self, lexicon: WordChecker, *, default_turn_seconds: float) -> None:
        """``default_turn_seconds``: R28's turn clock of a game whose settings name none."""
        self._lexicon = lexicon
        self._default_turn_seconds = default_turn_seconds

    async def start(
        self,
        seats: int,
        options: Mapping[str, Any],
        settings: Mapping[str, Any],
        seed: int,
        call: Call,
    ) -> Step:
        """R1–R4: the bag shuffled from ``seed``, seven tiles a rack. Lexio has no options."""

        def begin() -> GameState:
            return new_game(
                seats, seed, call.now, _turn_seconds(settings, self._default_turn_seconds)
            )

        state = await call.read(begin)
        views = [view_json(v, with_log=True) for v in all_views(state, call.now)]
        state_bytes = codec.state_to_pb(state).SerializeToString()
        return _step(state_bytes, views, accepted=True, state_changed=True)

    async def act(self, table: Table, seat: int, action: object, call: Call) -> Step:
        message, state = await call.read(lambda: _read(table, seat, with_log=False))
        chosen = await call.read(lambda: action_from_json(action))
        return await self._play(table, _Move(message, state, seat, chosen), call)

    async def on_clock(self, table: Table, seat: int, action: str, call: Call) -> Step:
        def read() -> _Move:
            if action not in CLOCK_ACTIONS:
                raise ValueError(f"lexio: no clock action {action[:40]!r}")
            message, state = _read(table, seat, with_log=False)
            return _Move(message, state, seat, Pass(CLOCK_ACTIONS[action]))

        return await self._play(table, await call.read(read), call)

    async def _play(self, table: Table, move: _Move, call: Call) -> Step:
        message, state, seat, action = move.message, move.state, move.seat, move.action
        call.action = codec.action_kind(action)
        examined = examine(state, seat, action, call.now)
        if isinstance(examined, Refusal):
            views = _views(state, call.now)
            refusal = _refusal(examined, views[seat])
            return _step(table.state, views, accepted=False, state_changed=False, refusal=refusal)
        words = examined.words_to_check
        unknown = await call.ask_lexicon(self._lexicon.unknown(words)) if words else ()
        outcome = conclude(examined, unknown)
        views = _views(outcome.state, call.now)
        state_bytes = codec.state_to_pb(outcome.state, message.log).SerializeToString()
        if isinstance(outcome, Accepted):
            event = entry_json(outcome.entry)
            return _step(state_bytes, views, accepted=True, state_changed=True, events=[event])
        refusal = _refusal(outcome.refusal, views[seat])  # R20: the try is used
        return _step(state_bytes, views, accepted=False, state_changed=True, refusal=refusal)

    async def view(self, table: Table, seat: int, with_log: bool, call: Call) -> JsonObject:
        _, state = await call.read(lambda: _read(table, seat, with_log=True))
        return view_json(seat_view(state, seat, call.now), with_log=with_log)

    async def preview(self, table: Table, seat: int, action: object, call: Call) -> JsonObject:
        """R25: a placement's words and score, never asking the lexicon."""
        call.action = "place"

        def read() -> Any:
            chosen = action_from_json(action)
            if not isinstance(chosen, Place):
                raise MalformedActionError("only a placement has a preview")
            return preview(_read(table, seat, with_log=False)[1], seat, chosen)

        result = await call.read(read)
        if isinstance(result, Reason):
            call.outcome = "refused"
            return {
                "well_formed": False,
                "reason": result.name.lower(),
                "words": [],
                "score": 0,
                "bingo": False,
            }
        call.outcome = "accepted"
        return {
            "well_formed": True,
            "words": [{"word": w.word, "score": w.score} for w in result.words],
            "score": result.score,
            "bingo": result.bingo,
        }

    async def review(self, table: Table, seat: int, players: Sequence[str], call: Call) -> Review:
        """A finished game as one seat may review it (lexio_rules.review): FAILED_PRECONDITION
        game_not_over before the end, review_unavailable for a state that cannot be replayed."""

        def read() -> GameState:
            _, state = _read(table, seat, with_log=True)
            if len(players) != state.players:
                raise InvalidSeatError(f"{len(players)} names for a game of {state.players}")
            return state

        state = await call.read(read)
        try:
            # The replay plays the whole game again (~0.3 ms an entry): in a thread, so that
            # the moves of the tables in play do not wait behind it for the loop.
            done = await asyncio.to_thread(review, state, seat, list(players))
        except GameNotOverError:
            await call.fail_precondition(GAME_NOT_OVER)
        except ReviewUnavailableError:
            await call.fail_precondition(REVIEW_UNAVAILABLE)
        return Review(
            record=encode(done.record).decode(),
            # The state's log is the public one, entry for entry what the event frames carried
            # (exchanges as counts: the letters are the state's private ``exchanged``).
            entries=[entry_json(entry) for entry in state.log],
            steps=[view_json(step) for step in done.steps],
        )
