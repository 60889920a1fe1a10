"""The gateway's noughts adapter (lexio_gateway.games.noughts): the protocol's JSON to
lexio.noughts.v1 and back. The pure tests answer the adapter's engine calls with the engine's
own servicer, called in-process (no server, no network); the last drives the adapter against
the real engine server over a grpc.aio channel, as the gateway would."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import grpc
import pytest
from lexio_testing import LoopThread

from lexio.noughts.v1 import engine_pb2 as pb
from lexio_engine.noughts.servicer import NoughtsServicer
from lexio_engine.server import RunningEngine
from lexio_gateway.games.contract import BadActionError, GameAdapter, GameTable, Step
from lexio_gateway.games.engine_call import EngineCaller
from lexio_gateway.games.noughts import (
    GAME,
    KINDS,
    METRIC_LABELS,
    REFUSAL_REASONS,
    NoughtsAdapter,
    NoughtsSettings,
    action_message,
)
from noughts_rules import EndCause, Reason

NOW = 70_000.0


# JSON → protobuf ---------------------------------------------------------------------------


def test_a_mark_and_a_resignation_become_the_engines_actions() -> None:
    assert action_message({"mark": {"row": 2, "col": 0}}) == pb.Action(
        mark=pb.MarkCell(row=2, col=0)
    )
    assert action_message({"resign": {}}) == pb.Action(resign=pb.Resign())
    # Within 32 bits but off the board: stated, and left to the rules (off_board).
    edge = action_message({"mark": {"row": 2**31 - 1, "col": -(2**31)}})
    assert (edge.mark.row, edge.mark.col) == (2**31 - 1, -(2**31))


@pytest.mark.parametrize(
    "action",
    [
        pytest.param([], id="a-list"),
        pytest.param({}, id="no-kind"),
        pytest.param({"mark": {"row": 0, "col": 0}, "resign": {}}, id="two-kinds"),
        pytest.param({"place": {"tiles": []}}, id="another-games-kind"),
        pytest.param({"pass_turn": {}}, id="pass"),
        pytest.param({"timeout": {}}, id="timeout"),
        pytest.param({"mark": []}, id="mark-a-list"),
        pytest.param({"mark": [1, 1]}, id="mark-a-pair"),
        pytest.param({"mark": {"row": 0}}, id="no-col"),
        pytest.param({"mark": {"row": 0, "col": 0, "as": "X"}}, id="an-extra-field"),
        pytest.param({"mark": {"row": 1.0, "col": 0}}, id="row-a-float"),
        pytest.param({"mark": {"row": 0, "col": True}}, id="col-a-bool"),
        pytest.param({"mark": {"row": "1", "col": 0}}, id="row-a-string"),
        pytest.param({"mark": {"row": None, "col": 0}}, id="row-null"),
        pytest.param({"mark": {"row": 2**31, "col": 0}}, id="row-beyond-int32"),
        pytest.param({"mark": {"row": 0, "col": -(2**31) - 1}}, id="col-below-int32"),
        pytest.param({"resign": []}, id="resign-a-list"),
        pytest.param({"resign": {"now": 1}}, id="resign-not-empty"),
    ],
)
def test_an_action_of_the_wrong_shape_is_bad_action(action: object) -> None:
    with pytest.raises(BadActionError):
        action_message(action)


def test_its_metric_labels_are_its_actions_rpcs_causes_and_reasons() -> None:
    assert METRIC_LABELS.actions == KINDS == ("mark", "resign")
    assert METRIC_LABELS.engine_rpcs == ("StartGame", "Act", "View")
    assert METRIC_LABELS.clock_actions == ()
    assert METRIC_LABELS.end_causes == tuple(c.value for c in EndCause)
    assert METRIC_LABELS.refusal_reasons == REFUSAL_REASONS == tuple(r.value for r in Reason)


def test_its_registration_names_its_factory_and_labels() -> None:
    """What the gateway's registry takes once lexio_gateway.games.site lists it."""
    assert (GAME.name, GAME.build, GAME.metric_labels) == (
        "noughts",
        NoughtsAdapter.build,
        METRIC_LABELS,
    )
    assert GAME.action_kinds == KINDS


def test_it_takes_no_settings() -> None:
    assert NoughtsSettings.of({}) == NoughtsSettings()
    with pytest.raises(ValueError, match="unknown settings"):
        NoughtsSettings.of({"bank_minute_seconds": 1})


# protobuf → JSON, against the engine's servicer in-process ---------------------------------


class _Context:
    """What the servicer asks of a gRPC context: only ``abort``, as gRPC's status."""

    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details=details)


