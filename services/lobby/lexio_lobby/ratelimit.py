"""The anti-enumeration limit on joins: unknown codes per caller, in a sliding window.

Invite codes are the only way into a table, so guessing them must not pay. Each caller
identity (the end client as the gateway names it) may send at most ``max_failures`` unknown
codes within ``window`` seconds — by default **10 per 10 minutes**. Once there, *every* join
from that caller is refused ("rate_limited"), even with a valid code, until the oldest of those
failures is older than the window. A typo or two never gets near the limit; a guesser gets about
one guess a minute.

Details that matter:

* Only unknown (or expired) codes count. A malformed code cannot hit a table, so it is not
  counted; a known code (whatever then happens: seated, table full, started) is not counted.
* A successful join does **not** reset the count: otherwise one valid code would let a guesser
  interleave joins and guesses forever.
* An attempt is counted *before* the code is looked up and refunded if the code turns out known,
  so a burst of concurrent guesses cannot slip past the limit while look-ups are in flight.
* Refused attempts are not counted, so a caller who keeps trying is free again exactly one
  window after their failures, not later.
* Memory is bounded: at most ``max_callers`` identities are tracked (least recently failing
  dropped first), and :meth:`JoinRateLimiter.prune` forgets callers whose failures all aged out.

:class:`JoinRateLimiter` keeps the count in this process: a restart forgets it, and replicas
would each count alone. The lobby talks to a limiter through the asynchronous
:class:`JoinLimiter` protocol — :class:`LocalJoinLimiter` wraps the in-process one, and
:class:`lexio_lobby.redis_store.RedisJoinLimiter` applies the same rules to a sorted set per
caller in Redis, so that replicas sharing a Redis share one budget per caller.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

DEFAULT_MAX_FAILURES: Final = 10
DEFAULT_WINDOW_SECONDS: Final = 600.0
DEFAULT_MAX_CALLERS: Final = 100_000


class _Attempt:
    """One counted attempt; an object so that a refund removes exactly this one."""

    __slots__ = ("at",)

    def __init__(self, at: float) -> None:
        self.at = at


@dataclass(frozen=True)
class Admission:
    """The outcome of ``admit``: allowed (with a ticket naming the counted attempt) or not."""

    allowed: bool
    retry_after: float = 0.0
    _ticket: object = None


class JoinLimiter(Protocol):
    """What the lobby needs from a limiter (see the module docstring for the rules)."""

    async def admit(self, caller: str) -> Admission:
        """Let a join attempt through (counted as a failure until refunded), or refuse it."""
        ...

    async def refund(self, caller: str, admission: Admission) -> None:
        """The attempt did not use an unknown code: it does not count."""
        ...

    async def prune(self) -> None:
        """Forget what has aged out (housekeeping; the rules never depend on it)."""
        ...


class JoinRateLimiter:
    """Counts unknown-code joins per caller; see the module docstring for the rules."""

    def __init__(
        self,
        *,
        max_failures: int = DEFAULT_MAX_FAILURES,
        window: float = DEFAULT_WINDOW_SECONDS,
        max_callers: int = DEFAULT_MAX_CALLERS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_failures < 1 or window <= 0 or max_callers < 1:
            raise ValueError("max_failures, window and max_callers must be positive")
        self.max_failures = max_failures
        self.window = window
        self.max_callers = max_callers
        self._clock = clock
        self._attempts: OrderedDict[str, deque[_Attempt]] = OrderedDict()

    def _recent(self, caller: str, now: float) -> deque[_Attempt] | None:
        attempts = self._attempts.get(caller)
        if attempts is None:
            return None
        while attempts and attempts[0].at <= now - self.window:
            attempts.popleft()
        if not attempts:
            del self._attempts[caller]
            return None
        return attempts

    def admit(self, caller: str) -> Admission:
        """Let a join attempt through (counted as a failure until refunded), or refuse it."""
        now = self._clock()
        attempts = self._recent(caller, now)
        if attempts is not None and len(attempts) >= self.max_failures:
            return Admission(False, retry_after=attempts[0].at + self.window - now)
        if attempts is None:
            attempts = deque()
            self._attempts[caller] = attempts
            while len(self._attempts) > self.max_callers:
                self._attempts.popitem(last=False)
        else:
            self._attempts.move_to_end(caller)
        ticket = _Attempt(now)
        attempts.append(ticket)
        return Admission(True, _ticket=ticket)

    def refund(self, caller: str, admission: Admission) -> None:
        """The attempt did not use an unknown code: it does not count."""
        attempts = self._attempts.get(caller)
        if attempts is None or not isinstance(admission._ticket, _Attempt):
            return
        try:
            attempts.remove(admission._ticket)
        except ValueError:  # already aged out
            return
        if not attempts:
            del self._attempts[caller]

    def prune(self) -> int:
        """Forget callers with no failure left in the window; returns how many remain."""
        now = self._clock()
        for caller in list(self._attempts):
            self._recent(caller, now)
        return len(self._attempts)

    def __len__(self) -> int:
        return len(self._attempts)


class LocalJoinLimiter:
    """:class:`JoinLimiter` over a :class:`JoinRateLimiter` (one process, no I/O)."""

    def __init__(self, limiter: JoinRateLimiter) -> None:
        self.limiter = limiter

    async def admit(self, caller: str) -> Admission:
        return self.limiter.admit(caller)

    async def refund(self, caller: str, admission: Admission) -> None:
        self.limiter.refund(caller, admission)

    async def prune(self) -> None:
        self.limiter.prune()
