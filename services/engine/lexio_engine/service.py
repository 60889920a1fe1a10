"""The one engine service, ``lexio.game.v1.Engine``: every game's calls, protobuf and JSON in,
the game's :class:`~lexio_engine.contract.GameRules`, protobuf and JSON out.

No rule and no game is named here. The service finds the call's game, decodes the caller's
JSON (options, settings, a player's action) and hands the game plain values; it encodes what
the game answers once (each view, event and refusal as compact UTF-8 JSON, the state as the
game's own bytes) and counts the call (:class:`~lexio_engine.servicing.Call`).
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Final, TypeVar

import grpc

from lexio.game.v1 import game_pb2 as pb
from lexio.game.v1 import game_pb2_grpc
from lexio_common.streamed_calls import StreamDrain, answer_stream
from lexio_engine.contract import GameRules, JsonObject, NotOfferedError, Step, Table
from lexio_engine.registry import SERVICE_NAME
from lexio_engine.servicing import Call

__all__ = ["EngineService", "decode_object", "encode"]

_NO_OBJECT: Final = b""
_T = TypeVar("_T")


def encode(value: JsonObject) -> bytes:
    """A value as the protocol's JSON: compact, UTF-8, names and words as they are."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def decode_object(raw: bytes, what: str) -> dict[str, Any]:
    """A JSON object the caller sent (empty bytes: ``{}``); ValueError (INVALID_ARGUMENT)
    naming ``what`` otherwise.

    >>> decode_object(b'{"latin": "fr"}', "options"), decode_object(b"", "options")
    ({'latin': 'fr'}, {})
    >>> decode_object(b"[1]", "options")
    Traceback (most recent call last):
    ...
    ValueError: options: a JSON object
    """
    if raw == _NO_OBJECT:
        return {}
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{what}: not JSON ({e})") from None
    if not isinstance(value, dict):
        raise ValueError(f"{what}: a JSON object")
    return value


def _decode_action(raw: bytes) -> object:
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"action: not JSON ({e})") from None


async def _offered(answer: Awaitable[_T], call: Call) -> _T:
    """The game's answer; a call it does not offer ends INVALID_ARGUMENT (nothing changed)."""
    try:
        return await answer
    except NotOfferedError as e:
        await call.context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        raise AssertionError("abort returns only by raising") from e


def _step(step: Step, call: Call) -> pb.Step:
    call.outcome = "accepted" if step.accepted else "refused"
    reply = pb.Step(
        accepted=step.accepted,
        state_changed=step.state_changed,
        state=step.state,
        views=[encode(v) for v in step.views],
        events=[encode(e) for e in step.events],
        refusal=encode(step.refusal) if step.refusal is not None else _NO_OBJECT,
        over=step.over,
        # A step that changed a finished game's state is the one that ended it (nothing
        # changes a game once over): a later refusal does not end it again.
        end_cause=step.end_cause if step.over and step.state_changed else "",
        action_kind=call.action,
    )
    if step.clock is not None:
        reply.clock.due = step.clock.due
        reply.clock.seat = step.clock.seat
        reply.clock.action = step.clock.action
    return reply


class EngineService(game_pb2_grpc.EngineServicer):
    """Every registered game, by name, behind one gRPC service."""

    def __init__(
        self,
        games: Mapping[str, GameRules],
        *,
        clock: Callable[[], float] = time.time,
        drain: StreamDrain | None = None,
    ) -> None:
        self._games = dict(games)
        self._clock = clock
        self._drain = drain or StreamDrain()

    async def _call(
        self, game: str, rpc: str, context: grpc.aio.ServicerContext, now: float = 0.0
    ) -> tuple[GameRules, Call]:
        rules = self._games.get(game)
        if rules is None:
            # Not counted: the game label of the metrics is the registered games'.
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"no game {game[:40]!r} here")
            raise AssertionError("abort returns only by raising")
        return rules, Call(game, rpc, context, now, self._clock)

    async def _table(self, table: pb.Table, call: Call) -> Table:
        options = await call.read(lambda: decode_object(table.options, "options"))
        return Table(table.state, options)

    async def Start(  # noqa: N802
        self, request: pb.StartRequest, context: grpc.aio.ServicerContext
    ) -> pb.Step:
        rules, call = await self._call(request.game, "Start", context, request.now)
        with call:
            options, settings = await call.read(
                lambda: (
                    decode_object(request.options, "options"),
                    decode_object(request.settings, "settings"),
                )
            )
            step = await rules.start(request.seats, options, settings, request.seed, call)
            return _step(step, call)

    async def Act(  # noqa: N802
        self, request: pb.ActRequest, context: grpc.aio.ServicerContext
    ) -> pb.Step:
        rules, call = await self._call(request.game, "Act", context, request.now)
        with call:
            table = await self._table(request.table, call)
            if request.WhichOneof("act") == "clock_action":
                step = await _offered(
                    rules.on_clock(table, request.seat, request.clock_action, call), call
                )
            else:
                action = await call.read(lambda: _decode_action(request.action))
                step = await rules.act(table, request.seat, action, call)
            return _step(step, call)

    async def ActStream(  # noqa: N802
        self, calls: AsyncIterator[pb.ActCall], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.ActResult]:
        """Every call of the stream answered as :meth:`Act` would, concurrently (one that waits
        on the lexicon does not hold up the others), a failure in-band; each is counted and
        timed as an Act call. Ends, answered, when the engine's stream drain begins."""
        async for result in answer_stream(
            calls,
            self.Act,
            pb.ActResult,
            service=SERVICE_NAME,
            method="Act",
            drain=self._drain,
        ):
            yield result

    async def View(  # noqa: N802
        self, request: pb.ViewRequest, context: grpc.aio.ServicerContext
    ) -> pb.ViewReply:
        rules, call = await self._call(request.game, "View", context, request.now)
        with call:
            table = await self._table(request.table, call)
            view = await rules.view(table, request.seat, request.with_log, call)
            call.outcome = "accepted"
            return pb.ViewReply(view=encode(view))

    async def Preview(  # noqa: N802
        self, request: pb.PreviewRequest, context: grpc.aio.ServicerContext
    ) -> pb.PreviewReply:
        rules, call = await self._call(request.game, "Preview", context)
        with call:
            table = await self._table(request.table, call)
            action = await call.read(lambda: _decode_action(request.action))
            preview = await _offered(rules.preview(table, request.seat, action, call), call)
            return pb.PreviewReply(preview=encode(preview))

    async def Review(  # noqa: N802
        self, request: pb.ReviewRequest, context: grpc.aio.ServicerContext
    ) -> pb.ReviewReply:
        rules, call = await self._call(request.game, "Review", context)
        with call:
            table = await self._table(request.table, call)
            review = await _offered(
                rules.review(table, request.seat, list(request.players), call), call
            )
            call.outcome = "accepted"
            return pb.ReviewReply(
                record=review.record,
                entries=[encode(e) for e in review.entries],
                steps=[encode(s) for s in review.steps],
            )
