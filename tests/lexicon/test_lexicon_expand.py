"""The hunspell reader and expander on small synthetic dictionaries (fast regressions).

Each case is a few lines of .aff/.dic exercising one feature hunspell-ar relies on:
``FLAG long``, ``AF`` aliases, conditions, cross products, two-level suffixes, prefixes
allowed by a suffix's continuation class, the prefix profile, IGNORE and FULLSTRIP.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import marisa_trie
import pytest

from lexio_lexicon import arabic_list
from lexio_lexicon.cache import ListMetadata
from lexio_lexicon.expand import GAME_PREFIXES, expand
from lexio_lexicon.hunspell import HunspellError, parse_aff, parse_dic


def _words(aff: str, dic: str, prefixes: set[str] | None = None) -> set[str]:
    affixes = parse_aff(aff)
    return expand(affixes, parse_dic(dic, affixes), prefixes=prefixes).unique()


LONG = """FLAG long
AF 3
AF SaPa # 1
AF Sb # 2
AF PaSc # 3
PFX Pa Y 2
PFX Pa 0 ال .
PFX Pa 0 وال .
SFX Sa Y 2
SFX Sa 0 ات/2 [^ة]
SFX Sa ة ات ة
SFX Sb Y 1
SFX Sb 0 ها .
SFX Sc N 1
SFX Sc 0 ي .
"""


def test_flag_long_aliases_conditions_and_two_level_suffixes() -> None:
    words = _words(LONG, "2\nكلم/1\nمدرسة/1\n")
    # Stem, suffix (condition [^ة]), its continuation suffix Sb, prefix on each (cross).
    assert {"كلم", "كلمات", "كلماتها", "الكلم", "الكلمات", "الكلماتها"} <= words
    # ة is stripped by the second rule; the first rule's condition excludes it.
    assert {"مدرسة", "مدرسات", "المدرسات"} <= words
    assert "مدرسةات" not in words
    # The continuation Sb is only reached through the "0 ات/2" rule, never on the stem.
    assert "كلمها" not in words and "مدرساتها" not in words
    assert "والكلمات" in words


def test_cross_product_n_forbids_prefix_with_suffix() -> None:
    words = _words(LONG, "1\nقلم/3\n")
    assert {"قلم", "قلمي", "القلم"} <= words
    assert "القلمي" not in words  # Sc is not a cross-product class


def test_profile_keeps_only_the_allowed_prefix_texts() -> None:
    words = _words(LONG, "1\nكلم/1\n", prefixes={"ال"})
    assert "الكلمات" in words
    assert not any(word.startswith("وال") for word in words)


def test_prefix_allowed_by_a_suffix_continuation_class() -> None:
    aff = """FLAG long
PFX Pm Y 1
PFX Pm 0 ال .
SFX Sa Y 1
SFX Sa 0 0/Pm .
SFX Sb Y 1
SFX Sb 0 ين .
"""
    # The stem has no Pm flag: ال comes only with the (empty) suffix that names it.
    words = _words(aff, "1\nكتاب/SaSb\n")
    assert words == {"كتاب", "الكتاب", "كتابين"}


def test_second_suffix_may_allow_the_prefix() -> None:
    aff = """FLAG long
PFX Pm Y 1
PFX Pm 0 ل .
SFX Sa Y 1
SFX Sa 0 ت/Sb .
SFX Sb Y 1
SFX Sb 0 ه/Pm .
"""
    words = _words(aff, "1\nكتب/Sa\n")
    assert words == {"كتب", "كتبت", "كتبته", "لكتبته"}


def test_prefix_condition_and_strip() -> None:
    aff = """FLAG long
