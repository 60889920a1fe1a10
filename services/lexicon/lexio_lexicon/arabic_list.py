"""Build the Arabic list ``ar`` (al-Mishqaq M38, appendices B.1, C.1, C.3) into the cache.

From the shipped Ayaspell files (``data/ar.aff``, ``data/ar.dic``, hunspell-ar 3.2-1.2):

1. expand the stems with the "game" clitic profile (:data:`~lexio_lexicon.expand.GAME_PREFIXES`,
   every suffix, two-level suffixes included);
2. spell each form as a dictionary would (C.1 steps 1–2: NFKC, marks deleted), then fold
   it to the tiles (steps 3–5); forms that are not playable are dropped;
3. write ``ar.marisa`` (the folded words, a marisa trie in label order, so that walking it
   yields the canonical sorted list to hash) and ``ar-spellings.marisa`` (a marisa
   ``BytesTrie`` folded → dictionary spellings, only for the folded forms that have a
   spelling of their own, C.3), then ``ar.json`` (:class:`~lexio_lexicon.cache.ListMetadata`).

Most forms are written in the 31 tile letters only, so the expander is asked to keep
those apart (``plain``): they are their own spelling and their own folded form, and
only the others (hamza carriers, a stray mark, junk lines of the .dic) go through
Unicode normalisation one by one. The spellings trie is built in a forked child while
the parent builds the main trie: the two are independent and the machine has two cores.
"""

from __future__ import annotations

import gc
import hashlib
import itertools
import multiprocessing
import resource
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import marisa_trie

from lexio_lexicon.cache import BuiltFile, ListMetadata, file_sha256
from lexio_lexicon.expand import GAME_PREFIXES, expand
from lexio_lexicon.hunspell import parse_aff, parse_dic
from lexio_lexicon.normalise import (
    ARABIC_CARRIERS,
    ARABIC_CARRIERS_TABLE,
    ARABIC_LETTERS,
    MIN_LENGTH,
    arabic_spelling,
    fold_spelling,
)

__all__ = [
    "AFF_NAME",
    "DIC_NAME",
    "EXPECTED_SHA256",
    "LICENCE",
    "SOURCE",
    "SPELLINGS_NAME",
    "TRIE_NAME",
    "ArabicBuildError",
    "build_arabic",
    "build_tries",
]

AFF_NAME = "ar.aff"
DIC_NAME = "ar.dic"
TRIE_NAME = "ar.marisa"
SPELLINGS_NAME = "ar-spellings.marisa"
METADATA_NAME = "ar.json"
SOURCE = "hunspell-ar 3.2-1.2 (Ayaspell), game clitic profile, folded (al-Mishqaq M38, C.1)"
LICENCE = "GPL-2 / LGPL-2.1 / MPL-1.1 (data/LICENSE-hunspell-ar.txt)"
#: The canonical sha256 of the list built from the shipped files; a build that gives
#: anything else fails (the expander, the folding or the inputs changed: say so).
EXPECTED_SHA256 = "78760395234eb6fc5ebe246e14d927729b1117ee3d730a9ac66087c262853271"
#: Changes when the builder's output for the same inputs may change.
BUILDER_VERSION = "1"


class ArabicBuildError(Exception):
    """The build did not produce the recorded list."""


@dataclass(frozen=True)
class Words:
    """What steps 1–2 produce: folded words and the spellings map's entries."""

    folded: list[bytes]
    spellings: list[tuple[str, bytes]]
    stats: dict[str, int]


def build_arabic(aff: Path, dic: Path) -> Words:
    """Expand and fold; the folded words are UTF-8, unsorted, possibly repeated."""
    affixes = parse_aff(aff.read_text("utf-8"))
    stems = parse_dic(dic.read_text("utf-8"), affixes)
    expansion = expand(affixes, stems, prefixes=GAME_PREFIXES, plain=ARABIC_LETTERS)
    spelled = _spell(expansion.other)
    spellings, extra_spellings = _spellings(expansion.words, spelled)
    stats = {
        "stems": len(stems),
        "generated": expansion.generated,
        "spelling_entries": len(spellings),
        "spelling_keys": len({key for key, _ in spellings}),
        "spellings_minus_words": extra_spellings,
    }
    # A plain form is written in tile letters already: it is its own folded form, and
    # only its length can disqualify it (C.1 step 5).
    folded = [word.encode() for word in expansion.words if len(word) >= MIN_LENGTH]
    del expansion
    folded.extend(word.encode() for word in set(spelled.values()))
    return Words(folded, spellings, stats)


def _spell(forms: set[str]) -> dict[str, str]:
    """spelling → folded form, for the forms that are not plain tile letters."""
    carriers_only = dict.fromkeys(map(ord, ARABIC_LETTERS + "".join(ARABIC_CARRIERS)))
    spelled: dict[str, str] = {}
    for form in forms:
        if len(form) >= MIN_LENGTH and not form.translate(carriers_only):
            # Letters and hamza carriers only: NFKC and the marks change nothing.
            spelled[form] = form.translate(ARABIC_CARRIERS_TABLE)
            continue
        spelling = arabic_spelling(form)
        folded = fold_spelling(spelling)
        if folded is not None:
            spelled[spelling] = folded
    return spelled


