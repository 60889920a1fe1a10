"""lexio_client's reconnection (issue 27): the backoff's schedule, and a seat whose gateway
replica is killed (-9) resuming on the other one, an action in flight applied once. The
replica tests run two real gateway processes on a real Redis, lobby, engine and lexicon
(as test_gateway_replicas.py does)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager

import aiohttp
import pytest
from gateway_play import bot, play_one_turn, started_table, to_play
from lexio_testing import (
    GatewayProcess,
    LoopThread,
    RedisServer,
    doomed_and_survivor,
    free_port,
    replica_environment,
)

from lexio_client import Backoff, ConnectionLostError, GatewayClient
from lexio_client.backoff import SCHEDULE
from lexio_engine.server import RunningEngine
from lexio_lobby.server import RunningLobby


def test_the_schedule_is_the_web_clients() -> None:
    net_js = "const BACKOFF = [0.5, 1, 2, 4, 8, 15];"
    assert f"const BACKOFF = [{', '.join(f'{s:g}' for s in SCHEDULE)}];" == net_js


@pytest.mark.parametrize(("jitter", "floor"), [("full", 0.0), ("equal", 0.5)])
def test_backoff_delays_follow_the_schedule_within_the_jitter(jitter: str, floor: float) -> None:
    backoff = Backoff(jitter=jitter, rng=random.Random(27))  # type: ignore[arg-type]
    delays = [backoff.delay(attempt) for attempt in range(40)]
    ceilings = [SCHEDULE[min(a, len(SCHEDULE) - 1)] for a in range(40)]
    for delay, ceiling in zip(delays, ceilings, strict=True):
        assert floor * ceiling <= delay <= ceiling
    # Jittered: 40 draws are not one value per step, and the same seed draws the same.
    assert len(set(delays[6:])) > 1
    again = Backoff(jitter=jitter, rng=random.Random(27))  # type: ignore[arg-type]
    assert [again.delay(a) for a in range(40)] == delays


def test_first_tries_of_many_seats_are_spread() -> None:
    """No thundering herd: a thousand seats lost at once do not retry at once."""
    firsts = sorted(Backoff(rng=random.Random(seat)).delay(0) for seat in range(1000))
    assert firsts[0] < 0.05 and firsts[-1] > 0.45
    per_tenth = [sum(1 for d in firsts if k / 20 <= d < (k + 1) / 20) for k in range(10)]
    assert max(per_tenth) < 150  # ~100 in each 50 ms slice of the first 0.5 s


def test_reconnect_waits_the_backoffs_delays_and_walks_the_urls(loop_thread: LoopThread) -> None:
    """Every try fails here (no server is asked: the connection attempt is replaced): the
    waits are the seeded backoff's, and each try goes to the next URL after the client's."""
    urls = ["http://a.invalid", "http://b.invalid", "http://c.invalid"]
    slept: list[float] = []
    tried: list[str] = []

    async def scenario() -> None:
        async with aiohttp.ClientSession() as session:
            client = GatewayClient(session, urls[1], None)

            async def refused(timeout: float = 10.0, *, until_caught_up: bool = False) -> None:
                assert until_caught_up
                tried.append(client.base_url)
                raise ConnectionRefusedError("no gateway")

            async def sleep(seconds: float) -> None:
                slept.append(seconds)
                if len(slept) > 7:
                    raise asyncio.CancelledError  # enough tries seen

            client.open = refused  # type: ignore[method-assign]
            with pytest.raises(asyncio.CancelledError):
                await client.reconnect(
                    urls, backoff=Backoff(rng=random.Random(5)), give_up_after=3600, sleep=sleep
                )

    loop_thread.run(scenario(), timeout=10)
    expected = Backoff(rng=random.Random(5))
    assert slept == [expected.delay(a) for a in range(8)]
    assert tried == [urls[(2 + a) % 3] for a in range(7)]


def test_reconnect_gives_up_with_the_last_failure(loop_thread: LoopThread) -> None:
    async def scenario() -> None:
        async with aiohttp.ClientSession() as session:
            dead = f"http://127.0.0.1:{free_port()}"
            client = GatewayClient(session, dead, None)
            waits: list[float] = []

            async def no_wait(seconds: float) -> None:
                waits.append(seconds)

            with pytest.raises(aiohttp.ClientConnectionError):
                await client.reconnect(give_up_after=0.0, sleep=no_wait)
            assert len(waits) == 1  # one try, then the deadline had passed

    loop_thread.run(scenario(), timeout=20)


@pytest.fixture
def replica_env(
    engine_server: RunningEngine, lobby_server: RunningLobby, redis_server: RedisServer
) -> dict[str, str]:
    return replica_environment(
        engine_server.port, lobby_server.port, redis_server.url, turn_seconds=30
    )


@pytest.fixture
def replicas(replica_env: dict[str, str]) -> Iterator[tuple[GatewayProcess, GatewayProcess]]:
    with doomed_and_survivor(replica_env) as processes:
        yield processes


@asynccontextmanager
async def two_seats(doomed: str, survivor: str) -> AsyncIterator[list[GatewayClient]]:
    """Ana (the host, who plays first) on the replica to be killed, Bruno on the other."""
    clients = [GatewayClient(aiohttp.ClientSession(), url, None) for url in (doomed, survivor)]
    ana, bruno = clients
    try:
        for client in clients:
            await client.open()
        await ana.create("Ana")
        await bruno.join(ana.table["code"], "Bruno")
        await ana.wait_for(lambda f: f["type"] == "table" and len(f["seats"]) == 2)
        await started_table(clients)
        yield clients
    finally:
        for client in clients:
            await client.close()
            await client.session.close()


def moves_of(log: Sequence[dict[str, object]], seat: int) -> int:
    return sum(1 for entry in log if entry["seat"] == seat)


def test_a_seat_whose_replica_is_killed_resumes_on_the_other_url_and_plays_on(
    loop_thread: LoopThread, replicas: tuple[GatewayProcess, GatewayProcess]
) -> None:
    doomed, survivor = replicas
    urls = [doomed.url, survivor.url]

    async def scenario() -> None:
        async with two_seats(doomed.url, survivor.url) as (ana, bruno):
            player = bot(27)
            for _ in range(3):
                await play_one_turn([ana, bruno], player)
            log_before = list(bruno.log)
            doomed.kill()
            await asyncio.wait_for(ana.closed.wait(), 5)
            tries = await ana.reconnect(urls, backoff=Backoff(rng=random.Random(1)))
            assert tries == 1  # the next URL after the dead one is the survivor
            assert ana.base_url == survivor.url.rstrip("/")
            assert ana.log == log_before and ana.seq == 3 and ana.view_seq == 3
            for _ in range(2):
                await play_one_turn([ana, bruno], player)
            assert ana.log == bruno.log and len(ana.log) == 5

    loop_thread.run(scenario(), timeout=90)


def test_an_act_whose_ack_was_lost_is_resent_with_its_id_and_applied_once(
    loop_thread: LoopThread, replicas: tuple[GatewayProcess, GatewayProcess]
) -> None:
    """Ana's action is applied on the replica that then dies before she reads its answer: the
    same id sent again to the survivor is answered the same ack and applies nothing more."""
    doomed, survivor = replicas

    async def scenario() -> None:
        async with two_seats(doomed.url, survivor.url) as (ana, bruno):
            assert to_play([ana, bruno]) is ana
            action = bot(3).choose(ana.view)
            await ana.send({"type": "act", "id": "lost-ack", "action": action})
            await bruno.wait_view(1)  # applied (Bruno's replica heard it over Redis)
            first_ack = await ana.wait_for(lambda f: f.get("id") == "lost-ack", since=0)
            doomed.kill()
            await asyncio.wait_for(ana.closed.wait(), 5)
            await ana.reconnect([doomed.url, survivor.url], backoff=Backoff(rng=random.Random(2)))
            again = await ana.act(action, action_id="lost-ack")
            assert again == first_ack == {"type": "ack", "id": "lost-ack", "seq": 1}
            assert to_play([ana, bruno]) is bruno
            # Bruno's move is committed after the resend was handled (the survivor holds both
            # seats now, one table lock; the store orders commits): a second application of
            # Ana's would be in both logs before it.
            await play_one_turn([ana, bruno], bot(3))
            assert len(bruno.log) == len(ana.log) == 2 and ana.log == bruno.log
            assert [e["seat"] for e in bruno.log] == [0, 1]
            assert to_play([ana, bruno]) is ana

    loop_thread.run(scenario(), timeout=90)


def test_an_act_in_flight_when_its_replica_dies_is_applied_exactly_once(
    loop_thread: LoopThread, replicas: tuple[GatewayProcess, GatewayProcess]
) -> None:
    """Killed while Ana's action is on its way: applied or not, she cannot tell; sent again
    with its id after she resumed, it is applied exactly once."""
    doomed, survivor = replicas

    async def scenario() -> None:
        async with two_seats(doomed.url, survivor.url) as (ana, bruno):
            player = bot(11)
            await play_one_turn([ana, bruno], player)
            await play_one_turn([ana, bruno], player)
            assert to_play([ana, bruno]) is ana
            action = player.choose(ana.view)
            in_flight = asyncio.create_task(ana.act(action, action_id="in-flight"))
            await asyncio.sleep(0)  # the frame is written; the gateway dies now
            doomed.kill()
            with pytest.raises(ConnectionLostError) as lost:
                await in_flight
            assert lost.value.frame["id"] == "in-flight"
            await ana.reconnect([doomed.url, survivor.url], backoff=Backoff(rng=random.Random(3)))
            ack = await ana.act(action, action_id=lost.value.frame["id"])
            assert ack["seq"] == 3
            await bruno.wait_view(3)
            assert moves_of(bruno.log, 0) == 2 and bruno.log[2]["seat"] == 0
            assert to_play([ana, bruno]) is bruno
            # The game goes on, Bruno to play. His move is committed after the resend was
            # handled (one table lock on the survivor; the store orders commits): a second
            # application of Ana's would be in both logs before it.
            await play_one_turn([ana, bruno], player)
            assert len(bruno.log) == len(ana.log) == 4 and ana.log == bruno.log
            assert [e["seat"] for e in bruno.log] == [0, 1, 0, 1]

    loop_thread.run(scenario(), timeout=90)
