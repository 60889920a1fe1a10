"""Gateway replicas on a real Redis Cluster (issue 28): 3 masters with a replica each, started
by the test (``redis-cli --cluster create``). Tables are spread over the masters by their
bucket's hash tag (redis_layout.py); a table's commit, indexes and notices stay in one slot.

Besides these, the replica suites marked to (``test_gateway_replicas.py``,
``test_gateway_hidden.py``, ...) run on a cluster too: ``gateway_backend`` "cluster".
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from gateway_play import bot, play_to_the_end, started_game, to_play
from lexio_testing import GatewayFactory, LoopThread, RedisClusterServer
from prometheus_client import REGISTRY

from lexio_client import ConnectionLostError, GatewayClient, ServerError
from lexio_gateway.redis_layout import RedisLayout

ON_CLUSTER = pytest.mark.parametrize("gateway_backend", ["cluster"])
LAYOUT = RedisLayout(cluster=True)


def _master_of_table(cluster: RedisClusterServer, table_id: str) -> Any:
    return cluster.master_for_slot(cluster.slot_of(LAYOUT.table(table_id)))


@ON_CLUSTER
def test_games_spread_over_the_masters_play_to_the_end_across_replicas(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, redis_cluster: RedisClusterServer
) -> None:
    """Four games, each with its seats on two replicas, played to the end at once; each
    table's keys on the master of its bucket."""
    first, second = gateway_factory(seed=3), gateway_factory(seed=3)
    tables: list[str] = []

    async def one_game(index: int) -> None:
        urls = [first.url, second.url] if index % 2 else [second.url, first.url]
        async with started_game(urls, ["Ana", "Bruno"]) as (ana, bruno):
            tables.append(ana.table["table_id"])
            await play_to_the_end([ana, bruno], bot(index))
            assert ana.log == bruno.log and ana.view.get("ending")

    async def scenario() -> None:
        await asyncio.gather(*(one_game(i) for i in range(4)))

    loop_thread.run(scenario(), timeout=120)
    for table_id in tables:
        master = _master_of_table(redis_cluster, table_id)
        for key in (LAYOUT.table(table_id), LAYOUT.events(table_id)):
            assert redis_cluster.command(master, "EXISTS", key) == 1, key


def test_the_buckets_spread_over_every_master(redis_cluster: RedisClusterServer) -> None:
    """The 256 buckets' slots, on a cluster made by `redis-cli --cluster create`: each of the
    3 masters serves a share of them (a share of the tables), none more than half."""
    served: dict[int, int] = {}
    for indexes in LAYOUT.all_indexes:
        master = redis_cluster.master_for_slot(redis_cluster.slot_of(indexes.deadlines))
        served[master.port] = served.get(master.port, 0) + 1
    assert len(served) == 3 and max(served.values()) <= 128, served
    # A table's keys, its indexes and its channel: one slot.
    table = "t-1a2b"
    names = [LAYOUT.table(table), LAYOUT.events(table), LAYOUT.tokens(table), LAYOUT.channel(table)]
    names += [LAYOUT.reply(table, "p", "a"), LAYOUT.indexes(table).deadlines]
    assert len({redis_cluster.slot_of(name) for name in names}) == 1


class AckedPlay:
    """Two seats playing the bot's moves as fast as they can through a failure: an answer
    other than ``ack`` is waited out and the move chosen anew; the acknowledged ones are kept
    (their event number and seat) to be found in the final log."""

    def __init__(self, seats: list[GatewayClient], seed: int) -> None:
        self.seats = seats
        self.player = bot(seed)
        self.acked: list[tuple[int, int]] = []

    async def move(self) -> str:
        """One try: ``ack``, or what the gateway answered instead (``lost``: no answer)."""
        mover = to_play(self.seats)
        seq = mover.seq
        try:
            ack = await mover.act(self.player.choose(mover.view))
        except (ServerError, ConnectionLostError) as e:
            await asyncio.sleep(0.1)
            return getattr(e, "code", "lost")
        self.acked.append((ack["seq"], mover.table["you"]))
        for seat in self.seats:
            await seat.wait_view(seq + 1)
        return "ack"

    async def to_the_end(self, url: str) -> None:
        """Play on until the game ends; then a seat coming back (on ``url``) reads a log with
        every acknowledged move at its number, by its seat, the one every seat has."""
        for _ in range(400):
            if self.seats[0].view.get("ending"):
                break
            await self.move()
        assert self.seats[0].view.get("ending"), "the game did not end"
        async with GatewayClient.connect(url, token=self.seats[1].token) as again:
            await again.wait_for(lambda f: f["type"] in ("snapshot", "view"), since=0)
            log = again.log
        lost = [(seq, seat) for seq, seat in self.acked if log[seq - 1]["seat"] != seat]
        assert lost == [] and len(self.acked) > 8
        assert all(seat.log == log for seat in self.seats)


