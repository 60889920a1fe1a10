"""What ``LEXIO_REDIS_WAIT_REPLICAS=1`` costs a commit: the gateway's store against a Redis
with one replica, without and with WAIT.

Real processes on loopback: a redis-server (AOF, ``appendfsync everysec``, as deployed) and a
second one replicating it. ``TABLES`` tables commit at once, each one move after another, with
a state, meta and event of a real Lexio move's sizes; a commit is timed from the store's call
to its answer (the compare-and-set script, and WAIT on the same connection when asked for).

Run: ``.venv/bin/python bench/redis_wait_bench.py [TABLES] [COMMITS_PER_TABLE]`` (default 50
tables, 200 commits each).
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

from benchlib import machine, percentiles_us

from lexio_common.procs import RedisServer
from lexio_gateway.records import StoredEvent, TableRecord, TableStatus, new_commit_id
from lexio_gateway.redis_store import RedisTableStore

STATE_BYTES = 3_000
"""About a Lexio table's engine state mid-game."""
EVENT = {"kind": "place", "seat": 1, "word": "EXEMPLE", "score": 24, "cells": [[7, 3 + i] for i in range(7)]}  # fmt: skip  # noqa: E501


async def run(url: str, wait_replicas: int, tables: int, commits: int) -> tuple[list[int], float]:
    store = RedisTableStore.from_url(url, wait_replicas=wait_replicas, wait_timeout=1.0)
    samples: list[int] = []

    async def play(index: int) -> None:
        record = TableRecord(
            f"bench-{wait_replicas}-{index}",
            "lexio",
            "ABCDE-FGHIJ",
            TableStatus.STARTED,
            state=b"s" * STATE_BYTES,
        )
        await store.create_table(record)
        for version in range(1, commits + 1):
            after = dataclasses.replace(
                record, version=version, seq=version, commit=new_commit_id(), parent=record.commit
            )
            notice = {"kind": "event", "table_id": record.table_id, "version": version}
            started = time.perf_counter_ns()
            await store.save_table(
                after,
                version - 1,
                [StoredEvent(version, EVENT)],
                notice=notice,
                expected_commit=record.commit,
            )
            samples.append(time.perf_counter_ns() - started)
            record = after

    started = time.perf_counter()
    await asyncio.gather(*(play(i) for i in range(tables)))
    elapsed = time.perf_counter() - started
    await store.close()
    return samples, elapsed


def main() -> None:
    tables = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    commits = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    print(f"machine: {machine()}")
    print(f"{tables} tables at once, {commits} commits each, a Redis and its replica")
    with tempfile.TemporaryDirectory() as directory:
        primary_dir, replica_dir = Path(directory, "primary"), Path(directory, "replica")
        primary_dir.mkdir()
        replica_dir.mkdir()
        primary = RedisServer(str(primary_dir))
        primary.extra_args = ["--repl-diskless-sync-delay", "0"]
        primary.start()
        replica = RedisServer(str(replica_dir))
        replica.extra_args = ["--replicaof", "127.0.0.1", str(primary.port)]
        replica.start()
        try:
            deadline = time.monotonic() + 10
            while b"state=online" not in primary.command("INFO", "replication"):
                if time.monotonic() > deadline:
                    raise RuntimeError("the replica did not come online")
                time.sleep(0.05)
            for wait_replicas in (0, 1, 0, 1):  # twice each, interleaved
                samples, elapsed = asyncio.run(run(primary.url, wait_replicas, tables, commits))
                p50, p99 = percentiles_us(samples)
                rate = len(samples) / elapsed
                print(
                    f"WAIT {wait_replicas}: commit p50 {p50 / 1000:.2f} ms,"
                    f" p99 {p99 / 1000:.2f} ms, {rate:,.0f} commits/s"
                )
                primary.command("FLUSHALL")
        finally:
            replica.stop()
            primary.stop()


if __name__ == "__main__":
    main()