def _spellings(plain: list[str], spelled: dict[str, str]) -> tuple[list[tuple[str, bytes]], int]:
    """(folded, spelling) for every folded form that has a spelling other than itself;
    and how many more spellings than folded words there are.

    Such a form's entries give all its spellings, itself included when it is one (امن is
    a spelling as well as the folding of أمن آمن إمن); a form that is its only spelling
    has no entry (the main trie says it exists). A BytesTrie takes repeated keys, so the
    pairs need no grouping.
    """
    pairs = [
        (folded, spelling.encode()) for spelling, folded in spelled.items() if spelling != folded
    ]
    keys = {folded for folded, _ in pairs}
    values = set(spelled.values())
    # Which non-plain spellings and folded forms are plain forms too: one pass over the
    # plain list in C, instead of a set of the whole list.
    in_plain = (values | spelled.keys()).intersection(plain)
    pairs.extend(
        (folded, folded.encode()) for folded in keys if folded in in_plain or folded in spelled
    )
    # words = plain ∪ values and spellings = plain ∪ spelled keys, so their counts differ by:
    extra = len(spelled.keys() - in_plain) - len(values - in_plain)
    return pairs, extra


def _save_spellings(pairs: list[tuple[str, bytes]], path: Path) -> None:
    marisa_trie.BytesTrie(pairs).save(str(path))


def build_tries(
    data_dir: Path, out: Path, *, expected_sha256: str | None = EXPECTED_SHA256
) -> ListMetadata:
    """Build ``ar.marisa``, ``ar-spellings.marisa`` and ``ar.json`` into ``out``.

    ``expected_sha256`` None skips the check against the recorded hash (used to record
    a new one). Files are written under temporary names and renamed at the end, so a
    failed build never leaves a half-written list that looks finished.
    """
    with _collector_paused():
        return _build_tries(data_dir, out, expected_sha256)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Millions of new containers and no cycles: the cyclic collector would only walk them
    again and again (it made the spellings step three times slower), so it pauses."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _build_tries(data_dir: Path, out: Path, expected_sha256: str | None) -> ListMetadata:
    started = time.perf_counter()
    aff, dic = data_dir / AFF_NAME, data_dir / DIC_NAME
    words = build_arabic(aff, dic)
    expanded = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    trie_path, spellings_path = out / TRIE_NAME, out / SPELLINGS_NAME
    partial_trie = out / (TRIE_NAME + ".partial")
    partial_spellings = out / (SPELLINGS_NAME + ".partial")
    # The spellings trie in a forked child, while this process builds the main one — only
    # from a single-threaded process (the build command): a fork while other threads run (a
    # gRPC server's, in a test session) can leave the child a lock it never gets (it crashed).
    child = None
    if threading.active_count() == 1:
        child = multiprocessing.get_context("fork").Process(
            target=_save_spellings, args=(words.spellings, partial_spellings)
        )
        child.start()
    else:
        _save_spellings(words.spellings, partial_spellings)
    trie = marisa_trie.BinaryTrie(words.folded, order=marisa_trie.LABEL_ORDER)
    del words.folded[:]
    trie.save(str(partial_trie))
    keys = trie.keys()
    del trie
    # Label order walks the keys sorted by bytes, i.e. by code point: the canonical list.
    if any(a >= b for a, b in itertools.pairwise(keys[:: max(1, len(keys) // 100_000)])):
        raise ArabicBuildError("the trie does not enumerate its words in sorted order")
    digest = hashlib.sha256(b"\n".join(keys))
    digest.update(b"\n")
    sha256 = digest.hexdigest()
    word_count = len(keys)
    del keys
    if child is not None:
        child.join()
        if child.exitcode != 0:
            raise ArabicBuildError(f"building {SPELLINGS_NAME} failed (exit {child.exitcode})")
    if expected_sha256 is not None and sha256 != expected_sha256:
        raise ArabicBuildError(
            f"the Arabic list built from {data_dir} has sha256 {sha256} ({word_count} words), "
            f"not the recorded {expected_sha256}"
        )
    partial_trie.replace(trie_path)
    partial_spellings.replace(spellings_path)
    finished = time.perf_counter()
    metadata = ListMetadata(
        id="ar",
        word_count=word_count,
        sha256=sha256,
        source=SOURCE,
        licence=LICENCE,
        files={
            name: BuiltFile(name, file_sha256(path), path.stat().st_size)
            for name, path in ((TRIE_NAME, trie_path), (SPELLINGS_NAME, spellings_path))
        },
        inputs=input_hashes(data_dir),
        stats={
            **words.stats,
            "words": word_count,
            # Distinct dictionary spellings (C.1 steps 1–2), before the hamza folding.
            "spellings": word_count + words.stats["spellings_minus_words"],
            "expand_seconds": round(expanded - started, 2),
            "build_seconds": round(finished - started, 2),
            "peak_rss_mib": _peak_rss_mib(),
        },
    )
    metadata.write(out / METADATA_NAME)
    return metadata


def input_hashes(data_dir: Path) -> dict[str, str]:
    """sha256 of the inputs, and of what else decides the output."""
    return {
        AFF_NAME: file_sha256(data_dir / AFF_NAME),
        DIC_NAME: file_sha256(data_dir / DIC_NAME),
        "builder": BUILDER_VERSION,
        "profile": " ".join(sorted(GAME_PREFIXES)),
    }


def _peak_rss_mib() -> float:
    """Peak RSS of this process and of the waited-for child (Linux reports KiB)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return round(max(own, children) / 1024, 1)
