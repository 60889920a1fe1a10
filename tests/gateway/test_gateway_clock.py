"""The table's clocks (R28, R29), reconnection (replay and snapshot), several tabs."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest
from gateway_play import started_game
from lexio_testing import GatewayFactory, LoopThread

from lexio_client import GatewayClient


def test_r28_the_table_passes_when_the_turn_clock_runs_out(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory(turn_seconds=1.0)

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            deadline = ana.view["turn_deadline"]
            assert 0.5 < deadline - gateway.hub.clock() <= 1.0
            await bruno.wait_view(1, timeout=5)
            entry = bruno.log[0]
            assert (entry["kind"], entry["seat"], entry["cause"]) == ("pass", 0, "clock")
            assert bruno.view["turn"] == 1
            # The next seat gets a whole new turn clock.
            assert bruno.view["turn_deadline"] >= deadline + 0.9

    loop_thread.run(scenario(), timeout=30)


def test_r29_a_disconnected_seat_is_passed_after_the_grace(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory(turn_seconds=60.0, disconnect_grace=0.3)

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            await ana.pass_turn()
            await bruno.wait_view(1)
            started = gateway.hub.clock()
            await bruno.drop()  # Bruno's turn, and Bruno is gone.
            await ana.wait_view(2, timeout=5)
            waited = gateway.hub.clock() - started
            assert 0.2 < waited < 5
            entry = ana.log[-1]
            assert (entry["kind"], entry["seat"], entry["cause"]) == ("pass", 1, "disconnected")
            assert [s["connected"] for s in ana.table["seats"]] == [True, False]

            # Coming back: the board and the log as they are now; no time given back.
            await bruno.open()
            assert bruno.view["turn"] == 0
            assert [e["cause"] for e in bruno.log] == ["player", "disconnected"]
            assert bruno.seq == 2

    loop_thread.run(scenario(), timeout=30)


async def _miss_two_passes_and_return(
    ana: GatewayClient, bruno: GatewayClient, chloe: GatewayClient
) -> int:
    """Chloé drops, Ana and Bruno pass, Chloé reconnects; gives how many frames she had before
    she reconnected (what came after is ``chloe.frames[seen:]``)."""
    await chloe.drop()
    await ana.pass_turn()
    await bruno.wait_view(1)
    await bruno.pass_turn()
    seen = len(chloe.frames)
    await chloe.open()
    return seen


@pytest.mark.parametrize("events_in_memory", [32, 1], ids=["from-memory", "from-the-store"])
def test_reconnect_replays_missed_events_then_the_view(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, events_in_memory: int
) -> None:
    """The room keeps its last events in memory; a longer gap is read from the store."""
    gateway = gateway_factory(events_in_memory=events_in_memory)

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno", "Chloé"]) as (ana, bruno, chloe):
            seen = await _miss_two_passes_and_return(ana, bruno, chloe)
            catch_up = chloe.frames[seen:]
            kinds = [f["type"] for f in catch_up]
            assert kinds[:2] == ["welcome", "table"]
            assert [f["seq"] for f in catch_up if f["type"] == "event"] == [1, 2]
            assert kinds.index("view") > kinds.index("event")
            assert "snapshot" not in kinds
            assert chloe.seq == 2 and chloe.view["turn"] == 2
            assert len(chloe.log) == 2

    loop_thread.run(scenario(), timeout=30)


def test_reconnect_after_too_long_gets_a_snapshot(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory(replay_events=1)

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno", "Chloé"]) as (ana, bruno, chloe):
            seen = await _miss_two_passes_and_return(ana, bruno, chloe)
            snapshot = await chloe.wait_for(lambda f: f["type"] == "snapshot", since=seen)
            assert snapshot["seq"] == 2
            assert [e["seat"] for e in snapshot["view"]["log"]] == [0, 1]
            assert not [f for f in chloe.frames[seen:] if f["type"] == "event"]

    loop_thread.run(scenario(), timeout=30)


def test_the_newest_tab_of_a_seat_wins(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory()

    async def scenario() -> None:
        async with (
            started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno),
            GatewayClient.connect(gateway.url, token=ana.token) as second_tab,
        ):
            await ana.wait_for(lambda f: f["type"] == "replaced")
            await asyncio.wait_for(ana.closed.wait(), 5)
            assert second_tab.table["you"] == 0
            await second_tab.wait_for(lambda f: f["type"] in ("snapshot", "view"), since=0)
            await second_tab.pass_turn()
            await bruno.wait_view(1)
            assert [s["connected"] for s in bruno.table["seats"]] == [True, True]

    loop_thread.run(scenario(), timeout=30)


def test_a_peer_that_stops_answering_pings_is_closed(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """Heartbeats: the server pings; a dead peer (no pong) is closed and its seat freed."""
    gateway = gateway_factory(heartbeat=0.4)

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            async with aiohttp.ClientSession() as session:
                mute = await session.ws_connect(f"{gateway.url}/ws", autoping=False)
                await mute.send_str(
                    json.dumps({"type": "hello", "protocol": 1, "token": bruno.token})
                )
                await bruno.wait_for(lambda f: f["type"] == "replaced")
                started = asyncio.get_running_loop().time()
                while not mute.closed:
                    message = await asyncio.wait_for(mute.receive(), 5)
                    if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                        break
                assert asyncio.get_running_loop().time() - started < 5
            table = await ana.wait_for(
                lambda f: f["type"] == "table" and not f["seats"][1]["connected"]
            )
            assert table["seats"][0]["connected"]

    loop_thread.run(scenario(), timeout=30)
