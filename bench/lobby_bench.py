"""Lobby benchmark: create + join throughput and latency over gRPC, against the real process.

What matters for the lobby is how fast people get seated: a table is one CreateTable and up
to three JoinTable calls (a 4-seat game), each a SQLite read and a compare-and-set write on a
WAL file. The real ``lexio-lobby`` process runs on 127.0.0.1 with an ephemeral port, a fresh
database in a temporary directory, and one game registered without a readiness check (so the
figures are the lobby's own, not an engine's health round trip).

Run: ``.venv/bin/python bench/lobby_bench.py`` (about ten seconds).
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from pathlib import Path

import grpc
from benchlib import ServiceProcess, machine, percentiles_us

from lexio.lobby.v1 import lobby_pb2 as pb
from lexio.lobby.v1 import lobby_pb2_grpc

GAME = "bench"
SEATS = 4
SEQUENTIAL_TABLES = 1_000
CONCURRENT_TABLES = 2_000
CONCURRENCY = 16
WARM_UP_TABLES = 100


def lobby_process(db: Path) -> ServiceProcess:
    return ServiceProcess(
        "lexio-lobby",
        "lexio.lobby.v1.Lobby",
        {
            "PORT_VAR": "LEXIO_LOBBY_PORT",
            "LEXIO_LOBBY_METRICS_PORT": "-1",
            "LEXIO_LOBBY_DB": str(db),
            "LEXIO_LOBBY_GAMES": json.dumps([{"name": GAME, "min_seats": 2, "max_seats": SEATS}]),
        },
    )


def _create(n: int) -> pb.CreateTableRequest:
    return pb.CreateTableRequest(game=GAME, player_id=f"t{n}-p0", display_name="Host")


def _join(code: str, n: int, seat: int) -> pb.JoinTableRequest:
    return pb.JoinTableRequest(
        invite_code=code, player_id=f"t{n}-p{seat}", display_name=f"Guest {seat}"
    )


def _metadata(n: int) -> tuple[tuple[str, str], ...]:
    return (("x-lexio-caller", f"client-{n % 64}"),)


def sequential(address: str, tables: int, offset: int) -> tuple[list[int], list[int], float]:
    """One client, one call at a time: (create ns, join ns, elapsed s)."""
    creates: list[int] = []
    joins: list[int] = []
    with grpc.insecure_channel(address) as channel:
        stub = lobby_pb2_grpc.LobbyStub(channel)
        started = time.perf_counter()
        for n in range(offset, offset + tables):
            t0 = time.perf_counter_ns()
            code = stub.CreateTable(_create(n), timeout=10).invite_code
            creates.append(time.perf_counter_ns() - t0)
            for seat in range(1, SEATS):
                t0 = time.perf_counter_ns()
                stub.JoinTable(_join(code, n, seat), metadata=_metadata(n), timeout=10)
                joins.append(time.perf_counter_ns() - t0)
        elapsed = time.perf_counter() - started
    return creates, joins, elapsed


async def concurrent(address: str, tables: int, offset: int) -> tuple[list[int], float]:
    """CONCURRENCY clients on one aio channel, each seating whole tables: (call ns, elapsed s)."""
    samples: list[int] = []
    async with grpc.aio.insecure_channel(address) as channel:
        stub = lobby_pb2_grpc.LobbyStub(channel)
        pending = iter(range(offset, offset + tables))

        async def worker() -> None:
            for n in pending:
                t0 = time.perf_counter_ns()
                code = (await stub.CreateTable(_create(n), timeout=10)).invite_code
                samples.append(time.perf_counter_ns() - t0)
                for seat in range(1, SEATS):
                    t0 = time.perf_counter_ns()
                    await stub.JoinTable(_join(code, n, seat), metadata=_metadata(n), timeout=10)
                    samples.append(time.perf_counter_ns() - t0)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
        return samples, time.perf_counter() - started


def main() -> None:
    started = time.perf_counter()
    print(f"lobby bench on {machine()}")
    with tempfile.TemporaryDirectory(prefix="lobby-bench-") as tmp:
        db = Path(tmp) / "lobby.sqlite3"
        server = lobby_process(db)
        print(f"lobby process: start to SERVING in {server.ready_seconds:.2f} s")
        try:
            sequential(server.address, WARM_UP_TABLES, offset=0)
            creates, joins, elapsed = sequential(
                server.address, SEQUENTIAL_TABLES, offset=WARM_UP_TABLES
            )
            calls, concurrent_elapsed = asyncio.run(
                concurrent(server.address, CONCURRENT_TABLES, offset=10**6)
            )
        finally:
            server.stop()
        size_kib = sum(p.stat().st_size for p in Path(tmp).iterdir()) / 1024
    total_tables = WARM_UP_TABLES + SEQUENTIAL_TABLES + CONCURRENT_TABLES

    create_p50, create_p99 = percentiles_us(creates)
    join_p50, join_p99 = percentiles_us(joins)
    ops = len(creates) + len(joins)
    print(f"== sequential, one client: {SEQUENTIAL_TABLES} tables of {SEATS} (create + 3 joins) ==")
    print(f"CreateTable: p50 {create_p50:7.1f} µs   p99 {create_p99:7.1f} µs")
    print(f"JoinTable:   p50 {join_p50:7.1f} µs   p99 {join_p99:7.1f} µs")
    print(f"{ops / elapsed:7.0f} calls/s, {SEQUENTIAL_TABLES / elapsed:6.0f} tables seated/s")
    p50, p99 = percentiles_us(calls)
    print(f"== {CONCURRENCY} in flight on one aio channel: {CONCURRENT_TABLES} tables ==")
    print(f"any call:    p50 {p50:7.1f} µs   p99 {p99:7.1f} µs")
    print(
        f"{len(calls) / concurrent_elapsed:7.0f} calls/s, "
        f"{CONCURRENT_TABLES / concurrent_elapsed:6.0f} tables seated/s"
    )
    print(
        f"database after {total_tables} tables: {size_kib:,.0f} KiB (file + WAL), "
        f"{size_kib * 1024 / total_tables:,.0f} bytes/table"
    )
    print(f"(bench took {time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
