"""Invite codes: secrets that people read aloud, type on phones, and paste into chats.

An invite code is the only key to a table (tables are never listed), so it must be hard to
guess and easy to pass on:

* **Entropy.** 10 characters drawn by :mod:`secrets` from a 30-letter alphabet:
  10 × log2(30) ≈ 49.1 bits. With the join rate limit (see :mod:`lexio_lobby.ratelimit`) an
  attacker gets about one guess a minute per identity; even with 10,000 open tables one guess
  succeeds with probability ~2e-11.
* **Alphabet.** Crockford's base-32 without 0 and 1: digits 2–9 and letters without I, L, O
  (confused with 1 and 0) and U (confused with V when spoken, and keeps most words out).
* **Reading.** Shown in two groups of five, ``7KQF3-XMP9A``.
* **Typing.** :func:`parse_code` accepts any case, with or without the dash, with spaces,
  Unicode dashes and full-width or non-Latin digits (a phone's Arabic keypad types ``٧`` for 7).

Codes are secrets: logs only ever carry :func:`redact`'s form.
"""

from __future__ import annotations

import math
import secrets
import unicodedata
from typing import Final

ALPHABET: Final = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH: Final = 10
GROUP_SIZE: Final = 5
SEPARATOR: Final = "-"
#: Bits of entropy of one code (≈ 49.07).
ENTROPY_BITS: Final = CODE_LENGTH * math.log2(len(ALPHABET))
#: Longer input is refused before any normalisation (bounds the work per request).
MAX_INPUT_LENGTH: Final = 64

_ALLOWED: Final = frozenset(ALPHABET)


class InvalidCodeError(ValueError):
    """The text cannot be an invite code (wrong length or characters)."""


def new_code() -> str:
    """A fresh code in canonical form (upper case, no separator), from a CSPRNG."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def format_code(code: str) -> str:
    """The canonical code grouped for reading.

    >>> format_code("7KQF3XMP9A")
    '7KQF3-XMP9A'
    """
    return SEPARATOR.join(code[i : i + GROUP_SIZE] for i in range(0, len(code), GROUP_SIZE))


def _plain(char: str) -> str:
    """One typed character as ASCII where it has an obvious ASCII meaning."""
    if char.isdecimal():
        return str(unicodedata.decimal(char))
    return char


def parse_code(text: str) -> str:
    """The canonical form of a typed code; :class:`InvalidCodeError` if it cannot be one.

    >>> parse_code(" 7kqf3 xmp9a ")
    '7KQF3XMP9A'
    >>> parse_code("7KQF3–XMP9A")  # an en dash, as phones autocorrect
    '7KQF3XMP9A'
    """
    if len(text) > MAX_INPUT_LENGTH:
        raise InvalidCodeError("too long")
    folded = unicodedata.normalize("NFKC", text)
    kept = [
        _plain(char).upper()
        for char in folded
        if not char.isspace() and unicodedata.category(char) != "Pd"
    ]
    code = "".join(kept)
    if len(code) != CODE_LENGTH or not _ALLOWED.issuperset(code):
        raise InvalidCodeError("not an invite code")
    return code


def redact(code: str) -> str:
    """What logs may show of a code: its first character and its shape, ~4.9 of ~49 bits.

    >>> redact("7KQF3XMP9A")
    '7****-*****'
    """
    if not code:
        return ""
    return format_code(code[0] + "*" * (CODE_LENGTH - 1))
