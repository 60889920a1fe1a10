"""The word list in memory: loaded once, then asked "which of these words are unknown?".

Words are held in a ``marisa_trie.Trie`` rather than a Python ``set`` because a set of
~325k short ``str`` objects costs tens of megabytes while the trie takes a few, and
membership stays in the microsecond range either way (see ``bench/lexicon_bench.py``).

The list file is trusted only after checking it: a missing, unreadable, empty or
malformed file raises :class:`WordListError` with the reason, so that a service fails at
start-up with a clear message rather than later answering "unknown" to every word.
A text file must already be normalised (``services/lexicon/tools/build_wordlist.py``
writes it): one upper-case A–Z word per line.

A list too large for a text file (Arabic: 11 million words) is opened from a built
marisa file instead (:meth:`WordList.open_trie`): memory-mapped, so that start-up
takes milliseconds and replicas on one node share the pages; the caller
(:mod:`lexio_lexicon.catalog`) has checked the file against its metadata first.
Such a list may also have a spellings trie: folded word → dictionary spellings.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import marisa_trie

__all__ = ["DEFAULT_WORDLIST_PATH", "WordList", "WordListError"]

_LATIN = "upper-case A–Z"

#: The list shipped with the package (wfrench 1.2.7-2, normalised; see data/LICENSE-wfrench.txt).
DEFAULT_WORDLIST_PATH: Path = Path(__file__).resolve().parent / "data" / "french.txt"

_WORD = re.compile(r"[A-Z]+")
# A whole well-formed file in one regex pass: much faster than a match per line; the
# offending line is only looked for when this fails.
_FILE = re.compile(r"(?:[A-Z]+\n)*[A-Z]+\n?")


class WordListError(Exception):
    """The word list cannot be used: missing, unreadable, empty or malformed."""


class WordList:
    """An immutable set of normalised words backed by a marisa trie (the ``Lexicon`` of
    the rules: :meth:`unknown`), with each word's dictionary spellings (:meth:`spellings`)."""

    __slots__ = ("_licence", "_load_seconds", "_sha256", "_source", "_spellings", "_trie")

    def __init__(
        self,
        trie: marisa_trie.Trie,
        *,
        sha256: str,
        source: str,
        load_seconds: float,
        spellings: marisa_trie.BytesTrie | None = None,
        licence: str = "",
    ) -> None:
        """Prefer :meth:`load`, :meth:`open_trie` or :meth:`from_words`."""
        self._trie = trie
        self._sha256 = sha256
        self._source = source
        self._load_seconds = load_seconds
        self._spellings = spellings
        self._licence = licence

    @classmethod
    def open_trie(
        cls,
        path: Path,
        *,
        sha256: str,
        spellings_path: Path | None = None,
        source: str | None = None,
        licence: str = "",
        started: float | None = None,
    ) -> WordList:
        """Memory-map a built ``.marisa`` file (and its spellings ``BytesTrie``, if any).

        The file is not read here beyond what marisa needs: integrity is the caller's
        check (:func:`lexio_lexicon.catalog.open_list` compares its sha256 first), since
        hashing 11 million words at every start would cost seconds. ``started`` (a
        ``time.perf_counter()``) makes :attr:`load_seconds` include the caller's checks.
        """
        started = time.perf_counter() if started is None else started
        trie, spellings = marisa_trie.Trie(), None
        try:
            trie.mmap(str(path))
            if spellings_path is not None:
                spellings = marisa_trie.BytesTrie()
                spellings.mmap(str(spellings_path))
        except FileNotFoundError as exc:
            raise WordListError(f"word list {exc.filename or path} does not exist") from None
        except Exception as exc:  # marisa reports a bad file as a plain Exception
            raise WordListError(f"word list {path} cannot be mapped: {exc}") from exc
        return cls(
            trie,
            sha256=sha256,
            source=str(path) if source is None else source,
            load_seconds=time.perf_counter() - started,
            spellings=spellings,
            licence=licence,
        )

    @classmethod
    def load(cls, path: str | Path, *, licence: str = "") -> WordList:
        """Read, check and index a list file; raise :class:`WordListError` if unusable."""
        started = time.perf_counter()
        path = Path(path)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise WordListError(f"word list {path} does not exist") from None
        except OSError as exc:
            raise WordListError(f"word list {path} cannot be read: {exc.strerror or exc}") from exc
        if not raw.strip():
            raise WordListError(f"word list {path} is empty")
        try:
            text = raw.decode("ascii")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", errors="replace")
        if _FILE.fullmatch(text) is None:
            raise WordListError(f"word list {path} is malformed: {_first_bad_line(text)}")
        words = text.split("\n")
        if not words[-1]:
            words.pop()
        return cls._build(words, source=str(path), started=started, raw=raw, licence=licence)

    @classmethod
    def from_words(
        cls,
        words: Iterable[str],
        *,
        source: str = "<memory>",
        pattern: re.Pattern[str] = _WORD,
        spellings: Mapping[str, Iterable[str]] | None = None,
    ) -> WordList:
        """Build a list from already normalised words (tests, a game record's own list).

        Unlike :meth:`load`, an empty iterable is accepted: it is a deliberate choice of
        the caller (every word is then unknown), not the sign of a truncated file.
        ``pattern`` is the alphabet (upper-case A–Z unless told otherwise, e.g.
        :data:`lexio_lexicon.normalise.ARABIC_WORD`); ``spellings`` maps a word to its
        dictionary spellings when they differ from the word itself.

        >>> words = WordList.from_words(["ETE", "TABLE"])
        >>> words.unknown(["TABLE", "XYZ"]), words.spellings("ETE"), words.spellings("XYZ")
        (['XYZ'], ('ETE',), ())
        """
        started = time.perf_counter()
        listed = list(words)
        alphabet = _LATIN if pattern is _WORD else f"in the alphabet {pattern.pattern}"
        for index, word in enumerate(listed):
            if not isinstance(word, str) or pattern.fullmatch(word) is None:
                raise WordListError(f"word {index} of {source} is not {alphabet}: {word!r}")
        table = None
        if spellings:
            pairs = [(w, s.encode()) for w, forms in spellings.items() for s in forms]
            table = marisa_trie.BytesTrie(pairs)
        return cls._build(listed, source=source, started=started, spellings=table)

    @classmethod
    def _build(
        cls,
        words: list[str],
        *,
        source: str,
        started: float,
        raw: bytes | None = None,
        spellings: marisa_trie.BytesTrie | None = None,
        licence: str = "",
    ) -> WordList:
        return cls(
            marisa_trie.Trie(words),
            sha256=_canonical_sha256(words, raw),
            source=source,
            load_seconds=time.perf_counter() - started,
            spellings=spellings,
            licence=licence,
        )

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word in self._trie

    def __len__(self) -> int:
        return len(self._trie)

    def __repr__(self) -> str:
        return f"WordList({len(self)} words from {self._source}, sha256={self._sha256[:12]}…)"

    def unknown(self, words: Sequence[str]) -> list[str]:
        """The words not in the list, in the order asked, duplicates kept."""
        trie = self._trie
        return [word for word in words if word not in trie]

    def spellings(self, word: str) -> tuple[str, ...]:
        """How a known word is written in the dictionary; () for an unknown word.

        For the Arabic list, the unfolded forms (appendix C.3: امن → آمن أمن إمن امن, in
        code point order); for a word that is its own only spelling, and for the Latin
        lists, the word itself.
        """
        if word not in self._trie:
            return ()
        if self._spellings is not None:
            found = self._spellings.get(word)
            if found:
                return tuple(sorted({value.decode() for value in found}))
        return (word,)

    @property
    def sha256(self) -> str:
        """Hex sha256 of the list as sorted, de-duplicated, '\\n'-terminated lines.

        Computed on that canonical form, not on the file bytes, so the same words give
        the same hash whatever order or duplicates the source had.
        """
        return self._sha256

    @property
    def load_seconds(self) -> float:
        """Wall-clock time to read, check and index the list."""
        return self._load_seconds

    @property
    def source(self) -> str:
        """Where the words came from: the file path, or the ``source`` given to from_words."""
        return self._source

    @property
    def licence(self) -> str:
        """The licence of the list and the package it comes from ("" when not known)."""
        return self._licence


def _canonical_sha256(words: list[str], raw: bytes | None = None) -> str:
    """Hash of the sorted unique lines; ``raw`` is the checked file content, if any."""
    if all(a < b for a, b in itertools.pairwise(words)):
        # Already canonical (the shipped file is): hash the bytes read, without a copy.
        if raw is not None:
            digest = hashlib.sha256(raw)
            if not raw.endswith(b"\n"):
                digest.update(b"\n")
            return digest.hexdigest()
        canonical = words
    else:
        canonical = sorted(set(words))
    return hashlib.sha256("".join(f"{word}\n" for word in canonical).encode("ascii")).hexdigest()


def _first_bad_line(text: str) -> str:
    """Describe the first line that is not an upper-case A–Z word (for the error message)."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()  # the terminator of the last line, not an empty line
    for number, line in enumerate(lines, start=1):
        if _WORD.fullmatch(line) is None:
            shown = line if len(line) <= 40 else line[:40] + "…"
            return f"line {number} is not an upper-case A–Z word: {shown!r}"
    return "unexpected content"  # pragma: no cover - _FILE and this loop agree
