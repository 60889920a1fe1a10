"""Lexio's adapter: the protocol's JSON to lexio.engine.v1 and back, and Lexio's clock.

Lexio's clock (lexio-rules.md): the seat to play has its turn's time (R28); a seat that is not
connected gets only a short grace once its turn has begun or it left, whichever is later (R29);
either way, when the time is up the table passes for it, naming why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from lexio.engine.v1 import engine_pb2 as pb
from lexio.engine.v1 import engine_pb2_grpc
from lexio_common.config import env_float
from lexio_common.streamed_calls import unary_methods
from lexio_gateway.games import shape
from lexio_gateway.games.contract import (
    BadActionError,
    ClockEvent,
    GameReview,
    GameTable,
    Options,
    Step,
    TableClock,
)
from lexio_gateway.games.engine_call import EngineAdapter, game_review
from lexio_gateway.games.registry import GatewayGame
from lexio_gateway.jsoncodec import enum_codes, to_json
from lexio_gateway.metrics import GameLabels

KINDS: Final = ("place", "exchange", "pass_turn")
PASS_FOR_CLOCK: Final = "pass:clock"
PASS_FOR_ABSENCE: Final = "pass:disconnected"
_TABLE_CAUSES: Final = {
    PASS_FOR_CLOCK: pb.PASS_CAUSE_CLOCK,
    PASS_FOR_ABSENCE: pb.PASS_CAUSE_DISCONNECTED,
}
METRIC_LABELS: Final = GameLabels(
    actions=KINDS,
    engine_rpcs=unary_methods(pb.DESCRIPTOR.services_by_name["Engine"].methods_by_name),
    clock_actions=tuple(_TABLE_CAUSES),
    end_causes=enum_codes(pb.EndCause.DESCRIPTOR),
    refusal_reasons=enum_codes(pb.Reason.DESCRIPTOR),
)


def check_action_shape(action: object) -> None:
    """The JSON shape of a Lexio action (see :mod:`lexio_gateway.games.shape`).

    >>> check_action_shape({"pass_turn": {}})
    >>> check_action_shape({"pass_turn": []})
    Traceback (most recent call last):
    ...
    lexio_gateway.games.contract.BadActionError: pass_turn is an empty object
    """
    kind, body = shape.one_kind(action, KINDS)
    if kind == "pass_turn":
        shape.empty_object(kind, body)
    elif kind == "exchange":
        if not isinstance(shape.object_with(kind, body, {"tiles"})["tiles"], str):
            raise BadActionError("exchange's tiles are a string of letters")
    else:
        tiles = shape.object_with(kind, body, {"tiles"})["tiles"]
        shape.cells(kind, tiles, {"letter": str}, {"blank": bool})


@dataclass(frozen=True)
class LexioSettings:
    turn_seconds: float = 0.0
    """R28's time per turn for new games; 0: the engine's own setting (LEXIO_TURN_SECONDS)."""
    disconnect_grace: float = 5.0
    """R29: the seconds a disconnected seat gets on its turn."""

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> LexioSettings:
        """The gateway's games configuration's settings for Lexio, over the environment's
        ``LEXIO_TURN_SECONDS`` and ``LEXIO_DISCONNECT_GRACE`` (the engine reads the first too)."""
        unknown = set(settings) - {"turn_seconds", "disconnect_grace"}
        if unknown:
            raise ValueError(f"lexio: unknown settings {sorted(unknown)}")
        defaults = {
            "turn_seconds": env_float("LEXIO_TURN_SECONDS", cls.turn_seconds, minimum=1.0),
            "disconnect_grace": env_float(
                "LEXIO_DISCONNECT_GRACE", cls.disconnect_grace, minimum=0.0
            ),
        }
        values = {k: float(v) for k, v in {**defaults, **settings}.items()}
        if any(v < 0 for v in values.values()):
            raise ValueError("lexio: settings are seconds, not negative")
        return cls(**values)


class LexioAdapter(EngineAdapter[LexioSettings]):
    """Lexio through its engine service (lexio.engine.v1)."""

    name = "lexio"
    stub = engine_pb2_grpc.EngineStub
    act_call = pb.ActCall
    settings_type = LexioSettings

    @staticmethod
    def _action(action: dict[str, Any]) -> pb.Action:
        """A player's action; a pass is always the player's own (only the table times out).

        Built field by field once :func:`check_action_shape` has vouched for the JSON's
        shape: json_format.ParseDict took ~80 µs of the gateway's CPU per move, this ~8."""
        check_action_shape(action)
        message = pb.Action()
        try:
            if "place" in action:
                message.place.SetInParent()
                for tile in action["place"]["tiles"]:
                    message.place.tiles.add(
                        row=tile["row"],
                        col=tile["col"],
                        letter=tile["letter"],
                        blank=tile.get("blank", False),
                    )
            elif "exchange" in action:
                message.exchange.SetInParent()
                message.exchange.tiles = action["exchange"]["tiles"]
            else:
                message.pass_turn.cause = pb.PASS_CAUSE_PLAYER
        except (ValueError, TypeError) as e:  # e.g. a row beyond int32
            raise BadActionError(str(e)) from None
        return message

    @staticmethod
    def _clock(view: pb.SeatView, since: float) -> TableClock | None:
        if view.HasField("ending"):
            return None
        return TableClock(view.turn_deadline, view.turn, since, PASS_FOR_CLOCK)

    def _step(
        self,
        reply: pb.ActResponse,
        seat: int,
        table: GameTable,
        now: float,
    ) -> Step:
        views = [to_json(v) for v in reply.views]
        accepted = reply.outcome.accepted
        previous = table.clock.since if table.clock is not None else now
        refusal = None
        if not accepted:
            view = views[seat]
            outcome = to_json(reply.outcome)
            refusal = {
                "reason": outcome["reason"],
                "words": outcome["unknown_words"],
                "reserve_tries": view["reserve_tries"],
                "reserve_next_in": view["reserve_next_in"],
            }
        first = reply.views[0]
        return Step(
            accepted=accepted,
            state_changed=reply.state_changed,
            state=reply.state.SerializeToString(),
            # A new turn begins with every accepted action: R29's grace counts from it.
            clock=self._clock(first, now if accepted else previous),
            over=first.HasField("ending"),
            views=views,
            events=[to_json(reply.event)] if reply.HasField("event") else [],
            refusal=refusal,
            end_cause=views[0]["ending"]["cause"] if first.HasField("ending") else None,
        )

    async def start(self, seats: int, options: Options, seed: int, now: float) -> Step:
        request = pb.StartGameRequest(
            players=seats, seed=seed, now=now, turn_seconds=self._settings.turn_seconds
        )
        reply = await self._call("StartGame", request)
        views = [to_json(v) for v in reply.views]
        first = reply.views[0]
        return Step(
            accepted=True,
            state_changed=True,
            state=reply.state.SerializeToString(),
            clock=self._clock(first, now),
            over=False,
            views=views,
        )

    async def _act(self, table: GameTable, seat: int, action: pb.Action, now: float) -> Step:
        request = pb.ActRequest(
            state=pb.GameState.FromString(table.state), seat=seat, action=action, now=now
        )
        return self._step(await self._call("Act", request), seat, table, now)

    async def act(self, table: GameTable, seat: int, action: dict[str, Any], now: float) -> Step:
        return await self._act(table, seat, self._action(action), now)

    def clock_event(self, clock: TableClock, away_since: float | None) -> ClockEvent:
        if away_since is None:
            return ClockEvent(clock.due, PASS_FOR_CLOCK)
        grace_ends = max(clock.since, away_since) + self._settings.disconnect_grace
        return ClockEvent(min(clock.due, grace_ends), PASS_FOR_ABSENCE)

    async def on_clock(self, table: GameTable, event: ClockEvent, now: float) -> Step:
        assert table.clock is not None
        action = pb.Action(pass_turn=pb.Pass(cause=_TABLE_CAUSES[event.action]))
        return await self._act(table, table.clock.seat, action, now)

    async def preview(self, table: GameTable, seat: int, action: dict[str, Any]) -> dict[str, Any]:
        message = self._action(action)
        if not message.HasField("place"):
            raise BadActionError("only a placement has a preview")
        request = pb.PreviewRequest(
            state=pb.GameState.FromString(table.state), seat=seat, place=message.place
        )
        reply = to_json(await self._call("Preview", request))
        words = [{"word": w["word"], "score": w["score"]} for w in reply["words"]]
        out = {**reply, "words": words}
        if reply["well_formed"]:
            del out["reason"]
        return out

    async def view(
        self, table: GameTable, seat: int, now: float, *, with_log: bool
    ) -> dict[str, Any]:
        request = pb.ViewRequest(state=pb.GameState.FromString(table.state), seat=seat, now=now)
        view = to_json((await self._call("View", request)).view)
        if not with_log:
            view["log"] = []
        return view

    async def review(self, table: GameTable, seat: int, players: Sequence[str]) -> GameReview:
        state = pb.GameState.FromString(table.state)
        request = pb.ReviewRequest(state=state, seat=seat, players=list(players))
        reply = await self._review(request)
        # The state's log is the public one, entry for entry what the event frames carried
        # (exchanges as counts: the letters are the state's private ``exchanged``).
        entries = [to_json(entry) for entry in state.log]
        steps = [to_json(view) for view in reply.steps]
        return game_review(reply.record, entries, steps)


GAME: Final = GatewayGame(
    name=LexioAdapter.name, build=LexioAdapter.build, metric_labels=METRIC_LABELS
)
"""Lexio's registration in the gateway tier (listed in :mod:`lexio_gateway.games.site`)."""