PFX Pm Y 2
PFX Pm 0 لل [^ل]
PFX Pm ل لل ل
"""
    assert _words(aff, "2\nحم/Pm\nلحم/Pm\n") == {"حم", "للحم", "لحم"}


def test_suffix_keeps_one_character_of_the_stem_unless_fullstrip() -> None:
    aff = "SFX a Y 1\nSFX a ab xy ab\n"
    assert _words(aff, "2\nab/a\ncab/a\n") == {"ab", "cab", "cxy"}
    assert "xy" in _words("FULLSTRIP\n" + aff, "1\nab/a\n")


def test_multi_character_conditions_and_classes() -> None:
    aff = "SFX a Y 2\nSFX a 0 s [^aeiou]y\nSFX a 0 z [ae]\n"
    assert _words(aff, "3\nboy/a\nday/a\ntea/a\n") == {"boy", "day", "tea", "teaz"}
    assert "boys" not in _words(aff, "1\nboy/a\n")  # o is a vowel: [^aeiou]y fails
    assert "trys" in _words(aff, "1\ntry/a\n")


def test_num_flags_and_ignore() -> None:
    aff = "FLAG num\nIGNORE َ\nSFX 12 Y 1\nSFX 12 0 َات .\n"
    assert _words(aff, "1\nكَلم/12\n") == {"كلم", "كلمات"}


def test_missing_condition_is_any_and_morphology_is_skipped() -> None:
    aff = "FLAG long\nPFX Pa Y 1\nPFX Pa 0 ال\nAM is:noun\n"
    assert _words(aff, "1\nبيت/Pa\tpo:noun\n") == {"بيت", "البيت"}


@pytest.mark.parametrize(
    ("aff", "dic", "message"),
    [
        ("FLAG long\nSFX a Y 1\nSFX a 0 x .\n", "1\nw/a\n", "odd number"),
        ("SFX a Y 2\nSFX a 0 x .\n", "1\nw\n", "announces 2 rules, has 1"),
        ("NEEDAFFIX z\n", "1\nw\n", "NEEDAFFIX is not supported"),
        ("PFX a Y 1\nPFX a 0 x/b .\n", "1\nw\n", "prefix continuation"),
        ("FLAG long\nAF 1\nAF Aa\n", "1\nw/2\n", "alias 2 is not defined"),
        ("", "w\n", "does not start with its word count"),
    ],
)
def test_unreadable_or_unsupported_input_is_refused(aff: str, dic: str, message: str) -> None:
    with pytest.raises(HunspellError, match=message):
        affixes = parse_aff(aff)
        parse_dic(dic, affixes)


def test_game_profile_is_exactly_m38() -> None:
    assert frozenset({"ال", "ب", "ل", "ك", "بال", "لل", "كال", "س"}) == GAME_PREFIXES


SMALL_AFF = """FLAG long
AF 2
AF PmSa # 1
AF Pj # 2
PFX Pm Y 3
PFX Pm 0 ال .
PFX Pm 0 وال .
PFX Pm 0 أ .
PFX Pj Y 1
PFX Pj 0 س .
SFX Sa Y 2
SFX Sa 0 ً .
SFX Sa 0 ه .
"""
SMALL_DIC = "4\nأمن/1\nآمن\nامن\nيكتب/2\n"


def test_arabic_build_pipeline_on_a_small_dictionary(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "ar.aff").write_text(SMALL_AFF, "utf-8")
    (data / "ar.dic").write_text(SMALL_DIC, "utf-8")
    out = tmp_path / "out"
    metadata = arabic_list.build_tries(data, out, expected_sha256=None)
    expected = sorted(
        {
            # أمن with ال, suffixes (the tanween is deleted, ه kept), folded.
            *("امن", "الامن", "امنه", "الامنه"),
            *("يكتب", "سيكتب"),
        }
    )
    trie = marisa_trie.Trie()
    trie.mmap(str(out / "ar.marisa"))
    assert sorted(trie.keys()) == expected
    canonical = "".join(f"{word}\n" for word in expected).encode()
    assert metadata.sha256 == hashlib.sha256(canonical).hexdigest()
    assert metadata.word_count == len(expected)
    spellings = marisa_trie.BytesTrie()
    spellings.mmap(str(out / "ar-spellings.marisa"))
    assert sorted(v.decode() for v in spellings["امن"]) == ["آمن", "أمن", "امن"]
    assert sorted(v.decode() for v in spellings["الامن"]) == ["الأمن"]
    assert "يكتب" not in spellings  # its own only spelling
    assert ListMetadata.read(out / "ar.json") == metadata
    # The recorded-hash check refuses another result and leaves no finished-looking file.
    with pytest.raises(arabic_list.ArabicBuildError, match="not the recorded"):
        arabic_list.build_tries(data, tmp_path / "other", expected_sha256="0" * 64)
    assert not (tmp_path / "other" / "ar.marisa").exists()
    assert not (tmp_path / "other" / "ar.json").exists()
