"""al-Mishqaq's adapter: the protocol's JSON to lexio.mishqaq.v1 and back, and its clock.

Seats are the lobby's (the host is seat 0); sides are the game's: the host chose one with the
table's ``host_side`` option, the other player has the other (M1). The table's options also
fix the Latin list and both time banks (M2, M3). The clock is a chess clock (M28): the table's
only act of its own is the ``Timeout`` it sends when the mover's flag falls (M29), and a
player's absence changes nothing (M32: the clock runs as if they were thinking).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from lexio.mishqaq.v1 import engine_pb2 as pb
from lexio.mishqaq.v1 import engine_pb2_grpc
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

log = logging.getLogger(__name__)

KINDS: Final = ("place", "pass_turn", "swap", "pause", "resume", "resign")
TIMEOUT: Final = "timeout"
SIDES: Final = ("latin", "arabic")
#: No refusal reasons: the engine sends them as a string (no enum crosses the wire, so the
#: gateway learns them when they happen).
METRIC_LABELS: Final = GameLabels(
    actions=KINDS,
    engine_rpcs=unary_methods(pb.DESCRIPTOR.services_by_name["Engine"].methods_by_name),
    clock_actions=(TIMEOUT,),
    end_causes=enum_codes(pb.EndCause.DESCRIPTOR),
)
_PB_SIDES: Final = {"latin": pb.SIDE_LATIN, "arabic": pb.SIDE_ARABIC}
DEFAULT_OPTIONS: Final[Mapping[str, str | int]] = {
    "host_side": "latin",
    "latin": "fr",
    "latin_minutes": 30,
    "arabic_minutes": 30,
}


def _tile_text(value: object) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= 2:
        raise BadActionError("a tile is written as the record writes it: C, R+, ش, ?")
    return value


def action_message(action: object) -> pb.Action:
    """A player's action as the engine's message; BadActionError when it cannot be stated
    (the rules refuse what is stated but illegal). Only the table sends Timeout.

    >>> action_message({"swap": {"row": 10, "col": 4}}).swap.col
    4
    >>> action_message({"timeout": {}})
    Traceback (most recent call last):
    ...
    lexio_gateway.games.contract.BadActionError: an action is one of place, pass_turn, swap, \
pause, resume, resign
    """
    kind, body = shape.one_kind(action, KINDS)
    if kind == "place":
        tiles = shape.object_with(kind, body, {"tiles"})["tiles"]
        shape.cells(kind, tiles, {"tile": str}, {"as": str})
        return pb.Action(
            place=pb.Place(
                tiles=[
                    pb.Placement(
                        row=t["row"],
                        col=t["col"],
                        tile=_tile_text(t["tile"]),
                        as_letter=t.get("as", ""),
                    )
                    for t in tiles
                ]
            )
        )
    if kind == "swap":
        swap = shape.object_with(kind, body, {"row", "col"}, {"tile"})
        if not (shape.is_int32(swap["row"]) and shape.is_int32(swap["col"])):
            raise BadActionError("a swap's row and col are 32-bit integers")
        tile = _tile_text(swap["tile"]) if "tile" in swap else ""
        return pb.Action(swap=pb.Swap(row=swap["row"], col=swap["col"], tile=tile))
    shape.empty_object(kind, body)
    return pb.Action(**{kind: getattr(pb, _MESSAGES[kind])()})


_MESSAGES: Final = {
    "pass_turn": "Pass",
    "pause": "Pause",
    "resume": "Resume",
    "resign": "Resign",
}


@dataclass(frozen=True)
class MishqaqSettings:
    bank_minute_seconds: float = 60.0
    """Seconds in one minute of the banks a table chose (M3). Only tests set it lower, to see a
    flag fall in seconds; a gateway started with another value says so in its log."""

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> MishqaqSettings:
        unknown = set(settings) - {"bank_minute_seconds"}
        if unknown:
            raise ValueError(f"mishqaq: unknown settings {sorted(unknown)}")
        value = float(settings.get("bank_minute_seconds", 60.0))
        if value <= 0:
            raise ValueError("mishqaq: bank_minute_seconds must be positive")
        if value != 60.0:
            log.warning(
                "al-Mishqaq banks run fast (a test setting)", extra={"bank_minute_seconds": value}
            )
        return cls(value)


_NO_SIDE_FIELDS: Final = frozenset({"side", "winner", "cause", "by"})


def _json(message: Any) -> dict[str, Any]:
    """The protocol's JSON of an engine message, where no side (a draw's winner, an entry of
    no side) is ``null`` rather than proto3's ``"unspecified"``."""
    plain: dict[str, Any] = _nulls(to_json(message))
    return plain


def _nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: None if k in _NO_SIDE_FIELDS and v == "unspecified" else _nulls(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_nulls(v) for v in value]
    return value


def _side_of(options: Options, seat: int) -> str:
    host = str(options.get("host_side", DEFAULT_OPTIONS["host_side"]))
    if host not in SIDES:
        raise BadActionError(f"host_side is one of {', '.join(SIDES)}")
    return host if seat == 0 else SIDES[1 - SIDES.index(host)]


