"""WordList: loading checks, membership, ``unknown`` order, the canonical hash."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from lexio_lexicon.words import DEFAULT_WORDLIST_PATH, WordList, WordListError


@pytest.fixture(scope="module")
def shipped() -> WordList:
    """The real shipped list, loaded once for the module."""
    return WordList.load(DEFAULT_WORDLIST_PATH)


def _write(tmp_path: Path, content: bytes, name: str = "words.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


def test_load_small_file(tmp_path: Path) -> None:
    words = WordList.load(_write(tmp_path, b"ARBRE\nETE\nTABLE\n"))
    assert len(words) == 3
    assert "ETE" in words
    assert "TABLE" in words
    assert "TABL" not in words  # a prefix is not a word
    assert "TABLES" not in words
    assert "ete" not in words
    assert "" not in words
    assert 42 not in words
    assert words.source == str(tmp_path / "words.txt")
    assert words.load_seconds >= 0


def test_load_accepts_missing_final_newline(tmp_path: Path) -> None:
    words = WordList.load(_write(tmp_path, b"ETE\nTABLE"))
    assert "ETE" in words
    assert "TABLE" in words
    assert len(words) == 2


def test_unknown_keeps_request_order_and_duplicates() -> None:
    words = WordList.from_words(["ETE", "TABLE", "ARBRE"])
    asked = ["ZZZ", "ETE", "QWX", "ZZZ", "TABLE", "ABC", "QWX"]
    assert words.unknown(asked) == ["ZZZ", "QWX", "ZZZ", "ABC", "QWX"]
    assert words.unknown([]) == []
    assert words.unknown(["ETE", "ARBRE"]) == []


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    with pytest.raises(WordListError, match=rf"{re.escape(str(missing))} does not exist"):
        WordList.load(missing)


def test_unreadable_path_is_a_clear_error(tmp_path: Path) -> None:
    # A directory cannot be read as a file, even by root (chmod 000 would not stop root).
    with pytest.raises(WordListError, match="cannot be read"):
        WordList.load(tmp_path)


@pytest.mark.parametrize("content", [b"", b"\n", b"\n\n  \n"])
def test_empty_file_is_a_clear_error(tmp_path: Path, content: bytes) -> None:
    with pytest.raises(WordListError, match="is empty"):
        WordList.load(_write(tmp_path, content))


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (b"ETE\ntable\n", 2),
        (b"ETE\nT\xc3\x89\n", 2),  # TÉ in UTF-8: not normalised
        (b"ETE\n\nTABLE\n", 2),  # blank line inside
        (b"PORTE-MONNAIE\n", 1),
        (b"ETE\r\nTABLE\r\n", 1),  # CRLF line endings
        (b"ETE\nTABLE\nAB CD\n", 3),
        (b"\xff\xfeE\x00", 1),
    ],
)
def test_malformed_file_names_the_line(tmp_path: Path, content: bytes, line: int) -> None:
    with pytest.raises(WordListError, match=rf"malformed: line {line} "):
        WordList.load(_write(tmp_path, content))


def test_from_words_rejects_unnormalised_words() -> None:
    with pytest.raises(WordListError, match=r"word 1 .* not upper-case"):
        WordList.from_words(["ETE", "été"])
    with pytest.raises(WordListError):
        WordList.from_words([""])


def test_from_words_allows_an_empty_list() -> None:
    words = WordList.from_words([], source="record")
    assert len(words) == 0
    assert words.unknown(["ETE"]) == ["ETE"]
    assert words.source == "record"
    assert words.sha256 == hashlib.sha256(b"").hexdigest()


def test_sha256_is_of_the_sorted_unique_lines(tmp_path: Path) -> None:
    expected = hashlib.sha256(b"ARBRE\nETE\nTABLE\n").hexdigest()
    in_order = WordList.load(_write(tmp_path, b"ARBRE\nETE\nTABLE\n", "a.txt"))
    shuffled = WordList.load(_write(tmp_path, b"TABLE\nARBRE\nETE\nARBRE", "b.txt"))
    from_words = WordList.from_words(["ETE", "TABLE", "ARBRE", "ETE"])
    assert in_order.sha256 == shuffled.sha256 == from_words.sha256 == expected
    assert len(shuffled) == 3
    assert WordList.from_words(["ETE"]).sha256 != expected


def test_shipped_list_size_and_content(shipped: WordList) -> None:
    assert 300_000 <= len(shipped) <= 330_000
    for word in ("ETE", "TABLE", "COEUR", "OEUF", "ARBRE", "MAISON", "ZYTHUM"):
        assert word in shipped, word
    for word in ("TABLEX", "XYZZY", "QWXZ", "TABL", "A"):
        assert word not in shipped, word
    assert shipped.unknown(["MAISON", "QWXZ", "ETE"]) == ["QWXZ"]
    assert shipped.source == str(DEFAULT_WORDLIST_PATH)


def test_shipped_list_has_only_a_to_z(shipped: WordList) -> None:
    words = DEFAULT_WORDLIST_PATH.read_text(encoding="ascii").split("\n")[:-1]
    assert len(words) == len(shipped)
    bad = [word for word in words if not re.fullmatch(r"[A-Z]{2,}", word)]
    assert bad == []


def test_shipped_sha256_is_stable(shipped: WordList) -> None:
    raw = DEFAULT_WORDLIST_PATH.read_bytes()
    assert shipped.sha256 == hashlib.sha256(raw).hexdigest()
    assert WordList.load(DEFAULT_WORDLIST_PATH).sha256 == shipped.sha256
