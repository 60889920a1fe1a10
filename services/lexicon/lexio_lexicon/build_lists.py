"""Build the lists that are not committed as text (today: ``ar``) into the cache.

``python -m lexio_lexicon.build_lists`` is what ``make wordlist-ar`` and ``make setup``
run, and what the lexicon image's build stage runs; it writes into
:func:`lexio_lexicon.cache.cache_dir` (or ``--out``) and fails, leaving any previous
build in place, if the result is not the recorded list (sha256 checked). ``--record``
accepts a new result instead (after a deliberate change of the inputs or of the
expander: put the printed sha256 into ``arabic_list.EXPECTED_SHA256``).

Progress goes to stderr, so that a caller's stdout stays its own.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from lexio_lexicon import arabic_list
from lexio_lexicon.cache import cache_dir
from lexio_lexicon.catalog import DATA_DIR

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, help="output directory (default: the cache)")
    parser.add_argument("--data", type=Path, default=DATA_DIR, help="where ar.aff/ar.dic are")
    parser.add_argument(
        "--record", action="store_true", help="accept a sha256 other than the recorded one"
    )
    args = parser.parse_args(argv)
    out = args.out or cache_dir()
    print(f"building the Arabic list into {out} …", file=sys.stderr, flush=True)
    started = time.perf_counter()
    try:
        metadata = arabic_list.build_tries(
            args.data, out, expected_sha256=None if args.record else arabic_list.EXPECTED_SHA256
        )
    except arabic_list.ArabicBuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    stats = metadata.stats
    sizes = ", ".join(f"{f.name} {f.size / 1e6:.1f} MB" for f in metadata.files.values())
    print(
        f"ar: {metadata.word_count} words ({stats['spellings']} spellings before folding, "
        f"{stats['generated']} forms generated from {stats['stems']} stems); {sizes}\n"
        f"ar: sha256 {metadata.sha256}\n"
        f"ar: built in {time.perf_counter() - started:.1f} s "
        f"(expansion {stats['expand_seconds']} s), peak RSS {stats['peak_rss_mib']} MiB",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
