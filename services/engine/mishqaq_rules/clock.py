"""The chess clock (M28–M30): one bank per side, only the mover's running; meaning pauses.

Time is passed in (``now``, seconds), so the clock is a plain value. A pause ends by itself
60 s after it began: nothing has to happen at that instant, every reading of the clock at a
later ``now`` simply counts the pause as over (the game's next accepted action logs its end).

>>> clock = Clock.start((1800.0, 1500.0), now=0.0)
>>> clock.remaining(Side.LATIN, Side.LATIN, 100.0), clock.flag_at(Side.LATIN)
(1700.0, 1800.0)
>>> paused = clock.paused(Side.ARABIC, Side.LATIN, now=100.0)
>>> paused.remaining(Side.LATIN, Side.LATIN, 130.0), paused.flag_at(Side.LATIN)
(1700.0, 1860.0)
>>> paused.remaining(Side.LATIN, Side.LATIN, 170.0), paused.pauses_left
(1690.0, (3, 2))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from mishqaq_rules.sides import Side

PAUSE_SECONDS: Final = 60.0
PAUSES_PER_SIDE: Final = 3
DEFAULT_BANK_SECONDS: Final = 1800.0
BANK_CHOICES_SECONDS: Final = (1200.0, 1500.0, 1800.0, 2100.0, 2400.0)
"""M3's table option: 20 to 40 minutes in steps of 5, per side. The lobby offers these; the
rules accept any positive bank (tests and handicaps are not the rules' business)."""


@dataclass(frozen=True, slots=True)
class MeaningPause:
    """A pause called by ``by`` at ``started_at`` (M30); it lasts at most 60 s."""

    by: Side
    started_at: float

    @property
    def until(self) -> float:
        return self.started_at + PAUSE_SECONDS


@dataclass(frozen=True, slots=True)
class Clock:
    banks: tuple[float, float]
    """Seconds left per side (Latin, Arabic): the mover's as of ``since``, the other's as is."""
    since: float
    """From when the mover's bank runs: the turn's start, or the end of the last pause. While a
    pause runs it is the pause's start (the mover was charged up to it)."""
    pause: MeaningPause | None = None
    pauses_left: tuple[int, int] = (PAUSES_PER_SIDE, PAUSES_PER_SIDE)

    @classmethod
    def start(cls, banks: tuple[float, float], now: float) -> Clock:
        return cls(banks=banks, since=now)

    def paused_at(self, now: float) -> bool:
        """Is a pause still running at ``now``?"""
        return self.pause is not None and now < self.pause.until

    def expired_pause(self, now: float) -> MeaningPause | None:
        """The pause that has ended by itself by ``now``, not yet closed on this value."""
        if self.pause is not None and now >= self.pause.until:
            return self.pause
        return None

    def settled(self, now: float) -> Clock:
        """The same clock, a pause that ended by itself by ``now`` closed at its end."""
        pause = self.expired_pause(now)
        if pause is None:
            return self
        return Clock(self.banks, pause.until, None, self.pauses_left)

    def _running(self, now: float) -> float:
        """Seconds of the mover's bank used since ``since``."""
        if self.pause is None:
            return max(0.0, now - self.since)
        return max(0.0, now - self.pause.until)

    def remaining(self, side: Side, mover: Side, now: float) -> float:
        bank = self.banks[side.index]
        if side is not mover:
            return bank
        return max(0.0, bank - self._running(now))

    def flag_at(self, mover: Side) -> float:
        """The instant the mover's bank reaches 0 if nobody acts (after the running pause)."""
        start = self.pause.until if self.pause is not None else self.since
        return start + self.banks[mover.index]

    def charged(self, mover: Side, now: float) -> Clock:
        """The mover's use up to ``now`` taken from their bank; the next bank runs from ``now``
        (M28: an accepted placement or a pass stops one clock and starts the other)."""
        banks = list(self.banks)
        banks[mover.index] = self.remaining(mover, mover, now)
        return Clock((banks[0], banks[1]), now, None, self.pauses_left)

    def paused(self, by: Side, mover: Side, now: float) -> Clock:
        """Both clocks stopped at ``now`` by ``by``, one of their pauses used."""
        left = list(self.pauses_left)
        left[by.index] -= 1
        charged = self.charged(mover, now)
        return Clock(charged.banks, now, MeaningPause(by, now), (left[0], left[1]))

    def resumed(self, now: float) -> Clock:
        """The running pause ended early at ``now``; the mover's bank runs again."""
        return Clock(self.banks, now, None, self.pauses_left)

    def flagged(self, mover: Side) -> Clock:
        """Stopped at the mover's flag instant, their bank at 0 (M29)."""
        banks = list(self.banks)
        banks[mover.index] = 0.0
        return Clock((banks[0], banks[1]), self.flag_at(mover), None, self.pauses_left)


def check_bank(seconds: float) -> bool:
    """A bank the rules can run: a positive, finite number of seconds."""
    return isinstance(seconds, int | float) and math.isfinite(seconds) and seconds > 0
