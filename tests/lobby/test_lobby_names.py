"""Display name and player id rules."""

from __future__ import annotations

import doctest
import unicodedata

import pytest

from lexio_lobby import names
from lexio_lobby.names import MAX_NAME_LENGTH, InvalidNameError, clean_name, valid_player_id


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("Ana", "Ana"),
        ("  Ana  ", "Ana"),
        ("\tAna\n", "Ana"),  # trimming takes any surrounding white space
        ("Jean Pierre", "Jean Pierre"),
        ("ليلى", "ليلى"),
        ("Zoe\u0301", "Zoé"),  # decomposed input is stored composed (NFC)
        ("🦊", "🦊"),
        ("x" * MAX_NAME_LENGTH, "x" * MAX_NAME_LENGTH),
        (" " + "y" * MAX_NAME_LENGTH + " ", "y" * MAX_NAME_LENGTH),
    ],
)
def test_valid_names_are_trimmed_and_normalised(raw: str, stored: str) -> None:
    assert clean_name(raw) == stored
    assert unicodedata.is_normalized("NFC", clean_name(raw))


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "x" * (MAX_NAME_LENGTH + 1),
        "Ana\x00",
        "Ana\x1b[31m",  # a terminal escape
        "Ana\x7f",
        "A\u0085B",  # C1 control (next line)
        "A\u2028B",  # line separator
        "\u202eAna",  # right-to-left override
        "A\u200dB",  # zero-width joiner
        "A\ufeffB",  # byte-order mark
        "A\u00a0B",  # a space other than U+0020
        "A\ue000B",  # private use
    ],
)
def test_invalid_names_are_refused_not_repaired(raw: str) -> None:
    with pytest.raises(InvalidNameError):
        clean_name(raw)


def test_length_counts_characters_after_normalisation() -> None:
    decomposed = "e\u0301" * MAX_NAME_LENGTH  # 48 code points, 24 once composed
    assert clean_name(decomposed) == "é" * MAX_NAME_LENGTH


@pytest.mark.parametrize(
    ("player_id", "valid"),
    [
        ("p1", True),
        ("gw-3f9a_Zx.+=/", True),
        ("x" * 128, True),
        ("", False),
        ("x" * 129, False),
        ("has space", False),
        ("tab\t", False),
        ("é", False),
    ],
)
def test_player_ids(player_id: str, valid: bool) -> None:
    assert valid_player_id(player_id) is valid


def test_doctests() -> None:
    assert doctest.testmod(names).failed == 0
