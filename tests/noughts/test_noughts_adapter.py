"""Noughts between the protocol's JSON and the engine's one contract. A player's action is read
from its JSON by the rules package (noughts_rules.protocol.action_from_json: what cannot be
stated is MalformedActionError, which the engine answers INVALID_ARGUMENT and the gateway's
adapter raises as BadActionError). The gateway's adapter is the generic one
(lexio_gateway.games.adapter.EngineGameAdapter) built from noughts' registration
(lexio_gateway.games.noughts.GAME); the tests drive it against the real engine server over a
grpc.aio channel, as the gateway would: unary Act calls, and the last test over the engine's
stream (ActStream)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

import grpc
import pytest
from lexio_testing import LoopThread

from lexio.game.v1 import game_pb2 as pb
from lexio_engine.server import RunningEngine
from lexio_gateway.games import METRIC_LABELS, REGISTRY, build_adapter
from lexio_gateway.games.adapter import ENGINE_RPCS, EngineGameAdapter
from lexio_gateway.games.contract import (
    BadActionError,
    ClockEvent,
    GameAdapter,
    GameTable,
    ReviewUnavailableError,
    Step,
)
from lexio_gateway.games.noughts import GAME
from lexio_gateway.games.registry import GameSettings
from noughts_rules import EndCause, MarkCell, Reason, Resign
from noughts_rules.protocol import ACTION_KINDS, action_from_json
from rules_core import MalformedActionError

NOW = 70_000.0

Play = Callable[[GameAdapter], Coroutine[Any, Any, None]]


# JSON → action (the rules package's reading) ---------------------------------------------


def test_a_mark_and_a_resignation_become_the_engines_actions() -> None:
    assert action_from_json({"mark": {"row": 2, "col": 0}}) == MarkCell(row=2, col=0)
    assert action_from_json({"resign": {}}) == Resign()
    # Within 32 bits but off the board: stated, and left to the rules (off_board).
    edge = action_from_json({"mark": {"row": 2**31 - 1, "col": -(2**31)}})
    assert isinstance(edge, MarkCell)
    assert (edge.row, edge.col) == (2**31 - 1, -(2**31))


WRONG_SHAPES = [
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
]


@pytest.mark.parametrize("action", WRONG_SHAPES)
def test_an_action_of_the_wrong_shape_is_bad_action(action: object) -> None:
    with pytest.raises(MalformedActionError):
        action_from_json(action)


def test_an_action_of_the_wrong_shape_is_bad_action_through_the_engine(
    loop_thread: LoopThread, engine_server: RunningEngine
) -> None:
    """Each wrong shape above, sent by the adapter: the engine's INVALID_ARGUMENT, which the
    adapter raises as BadActionError; the table's state is what it was."""
    shapes: list[Any] = [param.values[0] for param in WRONG_SHAPES]

    async def play(adapter: GameAdapter) -> None:
        step = await adapter.start(2, {}, seed=0, now=NOW)
        for action in shapes:
            with pytest.raises(BadActionError):
                await adapter.act(_table(step), 0, action, NOW)
        after = await adapter.act(_table(step), 0, {"mark": {"row": 0, "col": 0}}, NOW)
        assert after.accepted

    _run(loop_thread, engine_server, play)


def test_its_metric_labels_are_its_actions_rpcs_causes_and_reasons() -> None:
    labels = GAME.metric_labels
    assert labels.actions == GAME.action_kinds == ACTION_KINDS == ("mark", "resign")
    assert labels.engine_rpcs == ENGINE_RPCS == ("Start", "Act", "View", "Preview", "Review")
    assert labels.clock_actions == ()
    assert labels.end_causes == tuple(c.value for c in EndCause)
    assert labels.refusal_reasons == tuple(r.value for r in Reason)


def test_its_registration_names_its_factory_and_labels(
    loop_thread: LoopThread, engine_server: RunningEngine
) -> None:
    """What the gateway's registry takes once lexio_gateway.games.site lists it: the one
    generic adapter, built from this registration."""
    assert (GAME.name, REGISTRY["noughts"], METRIC_LABELS["noughts"]) == (
        "noughts",
        GAME,
        GAME.metric_labels,
    )

    async def build() -> None:
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{engine_server.port}")
        try:
            adapter = build_adapter("noughts", channel, 5.0, {}, stream=False)
            assert isinstance(adapter, EngineGameAdapter) and adapter.name == "noughts"
        finally:
            await channel.close()

    loop_thread.run(build())


def test_it_takes_no_settings(loop_thread: LoopThread, engine_server: RunningEngine) -> None:
    assert GAME.settings({}) == GameSettings()

    async def build() -> None:
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{engine_server.port}")
        try:
            with pytest.raises(ValueError, match="unknown settings"):
                build_adapter("noughts", channel, 5.0, {"bank_minute_seconds": 1}, stream=False)
        finally:
            await channel.close()

    loop_thread.run(build())


