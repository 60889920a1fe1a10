"""The replicas' bus on a real Redis (issue 13): nothing ends it but shutdown, and it says
whether this replica hears the others."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from lexio_testing import LoopThread, RedisServer, eventually
from prometheus_client import REGISTRY
from redis.exceptions import TimeoutError as RedisTimeoutError

from lexio_common import redis_client
from lexio_gateway.bus import CHANNEL, RedisBus
from lexio_gateway.metrics import BUS_RECONNECTS, BUS_RESYNCS_REPUBLISHED
from lexio_gateway.redis_layout import RedisLayout
from lexio_gateway.store import StoreUnavailableError


class Replica:
    """A handler standing where the hub would: it fails its first resyncs, as the hub does
    while Redis is still loading, and may fail a given notice."""

    def __init__(self, failing_resyncs: int = 0, failing_kind: str = "") -> None:
        self.failing_resyncs = failing_resyncs
        self.failing_kind = failing_kind
        self.resyncs = 0
        self.table_resyncs: list[str] = []
        self.notices: list[dict[str, Any]] = []

    async def __call__(self, notice: dict[str, Any]) -> None:
        if notice["kind"] == "resync" and "table_id" in notice:
            self.table_resyncs.append(notice["table_id"])
            return
        if notice["kind"] == "resync":
            self.resyncs += 1
            if self.resyncs <= self.failing_resyncs:
                raise StoreUnavailableError("LOADING Redis is loading the dataset in memory")
            return
        if notice["kind"] == self.failing_kind:
            self.failing_kind = ""
            if notice.get("outage"):
                # What the store raises when a read times out under load (issue 36).
                try:
                    raise RedisTimeoutError("Timeout reading from socket")
                except RedisTimeoutError as e:
                    raise StoreUnavailableError(f"redis: {e}") from e
            raise RuntimeError("a bug in a notice's handling")
        self.notices.append(notice)


def _bus(redis_server: RedisServer) -> RedisBus:
    client = redis_client.connect(
        redis_server.url, timeout=2.0, name="test-bus", text=False, subscriber=True
    )
    return RedisBus(client, retry_min=0.01, retry_max=0.1)


def _publisher(redis_server: RedisServer) -> RedisBus:
    return RedisBus(redis_client.connect(redis_server.url, timeout=2.0, name="pub", text=False))


@contextlib.asynccontextmanager
async def running(
    redis_server: RedisServer, replica: Replica
) -> AsyncIterator[tuple[RedisBus, RedisBus, asyncio.Task[None]]]:
    """A bus running for ``replica``, a publisher beside it; both closed at the end."""
    bus, publisher = _bus(redis_server), _publisher(redis_server)
    task = asyncio.create_task(bus.run(replica))
    try:
        yield bus, publisher, task
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await bus.close()
        await publisher.close()


def test_a_failing_resync_is_retried_until_it_succeeds_and_only_then_is_the_bus_healthy(
    loop_thread: LoopThread, redis_server: RedisServer
) -> None:
    async def scenario() -> None:
        replica = Replica(failing_resyncs=3)
        async with running(redis_server, replica) as (bus, publisher, task):
            await eventually(lambda: replica.resyncs >= 1, "a first resync")
            assert not bus.healthy
            await eventually(lambda: bus.healthy, "healthy once a resync succeeded")
            assert replica.resyncs == 4
            await publisher.publish({"kind": "event", "n": 1})
            await eventually(lambda: replica.notices == [{"kind": "event", "n": 1}], "delivered")
            assert bus.last_notice_at is not None
        assert task.cancelled()

    loop_thread.run(scenario(), timeout=30)


def test_a_notice_that_fails_is_followed_by_a_resync_and_the_bus_goes_on(
    loop_thread: LoopThread, redis_server: RedisServer
) -> None:
    async def scenario() -> None:
        replica = Replica(failing_kind="poison")
        async with running(redis_server, replica) as (bus, publisher, task):
            await eventually(lambda: bus.healthy, "subscribed")
            await publisher.publish({"kind": "poison"})
            await publisher.publish({"kind": "event", "n": 2})
            await eventually(lambda: replica.notices == [{"kind": "event", "n": 2}], "next notice")
            assert replica.resyncs == 2  # the first subscription's, then the poison's
            assert bus.healthy and not task.done()

    loop_thread.run(scenario(), timeout=30)


def test_a_tables_notice_that_could_not_be_published_is_made_up_for_by_a_resync_of_it(
    loop_thread: LoopThread, redis_server: RedisServer
) -> None:
    """Redis away when a replica publishes a table's notice: the other replicas would miss it
    (and a table whose two seats are on two replicas would wait for ever, each seat seeing
    the other's turn). Once Redis is back, a resync of that table reaches them."""

    async def scenario() -> None:
        replica = Replica()
        async with running(redis_server, replica) as (bus, publisher, _task):
            await eventually(lambda: bus.healthy, "subscribed")
            await bus.follow("t1")
            republished = BUS_RESYNCS_REPUBLISHED._value.get()
            redis_server.stop()
            await publisher.publish({"kind": "event", "table_id": "t1", "version": 2})
            assert replica.table_resyncs == []
            redis_server.start()
            await eventually(
                lambda: replica.table_resyncs == ["t1"],
                lambda: f"a resync of t1 after Redis came back; heard {replica.table_resyncs}",
            )
            assert BUS_RESYNCS_REPUBLISHED._value.get() == republished + 1

    loop_thread.run(scenario(), timeout=30)


def test_a_killed_subscription_is_made_again_counted_and_followed_by_a_resync(
    loop_thread: LoopThread, redis_server: RedisServer
) -> None:
    async def scenario() -> None:
        replica = Replica()
        async with running(redis_server, replica) as (bus, _, _task):
            await eventually(lambda: bus.healthy, "subscribed")
            reconnects = BUS_RECONNECTS._value.get()
            assert b":1" in redis_server.command("CLIENT", "KILL", "TYPE", "pubsub")
            await eventually(lambda: replica.resyncs == 2, "a resync after the new subscription")
            await eventually(lambda: bus.healthy, "healthy again")
            assert BUS_RECONNECTS._value.get() == reconnects + 1
            reply = redis_server.command("PUBSUB", "NUMSUB", CHANNEL)
            assert reply.endswith(b":1\r\n")

    loop_thread.run(scenario(), timeout=30)


# The per-table bus (issue 28) ------------------------------------------------------------


def _shard_subscribers(redis_server: RedisServer, table_id: str) -> int:
    channel = RedisLayout(cluster=False).channel(table_id)
    reply = redis_server.command("PUBSUB", "SHARDNUMSUB", channel)
    return int(reply.rsplit(b":", 1)[1])


def test_a_replica_hears_only_the_tables_it_follows_and_none_once_it_unfollows(
    loop_thread: LoopThread, redis_server: RedisServer
) -> None:
    async def scenario() -> None:
        replica = Replica()
        async with running(redis_server, replica) as (bus, publisher, _task):
            await eventually(lambda: bus.healthy, "subscribed")
            await bus.follow("t-held")
            assert bus.followed == {"t-held"}
            assert _shard_subscribers(redis_server, "t-held") == 1
            assert _shard_subscribers(redis_server, "t-other") == 0
            # Published the instant follow returned: heard (follow waits for Redis's word).
            await publisher.publish({"kind": "event", "table_id": "t-held", "n": 1})
            await publisher.publish({"kind": "event", "table_id": "t-other", "n": 2})
            await publisher.publish({"kind": "alive", "replica": "r2"})
            await eventually(lambda: len(replica.notices) == 2, "the held table's and the site's")
            assert [n.get("n") for n in replica.notices] == [1, None]
            await bus.unfollow("t-held")
            await eventually(lambda: _shard_subscribers(redis_server, "t-held") == 0, "unfollowed")
            await publisher.publish({"kind": "event", "table_id": "t-held", "n": 3})
            await publisher.publish({"kind": "alive", "replica": "r2"})
            await eventually(lambda: len(replica.notices) == 3, "the next heartbeat")
            assert replica.notices[-1]["kind"] == "alive" and bus.followed == frozenset()

    loop_thread.run(scenario(), timeout=30)


def test_a_follow_right_after_an_unfollow_is_heard(
    loop_thread: LoopThread, redis_server: RedisServer
) -> None:
    """Forgetting a table and holding it again at once (a table released as a seat comes
    back) must not leave the replica deaf to it, whatever order Redis confirms in."""

    async def scenario() -> None:
        replica = Replica()
        async with running(redis_server, replica) as (bus, publisher, _task):
            await eventually(lambda: bus.healthy, "subscribed")
            for n in range(20):
                await bus.follow("t-1")
                await bus.unfollow("t-1")
                await bus.follow("t-1")
                notice = {"kind": "event", "table_id": "t-1", "n": n}
                await publisher.publish(notice)
                await eventually(lambda: replica.notices[-1:] == [notice], f"notice {n}")  # noqa: B023 - awaited here
            assert _shard_subscribers(redis_server, "t-1") == 1

    loop_thread.run(scenario(), timeout=60)


def test_after_a_killed_subscription_every_followed_table_is_followed_again(
    loop_thread: LoopThread, redis_server: RedisServer
) -> None:
    async def scenario() -> None:
        replica = Replica()
        async with running(redis_server, replica) as (bus, publisher, _task):
            await eventually(lambda: bus.healthy, "subscribed")
            for table_id in ("t-1", "t-2", "t-3"):
                await bus.follow(table_id)
            assert b":1" in redis_server.command("CLIENT", "KILL", "TYPE", "pubsub")
            await eventually(lambda: replica.resyncs == 2, "a resync after the new subscription")
            await eventually(lambda: bus.healthy, "healthy again")
            assert [_shard_subscribers(redis_server, t) for t in ("t-1", "t-2", "t-3")] == [1] * 3
            await publisher.publish({"kind": "event", "table_id": "t-2", "n": 1})
            await eventually(
                lambda: replica.notices == [{"kind": "event", "table_id": "t-2", "n": 1}],
                "heard again",
            )

    loop_thread.run(scenario(), timeout=30)


def test_a_failing_notice_of_one_table_resyncs_that_table_only(
    loop_thread: LoopThread, redis_server: RedisServer
) -> None:
    """Issue 27: under overload one failed notice resynced every table the replica held."""

    async def scenario() -> None:
        replica = Replica(failing_kind="poison")
        async with running(redis_server, replica) as (bus, publisher, task):
            await eventually(lambda: bus.healthy, "subscribed")
            await bus.follow("t-1")
            await publisher.publish({"kind": "poison", "table_id": "t-1"})
            await publisher.publish({"kind": "event", "table_id": "t-1", "n": 2})
            await eventually(
                lambda: replica.notices[-1:] == [{"kind": "event", "table_id": "t-1", "n": 2}],
                "next notice",
            )
            assert replica.table_resyncs == ["t-1"]
            assert replica.resyncs == 1  # the first subscription's only
            assert bus.healthy and not task.done()

    loop_thread.run(scenario(), timeout=30)


def _notice_failures(cause: str) -> float:
    value = REGISTRY.get_sample_value("lexio_gateway_bus_notice_failures_total", {"cause": cause})
    return value or 0.0


FAILURES = {
    "store-timeout": (True, "store_unavailable", logging.WARNING, "notice not applied: resync"),
    "bug": (False, "other", logging.ERROR, "notice failed: resync"),
}


@pytest.mark.parametrize("failure", list(FAILURES))
def test_a_failed_notice_is_counted_and_logged_by_its_cause(
    loop_thread: LoopThread,
    redis_server: RedisServer,
    caplog: pytest.LogCaptureFixture,
    failure: str,
) -> None:
    """Issue 36: at 2,000 tables a store read timed out in a notice's handler and wrote an
    error line with a traceback (make load-prod NOT CLEAN), although the table was resynced and
    no game harmed. An outage is a warning naming the error, counted; a bug stays an error
    with its traceback, counted as ``other``."""
    outage, cause, level, message = FAILURES[failure]
    caplog.set_level(logging.INFO, logger="lexio_gateway.bus")
    before = _notice_failures(cause)

    async def scenario() -> None:
        replica = Replica(failing_kind="poison")
        async with running(redis_server, replica) as (bus, publisher, _task):
            await eventually(lambda: bus.healthy, "subscribed")
            await bus.follow("t-1")
            await publisher.publish({"kind": "poison", "table_id": "t-1", "outage": outage})
            await eventually(lambda: replica.table_resyncs == ["t-1"], "the table resynced")

    loop_thread.run(scenario(), timeout=30)
    assert _notice_failures(cause) == before + 1
    failed = [
        r for r in caplog.records if "resync" in r.getMessage() and "notice" in r.getMessage()
    ]
    assert [(r.levelno, r.getMessage()) for r in failed] == [(level, message)]
    assert (failed[0].exc_info is not None) == (not outage)
    if outage:
        assert "TimeoutError: Timeout reading from socket" in failed[0].__dict__["error"]
