"""Tiles and bags: M7 (two bags of 75), M8 (bilingual pairs), M9 (appendix A), M10 (alphabets)."""

from __future__ import annotations

from collections import Counter

import pytest
from mishqaq_positions import (
    RULES_ARABIC_TEXT,
    RULES_BAGS,
    RULES_BLANKS,
    RULES_UNPAIRED_TEXT,
    A,
    L,
    rules_bag,
    rules_pairs,
)

from mishqaq_rules.reasons import InvalidOptionError, MalformedActionError
from mishqaq_rules.sides import Side
from mishqaq_rules.tiles import Tile, bag_counts, bag_tiles


def letters_of(counts: Counter[Tile]) -> Counter[str]:
    """Copies per primary letter, bilingual or not; blanks as '?'."""
    out: Counter[str] = Counter()
    for t, n in counts.items():
        out[t.letter or "?"] += n
    return out


@pytest.mark.parametrize(("script", "latin"), [(L, "fr"), (L, "en"), (A, "fr"), (A, "en")])
def test_m7_each_bag_holds_73_letter_tiles_and_2_blanks(script: Side, latin: str) -> None:
    counts = bag_counts(script, latin)
    assert sum(counts.values()) == 75
    assert letters_of(counts)["?"] == RULES_BLANKS
    assert all(t.script is script for t in counts)
    assert len(bag_tiles(script, latin)) == 75


@pytest.mark.parametrize("latin", ["fr", "en"])
def test_m9_latin_bag_is_appendix_a_for_the_tables_language(latin: str) -> None:
    expected = Counter(rules_bag(latin))
    expected["?"] = RULES_BLANKS
    assert letters_of(bag_counts(L, latin)) == expected


@pytest.mark.parametrize("latin", ["fr", "en"])
def test_m9_arabic_bag_is_fixed_whatever_the_latin_language(latin: str) -> None:
    expected = Counter(rules_bag("ar"))
    expected["?"] = RULES_BLANKS
    assert letters_of(bag_counts(A, latin)) == expected
    assert sum(rules_bag("ar").values()) == 73


def test_m9_rules_text_bags_hold_73_letters() -> None:
    assert all(sum(rules_bag(k).values()) == 73 for k in RULES_BAGS)


@pytest.mark.parametrize(("script", "latin"), [(L, "fr"), (L, "en"), (A, "fr")])
def test_m8_exactly_one_bilingual_tile_per_pair_in_each_bag(script: Side, latin: str) -> None:
    pairs = rules_pairs()
    bilingual = {t: n for t, n in bag_counts(script, latin).items() if t.bilingual}
    assert all(n == 1 for n in bilingual.values())
    primaries = {t.letter for t in bilingual}
    expected = set(pairs) if script is L else set(pairs.values())
    assert primaries == expected
    assert len(bilingual) == 17


def test_m8_a_bilingual_tiles_partner_is_its_sound_pair_and_primary_is_the_bags_script() -> None:
    for latin_letter, arabic_letter in rules_pairs().items():
        latin_tile = Tile.parse(latin_letter + "+")
        arabic_tile = Tile.parse(arabic_letter + "+")
        assert (latin_tile.script, latin_tile.letter, latin_tile.partner) == (
            L,
            latin_letter,
            arabic_letter,
        )
        assert (arabic_tile.script, arabic_tile.letter, arabic_tile.partner) == (
            A,
            arabic_letter,
            latin_letter,
        )


@pytest.mark.parametrize("letter", RULES_UNPAIRED_TEXT.split())
def test_m8_letters_without_a_partner_have_no_bilingual_tile(letter: str) -> None:
    with pytest.raises(MalformedActionError):
        Tile.parse(letter + "+")
    assert Tile.parse(letter).partner is None


def test_m8_single_copy_letters_of_the_french_bag_are_bilingual_only() -> None:
    counts = bag_counts(L, "fr")
    for letter in "BFHJKQWYZ":
        assert counts[Tile.parse(letter + "+")] == 1
        assert counts[Tile.parse(letter)] == 0


def test_m10_alphabets_are_26_latin_and_31_arabic_letters() -> None:
    for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        assert Tile.parse(letter).script is L
    arabic = RULES_ARABIC_TEXT.split()
    assert len(arabic) == 31
    for letter in arabic:
        assert Tile.parse(letter).script is A


@pytest.mark.parametrize("text", ["أ", "إ", "آ", "ٱ", "ؤ", "ئ", "É", "a", "ک", "ی", "1", "", "RR"])
def test_m10_hamza_carriers_accents_and_other_letters_are_never_on_tiles(text: str) -> None:
    with pytest.raises(MalformedActionError):
        Tile.parse(text)


def test_m10_hamza_ta_marbuta_and_alif_maqsura_are_separate_tiles() -> None:
    assert {Tile.parse("ء").letter, Tile.parse("ة").letter, Tile.parse("ى").letter} == {
        "ء",
        "ة",
        "ى",
    }
    assert Tile.parse("ة") != Tile.parse("ه") and Tile.parse("ى") != Tile.parse("ي")


def test_tile_text_round_trips_as_the_record_writes_it() -> None:
    for text in ("C", "R+", "ر+", "ش"):
        assert Tile.parse(text).text == text
    assert Tile.parse("?", L).text == "?" and Tile.parse("?", L) != Tile.parse("?", A)


def test_a_blank_needs_its_script_and_a_side_filter_refuses_the_other_script() -> None:
    with pytest.raises(MalformedActionError):
        Tile.parse("?")
    with pytest.raises(MalformedActionError):
        Tile.parse("ش", L)


def test_m2_only_french_or_english_latin_bags() -> None:
    with pytest.raises(InvalidOptionError):
        bag_counts(L, "de")
