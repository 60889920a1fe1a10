"""Several gateway replicas on one Redis (issue 7): one table across replicas, racing actions,
a replica or Redis going away mid-game. Everything real: Redis, lobby, engine, lexicon."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest
import redis
import redis.cluster
from gateway_play import (
    bot,
    play_one_turn,
    play_to_the_end,
    seated_table,
    started_game,
    started_table,
    to_play,
)
from lexio_testing import (
    SHARED_LOOP_READINESS_TIMEOUT,
    GatewayFactory,
    LoopThread,
    RedisServer,
    doomed_and_survivor,
    eventually,
    replica_environment,
    site_games,
)
from prometheus_client import REGISTRY

from lexio_client import GatewayClient, ServerError
from lexio_common.redis_client import is_cluster_url, node_url
from lexio_engine.server import RunningEngine
from lexio_gateway.records import SeatToken
from lexio_gateway.redis_layout import RedisLayout
from lexio_gateway.redis_store import RedisTableStore
from lexio_lobby.server import LobbyConfig, RunningLobby, start_lobby

ON_REDIS = pytest.mark.parametrize("gateway_backend", ["redis"])
"""Tests that look into Redis itself (a restart, its channels, its keys put back)."""
ON_REDIS_AND_CLUSTER = pytest.mark.parametrize("gateway_backend", ["redis", "cluster"])
"""Tests of the replicas alone: on one Redis, and on a Redis Cluster (3 masters)."""


async def _seen(
    client: GatewayClient,
    predicate: Callable[[dict[str, Any]], bool],
    what: str,
    *,
    since: int,
    timeout: float = 10.0,
) -> dict[str, Any]:
    """The first frame from number ``since`` on that matches; past ``timeout``, fail saying
    what was awaited and what came instead."""
    try:
        return await client.wait_for(predicate, timeout, since=since)
    except TimeoutError:
        came = [f["type"] for f in client.frames[since:]]
        raise AssertionError(f"no {what} after {timeout} s; came: {came}") from None


class SocketRecorder:
    """Stands where a WebSocket would: keeps the frames a room sends to one seat."""

    def __init__(self, seat: SeatToken) -> None:
        self.seat = seat
        self.frames: list[dict[str, Any]] = []
        self.room: Any = None
        self.seq = 10**9  # never behind: the room sends it only direct answers

    @property
    def player_id(self) -> str:
        return self.seat.player_id

    async def send(self, frame: dict[str, Any]) -> None:
        self.frames.append(frame)


@ON_REDIS_AND_CLUSTER
def test_one_table_across_two_replicas_plays_to_the_end(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    first, second = gateway_factory(seed=10), gateway_factory(seed=10)
    assert first.hub.store.shared and first.hub.replica != second.hub.replica

    async def scenario() -> None:
        async with started_game([first.url, second.url], ["Ana", "Bruno"]) as (ana, bruno):
            await play_to_the_end([ana, bruno], bot(10))
            assert ana.view["ending"] == bruno.view["ending"]
            assert ana.view["ending"]["cause"] == "rack_emptied"
            assert ana.log == bruno.log and len(ana.log) == ana.seq

    loop_thread.run(scenario(), timeout=120)


@ON_REDIS_AND_CLUSTER
def test_racing_duplicate_actions_on_two_replicas_apply_once(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    first, second = gateway_factory(), gateway_factory()

    async def scenario() -> None:
        async with seated_table(first.url, ["Ana", "Bruno"]) as clients:
            await started_table(clients)
            ana = clients[0]
            assert ana.player is not None
            table_id = ana.table["table_id"]
            rooms = [await hub.room(table_id) for hub in (first.hub, second.hub)]
            seat = SeatToken(table_id, ana.player, "Ana")
            sockets = [SocketRecorder(seat), SocketRecorder(seat)]
            outcomes = await asyncio.gather(
                *(
                    room.act(sock, "same-action", {"pass_turn": {}})  # type: ignore[arg-type,union-attr]
                    for room, sock in zip(rooms, sockets, strict=True)
                )
            )
            assert sorted(outcomes) == ["accepted", "duplicate"]
            assert (
                sockets[0].frames
                == sockets[1].frames
                == [{"type": "ack", "id": "same-action", "seq": 1}]
            )
            record = await first.hub.store.get_table(table_id)
            assert record is not None and record.clock is not None
            assert (record.seq, record.clock.seat) == (1, 1)  # seat 1's time runs now
            await clients[1].wait_view(1)
            assert [e["kind"] for e in clients[1].log] == ["pass"]

    loop_thread.run(scenario(), timeout=60)


@ON_REDIS_AND_CLUSTER
def test_the_turn_clock_fires_once_with_every_replica_holding_the_table(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """Both replicas run the table's clock; the version check lets one pass apply per turn."""
    first, second = gateway_factory(turn_seconds=1.0), gateway_factory(turn_seconds=1.0)

    async def scenario() -> None:
        async with started_game([first.url, second.url], ["Ana", "Bruno"]) as (ana, bruno):
            await bruno.wait_view(3, timeout=10)
            await ana.wait_view(3, timeout=10)  # the same three passes, on her replica too
            passes = [(e["seat"], e["cause"]) for e in bruno.log]
            assert passes[:3] == [(0, "clock"), (1, "clock"), (0, "clock")]
            assert ana.log == bruno.log

    loop_thread.run(scenario(), timeout=60)


