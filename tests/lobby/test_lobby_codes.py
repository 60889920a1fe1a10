"""Invite codes: format, alphabet, entropy, cryptographic source, lenient parsing, redaction."""

from __future__ import annotations

import doctest
import math
import secrets
from collections import Counter

import pytest

from lexio_lobby import codes
from lexio_lobby.codes import (
    ALPHABET,
    CODE_LENGTH,
    ENTROPY_BITS,
    InvalidCodeError,
    format_code,
    new_code,
    parse_code,
    redact,
)


def test_the_alphabet_has_no_confusable_characters() -> None:
    assert len(set(ALPHABET)) == len(ALPHABET) == 30
    assert not set(ALPHABET) & set("01OILU")
    assert ALPHABET.upper() == ALPHABET
    assert all(c.isascii() and c.isalnum() for c in ALPHABET)


def test_a_code_holds_at_least_40_bits() -> None:
    assert pytest.approx(CODE_LENGTH * math.log2(30)) == ENTROPY_BITS
    assert ENTROPY_BITS >= 40
    assert len(ALPHABET) ** CODE_LENGTH >= 2**40


def test_new_codes_are_canonical_and_grouped_for_reading() -> None:
    code = new_code()
    assert len(code) == CODE_LENGTH and set(code) <= set(ALPHABET)
    shown = format_code(code)
    assert shown[5] == "-" and shown.replace("-", "") == code
    assert parse_code(shown) == code


def test_codes_are_drawn_from_the_secrets_module(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[str] = []

    def choice(seq: str) -> str:
        assert seq == ALPHABET
        drawn.append(seq[len(drawn) % len(seq)])
        return drawn[-1]

    monkeypatch.setattr(secrets, "choice", choice)
    assert new_code() == "".join(drawn) == ALPHABET[:CODE_LENGTH]


def test_codes_look_uniform_and_do_not_repeat() -> None:
    sample = [new_code() for _ in range(6000)]
    assert len(set(sample)) == len(sample)
    counts = Counter("".join(sample))
    expected = len(sample) * CODE_LENGTH / len(ALPHABET)  # 2000 per character
    assert set(counts) == set(ALPHABET)
    # Chi-squared with 29 degrees of freedom: 70 is beyond p = 0.9999 for a fair draw.
    chi2 = sum((n - expected) ** 2 / expected for n in counts.values())
    assert chi2 < 70


@pytest.mark.parametrize(
    "typed",
    [
        "7KQF3-XMP9A",
        "7kqf3-xmp9a",
        "7KQF3XMP9A",
        " 7KQF3 XMP9A ",
        "7 K Q F 3 X M P 9 A",
        "7KQF3–XMP9A",  # en dash, as phones autocorrect
        "7KQF3—XMP9A",  # em dash
        "７ＫＱＦ３－ＸＭＰ９Ａ",  # full-width, from some Asian keyboards
        "٧KQF٣-XMP٩A",  # Arabic-Indic digits, from an Arabic keypad
        "7KQF3\u00a0XMP9A",  # no-break space
    ],
)
def test_typed_codes_parse_to_the_canonical_form(typed: str) -> None:
    assert parse_code(typed) == "7KQF3XMP9A"


@pytest.mark.parametrize(
    "typed",
    ["", "7KQF3-XMP9", "7KQF3-XMP9AB", "0KQF3-XMP9A", "OKQF3-XMP9A", "1KQF3-XMP9A",
     "IKQF3-XMP9A", "LKQF3-XMP9A", "UKQF3-XMP9A", "7KQF3_XMP9A", "7KQF3.XMP9A", "7" * 65,
     "7KQF3-XMP9É"],
)  # fmt: skip
def test_anything_else_is_not_a_code(typed: str) -> None:
    with pytest.raises(InvalidCodeError):
        parse_code(typed)


def test_redaction_keeps_one_character_of_ten() -> None:
    code = new_code()
    shown = redact(code)
    assert shown == code[0] + "****-*****"
    assert sum(c not in "*-" for c in shown) == 1


def test_doctests() -> None:
    assert doctest.testmod(codes).failed == 0