# The engine's JSON through the adapter, against the real engine ----------------------------


def _run(
    loop_thread: LoopThread, engine_server: RunningEngine, play: Play, *, stream: bool = False
) -> None:
    """``play`` with noughts' adapter over a grpc.aio channel to the real engine, as the
    gateway's registry builds it (unary Act calls unless ``stream``)."""

    async def main() -> None:
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{engine_server.port}")
        adapter = build_adapter("noughts", channel, 5.0, {}, stream=stream)
        try:
            await play(adapter)
        finally:
            await channel.close()

    loop_thread.run(main())


def _table(step: Step) -> GameTable:
    return GameTable(step.state, {}, step.clock)


def test_a_start_is_two_views_of_an_empty_board_and_no_clock(
    loop_thread: LoopThread, engine_server: RunningEngine
) -> None:
    async def play(adapter: GameAdapter) -> None:
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
        assert pb.JsonState.FromString(step.state).format == "noughts-state/1"

    _run(loop_thread, engine_server, play)


def test_a_game_to_a_win_in_the_protocols_json(
    loop_thread: LoopThread, engine_server: RunningEngine
) -> None:
    async def play(adapter: GameAdapter) -> None:
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

    _run(loop_thread, engine_server, play)


def test_a_draw_has_no_winner_and_a_resignation_gives_the_other_the_game(
    loop_thread: LoopThread, engine_server: RunningEngine
) -> None:
    async def play(adapter: GameAdapter) -> None:
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

    _run(loop_thread, engine_server, play)


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
    loop_thread: LoopThread,
    engine_server: RunningEngine,
    seat: int,
    action: dict[str, Any],
    reason: str,
) -> None:
    async def play(adapter: GameAdapter) -> None:
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

    _run(loop_thread, engine_server, play)


def test_what_cannot_be_played_is_bad_action(
    loop_thread: LoopThread, engine_server: RunningEngine
) -> None:
    async def play(adapter: GameAdapter) -> None:
        with pytest.raises(BadActionError):
            await adapter.start(3, {}, seed=0, now=NOW)
        with pytest.raises(BadActionError):
            await adapter.start(2, {"host_side": "latin"}, seed=0, now=NOW)
        step = await adapter.start(2, {}, seed=0, now=NOW)
        for seat in (2, -1):  # N1: seats 0 and 1 only
            with pytest.raises(BadActionError):
                await adapter.act(_table(step), seat, {"resign": {}}, NOW)
            with pytest.raises(BadActionError):
                await adapter.view(_table(step), seat, NOW, with_log=False)
        with pytest.raises(BadActionError):
            await adapter.preview(_table(step), 0, {"mark": {"row": 0, "col": 0}})
        # A state the engine cannot read: its INVALID_ARGUMENT, as for every game.
        spoilt = pb.JsonState(format="noughts-state/0", core=b"{}").SerializeToString()
        with pytest.raises(BadActionError, match=r"state\.format"):
            await adapter.act(GameTable(spoilt), 0, {"resign": {}}, NOW)

    _run(loop_thread, engine_server, play)


def test_a_finished_game_has_no_review(
    loop_thread: LoopThread, engine_server: RunningEngine
) -> None:
    """Noughts keeps no record: the engine answers its Review INVALID_ARGUMENT, which the
    adapter's review raises as ReviewUnavailableError."""

    async def play(adapter: GameAdapter) -> None:
        step = await adapter.start(2, {}, seed=0, now=NOW)
        step = await adapter.act(_table(step), 1, {"resign": {}}, NOW)
        assert step.over
        with pytest.raises(ReviewUnavailableError):
            await adapter.review(_table(step), 0, ["ann", "bob"])

    _run(loop_thread, engine_server, play)


def test_it_has_no_clock(loop_thread: LoopThread, engine_server: RunningEngine) -> None:
    async def play(adapter: GameAdapter) -> None:
        step = await adapter.start(2, {}, seed=0, now=NOW)
        assert step.clock is None  # so the table never asks clock_event or on_clock
        step = await adapter.act(_table(step), 0, {"mark": {"row": 1, "col": 1}}, NOW)
        assert step.clock is None
        # Were it asked, the engine would answer INVALID_ARGUMENT: no such call for noughts.
        with pytest.raises(BadActionError):
            await adapter.on_clock(_table(step), ClockEvent(NOW, "timeout"), NOW)

    _run(loop_thread, engine_server, play)


# Over the engine's stream --------------------------------------------------------------------


def test_the_adapter_plays_a_game_against_the_real_engine(
    loop_thread: LoopThread, engine_server: RunningEngine
) -> None:
    """Over a grpc.aio channel to the engine process, Act over the engine's stream (ActStream),
    as the gateway's registry would build it: start, refusals, a win, a view with the log."""

    async def play(adapter: GameAdapter) -> None:
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

    _run(loop_thread, engine_server, play, stream=True)