def _seat_of(options: Options, side: str) -> int:
    return 0 if _side_of(options, 0) == side else 1


class MishqaqAdapter(EngineAdapter[MishqaqSettings]):
    """al-Mishqaq through its engine service (lexio.mishqaq.v1)."""

    name = "mishqaq"
    stub = engine_pb2_grpc.EngineStub
    act_call = pb.ActCall
    settings_type = MishqaqSettings

    def _by_seat(self, options: Options, views: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The engine answers (Latin, Arabic); the gateway speaks of seats."""
        latin_seat = _seat_of(options, "latin")
        return views if latin_seat == 0 else [views[1], views[0]]

    def _clock(
        self, options: Options, reply: pb.ActResponse | pb.StartGameResponse, now: float
    ) -> TableClock | None:
        if not reply.HasField("next_clock_event"):
            return None
        mover = to_json(reply.views[0])["turn"]
        return TableClock(reply.next_clock_event, _seat_of(options, mover), now, TIMEOUT)

    def _step(
        self, options: Options, reply: pb.ActResponse | pb.StartGameResponse, seat: int, now: float
    ) -> Step:
        views = self._by_seat(options, [_json(v) for v in reply.views])
        acted = reply if isinstance(reply, pb.ActResponse) else None
        accepted = acted is None or acted.outcome.accepted
        refusal = None
        if acted is not None and not accepted:
            view = views[seat]
            refusal = {
                "reason": acted.outcome.reason,
                "words": list(acted.outcome.unknown_words),
                "reserve_tries": view["reserve_tries"],
                "reserve_next_in": view["reserve_next_in"],
            }
        clock = self._clock(options, reply, now)
        return Step(
            accepted=accepted,
            state_changed=acted is None or acted.state_changed,
            state=reply.state.SerializeToString(),
            clock=clock,
            over=views[0]["ending"] is not None,
            views=views,
            events=[_json(e) for e in reply.events],
            refusal=refusal,
            end_cause=views[0]["ending"]["cause"] if views[0]["ending"] else None,
        )

    async def start(self, seats: int, options: Options, seed: int, now: float) -> Step:
        if seats != 2:
            raise BadActionError("al-Mishqaq is played by two (M1)")
        chosen = {**DEFAULT_OPTIONS, **options}
        minute = self._settings.bank_minute_seconds
        request = pb.StartGameRequest(
            latin=str(chosen["latin"]),
            seed=seed,
            now=now,
            latin_bank_seconds=int(chosen["latin_minutes"]) * minute,
            arabic_bank_seconds=int(chosen["arabic_minutes"]) * minute,
        )
        return self._step(options, await self._call("StartGame", request), 0, now)

    async def _act(self, table: GameTable, seat: int, action: pb.Action, now: float) -> Step:
        side = _PB_SIDES[_side_of(table.options, seat)]
        request = pb.ActRequest(
            state=pb.GameState.FromString(table.state), side=side, action=action, now=now
        )
        return self._step(table.options, await self._call("Act", request), seat, now)

    async def act(self, table: GameTable, seat: int, action: dict[str, Any], now: float) -> Step:
        return await self._act(table, seat, action_message(action), now)

    def clock_event(self, clock: TableClock, away_since: float | None) -> ClockEvent:
        return ClockEvent(clock.due, TIMEOUT)  # M32: absence changes nothing

    async def on_clock(self, table: GameTable, event: ClockEvent, now: float) -> Step:
        seat = table.clock.seat if table.clock is not None else 0
        return await self._act(table, seat, pb.Action(timeout=pb.Timeout()), now)

    async def preview(self, table: GameTable, seat: int, action: dict[str, Any]) -> dict[str, Any]:
        raise BadActionError("al-Mishqaq has no preview (M25)")

    async def view(
        self, table: GameTable, seat: int, now: float, *, with_log: bool
    ) -> dict[str, Any]:
        side = _PB_SIDES[_side_of(table.options, seat)]
        request = pb.ViewRequest(
            state=pb.GameState.FromString(table.state), side=side, now=now, with_log=with_log
        )
        return _json((await self._call("View", request)).view)

    async def review(self, table: GameTable, seat: int, players: Sequence[str]) -> GameReview:
        # The record names its players by side (mishqaq-record-format.md): the engine knows
        # the sides, not the names, and the gateway gives it none.
        state = pb.GameState.FromString(table.state)
        side = _PB_SIDES[_side_of(table.options, seat)]
        reply = await self._review(pb.ReviewRequest(state=state, side=side))
        # The state's log is the rules' own form: the engine writes the public entries, as the
        # event frames carried them, into a view (of a finished game: no clock runs, so its
        # instant changes nothing but the log is all that is read of it).
        request = pb.ViewRequest(state=state, side=side, now=0.0, with_log=True)
        entries = _json((await self._call("View", request)).view)["log"]
        steps = [_json(view) for view in reply.steps]
        return game_review(reply.record, entries, steps)


GAME: Final = GatewayGame(
    name=MishqaqAdapter.name, build=MishqaqAdapter.build, metric_labels=METRIC_LABELS
)
"""al-Mishqaq's registration in the gateway tier (listed in :mod:`lexio_gateway.games.site`)."""
