"""The gateway's view of a game: an adapter that turns the protocol's JSON into engine calls.

The gateway core knows no rule. It stores the opaque state an engine returns, routes each
seat's view to that seat only, and runs a clock from the turn and deadline the adapter
reads. Another game is another adapter.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Final, Protocol

import grpc
from google.protobuf import json_format

from lexio.engine.v1 import engine_pb2 as pb
from lexio.engine.v1 import engine_pb2_grpc
from lexio_gateway.jsoncodec import to_json
from lexio_gateway.metrics import ENGINE_CALL_SECONDS


class GameUnavailableError(Exception):
    """The engine (or what it depends on) cannot answer now; nothing changed."""


class BadActionError(Exception):
    """The action cannot be stated; nothing was asked of the engine."""


@dataclass(frozen=True)
class Turn:
    seat: int
    deadline: float
    over: bool


@dataclass(frozen=True)
class Step:
    """What one engine call returned, in the protocol's JSON."""

    accepted: bool
    state_changed: bool
    state: bytes
    turn: Turn
    views: list[dict[str, Any]]
    event: dict[str, Any] | None = None
    refusal: dict[str, Any] | None = None


class GameAdapter(Protocol):
    name: str
    min_seats: int
    max_seats: int

    async def start(self, players: int, seed: int, now: float) -> Step: ...

    async def act(self, state: bytes, seat: int, action: dict[str, Any], now: float) -> Step: ...

    async def table_pass(self, state: bytes, seat: int, cause: str, now: float) -> Step: ...

    async def preview(self, state: bytes, seat: int, action: dict[str, Any]) -> dict[str, Any]: ...

    async def view(
        self, state: bytes, seat: int, now: float, *, with_log: bool
    ) -> dict[str, Any]: ...


def _is_int(value: object) -> bool:
    return type(value) is int  # not bool (True == 1), not float (1.0 == 1)


def _check_tile(tile: object) -> None:
    if not isinstance(tile, dict) or not {"row", "col", "letter"} <= tile.keys() <= {
        "row",
        "col",
        "letter",
        "blank",
    }:
        raise BadActionError("a tile is an object with row, col, letter and blank?")
    if not (_is_int(tile["row"]) and _is_int(tile["col"]) and isinstance(tile["letter"], str)):
        raise BadActionError("a tile's row and col are integers, its letter a string")
    if not isinstance(tile.get("blank", False), bool):
        raise BadActionError("a tile's blank is true or false")


def check_action_shape(action: object) -> None:
    """The JSON shape of a Lexio action, checked before protobuf sees it: ParseDict reads
    ``[]`` as an empty message and ``1.0`` or ``true`` where an integer is expected, which
    would let a malformed frame through as a legal pass.

    >>> check_action_shape({"pass_turn": {}})
    >>> check_action_shape({"pass_turn": []})
    Traceback (most recent call last):
    ...
    lexio_gateway.games.BadActionError: pass_turn is an empty object
    """
    if not isinstance(action, dict) or len(action) != 1:
        raise BadActionError("an action is an object with one of place, exchange, pass_turn")
    kind, body = next(iter(action.items()))
    if kind == "pass_turn":
        if not isinstance(body, dict) or body:
            raise BadActionError("pass_turn is an empty object")
    elif kind == "exchange":
        if not isinstance(body, dict) or body.keys() != {"tiles"}:
            raise BadActionError("exchange is an object with tiles")
        if not isinstance(body["tiles"], str):
            raise BadActionError("exchange's tiles are a string of letters")
    elif kind == "place":
        if not isinstance(body, dict) or body.keys() != {"tiles"}:
            raise BadActionError("place is an object with tiles")
        if not isinstance(body["tiles"], list):
            raise BadActionError("place's tiles are a list")
        for tile in body["tiles"]:
            _check_tile(tile)
    else:
        raise BadActionError("an action is one of place, exchange, pass_turn")


_UNAVAILABLE: Final = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED}
)
_TABLE_CAUSES: Final = {
    "clock": pb.PASS_CAUSE_CLOCK,
    "disconnected": pb.PASS_CAUSE_DISCONNECTED,
}


