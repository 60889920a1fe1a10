"""Lexicon benchmark: load time, memory (trie vs set), batch latency in-process and over gRPC.

Why these figures: the lexicon answers every move of every table, so what matters is
how long a start-up takes, how much memory one replica holds, and the latency a move
pays for its word check (a move forms a handful of words, hence batches of 5).

Memory is measured in fresh child processes (one for the trie, one for a plain ``set``
of the same words) so that each figure starts from the same baseline; the gRPC figures
use the real ``lexio-lexicon`` process on 127.0.0.1 with an ephemeral port.

Run: ``.venv/bin/python bench/lexicon_bench.py`` (takes well under a minute).
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import json
import random
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import grpc
import marisa_trie
from benchlib import lexicon_process, machine, percentiles_us

from lexio.lexicon.v1 import lexicon_pb2, lexicon_pb2_grpc
from lexio_lexicon.servicer import DEFAULT_MAX_WORD_LENGTH
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH, WordList

BATCH = 5
IN_PROCESS_CALLS = 20_000
GRPC_CALLS = 3_000
GRPC_CONCURRENCY = 16
GRPC_CONCURRENT_CALLS = 6_000
SEED = 20240


def _status_kib(field: str) -> int:
    """A ``VmRSS``-style figure of this process from /proc/self/status, in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def _trim() -> None:
    """Collect and hand freed heap back to the OS, so RSS shows what is really retained."""
    gc.collect()
    name = ctypes.util.find_library("c")
    if name:
        libc = ctypes.CDLL(name)
        if hasattr(libc, "malloc_trim"):
            libc.malloc_trim(0)


def _load(kind: str) -> WordList | set[str]:
    if kind == "trie":
        return WordList.load(DEFAULT_WORDLIST_PATH)
    return set(DEFAULT_WORDLIST_PATH.read_text(encoding="ascii").split())


def _child_memory(kind: str) -> dict[str, Any]:
    """Runs in a child process: load the list as a trie or a set, report memory."""
    _trim()
    rss_before = _status_kib("VmRSS")
    started = time.perf_counter()
    holder = _load(kind)
    seconds = time.perf_counter() - started
    _trim()
    rss_after = _status_kib("VmRSS")
    peak_rss = _status_kib("VmHWM")
    # Python-side sizes, traced on a second load once the first one is gone.
    del holder
    _trim()
    tracemalloc.start()
    holder = _load(kind)
    gc.collect()
    traced_retained, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    report: dict[str, Any] = {
        "kind": kind,
        "seconds": seconds,
        "rss_before_kib": rss_before,
        "rss_delta_kib": rss_after - rss_before,
        "peak_rss_kib": peak_rss,
        "traced_peak_kib": traced_peak // 1024,
        "traced_retained_kib": traced_retained // 1024,
        "entries": len(holder),
    }
    if kind == "trie":
        words = DEFAULT_WORDLIST_PATH.read_text(encoding="ascii").split()
        report["trie_bytes"] = len(marisa_trie.Trie(words).tobytes())
    return report


