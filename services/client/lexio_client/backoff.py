"""How long a client waits before each new try after losing its gateway.

The schedule is the web client's (static/js/net.js, ``BACKOFF``): 0.5, 1, 2, 4, 8, then 15 s
for every later try. The jitter is *full* jitter: try ``k`` waits a uniform draw in
``[0, schedule[k]]``. When a gateway replica dies, every seat it held sees the loss in the
same instant; full jitter spreads their first tries over the whole first step (0–0.5 s) where
equal jitter (``[base/2, base]``) would pack them into its second half (and the ±20 % the web
client drew until issue 27 into 0.4–0.6 s; it now draws full jitter too). Equal jitter's one
advantage, a floor under every wait, buys nothing here: a seat's next try goes to another
replica (a load balancer's), which is up, so an early try is a useful one, and a store that
is away answers ``unavailable`` cheaply. Even so, half a second is not enough for thousands of
seats on one survivor (docs/benchmarks.md, "Faults under load").

``equal`` is kept for comparison (``Backoff(jitter="equal")``). The draws come from an
injected :class:`random.Random`, so a seeded schedule is the same on every run.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

SCHEDULE: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0)
"""Seconds: the web client's ``BACKOFF``; the last step repeats forever."""


@dataclass
class Backoff:
    schedule: Sequence[float] = SCHEDULE
    jitter: Literal["full", "equal"] = "full"
    rng: random.Random = field(default_factory=random.Random)

    def ceiling(self, attempt: int) -> float:
        """The schedule's step for try number ``attempt`` (0 = the first try after a loss)."""
        return float(self.schedule[min(attempt, len(self.schedule) - 1)])

    def delay(self, attempt: int) -> float:
        """Seconds to wait before try number ``attempt``."""
        top = self.ceiling(attempt)
        if self.jitter == "equal":
            return top / 2 + self.rng.uniform(0, top / 2)
        return self.rng.uniform(0, top)

    def delays(self) -> Iterator[float]:
        """The waits before each try, without end."""
        attempt = 0
        while True:
            yield self.delay(attempt)
            attempt += 1
