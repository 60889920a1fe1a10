"""How dictionary entries become board words, and what the shipped list looks like."""

from __future__ import annotations

import doctest
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from lexio_lexicon import normalise as normalise_module
from lexio_lexicon.normalise import normalise
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH

TOOL = Path(__file__).resolve().parents[2] / "services" / "lexicon" / "tools" / "build_wordlist.py"


def _load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lexio_build_wordlist", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("table", "TABLE"),
        ("été", "ETE"),
        ("Été", "ETE"),
        ("garçon", "GARCON"),
        ("naïve", "NAIVE"),
        ("bûcheron", "BUCHERON"),
        ("où", "OU"),
        ("Cœur", "COEUR"),
        ("sœur", "SOEUR"),
        ("ŒUVRE", "OEUVRE"),
        ("cæcum", "CAECUM"),
        ("Æ", "AE"),
        ("  tabac\n", "TABAC"),
        ("e\u0301te\u0301", "ETE"),  # already decomposed
    ],
)
def test_normalise_folds_accents_and_ligatures(entry: str, expected: str) -> None:
    assert normalise(entry) == expected


@pytest.mark.parametrize(
    "entry",
    [
        "",
        "a",
        "à",
        "\n",
        "porte-monnaie",
        "aujourd'hui",
        "aujourd’hui",
        "M.",
        "etc.",
        "mp3",
        "pomme de terre",
        "straße",  # ß is not a tile, even though str.upper() would make it SS
        "ﬁn",  # a typographic ligature that upper() would turn into FI
        "café!",
        "Ωmega",
        "日本",
    ],
)
def test_normalise_drops_what_cannot_be_played(entry: str) -> None:
    assert normalise(entry) is None


def test_normalise_doctests_pass() -> None:
    result = doctest.testmod(normalise_module)
    assert result.attempted >= 1
    assert result.failed == 0


def test_tool_builds_sorted_unique_list() -> None:
    tool = _load_tool()
    words = tool.build(["été", "Ete", "cœur", "porte-monnaie", "a", "table", "table"])
    assert words == ["COEUR", "ETE", "TABLE"]
    assert tool.render(words) == b"COEUR\nETE\nTABLE\n"


def test_shipped_file_is_in_canonical_form() -> None:
    """The committed file is exactly what the tool writes: sorted, unique, normalised."""
    raw = DEFAULT_WORDLIST_PATH.read_bytes()
    assert raw.endswith(b"\n")
    words = raw.decode("ascii").split("\n")[:-1]
    assert words == sorted(set(words))
    assert all(normalise(word) == word for word in words)


def test_shipped_licence_names_source_and_licence() -> None:
    licence = (DEFAULT_WORDLIST_PATH.parent / "LICENSE-wfrench.txt").read_text(encoding="utf-8")
    assert "GPL-2+" in licence
    assert "wfrench 1.2.7-2" in licence
    assert "Paul Leyland" in licence
