"""Two gateway replicas on a Redis master with a replica, LEXIO_REDIS_WAIT_REPLICAS=1 (issue
40): a move whose commit no replica confirmed is answered `unavailable` to its player and
shown to no other seat; once the replica is back, the next action finds it confirmed in the
store and every seat, on either gateway, is told of it once, in order.

Before issue 40 the commit script published the notice before WAIT: the other seat was shown
a move its mover had been told had failed, which a failover could then take back (seen from
outside: 3 and 5 seat rewinds in two partition runs)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator

import pytest
import redis
from gateway_play import started_game, to_play
from lexio_testing import GatewayFactory, LoopThread, RedisServer, eventually

from lexio_client import GatewayClient, ServerError
from lexio_gateway.redis_layout import RedisLayout

pytestmark = pytest.mark.one_store

ONLINE = b"state=online"


def _waiting_gateways(
    gateway_factory: GatewayFactory, redis_server: RedisServer, wait_timeout: float
) -> list[str]:
    """Two gateway replicas on ``redis_server`` that wait for one replica (WAIT 1)."""
    settings = {
        "redis_url": redis_server.url,
        "redis_wait_replicas": 1,
        "redis_wait_timeout": wait_timeout,
    }
    return [gateway_factory(**settings).url for _ in range(2)]


async def _replica_online(redis_server: RedisServer, what: str) -> None:
    await eventually(lambda: ONLINE in redis_server.command("INFO"), what)


@contextlib.asynccontextmanager
async def _mover_and_other(
    urls: list[str], redis_server: RedisServer
) -> AsyncIterator[tuple[GatewayClient, GatewayClient]]:
    """A started game, one seat on each replica: the seat to play, and the other."""
    await _replica_online(redis_server, "replica online")
    async with started_game(urls, ["Ana", "Bruno"]) as (ana, bruno):
        mover = to_play([ana, bruno])
        yield mover, bruno if mover is ana else ana


def test_a_move_no_replica_confirmed_is_shown_to_no_other_seat_until_it_is(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    redis_server: RedisServer,
    redis_replica: RedisServer,
) -> None:
    urls = _waiting_gateways(gateway_factory, redis_server, wait_timeout=2.0)

    async def scenario() -> None:
        async with _mover_and_other(urls, redis_server) as (mover, other):
            seq, since = mover.seq, len(other.frames)
            redis_replica.stop(kill=True)
            with pytest.raises(ServerError) as refused:
                await mover.pass_turn()
            assert refused.value.code == "unavailable"
            # A marker on the table's channel after the refused commit: the other seat's
            # gateway hears the channel in order, and a `seats` notice makes it send a table
            # frame. A notice of the refused commit would come first.
            with redis.Redis.from_url(redis_server.url) as raw:
                channel = RedisLayout(cluster=False).channel(mover.table["table_id"])
                marker = {"kind": "seats", "table_id": mover.table["table_id"]}
                raw.spublish(channel, json.dumps(marker))
            await other.wait_for(lambda f: f["type"] == "table", since=since)
            shown = [f for f in other.frames[since:] if f["type"] in ("event", "view")]
            assert shown == [], f"the other seat was shown an unconfirmed move: {shown}"
            assert other.seq == seq

            # The replica back: the next action finds the move in the store, confirmed, and
            # every seat is told of it, once.
            redis_replica.start()
            await _replica_online(redis_server, "replica back")
            with pytest.raises(ServerError):
                await mover.pass_turn()  # no longer its turn: the pass was applied
            for client in (mover, other):
                await client.wait_view(seq + 1)
            assert mover.log == other.log and len(mover.log) == seq + 1
            assert mover.log[-1]["kind"] == "pass" and mover.log[-1]["seat"] == mover.table["you"]

    loop_thread.run(scenario(), timeout=90)


def test_a_move_confirmed_late_reaches_every_seat_though_nobody_acts_again(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    redis_server: RedisServer,
    redis_replica: RedisServer,
) -> None:
    """The same refused move, but nobody acts after it: its player was told `unavailable` and
    may never try again, and the other seat waits for that move. Once the replica is back,
    the mover's gateway finds the move confirmed in the store by itself and every seat, on
    either gateway, is shown it.

    Before, only a later action, resume or resync at the table confirmed it, and a resync of
    the mover's gateway (its bus reconnecting after a failover) showed it to its own seats
    only: each seat then saw the other's turn for good (test_gateway_cluster's master kill,
    2 of 4 fresh-clone runs)."""
    urls = _waiting_gateways(gateway_factory, redis_server, wait_timeout=1.0)

    async def scenario() -> None:
        async with _mover_and_other(urls, redis_server) as (mover, other):
            seq = mover.seq
            redis_replica.stop(kill=True)
            with pytest.raises(ServerError) as refused:
                await mover.pass_turn()
            assert refused.value.code == "unavailable"
            assert other.seq == seq
            redis_replica.start()
            await _replica_online(redis_server, "replica back")
            for client in (mover, other):
                await client.wait_view(seq + 1)
            assert mover.log == other.log and len(mover.log) == seq + 1
            assert mover.log[-1]["kind"] == "pass" and mover.log[-1]["seat"] == mover.table["you"]
            assert to_play([mover, other]) is other

    loop_thread.run(scenario(), timeout=90)
