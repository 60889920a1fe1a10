"""The hidden-information tests' method, shared by the suites that look for secrets in what a
player receives (frames, reviews, records): every string of a JSON value, keys included, to
be compared with the truth (racks, exchanged tiles, the bag's order) held by the server."""

from __future__ import annotations

from typing import Any


def strings_in(value: Any) -> list[str]:
    """Every string in a JSON value, dictionary keys included.

    >>> strings_in({"rack": "ABC", "log": [{"tiles": ["D", 1]}]})
    ['rack', 'ABC', 'log', 'tiles', 'D']
    """
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *strings_in(v)]]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return []
