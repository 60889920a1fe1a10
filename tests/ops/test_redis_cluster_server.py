"""The Redis Cluster harness (:class:`RedisClusterServer`) proved with redis-py's own cluster
clients, the ones the services would use:

- a fresh cluster serves keys in every master's slots, its topology is what was asked, and
  :meth:`slot_of` hashes as Redis does (hash tags included);
- after a master is killed, a replica holds its keys and takes writes, and the killed master
  comes back as that replica's replica;
- after a reshard, and after a slot is moved (also while it is half-moved), every key is
  still readable and the slots have their new owner;
- sharded pub/sub (SSUBSCRIBE, SPUBLISH) reaches subscribers on several masters;
- with a password, everything above that needs one (redis-cli, MIGRATE) still works.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from lexio_testing import RedisClusterServer, eventually_sync
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import RedisCluster
from redis.crc import key_slot as redis_py_key_slot

from lexio_common.procs import RedisServer
from lexio_common.redis_cluster_server import ReplyError


def client(cluster: RedisClusterServer, **kwargs: Any) -> RedisCluster:
    return RedisCluster(
        host="127.0.0.1",
        port=cluster.nodes[0].port,
        password=cluster.password or None,
        decode_responses=True,
        **kwargs,
    )


def async_client(cluster: RedisClusterServer) -> AsyncRedisCluster:
    return AsyncRedisCluster(host="127.0.0.1", port=cluster.nodes[0].port, decode_responses=True)


def keys_per_master(cluster: RedisClusterServer, keys: list[str]) -> dict[int, list[str]]:
    """The keys by the port of the master that serves them now."""
    masters = [i for i in cluster.nodes_info() if i.role == "master" and i.slots]
    by_master: dict[int, list[str]] = {}
    for key in keys:
        (owner,) = [m for m in masters if m.owns(cluster.slot_of(key))]
        by_master.setdefault(owner.port, []).append(key)
    return by_master


def test_keys_in_every_masters_slots_are_readable(redis_cluster: RedisClusterServer) -> None:
    infos = redis_cluster.nodes_info()
    masters = [i for i in infos if i.role == "master"]
    replicas = [i for i in infos if i.role == "replica"]
    assert len(masters) == 3
    assert len(replicas) == 3
    assert sorted(r.master_id or "" for r in replicas) == sorted(m.id for m in masters)
    assert sum(m.slot_count for m in masters) == 16384
    assert not any(i.failed for i in infos)
    assert {i.port for i in infos} == {n.port for n in redis_cluster.nodes}
    assert redis_cluster.url == f"redis+cluster://127.0.0.1:{redis_cluster.nodes[0].port}"

    keys = [f"game:{i}" for i in range(1000)]
    with client(redis_cluster) as rc:
        for key in keys:
            rc.set(key, key.upper())
        assert [rc.get(key) for key in keys] == [key.upper() for key in keys]
    by_master = keys_per_master(redis_cluster, keys)
    assert len(by_master) == 3
    for master in redis_cluster.masters_now():
        assert redis_cluster.command(master, "DBSIZE") == len(by_master[master.port])
    for key in keys[:50]:
        assert redis_cluster.command_for_key(key, "GET", key) == key.upper()


def test_slot_of_hashes_as_redis_does(redis_cluster: RedisClusterServer) -> None:
    keys = [
        "",
        "a",
        "game:1",
        "lexio:table:0d5e",
        "é/日本",
        "{abc}x",
        "{abc}y",
        "abc",
        "x{abc}",
        "{}x",
        "x{}",
        "{}{abc}",
        "{a}{b}",
        "a{b",
        "a}b{c}",
        "{{ab}}",
        "{",
        "}{",
    ]
    node = redis_cluster.nodes[0]
    for key in keys:
        slot = redis_cluster.slot_of(key)
        assert slot == redis_cluster.command(node, "CLUSTER", "KEYSLOT", key), key
        assert slot == redis_py_key_slot(key.encode()), key
    assert redis_cluster.slot_of("{abc}x") == redis_cluster.slot_of("abc")
    assert redis_cluster.slot_of("{}x") != redis_cluster.slot_of("{}y")
    assert redis_cluster.slot_of("a{b") != redis_cluster.slot_of("b")


def test_a_killed_master_is_replaced_by_its_replica(redis_cluster: RedisClusterServer) -> None:
    keys = [f"seat:{i}" for i in range(300)]
    victim = redis_cluster.master_for_slot(redis_cluster.slot_of(keys[0]))
    (replica,) = redis_cluster.replicas_of(victim)
    victim_id = redis_cluster.node_id(victim)

    async def scenario() -> None:
        rc = async_client(redis_cluster)
        try:
            for key in keys:
                await rc.set(key, key)
            for master in redis_cluster.masters_now():
                assert redis_cluster.command(master, "WAIT", 1, 5000) == 1

            promoted = await asyncio.to_thread(redis_cluster.kill_master, victim)
            assert promoted is replica

            assert [await rc.get(key) for key in keys] == keys  # the client made before
            victim_keys = keys_per_master(redis_cluster, keys)[promoted.port]
            assert victim_keys
            await rc.set(victim_keys[0], "after the failover")
            assert await rc.get(victim_keys[0]) == "after the failover"
        finally:
            await rc.aclose()

    asyncio.run(scenario())
    (victim_seen,) = [i for i in redis_cluster.nodes_info() if i.id == victim_id]
    assert "fail" in victim_seen.flags
    assert not victim_seen.slots
    assert redis_cluster.master_for_slot(redis_cluster.slot_of(keys[0])) is replica

    redis_cluster.restart(victim)
    assert redis_cluster.node_id(victim) == victim_id
    (victim_seen,) = [i for i in redis_cluster.nodes_info() if i.id == victim_id]
    assert victim_seen.role == "replica"
    assert victim_seen.master_id == redis_cluster.node_id(replica)
    assert redis_cluster.replicas_of(replica) == [victim]
    with client(redis_cluster) as rc:
        assert [rc.get(key) for key in keys[1:]] == keys[1:]


def test_a_cut_replication_link_loses_the_writes_after_it_in_a_failover(
    redis_cluster: RedisClusterServer,
) -> None:
    """A partition of the replication link: what the master takes after the cut is not on
    the replica that replaces it (not even once the killed master is back as its replica),
    what came before is; WAIT meanwhile counts no replica."""
    before, after = "partition:{a}:before", "partition:{a}:after"
    victim = redis_cluster.master_for_slot(redis_cluster.slot_of(before))
    redis_cluster.command(victim, "SET", before, "1")
    assert redis_cluster.command(victim, "WAIT", 1, 5000) == 1
    (replica,) = redis_cluster.cut_replication(victim)
    redis_cluster.command(victim, "SET", after, "1")
    assert redis_cluster.command(victim, "WAIT", 1, 300) == 0
    assert redis_cluster.kill_master(victim) is replica
    assert redis_cluster.command(replica, "GET", before) == "1"
    assert redis_cluster.command(replica, "GET", after) is None
    redis_cluster.restart(victim)
    assert redis_cluster.command(replica, "GET", after) is None
    assert redis_cluster.command(replica, "WAIT", 1, 5000) == 1  # healed: a replica again


def test_reshard_moves_slots_and_their_keys(redis_cluster: RedisClusterServer) -> None:
    keys = [f"score:{i}" for i in range(1000)]
    source, target, _third = redis_cluster.masters_now()
    source_id, target_id = redis_cluster.node_id(source), redis_cluster.node_id(target)
    with client(redis_cluster) as rc:
        for key in keys:
            rc.set(key, key)
        before = {i.id: i for i in redis_cluster.nodes_info()}

        redis_cluster.reshard(source, target, 100)

        after = {i.id: i for i in redis_cluster.nodes_info()}
        assert after[source_id].slot_count == before[source_id].slot_count - 100
        assert after[target_id].slot_count == before[target_id].slot_count + 100
        moved = [s for s in range(16384) if before[source_id].owns(s) and after[target_id].owns(s)]
        assert len(moved) == 100
        moved_keys = [k for k in keys if redis_cluster.slot_of(k) in set(moved)]
        assert moved_keys
        for key in moved_keys:
            assert redis_cluster.master_for_slot(redis_cluster.slot_of(key)) is target
            assert redis_cluster.command(target, "GET", key) == key
        assert [rc.get(key) for key in keys] == keys  # the client made before: MOVED


def test_move_slot_moves_one_slot(redis_cluster: RedisClusterServer) -> None:
    keys = [f"{{room7}}:{i}" for i in range(250)]
    slot = redis_cluster.slot_of("room7")
    source = redis_cluster.master_for_slot(slot)
    target = next(m for m in redis_cluster.masters_now() if m is not source)
    with client(redis_cluster) as rc:
        for key in keys:
            rc.set(key, key)

        redis_cluster.move_slot(slot, target)

        assert redis_cluster.master_for_slot(slot) is target
        assert redis_cluster.command(target, "CLUSTER", "COUNTKEYSINSLOT", slot) == len(keys)
        assert redis_cluster.command(source, "CLUSTER", "COUNTKEYSINSLOT", slot) == 0
        with pytest.raises(ReplyError, match=f"^MOVED {slot} 127.0.0.1:{target.port}$"):
            redis_cluster.command(source, "GET", keys[0])
        assert [rc.get(key) for key in keys] == keys


def test_a_half_moved_slot_serves_every_key(redis_cluster: RedisClusterServer) -> None:
    keys = [f"{{hall}}:{i}" for i in range(12)]
    slot = redis_cluster.slot_of("hall")
    source = redis_cluster.master_for_slot(slot)
    target = next(m for m in redis_cluster.masters_now() if m is not source)
    errors: list[BaseException] = []

    def move() -> None:
        try:
            redis_cluster.move_slot(slot, target, pause_between_keys=0.1)
        except BaseException as e:
            errors.append(e)

    def count(node: RedisServer) -> int:
        reply = redis_cluster.command(node, "CLUSTER", "COUNTKEYSINSLOT", slot)
        assert isinstance(reply, int)
        return reply

    with client(redis_cluster) as rc:
        for key in keys:
            rc.set(key, key)
        mover = threading.Thread(target=move)
        mover.start()
        try:
            eventually_sync(lambda: count(target) >= 2, "half moved")
            (source_seen,) = [i for i in redis_cluster.nodes_info(source) if "myself" in i.flags]
            assert source_seen.migrating == {slot: redis_cluster.node_id(target)}
            (target_seen,) = [i for i in redis_cluster.nodes_info(target) if "myself" in i.flags]
            assert target_seen.importing == {slot: redis_cluster.node_id(source)}
            assert [rc.get(key) for key in keys] == keys  # ASK for the moved ones
            rc.set("{hall}:new", "new")  # not on the source: ASK, created on the target
            assert rc.get("{hall}:new") == "new"
            assert count(source) > 0
            assert redis_cluster.master_for_slot(slot) is source
        finally:
            mover.join(timeout=30)
        assert not mover.is_alive()
        assert not errors
        assert redis_cluster.master_for_slot(slot) is target
        assert count(target) == len(keys) + 1
        assert [rc.get(key) for key in [*keys, "{hall}:new"]] == [*keys, "new"]


def test_sharded_pubsub_through_the_cluster_client(redis_cluster: RedisClusterServer) -> None:
    channels = [f"table:{i}:events" for i in range(40)]
    owners = keys_per_master(redis_cluster, channels)
    picked = [names[0] for names in owners.values()]
    assert len(picked) == 3

    async def scenario() -> list[tuple[str, str]]:
        rc = async_client(redis_cluster)
        # ssubscribe routes by the client's slot map, which is empty until the client's first
        # command or initialize(): SlotNotCoveredError otherwise (redis-py 8.1).
        await rc.initialize()
        pubsub = rc.pubsub()
        try:
            await pubsub.ssubscribe(*picked)
            for channel in picked:
                subscribed = redis_cluster.command_for_key(
                    channel, "PUBSUB", "SHARDNUMSUB", channel
                )
                assert subscribed == [channel, 1]
            for channel in picked:
                assert await rc.spublish(channel, f"move on {channel}") == 1
            received: list[tuple[str, str]] = []
            deadline = time.monotonic() + 10
            while len(received) < len(picked) and time.monotonic() < deadline:
                message = await pubsub.get_sharded_message(
                    ignore_subscribe_messages=True, timeout=0.1
                )
                if message is not None:
                    received.append((message["channel"], message["data"]))
            return received
        finally:
            await pubsub.aclose()
            await rc.aclose()

    received = asyncio.run(scenario())
    assert sorted(received) == sorted((c, f"move on {c}") for c in picked)


def test_a_cluster_with_a_password(tmp_path: Path) -> None:
    password = "c1u57e2" * 6
    with RedisClusterServer(str(tmp_path), password=password) as cluster:
        assert cluster.url == f"redis+cluster://:{password}@127.0.0.1:{cluster.nodes[0].port}"
        anonymous = RedisServer(cluster.nodes[0].directory, cluster.nodes[0].port)
        assert anonymous.command("PING").startswith(b"-NOAUTH")
        keys = [f"{{locked}}:{i}" for i in range(20)]
        slot = cluster.slot_of("locked")
        source = cluster.master_for_slot(slot)
        target = next(m for m in cluster.masters_now() if m is not source)
        with client(cluster) as rc:
            for key in keys:
                rc.set(key, key)
            cluster.move_slot(slot, target)
            assert cluster.master_for_slot(slot) is target
            cluster.reshard(target, source, 10)
            assert [rc.get(key) for key in keys] == keys
        ports = [node.port for node in cluster.nodes]
    assert all(node.process is None for node in cluster.nodes)
    cluster.stop()
    for port in ports:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