class LexioAdapter:
    """Lexio through its engine service (lexio.engine.v1)."""

    name = "lexio"
    min_seats = 2
    max_seats = 4

    def __init__(self, channel: grpc.aio.Channel, *, timeout: float, turn_seconds: float) -> None:
        self._stub = engine_pb2_grpc.EngineStub(channel)
        self._timeout = timeout
        self._turn_seconds = turn_seconds

    async def _call(self, rpc: str, request: Any) -> Any:
        started = time.perf_counter()
        outcome = "ok"
        try:
            return await getattr(self._stub, rpc)(request, timeout=self._timeout)
        except grpc.aio.AioRpcError as e:
            outcome = e.code().name.lower()
            if e.code() in _UNAVAILABLE:
                raise GameUnavailableError(e.details() or e.code().name) from e
            if e.code() == grpc.StatusCode.INVALID_ARGUMENT:
                raise BadActionError(e.details() or "invalid") from e
            raise
        finally:
            ENGINE_CALL_SECONDS.labels(rpc=rpc, outcome=outcome).observe(
                time.perf_counter() - started
            )

    @staticmethod
    def _action(action: dict[str, Any]) -> pb.Action:
        """A player's action; a pass is always the player's own (only the table times out)."""
        check_action_shape(action)
        try:
            message = json_format.ParseDict(action, pb.Action())
        except json_format.ParseError as e:
            raise BadActionError(str(e)) from None
        if message.HasField("pass_turn"):
            message.pass_turn.cause = pb.PASS_CAUSE_PLAYER
        return message

    @staticmethod
    def _step(reply: pb.ActResponse | pb.StartGameResponse, accepted: bool) -> Step:
        views = [to_json(v) for v in reply.views]
        first = reply.views[0]
        turn = Turn(first.turn, first.turn_deadline, first.HasField("ending"))
        if isinstance(reply, pb.StartGameResponse):
            return Step(True, True, reply.state.SerializeToString(), turn, views)
        refusal = None
        if not reply.outcome.accepted:
            refusal = to_json(reply.outcome)
            refusal = {"reason": refusal["reason"], "words": refusal["unknown_words"]}
        return Step(
            accepted=accepted,
            state_changed=reply.state_changed,
            state=reply.state.SerializeToString(),
            turn=turn,
            views=views,
            event=to_json(reply.event) if reply.HasField("event") else None,
            refusal=refusal,
        )

    async def start(self, players: int, seed: int, now: float) -> Step:
        request = pb.StartGameRequest(
            players=players, seed=seed, now=now, turn_seconds=self._turn_seconds
        )
        return self._step(await self._call("StartGame", request), True)

    async def _act(self, state: bytes, seat: int, action: pb.Action, now: float) -> Step:
        request = pb.ActRequest(
            state=pb.GameState.FromString(state), seat=seat, action=action, now=now
        )
        reply = await self._call("Act", request)
        return self._step(reply, reply.outcome.accepted)

    async def act(self, state: bytes, seat: int, action: dict[str, Any], now: float) -> Step:
        return await self._act(state, seat, self._action(action), now)

    async def table_pass(self, state: bytes, seat: int, cause: str, now: float) -> Step:
        action = pb.Action(pass_turn=pb.Pass(cause=_TABLE_CAUSES[cause]))
        return await self._act(state, seat, action, now)

    async def preview(self, state: bytes, seat: int, action: dict[str, Any]) -> dict[str, Any]:
        message = self._action(action)
        if not message.HasField("place"):
            raise BadActionError("only a placement has a preview")
        request = pb.PreviewRequest(
            state=pb.GameState.FromString(state), seat=seat, place=message.place
        )
        reply = to_json(await self._call("Preview", request))
        words = [{"word": w["word"], "score": w["score"]} for w in reply["words"]]
        out = {**reply, "words": words}
        if reply["well_formed"]:
            del out["reason"]
        return out

    async def view(self, state: bytes, seat: int, now: float, *, with_log: bool) -> dict[str, Any]:
        request = pb.ViewRequest(state=pb.GameState.FromString(state), seat=seat, now=now)
        view = to_json((await self._call("View", request)).view)
        if not with_log:
            view["log"] = []
        return view