class _InProcessStub:
    """The engine's stub, answered by the servicer itself."""

    def __init__(self) -> None:
        servicer = NoughtsServicer(None, clock=lambda: NOW)
        for rpc in ("StartGame", "Act", "View"):
            setattr(self, rpc, self._method(getattr(servicer, rpc)))

    @staticmethod
    def _method(handler: Callable[..., Coroutine[Any, Any, Any]]) -> Callable[..., Any]:
        async def call(request: Any, timeout: float) -> Any:
            return await handler(request, _Context())

        return call


def _run(play: Callable[[NoughtsAdapter], Coroutine[Any, Any, None]]) -> None:
    async def main() -> None:
        channel = grpc.aio.insecure_channel("127.0.0.1:9")  # never used
        adapter = NoughtsAdapter(channel, timeout=5, settings=NoughtsSettings(), stream=False)
        adapter._call = EngineCaller(_InProcessStub(), game="noughts", timeout=5)
        try:
            await play(adapter)
        finally:
            await channel.close()

    asyncio.run(main())


def _table(step: Step) -> GameTable:
    return GameTable(step.state, {}, step.clock)


def test_a_start_is_two_views_of_an_empty_board_and_no_clock() -> None:
    async def play(adapter: NoughtsAdapter) -> None:
        step = await adapter.start(2, {}, seed=99, now=NOW)
        assert (step.accepted, step.state_changed, step.over, step.clock) == (
            True,
            True,
            False,
            None,
        )
        assert step.events == [] and step.refusal is None and step.end_cause is None
        assert step.views == [
            {
                "seat": seat,
                "mark": mark,
                "board": [""] * 9,
                "turn": 0,
                "log": [],
                "ending": None,
                "now": NOW,
            }
            for seat, mark in ((0, "X"), (1, "O"))
        ]
        assert pb.GameState.FromString(step.state).format == "noughts-state/1"

    _run(play)


def test_a_game_to_a_win_in_the_protocols_json() -> None:
    async def play(adapter: NoughtsAdapter) -> None:
        step = await adapter.start(2, {}, seed=0, now=NOW)
        for i, (row, col) in enumerate([(0, 0), (1, 0), (1, 1), (2, 0)]):
            step = await adapter.act(_table(step), i % 2, {"mark": {"row": row, "col": col}}, NOW)
            assert step.accepted and step.clock is None
        assert step.events == [
            {
                "number": 4,
                "kind": "mark",
                "at": NOW,
                "seat": 1,
                "cell": {"row": 2, "col": 0},
                "ending": None,
            }
        ]
        win = await adapter.act(_table(step), 0, {"mark": {"row": 2, "col": 2}}, NOW + 1)
        assert (win.over, win.end_cause, win.clock) == (True, "line", None)
        ending = {
            "winner": 0,
            "cause": "line",
            "at": NOW + 1,
            "line": [{"row": r, "col": r} for r in range(3)],
        }
        assert [e["kind"] for e in win.events] == ["mark", "result"]
        assert win.events[1] == {
            "number": 6,
            "kind": "result",
            "at": NOW + 1,
            "seat": None,
            "cell": None,
            "ending": ending,
        }
        assert [v["ending"] for v in win.views] == [ending, ending]
        assert win.views[1]["board"] == ["X", "", "", "O", "X", "", "O", "", "X"]

        view = await adapter.view(_table(win), 1, NOW + 2, with_log=True)
        assert (view["seat"], view["mark"], view["now"]) == (1, "O", NOW + 2)
        assert [e["number"] for e in view["log"]] == [1, 2, 3, 4, 5, 6]

        late = await adapter.act(_table(win), 1, {"resign": {}}, NOW + 3)
        assert (late.accepted, late.state_changed, late.refusal) == (
            False,
            False,
            {"reason": "game_over"},
        )
        assert late.state == win.state and late.events == []

    _run(play)


def test_a_draw_has_no_winner_and_a_resignation_gives_the_other_the_game() -> None:
    async def play(adapter: NoughtsAdapter) -> None:
        start = await adapter.start(2, {}, seed=0, now=NOW)
        step = start
        cells = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 0), (1, 2), (2, 1), (2, 0), (2, 2)]
        for i, (row, col) in enumerate(cells):
            step = await adapter.act(_table(step), i % 2, {"mark": {"row": row, "col": col}}, NOW)
        assert step.over and step.end_cause == "full_board"
        assert step.views[0]["ending"]["winner"] is None

        resigned = await adapter.act(_table(start), 1, {"resign": {}}, NOW)  # out of turn
        assert (resigned.over, resigned.end_cause) == (True, "resign")
        assert [(e["kind"], e["seat"]) for e in resigned.events] == [
            ("resign", 1),
            ("result", None),
        ]
        assert resigned.views[0]["ending"]["winner"] == 0

    _run(play)


