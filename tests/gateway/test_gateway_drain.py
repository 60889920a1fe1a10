"""A stopping gateway sends its players away a batch at a time (issue 40: a rolling update
without a reconnection storm; lexio_gateway/drain.py).

Thirty clients on a gateway that sends 20 connections a second away: on its stop each is told
`reconnect` (`shutdown`), then closed with 1012, and the thirty notices are spread over the
1.5 s the rate gives, not sent in one instant (before issue 40: all within a few
milliseconds). A seat at a table hears its turn in flight answered first: the in-process form
of tests/ops/test_ops_shutdown.py."""

from __future__ import annotations

import asyncio
import contextlib
import time

import aiohttp
import pytest
from gateway_play import started_game, to_play
from lexio_testing import GatewayFactory, LoopThread

from lexio_client import GatewayClient
from lexio_gateway.drain import FIRST_WINDOW, spread_seconds

pytestmark = pytest.mark.one_store

CLIENTS = 30
RATE = 20.0  # connections sent away a second: 30 take 1.5 s


def test_a_stopping_gateway_sends_its_players_away_spread_over_time(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory(shutdown_rate=RATE, shutdown_grace=10.0)
    assert spread_seconds(CLIENTS + 2, RATE, 10.0 * 2 / 3) == pytest.approx(1.6)

    async def scenario() -> None:
        async with (
            aiohttp.ClientSession() as session,
            started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno),
        ):
            others = [GatewayClient(session, gateway.url, None) for _ in range(CLIENTS)]
            for client in others:
                await client.open()
            heard: dict[int, float] = {}

            async def notice(i: int, client: GatewayClient) -> None:
                frame = await client.wait_for(lambda f: f["type"] == "reconnect", timeout=15)
                heard[i] = time.monotonic()
                assert frame["reason"] == "shutdown"
                await asyncio.wait_for(client.closed.wait(), 10)
                assert client._ws is not None and client._ws.close_code == 1012

            waiting = [notice(i, c) for i, c in enumerate([ana, bruno, *others])]
            await asyncio.gather(gateway.runner.cleanup(), *waiting)
            times = sorted(heard.values())
            spread = times[-1] - times[0]
            assert len(times) == CLIENTS + 2
            # At least the spread the rate gives but for its last batch's share.
            assert spread >= 1.2, (
                f"{len(times)} reconnect notices within {spread:.3f} s: sent at once, not "
                f"spread over the {(CLIENTS + 2) / RATE:.1f} s the rate gives"
            )

    loop_thread.run(scenario(), timeout=60)


SEATS = 80


@pytest.mark.parametrize("gateway_backend", ["redis"])
def test_a_stopping_gateway_sends_no_more_than_the_other_replicas_take_back(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """Paced by the survivors (issue 40): 80 seats on a gateway whose rate would send them all
    in a tenth of a second. Their players hold off coming back for 1.5 s (a survivor taking
    nobody yet): meanwhile no more are sent than the first window and the grace's own
    schedule; once they come back (to the other gateway, which announces each), the rest
    follow, and every seat is back there."""
    leaving = gateway_factory(shutdown_rate=1000.0, shutdown_grace=12.0)
    survivor = gateway_factory()
    within = 12.0 * 2 / 3
    hold = 1.5

    async def scenario() -> None:
        async with aiohttp.ClientSession() as session:
            clients = [GatewayClient(session, leaving.url, None) for _ in range(SEATS)]
            for index, client in enumerate(clients):
                await client.open()
                await client.create(f"Joueur{index}")
            told: list[float] = []
            gate = asyncio.Event()

            async def come_back(client: GatewayClient) -> None:
                await client.wait_for(lambda f: f["type"] == "reconnect", timeout=20)
                told.append(time.monotonic())
                if len(told) == 1:
                    asyncio.get_running_loop().call_later(hold, gate.set)
                await gate.wait()
                await client.reconnect([survivor.url], give_up_after=20)

            await asyncio.gather(leaving.runner.cleanup(), *(come_back(c) for c in clients))
            first = min(told)
            early = sum(1 for t in told if t - first < hold - 0.1)
            # The first window, and what the grace's schedule asks for by then.
            allowed = FIRST_WINDOW + SEATS * hold / within + 1
            assert early <= allowed, (
                f"{early} seats sent away before any came back (at most {allowed:.0f}): "
                "not paced by the replicas taking them"
            )
            assert len(told) == SEATS
            assert all(c.table.get("table_id") for c in clients)

    loop_thread.run(scenario(), timeout=60)


def test_players_still_waiting_to_be_sent_away_play_on(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """While a stopping gateway sends its players away (over tens of seconds in production),
    those not sent yet play on: a move is answered. (aiohttp's own clean-up stops reading what
    clients send before the application's shutdown runs: with a 90 s grace, 1,099 of 2,000
    tables of make load-rollout had a move go unanswered, issue 40.)"""
    gateway = gateway_factory(shutdown_rate=5.0, shutdown_grace=20.0)

    async def scenario() -> None:
        async with contextlib.AsyncExitStack() as stack:
            session = await stack.enter_async_context(aiohttp.ClientSession())
            games = [
                await stack.enter_async_context(started_game(gateway.url, ["Ana", "Bruno"]))
                for _ in range(3)
            ]
            idle = [GatewayClient(session, gateway.url, None) for _ in range(20)]
            for client in idle:
                await client.open()
            everyone = [*idle, *(seat for game in games for seat in game)]
            told = asyncio.Event()
            for client in everyone:
                client.on_frame = lambda f: told.set() if f["type"] == "reconnect" else None
            stopping = asyncio.ensure_future(gateway.runner.cleanup())
            await asyncio.wait_for(told.wait(), 10)
            movers = [
                to_play(game)
                for game in games
                if not any(f["type"] == "reconnect" for s in game for f in s.frames)
            ]
            assert movers, "every game was sent away at once: no move to try"
            answer = await movers[0].pass_turn()
            assert answer["type"] == "ack", answer
            await stopping

    loop_thread.run(scenario(), timeout=60)
