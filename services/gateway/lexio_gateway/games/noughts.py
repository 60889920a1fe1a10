"""Noughts and crosses' adapter, the site's example game: the protocol's JSON to
lexio.noughts.v1 and back.

Seats are the lobby's and the game's alike: seat 0 (the host) plays X and moves first, seat 1
plays O (N1, services/engine/noughts_rules/RULES.md). The game has no table options, no
preview and no clock: no step sets a :class:`TableClock`, so the table never acts by itself
and :meth:`NoughtsAdapter.clock_event` is never asked. Nothing is hidden (N10): each seat's
view is the whole game, for that seat.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, NoReturn

from lexio.noughts.v1 import engine_pb2 as pb
from lexio.noughts.v1 import engine_pb2_grpc
from lexio_common.streamed_calls import unary_methods
from lexio_gateway.games import shape
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
from lexio_gateway.games.engine_call import EngineAdapter
from lexio_gateway.games.registry import GatewayGame
from lexio_gateway.jsoncodec import enum_codes, to_json
from lexio_gateway.metrics import GameLabels

__all__ = [
    "GAME",
    "KINDS",
    "METRIC_LABELS",
    "REFUSAL_REASONS",
    "NoughtsAdapter",
    "NoughtsSettings",
    "action_message",
]

KINDS: Final = ("mark", "resign")
#: N8's codes. The engine sends them as text; the gateway knows them in advance only to start
#: their series at 0 (a code it did not know would still be counted when first seen).
REFUSAL_REASONS: Final = ("game_over", "not_your_turn", "off_board", "occupied")
METRIC_LABELS: Final = GameLabels(
    actions=KINDS,
    engine_rpcs=unary_methods(pb.DESCRIPTOR.services_by_name["Engine"].methods_by_name),
    clock_actions=(),
    end_causes=enum_codes(pb.EndCause.DESCRIPTOR),
    refusal_reasons=REFUSAL_REASONS,
)
SEATS: Final = 2


def action_message(action: object) -> pb.Action:
    """A player's action as the engine's message; BadActionError when it cannot be stated
    (the rules refuse what is stated but illegal: a cell off the board is ``off_board``).

    >>> action_message({"mark": {"row": 1, "col": 2}}).mark.col
    2
    >>> action_message({"mark": {"row": 1, "col": 2.0}})
    Traceback (most recent call last):
    ...
    lexio_gateway.games.contract.BadActionError: a mark's row and col are 32-bit integers
    """
    kind, body = shape.one_kind(action, KINDS)
    if kind == "mark":
        cell = shape.object_with(kind, body, {"row", "col"})
        if not (shape.is_int32(cell["row"]) and shape.is_int32(cell["col"])):
            raise BadActionError("a mark's row and col are 32-bit integers")
        return pb.Action(mark=pb.MarkCell(row=cell["row"], col=cell["col"]))
    shape.empty_object(kind, body)
    return pb.Action(resign=pb.Resign())


@dataclass(frozen=True)
class NoughtsSettings:
    """None: the game has nothing to set. The configuration's ``settings`` must be empty."""

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> NoughtsSettings:
        if settings:
            raise ValueError(f"noughts: unknown settings {sorted(settings)}")
        return cls()


def _seat(seat: int) -> int:
    if seat not in range(SEATS):
        raise BadActionError("noughts is played at seats 0 and 1 (N1)")
    return seat


class NoughtsAdapter(EngineAdapter[NoughtsSettings]):
    """Noughts and crosses through its engine service (lexio.noughts.v1)."""

    name = "noughts"
    stub = engine_pb2_grpc.EngineStub
    act_call = pb.ActCall
    settings_type = NoughtsSettings

    def _step(self, reply: pb.ActResponse | pb.StartGameResponse) -> Step:
        views = [to_json(v) for v in reply.views]  # seat 0's, then seat 1's
        acted = reply if isinstance(reply, pb.ActResponse) else None
        accepted = acted is None or acted.outcome.accepted
        ending = views[0]["ending"]
        refusal = None
        if acted is not None and not accepted:
            refusal = {"reason": acted.outcome.reason}  # N8: the code alone
        return Step(
            accepted=accepted,
            state_changed=acted is None or acted.state_changed,
            state=reply.state.SerializeToString(),
            clock=None,  # no clock: the table never acts by itself
            over=ending is not None,
            views=views,
            events=[to_json(e) for e in reply.events],
            refusal=refusal,
            end_cause=ending["cause"] if ending is not None else None,
        )

    async def start(self, seats: int, options: Options, seed: int, now: float) -> Step:
        """N1: two seats. The game has no options and draws nothing (``seed`` unused)."""
        if seats != SEATS:
            raise BadActionError("noughts is played by two (N1)")
        if options:
            raise BadActionError(f"noughts has no table options, not {sorted(options)}")
        return self._step(await self._call("StartGame", pb.StartGameRequest(now=now)))

    async def act(self, table: GameTable, seat: int, action: dict[str, Any], now: float) -> Step:
        request = pb.ActRequest(
            state=pb.GameState.FromString(table.state),
            seat=_seat(seat),
            action=action_message(action),
            now=now,
        )
        return self._step(await self._call("Act", request))

    async def preview(self, table: GameTable, seat: int, action: dict[str, Any]) -> dict[str, Any]:
        raise BadActionError("noughts has no preview")

    async def view(
        self, table: GameTable, seat: int, now: float, *, with_log: bool
    ) -> dict[str, Any]:
        request = pb.ViewRequest(
            state=pb.GameState.FromString(table.state), seat=_seat(seat), now=now, with_log=with_log
        )
        return to_json((await self._call("View", request)).view)

    def clock_event(self, clock: TableClock, away_since: float | None) -> NoReturn:
        """Never asked: no step of this game sets a clock (absence changes nothing either)."""
        raise AssertionError("noughts has no clock")

    async def on_clock(self, table: GameTable, event: ClockEvent, now: float) -> NoReturn:
        """Never asked, as :meth:`clock_event`."""
        raise AssertionError("noughts has no clock")

    async def review(self, table: GameTable, seat: int, players: Sequence[str]) -> GameReview:
        """The example game has no record format, so no review: a game that has one adds it
        (docs/adding-a-game.md)."""
        raise ReviewUnavailableError("noughts has no record format")


GAME: Final = GatewayGame(
    name=NoughtsAdapter.name, build=NoughtsAdapter.build, metric_labels=METRIC_LABELS
)
"""Noughts' registration in the gateway tier, listed in :mod:`lexio_gateway.games.site`."""
