"""The anti-probing reserve (Lexio's R20; other games' rules name it too), on an injectable clock.

Each seat (each side) holds up to 10 tries spent by placements refused for unknown words. A
try comes back every 15 seconds; an accepted move gives none back. Time is passed in (``now``,
seconds), so the reserve is a plain value and tests need no real clock.

>>> r = Reserve.full().spend(now=100.0)
>>> r.available(100.0), r.available(114.9), r.available(115.0), r.next_in(110.0)
(9, 9, 10, 5.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["REGAIN_SECONDS", "RESERVE_MAX", "Reserve"]

RESERVE_MAX: Final = 10
REGAIN_SECONDS: Final = 15.0


@dataclass(frozen=True, slots=True)
class Reserve:
    tries: int
    """Tries left at ``since``."""
    since: float
    """The instant from which regained tries are counted."""

    @classmethod
    def full(cls) -> Reserve:
        return cls(RESERVE_MAX, 0.0)

    def _regained(self, now: float) -> int:
        if self.tries >= RESERVE_MAX or now <= self.since:
            return 0
        return int((now - self.since) // REGAIN_SECONDS)

    def available(self, now: float) -> int:
        return min(RESERVE_MAX, self.tries + self._regained(now))

    def spend(self, now: float) -> Reserve:
        """One try used at ``now``. The regain clock keeps its phase unless the reserve was full."""
        current = self.available(now)
        if current <= 0:
            raise ValueError("the reserve is empty")
        if current >= RESERVE_MAX:
            return Reserve(RESERVE_MAX - 1, now)
        regained = current - self.tries
        return Reserve(current - 1, self.since + regained * REGAIN_SECONDS)

    def next_in(self, now: float) -> float:
        """Seconds until the next try comes back; 0 when full."""
        if self.available(now) >= RESERVE_MAX:
            return 0.0
        elapsed = max(0.0, now - self.since)
        return REGAIN_SECONDS - (elapsed % REGAIN_SECONDS)
