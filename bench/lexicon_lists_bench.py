"""Lexicon lists benchmark (fr, en, ar): the Arabic build, trie sizes, start-up, look-ups.

Why these figures: the Arabic list is rebuilt by ``make setup`` and in the image's build
stage (its time and peak memory bound both), the service maps ~41 MB of tries (their
size is the pod's working set), every start reads three lists (start → SERVING bounds a
rollout), and every al-Mishqaq move checks words in one list (look-up latency).

* Arabic build: ``python -m lexio_lexicon.build_lists --out <tmp>`` in a child process,
  timed from outside; its peak RSS is the child's (``ru_maxrss`` of the waited children;
  the spellings trie is built in a forked grandchild, whose pages are mostly shared).
* start → SERVING: the real ``lexio-lexicon`` process with ``LEXIO_LEXICON_LISTS=fr,en,ar``
  (interpreter start-up included), median of 5 starts.
* look-ups: ``WordList.unknown([word])`` in this process, one word per call, words drawn
  from the list itself (hits) with 1 in 5 replaced by an unknown string; 100,000 calls.

Run: ``.venv/bin/python bench/lexicon_lists_bench.py`` (about a minute; ``--no-build``
skips the Arabic build and reads the cache's metadata instead).
"""

from __future__ import annotations

import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import lexicon_process, machine, percentiles_us

from lexio_lexicon import arabic_list
from lexio_lexicon.cache import cache_dir
from lexio_lexicon.catalog import LIST_IDS, open_list
from lexio_lexicon.words import WordList

LOOKUPS = 100_000
STARTS = 5
SEED = 20261201


def bench_build() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="lexio-ar-bench-") as out:
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "lexio_lexicon.build_lists", "--out", out],
            check=True,
            stderr=subprocess.DEVNULL,
        )
        seconds = time.perf_counter() - started
        metadata = json.loads((Path(out) / arabic_list.METADATA_NAME).read_text("utf-8"))
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"seconds": seconds, "peak_rss_mib": peak_mib, **metadata["stats"]}


def bench_start() -> list[float]:
    seconds = []
    for _ in range(STARTS):
        server = lexicon_process()
        seconds.append(server.ready_seconds)
        server.stop()
    return seconds


def _sample(words: WordList, list_id: str, rng: random.Random) -> list[str]:
    """Words of the list (by random id in the trie) with 1 in 5 made unknown."""
    trie = words._trie  # the bench may look inside: it measures the trie
    size = len(trie)
    sample = [trie.restore_key(rng.randrange(size)) for _ in range(LOOKUPS)]
    junk = "ZQXJ" if list_id != "ar" else "ظظغغ"
    return [junk + word if i % 5 == 0 else word for i, word in enumerate(sample)]


def bench_lookups(words: WordList, list_id: str) -> tuple[float, float]:
    sample = _sample(words, list_id, random.Random(SEED))
    unknown = words.unknown
    for word in sample[:5000]:  # warm-up: fault the pages in
        unknown([word])
    samples = []
    for word in sample:
        started = time.perf_counter_ns()
        unknown([word])
        samples.append(time.perf_counter_ns() - started)
    p50, p99 = percentiles_us(samples)
    return p50, p99


def main() -> None:
    started = time.perf_counter()
    print(f"lexicon lists bench on {machine()}")
    if "--no-build" in sys.argv:
        stats = json.loads((cache_dir() / arabic_list.METADATA_NAME).read_text("utf-8"))["stats"]
        print(
            f"Arabic build (from {cache_dir()}): {stats['build_seconds']} s, "
            f"peak RSS {stats['peak_rss_mib']} MiB"
        )
    else:
        stats = bench_build()
        print(
            f"Arabic build: {stats['seconds']:.1f} s wall (expansion "
            f"{stats['expand_seconds']} s), peak RSS {stats['peak_rss_mib']:.0f} MiB"
        )
    print(
        f"  {stats['stems']} stems → {stats['generated']} forms generated → "
        f"{stats['spellings']} spellings → {stats['words']} folded words; "
        f"spellings map: {stats['spelling_keys']} keys, {stats['spelling_entries']} entries"
    )
    for path in sorted(cache_dir().glob("*.marisa")):
        print(f"  {path.name}: {path.stat().st_size / 1e6:.1f} MB")
    starts = bench_start()
    print(
        f"start → SERVING with {','.join(LIST_IDS)}: median {statistics.median(starts):.2f} s "
        f"(min {min(starts):.2f}, max {max(starts):.2f}; {STARTS} starts)"
    )
    print(f"in-process unknown([word]), {LOOKUPS} calls, 1 in 5 unknown:")
    for list_id in LIST_IDS:
        words = open_list(list_id)
        p50, p99 = bench_lookups(words, list_id)
        print(
            f"  {list_id}: {len(words):>9} words, load {words.load_seconds * 1000:6.1f} ms, "
            f"p50 {p50:5.2f} µs, p99 {p99:5.2f} µs"
        )
    print(f"(bench took {time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
