"""The anti-probing reserve (R20): :mod:`rules_core.reserve`, which other games share.

Kept as a module of its own so that ``lexio_rules.reserve`` still names it.
"""

from __future__ import annotations

from rules_core.reserve import REGAIN_SECONDS, RESERVE_MAX, Reserve

__all__ = ["REGAIN_SECONDS", "RESERVE_MAX", "Reserve"]
