"""Display names and player ids: what the lobby accepts from the gateway.

A display name is shown to the other players of a table, in any script the site serves
(French, Spanish, Arabic), so the rule is about safety, not about an alphabet: after trimming,
1 to 24 printable characters. "Printable" is Python's :meth:`str.isprintable`: it refuses
control characters, and also format characters such as the bidirectional overrides (U+202E)
that could make a name display as something else, line and paragraph separators, and any
space other than U+0020. Names are stored in NFC so that the same name typed on two devices
compares equal. Invalid names are refused, never silently repaired.

A player id is the gateway's opaque identifier; the lobby only bounds it.
"""

from __future__ import annotations

import unicodedata
from typing import Final

MAX_NAME_LENGTH: Final = 24
MAX_PLAYER_ID_LENGTH: Final = 128


class InvalidNameError(ValueError):
    """The display name breaks the rules above."""


def clean_name(raw: str) -> str:
    """The name as stored (trimmed, NFC), or :class:`InvalidNameError`.

    >>> clean_name("  Zoé ")
    'Zoé'
    """
    name = unicodedata.normalize("NFC", raw).strip()
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        raise InvalidNameError(f"a name has 1 to {MAX_NAME_LENGTH} characters")
    if not name.isprintable():
        raise InvalidNameError("a name holds printable characters only")
    return name


def valid_player_id(player_id: str) -> bool:
    """1 to 128 printable ASCII characters, no space: what a gateway-minted id looks like."""
    return (
        0 < len(player_id) <= MAX_PLAYER_ID_LENGTH
        and player_id.isascii()
        and player_id.isprintable()
        and " " not in player_id
    )