@pytest.mark.parametrize(
    ("seat", "action", "reason"),
    [
        (1, {"mark": {"row": 0, "col": 0}}, "not_your_turn"),
        (0, {"mark": {"row": 3, "col": 0}}, "off_board"),
        (0, {"mark": {"row": 2**31 - 1, "col": 0}}, "off_board"),
        (0, {"mark": {"row": 1, "col": 1}}, "occupied"),
    ],
)
def test_a_refusal_is_its_reason_alone_and_changes_nothing(
    seat: int, action: dict[str, Any], reason: str
) -> None:
    async def play(adapter: NoughtsAdapter) -> None:
        step = await adapter.start(2, {}, seed=0, now=NOW)
        if reason == "occupied":
            step = await adapter.act(_table(step), 0, {"mark": {"row": 1, "col": 1}}, NOW)
            step = await adapter.act(_table(step), 1, {"mark": {"row": 0, "col": 0}}, NOW)
        refused = await adapter.act(_table(step), seat, action, NOW)
        assert (refused.accepted, refused.state_changed, refused.refusal) == (
            False,
            False,
            {"reason": reason},
        )
        assert refused.state == step.state and refused.events == [] and not refused.over

    _run(play)


def test_what_cannot_be_played_is_bad_action() -> None:
    async def play(adapter: NoughtsAdapter) -> None:
        with pytest.raises(BadActionError):
            await adapter.start(3, {}, seed=0, now=NOW)
        with pytest.raises(BadActionError):
            await adapter.start(2, {"host_side": "latin"}, seed=0, now=NOW)
        step = await adapter.start(2, {}, seed=0, now=NOW)
        with pytest.raises(BadActionError):
            await adapter.act(_table(step), 2, {"resign": {}}, NOW)
        with pytest.raises(BadActionError):
            await adapter.preview(_table(step), 0, {"mark": {"row": 0, "col": 0}})
        # A state the engine cannot read: its INVALID_ARGUMENT, as for every game.
        spoilt = pb.GameState(format="noughts-state/0", core=b"{}").SerializeToString()
        with pytest.raises(BadActionError, match=r"state\.format"):
            await adapter.act(GameTable(spoilt), 0, {"resign": {}}, NOW)

    _run(play)


def test_it_has_no_clock() -> None:
    async def play(adapter: NoughtsAdapter) -> None:
        step = await adapter.start(2, {}, seed=0, now=NOW)
        assert step.clock is None  # so the table never asks clock_event or on_clock

    _run(play)


# Against the real engine -------------------------------------------------------------------


def test_the_adapter_plays_a_game_against_the_real_engine(
    loop_thread: LoopThread, engine_server: RunningEngine
) -> None:
    """Over a grpc.aio channel to the engine process, Act over the engine's stream (ActStream),
    as the gateway's registry would build it: start, refusals, a win, a view with the log."""

    async def play() -> None:
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{engine_server.port}")
        adapter: GameAdapter = NoughtsAdapter.build(channel, 5.0, {}, True)
        try:
            step = await adapter.start(2, {}, seed=1, now=NOW)
            assert [v["mark"] for v in step.views] == ["X", "O"]
            refused = await adapter.act(_table(step), 1, {"mark": {"row": 0, "col": 0}}, NOW)
            assert refused.refusal == {"reason": "not_your_turn"}
            for i, (row, col) in enumerate([(2, 0), (0, 0), (1, 1), (0, 1), (0, 2)]):
                action = {"mark": {"row": row, "col": col}}
                step = await adapter.act(_table(step), i % 2, action, NOW + i)
                assert step.accepted, step.refusal
            assert (step.over, step.end_cause) == (True, "line")
            assert step.views[0]["ending"]["line"] == [
                {"row": 0, "col": 2},
                {"row": 1, "col": 1},
                {"row": 2, "col": 0},
            ]
            view = await adapter.view(_table(step), 0, NOW + 9, with_log=True)
            assert [e["kind"] for e in view["log"]] == ["mark"] * 5 + ["result"]
            with pytest.raises(BadActionError):
                await adapter.act(_table(step), 0, {"mark": {"row": 0.5, "col": 0}}, NOW)
        finally:
            await channel.close()

    loop_thread.run(play())