@ON_REDIS
def test_redis_restart_mid_game_loses_no_accepted_move(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, redis_server: RedisServer
) -> None:
    gateway = gateway_factory(seed=5)

    async def scenario() -> None:
        async with seated_table(gateway.url, ["Ana", "Bruno"]) as clients:
            await started_table(clients)
            player = bot(5)
            for _ in range(3):
                mover = to_play(clients)
                seq = mover.seq
                await mover.act(player.choose(mover.view))
                for client in clients:
                    await client.wait_view(seq + 1)
            before = [dict(c.view) for c in clients]
            redis_server.stop()  # SIGTERM: Redis writes its AOF and exits
            with pytest.raises(ServerError) as down:
                await to_play(clients).pass_turn()
            assert down.value.code == "unavailable"
            redis_server.start()
            for _ in range(50):  # the gateway reconnects by itself
                try:
                    await to_play(clients).pass_turn()
                    break
                except ServerError as e:
                    assert e.code == "unavailable"
                    await asyncio.sleep(0.1)
            for client, view in zip(clients, before, strict=True):
                await client.wait_view(4)
                assert client.view["scores"] == view["scores"]
                assert [e["kind"] for e in client.log][:3] == ["place", "place", "place"]
                assert len(client.log) == 4

    loop_thread.run(scenario(), timeout=60)


async def _reconnect(client: GatewayClient, url: str, timeout: float = 15.0) -> None:
    """What a browser does when its gateway vanishes: retry (here, at another replica)."""
    client.base_url = url
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        try:
            await client.open()
            return
        except OSError:
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.1)


@pytest.fixture
def replica_env(
    engine_server: RunningEngine, lobby_server: RunningLobby, store_url: str
) -> dict[str, str]:
    """Gateway processes' environment, on the test's Redis or Redis Cluster."""
    return replica_environment(engine_server.port, lobby_server.port, store_url, turn_seconds=5)


@ON_REDIS_AND_CLUSTER
def test_a_replica_killed_mid_game_its_players_finish_on_the_other(
    loop_thread: LoopThread, replica_env: dict[str, str]
) -> None:
    """SIGKILL one of two gateway processes: its player reconnects to the survivor; every
    accepted move is intact; the table's clock keeps running there, once per turn."""
    with doomed_and_survivor(replica_env) as (doomed, survivor):

        async def scenario() -> None:
            ana = GatewayClient(aiohttp.ClientSession(), doomed.url, None)
            bruno = GatewayClient(aiohttp.ClientSession(), survivor.url, None)
            try:
                await ana.open()
                await bruno.open()
                await ana.create("Ana")
                await bruno.join(ana.table["code"], "Bruno")
                await ana.wait_for(lambda f: f["type"] == "table" and len(f["seats"]) == 2)
                await started_table([ana, bruno])
                player = bot(9)
                for _ in range(4):
                    await play_one_turn([ana, bruno], player)
                log_before = list(bruno.log)
                doomed.kill()
                await asyncio.wait_for(ana.closed.wait(), 5)
                await _reconnect(ana, survivor.url)
                assert ana.log == log_before and ana.seq == 4
                await play_one_turn([ana, bruno], player)
                # Nobody plays now: the survivor's clock passes for each seat in turn, once.
                await bruno.wait_view(7, timeout=20)
                assert ana.log[:4] == log_before
                causes = [(e["seat"], e["cause"]) for e in bruno.log[5:7]]
                assert causes == [(1, "clock"), (0, "clock")]
            finally:
                for client in (ana, bruno):
                    await client.close()
                    await client.session.close()

        loop_thread.run(scenario(), timeout=90)


