"""The REAL lists fr, en, ar as the catalog opens them: contents (al-Mishqaq appendix B.2,
B.3), spellings, normalisation, and every way a built list is refused."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

from lexio_lexicon import arabic_list
from lexio_lexicon.cache import cache_dir
from lexio_lexicon.catalog import DATA_DIR, LIST_IDS, SPECS, open_list
from lexio_lexicon.normalise import normalise_for
from lexio_lexicon.words import WordList, WordListError

COMMON = [
    "كتاب",
    "مدرسة",
    "بيت",
    "قلم",
    "شمس",
    "قمر",
    "ولد",
    "بنت",
    "سيارة",
    "كتب",
    "يكتب",
    "مكتبة",
    "باب",
    "ماء",
    "نار",
    "أرض",
    "سماء",
    "رجل",
    "امرأة",
    "طفل",
    "يوم",
    "ليل",
    "شجرة",
    "بحر",
    "جبل",
    "مدينة",
    "طريق",
    "خبز",
    "قال",
    "ذهب",
    "أكل",
    "شرب",
    "جميل",
    "كبير",
    "صغير",
]
INFLECTED = [
    "الكتاب",
    "والكتاب",
    "بالقلم",
    "كتبوا",
    "سيكتبون",
    "مدرستي",
    "فكتبناها",
    "المكتبات",
    "أولاد",
    "بيوت",
]
NON_WORDS = ["كتبز", "ثقشف", "ضظغ", "مدرسةة", "ءءء", "قلمممم", "شسيب", "بنتتت", "ججج", "كتابل"]
HAMZA = [
    "أكل",
    "اكل",
    "إسلام",
    "اسلام",
    "آمن",
    "امن",
    "سؤال",
    "سوال",
    "مسؤول",
    "مسئول",
    "بئر",
    "بير",
    "ماء",
    "ما",
]
MISSPELT = ["هاذا", "هاكذا", "سماءء", "ءكل", "مدرستة", "قلمة"]


@pytest.fixture(scope="module")
def ar() -> WordList:
    return open_list("ar")


@pytest.fixture(scope="module")
def en() -> WordList:
    return open_list("en")


def _known(words: WordList, written: list[str]) -> list[str]:
    folded = [normalise_for("ar", word) for word in written]
    assert None not in folded
    unknown = set(words.unknown([w for w in folded if w]))
    return [word for word, f in zip(written, folded, strict=True) if f not in unknown]


def test_catalog_ids() -> None:
    assert LIST_IDS == ("fr", "en", "ar")
    assert set(SPECS) == set(LIST_IDS)
    with pytest.raises(WordListError, match="unknown word list 'de'"):
        open_list("de")


def test_arabic_list_size_and_hash(ar: WordList) -> None:
    assert len(ar) == 11_368_572
    assert ar.sha256 == arabic_list.EXPECTED_SHA256
    assert ar.source == str(cache_dir() / "ar.marisa")
    assert "GPL-2" in ar.licence


def test_arabic_b2_common_words_all_known(ar: WordList) -> None:
    assert len(COMMON) == 35
    assert _known(ar, COMMON) == COMMON


def test_arabic_b2_inflected_8_of_10_without_conjunctions(ar: WordList) -> None:
    known = _known(ar, INFLECTED)
    assert len(known) == 8
    assert set(INFLECTED) - set(known) == {"والكتاب", "فكتبناها"}


def test_arabic_b2_non_words_and_misspellings(ar: WordList) -> None:
    assert _known(ar, NON_WORDS) == ["كتابل"]  # ك + تابل, "like a spice": a real form
    assert _known(ar, MISSPELT) == []
    # The cost of folding, as B.2 says: لاكن is ل + أكن once folded.
    assert _known(ar, ["لاكن", "ذالك"]) == ["لاكن", "ذالك"]


def test_arabic_b2_hamza_folding_14_of_14(ar: WordList) -> None:
    assert len(HAMZA) == 14
    assert _known(ar, HAMZA) == HAMZA


def test_arabic_spellings(ar: WordList) -> None:
    assert ar.spellings("امن") == ("آمن", "أمن", "إمن", "امن")
    assert ar.spellings("مسوول") == ("مسؤول",)
    assert ar.spellings("مسيول") == ("مسئول",)
    assert ar.spellings("كتاب") == ("كتاب",)  # its own only spelling
    assert ar.spellings("كتبز") == ()


def test_english_list(en: WordList) -> None:
    assert len(en) == 118_839
    assert en.unknown(["COLOUR", "COLOR", "QI", "XU", "JO", "ZA", "OK"]) == ["ZA", "OK"]
    # Proper nouns are dropped before normalising (M39): these exist only capitalised.
    assert en.unknown(["PARIS", "LONDON", "ENGLAND", "MICHAEL"]) == [
        "PARIS",
        "LONDON",
        "ENGLAND",
        "MICHAEL",
    ]
    assert en.spellings("COLOUR") == ("COLOUR",)
    assert "SCOWL" in en.licence


def test_english_text_is_what_the_tool_writes(en: WordList) -> None:
    raw = (DATA_DIR / "english.txt").read_bytes()
    words = raw.decode("ascii").split("\n")[:-1]
    assert words == sorted(set(words)) and len(words) == len(en)
    assert en.sha256 == hashlib.sha256(raw).hexdigest()
    licence = (DATA_DIR / "LICENSE-scowl.txt").read_text("utf-8")
    assert "Permission to use, copy, modify, distribute and sell" in licence
    assert "wamerican-large 2020.12.07-2" in licence and "Moby" in licence


def test_shipped_hunspell_files_and_licence() -> None:
    assert arabic_list.input_hashes(DATA_DIR)["ar.dic"] == (
        "7aeb0346703918e1702f18e0278021c4d1fe799acea84d676c29eb0a869bad51"
    )
    licence = (DATA_DIR / "LICENSE-hunspell-ar.txt").read_text("utf-8")
    for name in ("GPL", "LGPL", "MPL", "Kebdani", "hunspell-ar 3.2-1.2"):
        assert name in licence, name


def test_french_is_unchanged() -> None:
    fr = open_list("fr")
    assert len(fr) == 325_288
    assert fr.spellings("COEUR") == ("COEUR",)


@pytest.mark.parametrize(
    ("list_id", "text", "expected"),
    [
        ("fr", "Cœur", "COEUR"),
        ("en", "naïve", "NAIVE"),
        ("en", "o'clock", None),
        ("ar", "كِتَابٌ", "كتاب"),
        ("ar", "ﻷن", "لان"),
        ("ar", "مسئول", "مسيول"),
        ("ar", "فى", "فى"),
        ("ar", "مدرسة", "مدرسة"),
        ("ar", "ك", None),
        ("ar", "گل", None),
        ("ar", "TABLE", None),
        ("fr", "كتاب", None),
    ],
)
def test_normalise_for(list_id: str, text: str, expected: str | None) -> None:
    assert normalise_for(list_id, text) == expected


def test_normalise_for_an_unknown_list() -> None:
    with pytest.raises(ValueError, match="unknown word list"):
        normalise_for("de", "TABLE")


@pytest.fixture
def built_copy(tmp_path: Path) -> Path:
    """A copy of the built Arabic list, to damage."""
    copy = tmp_path / "cache"
    shutil.copytree(cache_dir(), copy, ignore=shutil.ignore_patterns(".stamp"))
    return copy


def test_a_copy_opens(built_copy: Path) -> None:
    assert len(open_list("ar", cache=built_copy)) == 11_368_572


def test_missing_build_says_how_to_rebuild(tmp_path: Path) -> None:
    with pytest.raises(
        WordListError, match=r"ar is not built: .*ar.json does not exist; run make wordlist-ar"
    ):
        open_list("ar", cache=tmp_path)


def test_truncated_trie_is_refused(built_copy: Path) -> None:
    trie = built_copy / "ar.marisa"
    trie.write_bytes(trie.read_bytes()[:1000])
    with pytest.raises(WordListError, match=r"ar.marisa is corrupt .*run make wordlist-ar"):
        open_list("ar", cache=built_copy)


def test_altered_trie_of_the_same_size_is_refused(built_copy: Path) -> None:
    spellings = built_copy / "ar-spellings.marisa"
    data = bytearray(spellings.read_bytes())
    data[len(data) // 2] ^= 0xFF
    spellings.write_bytes(bytes(data))
    with pytest.raises(WordListError, match=r"ar-spellings\.marisa is corrupt"):
        open_list("ar", cache=built_copy)


def test_missing_trie_file_is_refused(built_copy: Path) -> None:
    (built_copy / "ar.marisa").unlink()
    with pytest.raises(WordListError, match=r"ar.marisa does not exist; run make wordlist-ar"):
        open_list("ar", cache=built_copy)


@pytest.mark.parametrize("content", ["{", "[]", '{"format": "other"}'])
def test_bad_metadata_is_refused(built_copy: Path, content: str) -> None:
    (built_copy / "ar.json").write_text(content)
    with pytest.raises(WordListError, match="run make wordlist-ar"):
        open_list("ar", cache=built_copy)


def test_stale_build_is_refused(built_copy: Path) -> None:
    metadata = json.loads((built_copy / "ar.json").read_text("utf-8"))
    metadata["inputs"]["ar.dic"] = "0" * 64
    (built_copy / "ar.json").write_text(json.dumps(metadata), "utf-8")
    with pytest.raises(WordListError, match=r"built from other inputs .*stale"):
        open_list("ar", cache=built_copy)


def test_tool_builds_english_without_proper_nouns() -> None:
    tool_path = Path(__file__).resolve().parents[2] / "services/lexicon/tools/build_wordlist.py"
    spec = importlib.util.spec_from_file_location("lexio_build_wordlist_en", tool_path)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = tool
    spec.loader.exec_module(tool)
    entries = ["colour", "Colour", "Paris", "naïve", "o'clock", "x", "æsthete", "Ångström"]
    assert tool.build_english(entries) == ["AESTHETE", "COLOUR", "NAIVE"]
