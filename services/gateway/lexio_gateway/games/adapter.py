"""Every game's adapter: the core's contract (:mod:`lexio_gateway.games.contract`) over the
engine's one service, ``lexio.game.v1.Engine``, from a game's registration.

The adapter reads no game's messages. It hands the engine the table's state as the engine
returned it, the table's options and the player's action as JSON, and takes back each seat's
view, the new log entries and a refusal as the JSON the protocol sends (decoded once, to be
framed with the core's own fields). What the gateway adds to a game is its clock's timing:
the engine names when the table acts next and what it then sends; the registration's
:class:`~lexio_gateway.games.registry.Absence`, if any, brings that forward for a mover who is
away (Lexio's R29).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

import grpc

from lexio.game.v1 import game_pb2 as pb
from lexio.game.v1 import game_pb2_grpc
from lexio_gateway.games.contract import (
    BadActionError,
    ClockEvent,
    GameReview,
    GameTable,
    Options,
    ReviewUnavailableError,
    Step,
    TableClock,
)
from lexio_gateway.games.engine_call import EngineCaller
from lexio_gateway.games.registry import GameSettings, GatewayGame
from lexio_gateway.metrics import ENGINE_CALLS

__all__ = ["ENGINE_RPCS", "EngineGameAdapter", "build", "game_review"]

#: The contract's calls, as the gateway's engine-call metrics name them.
ENGINE_RPCS: Final = ENGINE_CALLS


def _encode(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _table(table: GameTable) -> pb.Table:
    return pb.Table(state=table.state, options=_encode(dict(table.options)))


class EngineGameAdapter:
    """One game through the engine's one service."""

    def __init__(
        self,
        game: GatewayGame,
        channel: grpc.aio.Channel,
        *,
        timeout: float,
        settings: GameSettings,
        stream: bool = True,
    ) -> None:
        self.name = game.name
        self._call = EngineCaller(
            game_pb2_grpc.EngineStub(channel),
            game=game.name,
            timeout=timeout,
            streamed={"Act": pb.ActCall} if stream else None,
        )
        self._settings = _encode(dict(settings.engine))
        self._absence = settings.absence

    def _step(self, reply: pb.Step, previous: TableClock | None, now: float) -> Step:
        clock = None
        if reply.HasField("clock"):
            # A new turn begins with every accepted action: an absence's grace counts from it.
            since = now if reply.accepted or previous is None else previous.since
            clock = TableClock(reply.clock.due, reply.clock.seat, since, reply.clock.action)
        return Step(
            accepted=reply.accepted,
            state_changed=reply.state_changed,
            state=reply.state,
            clock=clock,
            over=reply.over,
            views=[json.loads(view) for view in reply.views],
            events=[json.loads(event) for event in reply.events],
            refusal=json.loads(reply.refusal) if reply.refusal else None,
            end_cause=reply.end_cause or None,
        )

    async def start(self, seats: int, options: Options, seed: int, now: float) -> Step:
        request = pb.StartRequest(
            game=self.name,
            seats=seats,
            options=_encode(dict(options)),
            settings=self._settings,
            seed=seed,
            now=now,
        )
        return self._step(await self._call("Start", request), None, now)

    async def act(self, table: GameTable, seat: int, action: dict[str, Any], now: float) -> Step:
        request = pb.ActRequest(
            game=self.name, table=_table(table), seat=seat, action=_encode(action), now=now
        )
        return self._step(await self._call("Act", request), table.clock, now)

    def clock_event(self, clock: TableClock, away_since: float | None) -> ClockEvent:
        if self._absence is None or away_since is None:
            return ClockEvent(clock.due, clock.action)
        grace_ends = max(clock.since, away_since) + self._absence.grace
        return ClockEvent(min(clock.due, grace_ends), self._absence.action)

    async def on_clock(self, table: GameTable, event: ClockEvent, now: float) -> Step:
        seat = table.clock.seat if table.clock is not None else -1
        request = pb.ActRequest(
            game=self.name, table=_table(table), seat=seat, clock_action=event.action, now=now
        )
        return self._step(await self._call("Act", request), table.clock, now)

    async def preview(self, table: GameTable, seat: int, action: dict[str, Any]) -> dict[str, Any]:
        request = pb.PreviewRequest(
            game=self.name, table=_table(table), seat=seat, action=_encode(action)
        )
        preview: dict[str, Any] = json.loads((await self._call("Preview", request)).preview)
        return preview

    async def view(
        self, table: GameTable, seat: int, now: float, *, with_log: bool
    ) -> dict[str, Any]:
        request = pb.ViewRequest(
            game=self.name, table=_table(table), seat=seat, now=now, with_log=with_log
        )
        view: dict[str, Any] = json.loads((await self._call("View", request)).view)
        return view

    async def review(self, table: GameTable, seat: int, players: Sequence[str]) -> GameReview:
        """The engine's review of a finished game. Its FAILED_PRECONDITION (a state that cannot
        be replayed; or not over, which the gateway checked before asking, so a table whose
        state says otherwise has no review either) is :class:`ReviewUnavailableError`;
        INVALID_ARGUMENT (a game without records, an unreadable state) too."""
        request = pb.ReviewRequest(
            game=self.name, table=_table(table), seat=seat, players=list(players)
        )
        try:
            reply = await self._call("Review", request)
        except grpc.aio.AioRpcError as e:
            if e.code() == grpc.StatusCode.FAILED_PRECONDITION:
                raise ReviewUnavailableError(e.details() or "review_unavailable") from e
            raise
        except BadActionError as e:
            raise ReviewUnavailableError(str(e)) from e
        entries = [json.loads(entry) for entry in reply.entries]
        return game_review(reply.record, entries, [json.loads(step) for step in reply.steps])


def game_review(
    record_text: str, entries: Sequence[dict[str, Any]], steps: Sequence[dict[str, Any]]
) -> GameReview:
    """A review from the engine's answer, checked for what the contract promises (one view per
    entry and one before the first): an engine that broke it has no review to give."""
    if len(steps) != len(entries) + 1:
        raise ReviewUnavailableError(f"{len(steps)} steps for {len(entries)} entries")
    try:
        record = json.loads(record_text)
    except json.JSONDecodeError as e:
        raise ReviewUnavailableError(f"the engine's record is not JSON: {e}") from e
    if not isinstance(record, dict):
        raise ReviewUnavailableError("the engine's record is not an object")
    return GameReview(record=record, entries=list(entries), steps=list(steps))


def build(
    game: GatewayGame,
    channel: grpc.aio.Channel,
    timeout: float,
    settings: Mapping[str, Any],
    stream: bool,
) -> EngineGameAdapter:
    """``game``'s adapter, with the settings its configuration gives (ValueError for a setting
    the game does not have)."""
    return EngineGameAdapter(
        game, channel, timeout=timeout, settings=game.settings(settings), stream=stream
    )
