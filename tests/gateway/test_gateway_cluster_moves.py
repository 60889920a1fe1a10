"""A seat's ``hello{token}`` while the token's slot is in motion or its master fails over
(issue 40, item 3): a token is looked up in Redis (``k:<digest>``, a slot of its own), and a
slot half-migrated or a master being replaced is a passing state. The answer is ``welcome``
and the seat's table, or ``unavailable`` (nothing changed, try again) — never ``bad_token``,
which a client takes as final (its seat is gone). Once the slot settles, or the replica took
over, the seat is welcomed back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import pytest
from gateway_play import seated_table
from half_moved import HalfMoved
from lexio_testing import GatewayFactory, GatewayHandle, LoopThread, RedisClusterServer
from redis.asyncio import RedisCluster

from lexio_client import ConnectionLostError, GatewayClient, ServerError
from lexio_common.procs import RedisServer
from lexio_gateway.redis_layout import RedisLayout
from lexio_gateway.room import token_hash

ON_CLUSTER = pytest.mark.parametrize("gateway_backend", ["cluster"])
LAYOUT = RedisLayout(cluster=True)
TRANSIENT = ("welcome", "unavailable")


def _token_key(token: str) -> str:
    return LAYOUT.token(token_hash(token))


async def _hello(url: str, token: str) -> str:
    """What a seat coming back with ``token`` is answered: "welcome" (and its table), the
    error's code, or "lost" (the socket closed before an answer)."""
    try:
        async with GatewayClient.connect(url, token=token) as seat:
            assert seat.table.get("table_id"), seat.table
            return "welcome"
    except ServerError as e:
        if e.code == "unavailable" and not e.frame.get("retry_after"):
            return "unavailable without retry_after"  # a passing state says when to come back
        return e.code
    except (ConnectionLostError, ConnectionError):
        return "lost"


async def _hellos(url: str, tokens: Sequence[str]) -> list[str]:
    """The seats of ``tokens`` coming back at once: their answers, in order."""
    return list(await asyncio.gather(*(_hello(url, token) for token in tokens)))


async def _seated_tokens(url: str, tables: int) -> list[str]:
    """Two seats at each of ``tables`` open tables, their sockets closed again: the tokens."""
    tokens = []
    for _ in range(tables):
        async with seated_table(url, ["Ana", "Bruno"]) as seats:
            tokens += [seat.token for seat in seats if seat.token]
    assert len(tokens) == 2 * tables
    return tokens


def _busiest_master(cluster: RedisClusterServer, keys: Sequence[str]) -> RedisServer:
    masters = [cluster.master_for_slot(cluster.slot_of(key)) for key in keys]
    return max(set(masters), key=masters.count)


@ON_CLUSTER
def test_hello_is_never_bad_token_while_the_tokens_slots_move(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, redis_cluster: RedisClusterServer
) -> None:
    """Every token slot of one master opened for migration to another, half the tokens moved
    (the source answers ASK for them), the others not; seats come back all at once, in waves:
    each is welcomed or told ``unavailable``. Then the slots settle and all are welcomed."""
    gateway = gateway_factory(seed=3)
    tokens = loop_thread.run(_seated_tokens(gateway.url, 6), timeout=60)
    keys = [_token_key(token) for token in tokens]
    source = _busiest_master(redis_cluster, keys)
    target = next(m for m in redis_cluster.masters_now() if m is not source)
    mine = [k for k in keys if redis_cluster.master_for_slot(redis_cluster.slot_of(k)) is source]
    moving = HalfMoved(redis_cluster, {redis_cluster.slot_of(key) for key in mine}, source, target)
    moving.move(mine[::2])

    async def waves() -> list[str]:
        answers = []
        for _ in range(5):
            answers += await _hellos(gateway.url, tokens)
        return answers

    answers = loop_thread.run(waves(), timeout=120)
    assert set(answers) <= set(TRANSIENT), sorted(answers)
    moving.finish()
    settled = loop_thread.run(_hellos(gateway.url, tokens), timeout=60)
    assert settled == ["welcome"] * len(tokens), settled