@ON_REDIS_AND_CLUSTER
def test_the_clock_of_a_table_whose_replica_died_fires_on_another(
    loop_thread: LoopThread, replica_env: dict[str, str]
) -> None:
    """Every player of the table was on the replica that dies and nobody comes back: another
    replica, which never held the table, picks its clock up and passes once per turn."""
    with doomed_and_survivor(replica_env) as (doomed, survivor):

        async def before() -> tuple[str, str]:
            async with seated_table(doomed.url, ["Ana", "Bruno"]) as clients:
                await started_table(clients)
                token = clients[1].token
                assert token is not None
                doomed.kill()
                return token, clients[0].table["table_id"]

        token, table_id = loop_thread.run(before(), timeout=60)

        async def passed_by_nobody_holding_it() -> None:
            """Past the 5 s turn clock, with no gateway holding the table: the survivor has
            committed the clock's pass (read in the store, not waited for by the clock)."""
            store = RedisTableStore.from_url(replica_env["LEXIO_REDIS_URL"])
            try:
                for _ in range(300):
                    record = await store.get_table(table_id)
                    if record is not None and record.seq >= 1:
                        return
                    await asyncio.sleep(0.05)
                raise AssertionError(f"no pass committed after 15 s: {record}")
            finally:
                await store.close()

        loop_thread.run(passed_by_nobody_holding_it(), timeout=30)

        async def after() -> None:
            async with GatewayClient.connect(survivor.url, token=token) as bruno:
                await bruno.wait_view(1, timeout=10)
                first = bruno.log[0]
                assert (first["kind"], first["seat"], first["cause"]) == ("pass", 0, "disconnected")
                seqs = [e["number"] for e in bruno.log]
                assert seqs == list(range(1, len(seqs) + 1))  # no pass applied twice

        loop_thread.run(after(), timeout=60)


@ON_REDIS_AND_CLUSTER
def test_two_gateways_and_two_lobbies_on_one_redis_play_a_whole_game(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    engine_server: RunningEngine,
    store_url: str,
    tmp_path: Path,
) -> None:
    """Each gateway talks to its own lobby replica; tables, codes and seats are shared (in one
    Redis, or a Redis Cluster)."""
    lobbies = [
        loop_thread.run(
            start_lobby(
                LobbyConfig(
                    host="127.0.0.1",
                    port=0,
                    metrics_port=-1,
                    db_path=tmp_path / f"unused-{i}.sqlite3",
                    games=site_games(f"127.0.0.1:{engine_server.port}"),
                    readiness_timeout=SHARED_LOOP_READINESS_TIMEOUT,
                    redis_url=store_url,
                )
            )
        )
        for i in range(2)
    ]
    try:
        first, second = (
            gateway_factory(seed=3, lobby_address=f"127.0.0.1:{lobby.port}") for lobby in lobbies
        )

        async def scenario() -> None:
            # Ana creates through the first lobby, Bruno joins through the second.
            async with started_game([first.url, second.url], ["Ana", "Bruno"]) as (ana, bruno):
                await play_to_the_end([ana, bruno], bot(3))
                assert ana.view["ending"] == bruno.view["ending"]
                assert ana.log == bruno.log and len(ana.log) == ana.seq

        loop_thread.run(scenario(), timeout=120)
    finally:
        for lobby in lobbies:
            loop_thread.run(lobby.stop(0))


