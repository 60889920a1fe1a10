"""The named word lists — ``fr``, ``en``, ``ar`` — and how to open each one by its id.

This is what the rest of the code imports (the lexicon service, the games' rules,
tests, benchmarks)::

    from lexio_lexicon.catalog import LIST_IDS, open_list
    words = open_list("ar")            # WordListError("… run make wordlist-ar") if not built
    words.unknown(["كتاب", "كتبز"])    # ['كتبز']

* ``fr``: Lexio's list, ``data/french.txt`` (Debian wfrench 1.2.7-2, GPL-2+);
* ``en``: ``data/english.txt`` (wamerican-large ∪ wbritish-large 2020.12.07-2, SCOWL);
* ``ar``: built from ``data/ar.aff`` + ``data/ar.dic`` (hunspell-ar 3.2-1.2) into the
  cache directory (:func:`lexio_lexicon.cache.cache_dir`) by ``make wordlist-ar``.

The two Latin lists are read from their committed text at each start (0.2 s for French,
0.1 s for English, and nothing that can go stale); the Arabic one is memory-mapped
after checking it against its metadata: the right inputs, the right files (sha256 and
size, so a truncated or swapped trie is refused before marisa reads it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from lexio_lexicon import arabic_list
from lexio_lexicon.cache import ListMetadata, MetadataError, cache_dir, file_sha256
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH, WordList, WordListError

__all__ = ["DATA_DIR", "LIST_IDS", "SPECS", "ListSpec", "WordListError", "open_list"]

#: The lists a lexicon can hold, in the order Info reports them.
LIST_IDS: tuple[str, ...] = ("fr", "en", "ar")

DATA_DIR: Path = DEFAULT_WORDLIST_PATH.parent


@dataclass(frozen=True)
class ListSpec:
    """What is known about a list before opening it."""

    id: str
    #: The committed text file (fr, en), or None for a list built into the cache (ar).
    text: Path | None
    licence: str
    #: The make target that (re)builds it.
    make_target: str


SPECS: dict[str, ListSpec] = {
    "fr": ListSpec("fr", DEFAULT_WORDLIST_PATH, "GPL-2+ (Debian wfrench 1.2.7-2)", "wordlist"),
    "en": ListSpec(
        "en",
        DATA_DIR / "english.txt",
        "SCOWL permissive notice (Debian wamerican-large, wbritish-large 2020.12.07-2)",
        "wordlist-en",
    ),
    "ar": ListSpec(
        "ar",
        None,
        "GPL-2 / LGPL-2.1 / MPL-1.1 (Debian hunspell-ar 3.2-1.2, Ayaspell)",
        "wordlist-ar",
    ),
}


def open_list(list_id: str, *, path: Path | None = None, cache: Path | None = None) -> WordList:
    """Open the list ``list_id``; raise :class:`WordListError` saying why it cannot be.

    ``path`` replaces a text list's file (``LEXIO_LEXICON_WORDLIST`` for ``fr``);
    ``cache`` replaces the directory of built lists. An unknown id is a WordListError too.
    """
    spec = SPECS.get(list_id)
    if spec is None:
        raise WordListError(f"unknown word list {list_id!r} (known: {', '.join(LIST_IDS)})")
    if spec.text is not None:
        return WordList.load(path or spec.text, licence=spec.licence)
    return _open_arabic(spec, cache or cache_dir())


def _open_arabic(spec: ListSpec, directory: Path) -> WordList:
    started = time.perf_counter()
    rebuild = f"run make {spec.make_target}"
    metadata_path = directory / arabic_list.METADATA_NAME
    try:
        metadata = ListMetadata.read(metadata_path)
    except MetadataError as exc:
        raise WordListError(f"word list {spec.id} is not built: {exc}; {rebuild}") from None
    if metadata.id != spec.id:
        raise WordListError(f"{metadata_path} describes list {metadata.id!r}; {rebuild}")
    if metadata.inputs != arabic_list.input_hashes(DATA_DIR):
        raise WordListError(
            f"word list {spec.id} in {directory} was built from other inputs than "
            f"{DATA_DIR / arabic_list.AFF_NAME} and {arabic_list.DIC_NAME} (stale); {rebuild}"
        )
    paths = {}
    for name in (arabic_list.TRIE_NAME, arabic_list.SPELLINGS_NAME):
        paths[name] = _checked(directory / name, metadata, rebuild)
    words = WordList.open_trie(
        paths[arabic_list.TRIE_NAME],
        sha256=metadata.sha256,
        spellings_path=paths[arabic_list.SPELLINGS_NAME],
        licence=spec.licence,
        started=started,
    )
    if len(words) != metadata.word_count:
        raise WordListError(
            f"word list {paths[arabic_list.TRIE_NAME]} holds {len(words)} words, "
            f"its metadata says {metadata.word_count}; {rebuild}"
        )
    return words


def _checked(path: Path, metadata: ListMetadata, rebuild: str) -> Path:
    """The path, once its size and sha256 are those the build recorded."""
    expected = metadata.files.get(path.name)
    if expected is None:
        raise WordListError(f"the metadata of list {metadata.id} does not name {path.name}")
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise WordListError(f"word list {path} does not exist; {rebuild}") from None
    except OSError as exc:
        raise WordListError(f"word list {path} cannot be read: {exc}; {rebuild}") from None
    try:
        intact = size == expected.size and file_sha256(path) == expected.sha256
    except OSError as exc:
        raise WordListError(f"word list {path} cannot be read: {exc}; {rebuild}") from None
    if not intact:
        raise WordListError(
            f"word list {path} is corrupt (not the file its build recorded); {rebuild}"
        )
    return path