@ON_CLUSTER
def test_hello_after_the_client_reloads_its_map_is_looked_up_at_the_tokens_master(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, redis_cluster: RedisClusterServer
) -> None:
    """The fault behind the bad tokens under a reshard, made on purpose (see
    tests/lobby/test_lobby_cluster_moves.py for the lobby's side): the token's slot is opened
    for migration, its key not moved yet; the gateway's Redis client is left as redis-py
    leaves it after a few MOVED — no default node while it reloads its map, and connections
    to the target left ASKING by an ASK it followed on another connection. A token lookup
    sent to a random master then reached the target, which answered from the half of the slot
    it has: no such token, ``bad_token``. It must reach the token's master every time."""
    gateway = gateway_factory(seed=3)
    (token, *_) = loop_thread.run(_seated_tokens(gateway.url, 1), timeout=60)
    key = _token_key(token)
    slot = redis_cluster.slot_of(key)
    source = redis_cluster.master_for_slot(slot)
    target = next(m for m in redis_cluster.masters_now() if m is not source)
    moving = HalfMoved(redis_cluster, [slot], source, target)
    client = _store_client(gateway)

    async def hellos() -> list[str]:
        answers = []
        node = client.get_node(host="127.0.0.1", port=target.port)
        assert node is not None
        for _ in range(20):
            client.nodes_manager.default_node = None  # type: ignore[assignment]
            for _ in range(8):  # each of the target's idle connections in turn (FIFO)
                await node.execute_command("ASKING")
            answers.append(await _hello(gateway.url, token))
        await client.aclose()  # a map reloaded whole before the next command
        return answers

    answers = loop_thread.run(hellos(), timeout=120)
    assert set(answers) <= set(TRANSIENT), answers
    moving.finish()
    assert loop_thread.run(_hello(gateway.url, token), timeout=30) == "welcome"


def _store_client(gateway: GatewayHandle) -> RedisCluster:
    client = getattr(gateway.hub.store, "client", None)
    assert isinstance(client, RedisCluster), client
    return client


def _replicated(cluster: RedisClusterServer, master: RedisServer) -> None:
    """Return once every replica of ``master`` has all it wrote so far (the tokens among it):
    then a failover loses none of them."""

    def offset(node: RedisServer) -> int:
        info = cluster.command(node, "INFO", "replication")
        assert isinstance(info, str)
        fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
        return int(fields.get("slave_repl_offset") or fields["master_repl_offset"])

    wanted = offset(master)
    replicas = cluster.replicas_of(master)
    deadline = time.monotonic() + 30
    while (seen := [offset(r) for r in replicas]) and min(seen) < wanted:
        assert time.monotonic() < deadline, f"replicas at {seen}, the master at {wanted}"
        time.sleep(0.02)


@ON_CLUSTER
def test_hello_is_never_bad_token_while_the_tokens_master_fails_over(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, redis_cluster: RedisClusterServer
) -> None:
    """kill -9 of the master holding the seats' tokens (once its replica has them); seats
    keep coming back while the replica is promoted: each is welcomed or told ``unavailable``,
    and once the cluster is whole again, welcomed."""
    gateway = gateway_factory(seed=3)
    tokens = loop_thread.run(_seated_tokens(gateway.url, 4), timeout=60)
    keys = [_token_key(token) for token in tokens]
    master = _busiest_master(redis_cluster, keys)
    mine = [
        token
        for token, key in zip(tokens, keys, strict=True)
        if redis_cluster.master_for_slot(redis_cluster.slot_of(key)) is master
    ]
    _replicated(redis_cluster, master)
    redis_cluster.kill_master(master, wait_failover=False)

    async def until_welcomed() -> list[str]:
        answers: list[str] = []
        deadline = time.monotonic() + 60
        while True:
            wave = await _hellos(gateway.url, mine)
            answers += wave
            if wave == ["welcome"] * len(mine):
                return answers
            assert time.monotonic() < deadline, f"not welcomed back: {answers[-20:]}"

    answers = loop_thread.run(until_welcomed(), timeout=90)
    assert set(answers) <= set(TRANSIENT), answers
    redis_cluster.wait_healthy()
    again = loop_thread.run(_hellos(gateway.url, tokens), timeout=60)
    assert again == ["welcome"] * len(tokens), again