@ON_REDIS_AND_CLUSTER
def test_a_rematch_is_offered_once_to_every_seat_whatever_its_replica(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """The host opens the rematch on one replica; the seat on the other gets the `rematch`
    frame too (found by the production topology's load run: it got only the table frame)."""
    first, second = gateway_factory(seed=10), gateway_factory(seed=10)

    async def scenario() -> None:
        async with started_game([first.url, second.url], ["Ana", "Bruno"]) as (ana, bruno):
            await play_to_the_end([ana, bruno], bot(10))
            finished = ana.table["table_id"]
            seated = await ana.rematch()
            offer = await bruno.wait_for(lambda f: f["type"] == "rematch", timeout=10, since=0)
            assert offer == {
                "type": "rematch",
                "code": seated["code"],
                "table_id": seated["table_id"],
                "host": "Ana",
            }
            # Seated at the rematch, Ana left the finished table: her replica said so on its
            # channel after the rematch's commit, and Bruno's replica handles that channel's
            # notices one at a time, in order. Once he is told she left, the commit's notice
            # (and whatever could repeat it) was handled to its end.
            offered_at = next(i for i, f in enumerate(bruno.frames) if f is offer)
            await _seen(
                bruno,
                lambda f: (
                    f["type"] == "table"
                    and f["table_id"] == finished
                    and not f["seats"][0]["connected"]
                ),
                "table frame of the finished table with Ana gone",
                since=offered_at,
            )
            await ana.sync()  # and anything her replica sent her has come
            assert [f for f in bruno.frames if f["type"] == "rematch"] == [offer]
            assert [f for f in ana.frames if f["type"] == "rematch"] == []
            joined = await bruno.join(str(offer["code"]), "Bruno")
            assert joined["table_id"] == seated["table_id"]

    loop_thread.run(scenario(), timeout=120)


@ON_REDIS_AND_CLUSTER
def test_the_newest_tab_of_a_seat_wins_across_replicas(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """Ana's seat is held on one replica; a tab of hers on the other takes it: the older tab is
    told `replaced` and closed, through the bus's `taken` notice, and the new one plays."""
    first, second = gateway_factory(seed=10), gateway_factory(seed=10)

    async def scenario() -> None:
        async with started_game([first.url, second.url], ["Ana", "Bruno"]) as (ana, bruno):
            table_id = ana.table["table_id"]
            async with GatewayClient.connect(second.url, token=ana.token) as second_tab:
                await ana.wait_for(lambda f: f["type"] == "replaced", timeout=10, since=0)
                await asyncio.wait_for(ana.closed.wait(), 5)
                room = await first.hub.room(table_id)
                assert room is not None and ana.player not in room.connections
                assert second_tab.table["you"] == 0
                await second_tab.wait_for(lambda f: f["type"] in ("snapshot", "view"), since=0)
                await second_tab.pass_turn()
                await bruno.wait_view(1)
                assert [s["connected"] for s in bruno.table["seats"]] == [True, True]

    loop_thread.run(scenario(), timeout=60)


@ON_REDIS_AND_CLUSTER
def test_a_taken_notice_without_its_table_still_closes_the_older_tab(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """During a rolling update a replica of the earlier release says `taken` without the
    table: the seat's tab here is found all the same (by a look at every connection)."""
    first, second = gateway_factory(seed=10), gateway_factory(seed=10)

    async def scenario() -> None:
        async with started_game([first.url, second.url], ["Ana", "Bruno"]) as (ana, bruno):
            earlier_release = {
                "kind": "taken",
                "player_id": ana.player,
                "replica": "r-earlier",
                "nonce": "a-tab-elsewhere",
            }
            await second.hub.bus.publish(earlier_release)
            await ana.wait_for(lambda f: f["type"] == "replaced", timeout=10, since=0)
            await asyncio.wait_for(ana.closed.wait(), 5)
            assert not bruno.closed.is_set()

    loop_thread.run(scenario(), timeout=60)


@ON_REDIS_AND_CLUSTER
def test_a_resume_while_an_action_waits_on_the_engine_cannot_slip_a_stale_move_in(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ana's pass waits on the engine at the first replica (its table's lock held); meanwhile
    the second replica passes for her, and a seat resumes at the first. The resume must not
    swap the first replica's record for the newer one under the waiting pass: that pass,
    computed on the older state, would then be committed on top of the newer version, and the
    log would hold Ana's turn twice (found by the replica-kill load run as doubled turns,
    all during resume storms)."""
    first, second = gateway_factory(), gateway_factory()

    async def scenario() -> None:
        async with seated_table([first.url, second.url], ["Ana", "Bruno"]) as clients:
            await started_table(clients)
            ana, bruno = clients
            assert ana.player is not None
            table_id = ana.table["table_id"]
            here, there = [await hub.room(table_id) for hub in (first.hub, second.hub)]
            assert here is not None and there is not None
            engine_called, engine_may_answer = asyncio.Event(), asyncio.Event()
            adapter = here.adapter
            real_act = adapter.act

            async def act_after_a_while(*args: Any, **kwargs: Any) -> Any:
                engine_called.set()
                await engine_may_answer.wait()  # the engine's answer, late
                return await real_act(*args, **kwargs)

            monkeypatch.setattr(adapter, "act", act_after_a_while)
            # Where the resume gets to before the engine answers: it queues for the table's
            # lock (held by the waiting pass), or, were it allowed to, it reads the table
            # without it. Either way no more of it runs until the pass is decided. The resume
            # is the task that looks the table's room up (nothing else does meanwhile).
            resume_parked = asyncio.Event()
            resume: list[asyncio.Task[Any] | None] = [None]
            real_room, real_acquire, real_refresh = first.hub.room, here.lock.acquire, here.refresh

            async def room_for_the_resume(table_id: str) -> Any:
                resume[0] = asyncio.current_task()
                return await real_room(table_id)

            async def acquire() -> bool:
                if asyncio.current_task() is resume[0]:
                    resume_parked.set()  # queued before the test runs again: no yield between
                return await real_acquire()

            async def refresh() -> None:
                await real_refresh()
                if asyncio.current_task() is resume[0]:
                    resume_parked.set()

            monkeypatch.setattr(first.hub, "room", room_for_the_resume)
            monkeypatch.setattr(here.lock, "acquire", acquire)
            monkeypatch.setattr(here, "refresh", refresh)
            seat = SeatToken(table_id, ana.player, "Ana")
            waiting = asyncio.create_task(
                here.act(SocketRecorder(seat), "ana-here", {"pass_turn": {}})  # type: ignore[arg-type]
            )
            await engine_called.wait()
            assert await there.act(SocketRecorder(seat), "ana-there", {"pass_turn": {}}) == (  # type: ignore[arg-type]
                "accepted"
            )
            async with aiohttp.ClientSession() as session:
                tab = GatewayClient(session, first.url, None)
                tab.token, tab.seq = bruno.token, bruno.seq
                resuming = asyncio.create_task(tab.open())
                await eventually(
                    resume_parked.is_set,
                    "the resume queued for the table's lock, or done reading the table",
                )
                engine_may_answer.set()
                outcome = await waiting
                await resuming
                await tab.close()
            assert outcome == "refused"  # decided anew on the newer state: not her turn
            record = await first.hub.store.get_table(table_id)
            assert record is not None and record.seq == 1
            await bruno.wait_view(1)
            assert [(e["number"], e["seat"]) for e in bruno.log] == [(1, 0)]

    loop_thread.run(scenario(), timeout=60)


# Each replica hears only its own tables (issue 28) -----------------------------------------


def _shard_subscribers(url: str, table_id: str) -> int:
    """How many subscribe to the table's channel (on a cluster, at its slot's master)."""
    client, layout = _raw_store(url)
    channel = layout.channel(table_id)
    where = {"target_nodes": client.get_node_from_key(channel)} if layout.cluster else {}
    try:
        return int(client.execute_command("PUBSUB", "SHARDNUMSUB", channel, **where)[1])
    finally:
        client.close()


@ON_REDIS_AND_CLUSTER
def test_each_replica_hears_only_the_tables_it_holds_and_lets_a_finished_one_go(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """A table whose players are all on one replica is not heard on the other; a finished
    table nobody watches any more leaves its replica's bus."""
    first, second = gateway_factory(seed=10), gateway_factory(seed=10)
    url = first.config.redis_url

    async def scenario() -> None:
        async with started_game([first.url, second.url], ["Carla", "Dan"]) as (carla, dan):
            shared = carla.table["table_id"]
            async with started_game(first.url, ["Ana", "Bruno"]) as (ana, bruno):
                alone = ana.table["table_id"]
                assert _shard_subscribers(url, shared) == 2
                assert _shard_subscribers(url, alone) == 1
                assert alone in first.hub.rooms and alone not in second.hub.rooms
                await play_to_the_end([ana, bruno], bot(10))
            await eventually(
                lambda: _shard_subscribers(url, alone) == 0, "the finished table let go"
            )
            assert alone not in first.hub.rooms
            await play_one_turn([carla, dan], bot(10))  # the other table plays on
            assert _shard_subscribers(url, shared) == 2

    loop_thread.run(scenario(), timeout=120)


@ON_REDIS_AND_CLUSTER
def test_a_replica_that_starts_holding_a_table_learns_who_is_connected_elsewhere(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """Bruno joins on the second replica after Ana's presence was announced on the first:
    the second asks `who`, the first answers `here`, and Ana counts as present there while
    the first replica is alive (heartbeats no longer list the seats)."""
    first, second = gateway_factory(), gateway_factory()

    async def scenario() -> None:
        async with seated_table([first.url, second.url], ["Ana", "Bruno"]) as (ana, bruno):
            await bruno.wait_for(
                lambda f: (
                    f["type"] == "table" and [s["connected"] for s in f["seats"]] == [True, True]
                ),
                timeout=10,
                since=0,
            )
            room = second.hub.rooms[ana.table["table_id"]]
            assert ana.player is not None
            assert room.presence.remote == {ana.player: {first.hub.replica}}
            assert second.hub.services.heartbeats.alive(first.hub.replica)
            assert room.presence.present(ana.player)

    loop_thread.run(scenario(), timeout=60)


def _three_seats(frame: dict[str, Any]) -> bool:
    return frame["type"] == "table" and len(frame["seats"]) == 3


@ON_REDIS
def test_a_seats_notice_missed_in_a_break_of_the_bus_is_read_again_from_the_lobby(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """Carla joins on the first replica while the second, where Bruno sits, does not hear the
    table: who sits at an open table is in the lobby, not in the store, so the resync after a
    break of the bus reads the seats again from the lobby, and Bruno sees Carla."""
    first, second = gateway_factory(), gateway_factory()
    caplog.set_level("INFO", logger="lexio_gateway.hub")

    def carla_announced() -> bool:
        # Logged once the join's `seats` notice is published (Redis answered the SPUBLISH).
        return any(
            r.getMessage() == "seated" and getattr(r, "seat", None) == 2 for r in caplog.records
        )

    async def scenario() -> None:
        async with seated_table([first.url, second.url], ["Ana", "Bruno"]) as (ana, bruno):
            table_id = ana.table["table_id"]
            await second.hub.bus.unfollow(table_id)  # its notices are lost from now on
            async with GatewayClient.connect(first.url) as carla:
                await carla.join(ana.table["code"], "Carla")
                await ana.wait_for(_three_seats, since=0)
                await eventually(carla_announced, "Carla's seats notice published")
                assert not any(_three_seats(f) for f in bruno.frames)  # the second missed it
                await second.hub.bus.follow(table_id)
                client = redis.Redis.from_url(first.config.redis_url)
                try:
                    assert client.client_kill_filter(_type="pubsub") >= 2  # the bus breaks
                finally:
                    client.close()
                seats = await bruno.wait_for(_three_seats, since=0)
                assert [s["name"] for s in seats["seats"]] == ["Ana", "Bruno", "Carla"]

    loop_thread.run(scenario(), timeout=60)


# A commit Redis acknowledged and then lost (issue 28, item 3) ------------------------------


async def _accepted_within(act: Any, seconds: float) -> bool:
    """Try ``act`` until it is accepted or ``seconds`` have passed."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            await act()
            return True
        except ServerError:
            await asyncio.sleep(0.5)
    return False


@ON_REDIS_AND_CLUSTER
def test_a_table_whose_last_acknowledged_commit_redis_lost_plays_on(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """What an asynchronous failover, or a machine crash with `appendfsync everysec`, can do:
    Redis comes back without the last commit the gateways acknowledged. The game must go on
    from what Redis has (the lost move undone, every seat told), not stall. The loss is made
    by putting the table's keys back as they were before that commit (DUMP, RESTORE)."""
    first, second = gateway_factory(seed=10), gateway_factory(seed=10)
    store, layout = _raw_store(first.config.redis_url)
    rewound_before = _rewound()

    async def scenario() -> None:
        async with started_game([first.url, second.url], ["Ana", "Bruno"]) as (ana, bruno):
            table_id = ana.table["table_id"]
            player = bot(10)
            await play_one_turn([ana, bruno], player)
            keys = [layout.table(table_id), layout.events(table_id)]
            before = [(key, store.dump(key)) for key in keys]
            await play_one_turn([ana, bruno], player)  # Bruno's move, acknowledged...
            assert bruno.log[-1]["seat"] == 1
            for key, dumped in before:  # ...and lost
                assert dumped is not None
                store.restore(key, 0, dumped, replace=True)
            # By Redis it is Bruno's turn again: his pass must be taken, and the table go on.
            assert await _accepted_within(bruno.pass_turn, 5.0)
            after_loss = [("place", 0), ("pass", 1)]
            # Both seats, still connected, were told the table as Redis has it (a snapshot:
            # the lost move's event was theirs already), and so is a seat coming back.
            await eventually(lambda: _kinds(ana.log) == after_loss, "Ana told", 5.0)
            await eventually(lambda: _kinds(bruno.log) == after_loss, "Bruno told", 5.0)
            # And it plays on, on both replicas: Ana's turn.
            await play_one_turn([ana, bruno], player)
            assert _kinds(bruno.log)[-1][1] == 0 and len(bruno.log) == 3
            async with GatewayClient.connect(first.url, token=ana.token) as again:
                await again.wait_for(lambda f: f["type"] in ("snapshot", "view"), since=0)
                assert _kinds(again.log) == _kinds(bruno.log)
        # Each replica found the table rewound (both run in this process: one registry).
        assert _rewound() - rewound_before == 2

    loop_thread.run(scenario(), timeout=60)


@ON_REDIS_AND_CLUSTER
def test_a_replica_that_hears_of_a_lost_commit_only_after_later_ones_takes_it_back(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """The harder case of the test above: when the first replica looks, the store has moved
    past the lost commit's version by other commits, so neither "older" nor "same version"
    gives the loss away; the first's last event told, compared with the store's, does. Its
    room is kept busy (its lock held) while the other replica plays two moves."""
    first, second = gateway_factory(seed=10), gateway_factory(seed=10)
    store, layout = _raw_store(first.config.redis_url)
    urls = [first.url, second.url, second.url]

    async def scenario() -> None:
        async with started_game(urls, ["Ana", "Bruno", "Carla"]) as (ana, bruno, carla):
            table_id = ana.table["table_id"]
            seats = [ana, bruno, carla]
            player = bot(10)
            await play_one_turn(seats, player)  # Ana's
            keys = [layout.table(table_id), layout.events(table_id)]
            before = [(key, store.dump(key)) for key in keys]
            await play_one_turn(seats, player)  # Bruno's, acknowledged, told to all...
            room = await first.hub.room(table_id)
            assert room is not None
            lost = room.record
            for key, dumped in before:  # ...and lost
                assert dumped is not None
                store.restore(key, 0, dumped, replace=True)
            busy = room.lock
            await busy.acquire()
            try:
                assert await _accepted_within(bruno.pass_turn, 5.0)
                await carla.wait_view(carla.seq)
                await carla.pass_turn()
                stored = await second.hub.store.get_table(table_id)
                assert stored is not None and stored.version == lost.version + 1
            finally:
                busy.release()
            after_loss = [("place", 0), ("pass", 1), ("pass", 2)]
            await eventually(lambda: _kinds(ana.log) == after_loss, "Ana told", 5.0)
            await play_one_turn(seats, player)  # Ana's again, on the first replica
            assert all(_kinds(s.log)[:3] == after_loss and len(s.log) == 4 for s in seats)

    with caplog.at_level("WARNING", logger="lexio_gateway.room"):
        loop_thread.run(scenario(), timeout=60)
    rewinds = [r.__dict__ for r in caplog.records if r.getMessage().startswith("table rewound")]
    # The second replica by its own act (the store older), the first by the event compared.
    assert sorted(r["stored_version"] - r["held_version"] for r in rewinds) == [-1, 1]


def _raw_store(url: str) -> tuple[Any, RedisLayout]:
    """A plain client of the gateways' Redis (or cluster: it routes by key), and its names."""
    if not is_cluster_url(url):
        return redis.Redis.from_url(url), RedisLayout(cluster=False)
    seed = urlsplit(url)
    assert seed.hostname is not None and seed.port is not None
    client = redis.cluster.RedisCluster.from_url(node_url(url, seed.hostname, seed.port))
    return client, RedisLayout(cluster=True)


def _kinds(log: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(e["kind"], e["seat"]) for e in log]


def _rewound() -> float:
    return REGISTRY.get_sample_value("lexio_gateway_tables_rewound_total") or 0.0