def _run_child(kind: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--child-memory", kind],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _batches(words: Sequence[str], count: int) -> list[list[str]]:
    """Batches of 5 like a move's: mostly real words, now and then an unknown one."""
    rng = random.Random(SEED)
    batches = []
    for _ in range(count):
        batch = rng.sample(words, BATCH - 1)
        batch.append("XYZZY" if rng.random() < 0.5 else rng.choice(words))
        batches.append(batch)
    return batches


def _time_calls(call: Callable[[list[str]], object], batches: list[list[str]]) -> list[int]:
    samples = []
    for batch in batches:
        started = time.perf_counter_ns()
        call(batch)
        samples.append(time.perf_counter_ns() - started)
    return samples


def bench_memory() -> None:
    trie = _run_child("trie")
    as_set = _run_child("set")
    print("== load and memory (each in a fresh process) ==")
    print(f"words:                     {trie['entries']}")
    print(f"load (read+check+trie+sha256): {trie['seconds'] * 1000:8.1f} ms")
    print(f"load as a Python set:          {as_set['seconds'] * 1000:8.1f} ms")
    print(f"trie serialised size:          {trie['trie_bytes'] / 2**20:8.2f} MiB")
    for report in (trie, as_set):
        mib = {key: value / 1024 for key, value in report.items() if key.endswith("_kib")}
        print(
            f"{report['kind']:>4}: RSS {mib['rss_before_kib']:5.1f} MiB before load, "
            f"+{mib['rss_delta_kib']:5.1f} MiB retained after, "
            f"peak {mib['peak_rss_kib']:6.1f} MiB; "
            f"tracemalloc retained {mib['traced_retained_kib']:5.1f} MiB "
            f"(peak {mib['traced_peak_kib']:5.1f} MiB)"
        )
    print("  (tracemalloc sees Python objects only; the trie itself lives in C++ memory)")


def bench_in_process(words: WordList, all_words: list[str]) -> None:
    batches = _batches(all_words, IN_PROCESS_CALLS)
    as_set = set(all_words)

    def set_unknown(batch: list[str]) -> list[str]:
        return [word for word in batch if word not in as_set]

    _time_calls(words.unknown, batches[:1000])  # warm-up
    trie_p50, trie_p99 = percentiles_us(_time_calls(words.unknown, batches))
    set_p50, set_p99 = percentiles_us(_time_calls(set_unknown, batches))
    print(f"== in-process unknown(), batch of {BATCH}, {IN_PROCESS_CALLS} calls ==")
    print(f"trie: p50 {trie_p50:7.2f} µs   p99 {trie_p99:7.2f} µs")
    print(f"set:  p50 {set_p50:7.2f} µs   p99 {set_p99:7.2f} µs")


async def _concurrent(port: int, batches: list[list[str]]) -> float:
    """calls/s with GRPC_CONCURRENCY calls in flight on one aio channel."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = lexicon_pb2_grpc.LexiconStub(channel)
        pending = iter(batches)

        async def worker() -> None:
            for batch in pending:
                await stub.CheckWords(lexicon_pb2.CheckWordsRequest(words=batch), timeout=10)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(GRPC_CONCURRENCY)))
        return len(batches) / (time.perf_counter() - started)


def bench_grpc(all_words: list[str]) -> None:
    server = lexicon_process()
    print(f"lexicon process: start to SERVING in {server.ready_seconds:.2f} s")
    try:
        with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = lexicon_pb2_grpc.LexiconStub(channel)

            def check(batch: list[str]) -> object:
                return stub.CheckWords(lexicon_pb2.CheckWordsRequest(words=batch), timeout=10)

            batches = _batches(all_words, GRPC_CALLS)
            _time_calls(check, batches[:300])  # warm-up (connection, code paths)
            started = time.perf_counter()
            samples = _time_calls(check, batches)
            sequential_rate = len(batches) / (time.perf_counter() - started)
        p50, p99 = percentiles_us(samples)
        concurrent_rate = asyncio.run(
            _concurrent(server.port, _batches(all_words, GRPC_CONCURRENT_CALLS))
        )
    finally:
        server.stop()
    print(f"== gRPC CheckWords over loopback, batch of {BATCH} (separate server process) ==")
    print(
        f"sequential, {GRPC_CALLS} calls: p50 {p50:7.1f} µs   p99 {p99:7.1f} µs   "
        f"{sequential_rate:7.0f} calls/s"
    )
    print(
        f"{GRPC_CONCURRENCY} in flight, {GRPC_CONCURRENT_CALLS} calls: "
        f"{concurrent_rate:7.0f} calls/s"
    )


def main() -> None:
    started = time.perf_counter()
    print(f"lexicon bench: {DEFAULT_WORDLIST_PATH} on {machine()}")
    bench_memory()
    words = WordList.load(DEFAULT_WORDLIST_PATH)
    # Only words a request may carry (the service refuses longer ones).
    all_words = [
        word
        for word in DEFAULT_WORDLIST_PATH.read_text(encoding="ascii").split()
        if len(word) <= DEFAULT_MAX_WORD_LENGTH
    ]
    bench_in_process(words, all_words)
    bench_grpc(all_words)
    print(f"(bench took {time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child-memory":
        print(json.dumps(_child_memory(sys.argv[2])))
    else:
        main()
