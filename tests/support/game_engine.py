"""A test's client of the engine's one contract (lexio.game.v1.Engine), for one game: JSON
values in, decoded JSON values out, as the gateway's adapter sends and reads them.

>>> import json
>>> step = Step.of(pb.Step(accepted=True, views=[b'{"seat": 0}'], refusal=b""))
>>> step.accepted, step.views, step.refusal, step.clock
(True, [{'seat': 0}], None, None)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from lexio.game.v1 import game_pb2 as pb
from lexio.game.v1 import game_pb2_grpc

SERVICE = "lexio.game.v1.Engine"


def encode(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


@dataclass(frozen=True)
class Clock:
    due: float
    seat: int
    action: str


@dataclass(frozen=True)
class Step:
    """A ``Step`` reply, its JSON decoded."""

    accepted: bool
    state_changed: bool
    state: bytes
    views: list[dict[str, Any]]
    events: list[dict[str, Any]]
    refusal: dict[str, Any] | None
    over: bool
    end_cause: str
    clock: Clock | None
    action_kind: str
    reply: pb.Step = field(repr=False)

    @classmethod
    def of(cls, reply: pb.Step) -> Step:
        clock = None
        if reply.HasField("clock"):
            clock = Clock(reply.clock.due, reply.clock.seat, reply.clock.action)
        return cls(
            accepted=reply.accepted,
            state_changed=reply.state_changed,
            state=reply.state,
            views=[json.loads(v) for v in reply.views],
            events=[json.loads(e) for e in reply.events],
            refusal=json.loads(reply.refusal) if reply.refusal else None,
            over=reply.over,
            end_cause=reply.end_cause,
            clock=clock,
            action_kind=reply.action_kind,
            reply=reply,
        )


@dataclass(frozen=True)
class Review:
    record: dict[str, Any]
    entries: list[dict[str, Any]]
    steps: list[dict[str, Any]]


class GameEngine:
    """One game's calls on a blocking channel (``grpc.insecure_channel``)."""

    def __init__(self, channel: grpc.Channel, game: str) -> None:
        self.stub = game_pb2_grpc.EngineStub(channel)
        self.game = game

    def table(self, state: bytes, options: Mapping[str, Any] | None = None) -> pb.Table:
        return pb.Table(state=state, options=encode(dict(options or {})))

    def start(
        self,
        seats: int = 2,
        *,
        options: Mapping[str, Any] | None = None,
        settings: Mapping[str, Any] | None = None,
        seed: int = 0,
        now: float = 0.0,
    ) -> Step:
        request = pb.StartRequest(
            game=self.game,
            seats=seats,
            options=encode(dict(options or {})),
            settings=encode(dict(settings or {})),
            seed=seed,
            now=now,
        )
        return Step.of(self.stub.Start(request))

    def act_request(
        self,
        state: bytes,
        seat: int,
        action: Any,
        *,
        options: Mapping[str, Any] | None = None,
        now: float = 0.0,
    ) -> pb.ActRequest:
        return pb.ActRequest(
            game=self.game,
            table=self.table(state, options),
            seat=seat,
            action=encode(action),
            now=now,
        )

    def act(
        self,
        state: bytes,
        seat: int,
        action: Any,
        *,
        options: Mapping[str, Any] | None = None,
        now: float = 0.0,
    ) -> Step:
        return Step.of(
            self.stub.Act(self.act_request(state, seat, action, options=options, now=now))
        )

    def on_clock(
        self,
        state: bytes,
        seat: int,
        action: str,
        *,
        options: Mapping[str, Any] | None = None,
        now: float = 0.0,
    ) -> Step:
        request = pb.ActRequest(
            game=self.game,
            table=self.table(state, options),
            seat=seat,
            clock_action=action,
            now=now,
        )
        return Step.of(self.stub.Act(request))

    def view(
        self,
        state: bytes,
        seat: int,
        *,
        options: Mapping[str, Any] | None = None,
        now: float = 0.0,
        with_log: bool = True,
    ) -> dict[str, Any]:
        request = pb.ViewRequest(
            game=self.game,
            table=self.table(state, options),
            seat=seat,
            now=now,
            with_log=with_log,
        )
        view: dict[str, Any] = json.loads(self.stub.View(request).view)
        return view

    def preview(
        self,
        state: bytes,
        seat: int,
        action: Any,
        *,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        request = pb.PreviewRequest(
            game=self.game, table=self.table(state, options), seat=seat, action=encode(action)
        )
        preview: dict[str, Any] = json.loads(self.stub.Preview(request).preview)
        return preview

    def review(
        self,
        state: bytes,
        seat: int,
        players: Sequence[str] = (),
        *,
        options: Mapping[str, Any] | None = None,
    ) -> Review:
        request = pb.ReviewRequest(
            game=self.game, table=self.table(state, options), seat=seat, players=list(players)
        )
        reply = self.stub.Review(request)
        return Review(
            record=json.loads(reply.record),
            entries=[json.loads(e) for e in reply.entries],
            steps=[json.loads(s) for s in reply.steps],
        )
