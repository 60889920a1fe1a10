"""How many acknowledged commits a Redis Cluster failover loses, without and with WAIT 1.

Real processes on loopback: a Redis Cluster of 3 masters with a replica each
(:class:`~lexio_common.redis_cluster_server.RedisClusterServer`, ``appendfsync everysec`` as
deployed). ``TABLES`` tables commit through the gateway's own store
(:class:`~lexio_gateway.redis_store.RedisTableStore`), each one commit after another, as fast
as they can; after ``WARMUP`` seconds one master is killed (kill -9) and its replica promoted,
and the commits go on (a refused one reads the table again and goes on from there) until
``AFTER`` seconds past the failover (``--lag``: the replica stalled that long just before,
as a replica that falls behind does). Then each table's stored version is compared with the
last version its commits were acknowledged at: a table stored behind it lost acknowledged
commits. With ``LEXIO_REDIS_WAIT_REPLICAS=1`` (``--wait 1``) a commit is acknowledged only
once the replica has it; the killed master's replica is then without a replica of its own, so
the run brings the killed one back (as its pod would be) after ``RESTART`` seconds.

Run: ``.venv/bin/python bench/cluster_failover_bench.py [--tables 200] [--wait 0|1]
[--lag 0.5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import signal
import tempfile
import time

from benchlib import machine

from lexio_common.redis_cluster_server import RedisClusterServer
from lexio_gateway.records import StoredEvent, TableRecord, TableStatus, new_commit_id
from lexio_gateway.redis_store import RedisTableStore
from lexio_gateway.store import StoreUnavailableError, VersionConflictError

EVENT = {"kind": "pass", "seat": 0}
STATE = b"s" * 3_000
"""About a Lexio table's engine state mid-game: what each commit writes, and replicates."""


@dataclasses.dataclass
class Table:
    record: TableRecord
    acked: int = 0
    """The last version acknowledged (lowered to the store's when the store lost some)."""
    refused: int = 0
    lost: int = 0


async def play(store: RedisTableStore, table: Table, until: list[float]) -> None:
    while time.monotonic() < until[0]:
        before = table.record
        after = dataclasses.replace(
            before,
            version=before.version + 1,
            seq=before.seq + 1,
            commit=new_commit_id(),
            parent=before.commit,
        )
        try:
            await store.save_table(
                after,
                before.version,
                [StoredEvent(after.seq, EVENT)],
                expected_commit=before.commit,
            )
        except (StoreUnavailableError, VersionConflictError):
            table.refused += 1
            await asyncio.sleep(0.05)
            try:
                stored = await store.get_table(before.table_id)
            except StoreUnavailableError:
                continue
            if stored is not None:
                if stored.version < table.acked:  # acknowledged, and gone
                    table.lost += table.acked - stored.version
                    table.acked = stored.version
                table.record = stored  # applied or not, go on from what the store has
            continue
        table.record = after
        table.acked = after.version


async def run(
    cluster: RedisClusterServer, tables: int, wait: int, args: argparse.Namespace
) -> None:
    store = RedisTableStore.from_url(cluster.url, wait_replicas=wait, wait_timeout=0.5)
    played = []
    for n in range(tables):
        record = TableRecord(
            f"bench-{wait}-{n}", "lexio", "ABCDE-FGHIJ", TableStatus.STARTED, state=STATE
        )
        await store.create_table(record)
        played.append(Table(record))
    until = [time.monotonic() + 3600]
    started = time.monotonic()
    players = [asyncio.ensure_future(play(store, t, until)) for t in played]
    await asyncio.sleep(args.warmup)
    victim = cluster.masters_now()[0]
    replica = cluster.replicas_of(victim)[0]
    assert replica.process is not None
    if args.lag:
        # The replica stalls (SIGSTOP: a paused VM, a long GC-like stop) and falls behind.
        os.kill(replica.process.pid, signal.SIGSTOP)
        await asyncio.sleep(args.lag)
    killed_at = time.monotonic()
    killing = asyncio.ensure_future(asyncio.to_thread(cluster.kill_master, victim))
    if args.lag:
        await asyncio.sleep(0.1)
        os.kill(replica.process.pid, signal.SIGCONT)
    await killing
    failover = time.monotonic() - killed_at
    if wait:
        await asyncio.sleep(args.restart)
        await asyncio.to_thread(cluster.restart, victim)
    until[0] = time.monotonic() + args.after
    await asyncio.gather(*players)
    elapsed = time.monotonic() - started
    for table in played:
        stored = await store.get_table(table.record.table_id)
        assert stored is not None
        table.lost += max(0, table.acked - stored.version)
    lost_tables = sum(1 for t in played if t.lost)
    lost_commits = sum(t.lost for t in played)
    acked = sum(t.acked + t.lost for t in played)
    refused = sum(t.refused for t in played)
    print(
        f"WAIT {wait}: {acked:,} commits acknowledged in {elapsed:.1f} s "
        f"({acked / elapsed:,.0f}/s); failover {failover:.1f} s; {refused:,} refused "
        f"(unavailable or conflict, then read again); acknowledged commits lost: "
        f"{lost_commits} on {lost_tables} of {tables} tables"
    )
    await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--wait", type=int, choices=(0, 1), action="append")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--restart", type=float, default=2.0)
    parser.add_argument("--after", type=float, default=3.0)
    parser.add_argument(
        "--lag",
        type=float,
        default=0.0,
        help="seconds the killed master's replica is stopped (SIGSTOP) just before the kill",
    )
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"{args.tables} tables committing at once on a 3+3 Redis Cluster; one master killed")
    for wait in args.wait or [0, 1]:
        with tempfile.TemporaryDirectory() as directory:
            cluster = RedisClusterServer(directory)
            cluster.start()
            try:
                asyncio.run(run(cluster, args.tables, wait, args))
            finally:
                cluster.stop()


if __name__ == "__main__":
    main()