@ON_CLUSTER
def test_a_master_killed_mid_game_loses_no_acknowledged_move(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, redis_cluster: RedisClusterServer
) -> None:
    """kill -9 of the master holding a table while its two seats (on two replicas) play as
    fast as they can; its replica is promoted. With LEXIO_REDIS_WAIT_REPLICAS=1 a move is
    acknowledged only once a replica has it: while the new master has none, a move is
    answered ``unavailable``; once the killed one is back (as its replica), the game plays on
    to its end, and every move ever acknowledged is in its log."""
    first = gateway_factory(seed=5, redis_wait_replicas=1, redis_wait_timeout=0.5)
    second = gateway_factory(seed=5, redis_wait_replicas=1, redis_wait_timeout=0.5)

    async def scenario() -> None:
        async with started_game([first.url, second.url], ["Ana", "Bruno"]) as (ana, bruno):
            play = AckedPlay([ana, bruno], 5)
            for _ in range(4):
                assert await play.move() == "ack"
            master = _master_of_table(redis_cluster, ana.table["table_id"])
            killing = asyncio.ensure_future(asyncio.to_thread(redis_cluster.kill_master, master))
            while not killing.done():  # moves while the master dies and its replica takes over
                await play.move()
            await killing
            # The new master has no replica: nothing it commits can be acknowledged, and no
            # commit that came before the failover (a move in flight at the kill) is shown or
            # built on before a replica has it. (The first tries may fail on the way: the
            # gateways' clients learn the new map of the slots from a failed call.)
            unreplicated, applied = _refused_unreplicated(), _count("commit", "applied")
            answers = set()
            for _ in range(50):
                answers.add(await play.move())
                if _refused_unreplicated() > unreplicated:
                    break
            assert _refused_unreplicated() > unreplicated and "ack" not in answers, answers
            # Nor did any commit pass its WAIT meanwhile (what reached the new master was
            # refused as unreplicated, whether or not a check of an earlier one came first).
            assert _count("commit", "applied") == applied
            await asyncio.to_thread(redis_cluster.restart, master)
            await play.to_the_end(second.url)

    loop_thread.run(scenario(), timeout=180)


def _count(what: str, outcome: str) -> float:
    """The gateways' store ``what`` (commit, confirm) calls so far with ``outcome``."""
    labels = {"outcome": outcome}
    return REGISTRY.get_sample_value(f"lexio_gateway_store_{what}_seconds_count", labels) or 0.0


def _refused_unreplicated() -> float:
    """Commits, and checks of earlier commits, refused for want of a replica."""
    return _count("commit", "unreplicated") + _count("confirm", "unreplicated")


@ON_CLUSTER
def test_a_tables_slot_moved_to_another_master_mid_game_loses_no_move(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, redis_cluster: RedisClusterServer
) -> None:
    """A reshard under play: the slot of a table (its keys, its bucket's indexes, its channel)
    migrates key by key to another master while its two seats, on two replicas, play on;
    then `redis-cli --cluster reshard` moves all that master's slots back, still under play. A
    commit that meets a half-moved slot is answered ``unavailable`` and sent again; the
    replicas, unsubscribed by Redis from the moved channel, subscribe where it went and catch
    up. Every acknowledged move is in the log, and the game ends."""
    first, second = gateway_factory(seed=6), gateway_factory(seed=6)

    async def scenario() -> None:
        async with started_game([first.url, second.url], ["Ana", "Bruno"]) as (ana, bruno):
            play = AckedPlay([ana, bruno], 6)
            for _ in range(4):
                await play.move()
            slot = redis_cluster.slot_of(LAYOUT.table(ana.table["table_id"]))
            source = redis_cluster.master_for_slot(slot)
            target = next(m for m in redis_cluster.masters_now() if m is not source)
            moving = asyncio.ensure_future(
                asyncio.to_thread(redis_cluster.move_slot, slot, target, pause_between_keys=0.05)
            )
            while not moving.done():
                await play.move()
            await moving
            assert redis_cluster.master_for_slot(slot) is target
            # And back with `redis-cli --cluster reshard`: every slot of that master (the
            # table's among them) to the first, under play.
            served = next(i for i in redis_cluster.nodes_info() if i.owns(slot)).slot_count
            resharding = asyncio.ensure_future(
                asyncio.to_thread(redis_cluster.reshard, target, source, served)
            )
            while not resharding.done():
                await play.move()
            await resharding
            assert redis_cluster.master_for_slot(slot) is source
            await play.to_the_end(first.url)

    loop_thread.run(scenario(), timeout=180)
