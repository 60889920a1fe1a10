"""The per-caller limit on unknown-code joins, with an injected clock."""

from __future__ import annotations

import pytest
from lobby_fixtures import FakeClock

from lexio_lobby.ratelimit import (
    DEFAULT_MAX_FAILURES,
    DEFAULT_WINDOW_SECONDS,
    JoinRateLimiter,
)


def _fail(limiter: JoinRateLimiter, caller: str, times: int) -> None:
    for _ in range(times):
        assert limiter.admit(caller).allowed


def test_the_documented_defaults() -> None:
    assert (DEFAULT_MAX_FAILURES, DEFAULT_WINDOW_SECONDS) == (10, 600.0)


def test_refused_once_the_failures_fill_the_window_until_the_oldest_ages_out() -> None:
    clock = FakeClock(0.0)
    limiter = JoinRateLimiter(max_failures=3, window=60, clock=clock)
    _fail(limiter, "a", 1)
    clock.advance(10)
    _fail(limiter, "a", 2)
    refused = limiter.admit("a")
    assert not refused.allowed
    assert refused.retry_after == pytest.approx(50)
    assert limiter.admit("b").allowed  # per caller
    clock.advance(49.9)
    assert not limiter.admit("a").allowed
    clock.advance(0.1)  # the first failure is now 60 s old
    assert limiter.admit("a").allowed
    assert not limiter.admit("a").allowed  # ...and that attempt counted in its turn


def test_refused_attempts_do_not_extend_the_wait() -> None:
    clock = FakeClock(0.0)
    limiter = JoinRateLimiter(max_failures=2, window=60, clock=clock)
    _fail(limiter, "a", 2)
    for _ in range(59):
        clock.advance(1)
        assert not limiter.admit("a").allowed
    clock.advance(1)
    assert limiter.admit("a").allowed


def test_a_refunded_attempt_does_not_count() -> None:
    clock = FakeClock(0.0)
    limiter = JoinRateLimiter(max_failures=2, window=60, clock=clock)
    for _ in range(100):
        limiter.refund("a", limiter.admit("a"))
    assert len(limiter) == 0
    _fail(limiter, "a", 1)
    second = limiter.admit("a")
    assert not limiter.admit("a").allowed
    limiter.refund("a", second)  # removes exactly that attempt
    assert limiter.admit("a").allowed
    assert not limiter.admit("a").allowed


def test_concurrent_attempts_count_before_their_outcome_is_known() -> None:
    """Admissions in flight hold their place: a burst cannot exceed the limit."""
    limiter = JoinRateLimiter(max_failures=3, window=60, clock=FakeClock(0.0))
    in_flight = [limiter.admit("a") for _ in range(10)]
    assert [a.allowed for a in in_flight] == [True] * 3 + [False] * 7


def test_memory_is_bounded() -> None:
    clock = FakeClock(0.0)
    limiter = JoinRateLimiter(max_failures=2, window=60, max_callers=100, clock=clock)
    for i in range(1000):
        limiter.admit(f"caller{i}")
    assert len(limiter) == 100
    # The most recent callers are the ones kept.
    _fail(limiter, "caller999", 1)
    assert not limiter.admit("caller999").allowed
    clock.advance(60)
    assert limiter.prune() == 0


def test_refund_after_ageing_out_is_harmless() -> None:
    clock = FakeClock(0.0)
    limiter = JoinRateLimiter(max_failures=1, window=10, clock=clock)
    ticket = limiter.admit("a")
    clock.advance(11)
    assert limiter.prune() == 0
    limiter.refund("a", ticket)
    assert limiter.admit("a").allowed


@pytest.mark.parametrize("bad", [{"max_failures": 0}, {"window": 0.0}, {"max_callers": 0}])
def test_nonsense_settings_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="positive"):
        JoinRateLimiter(**bad)  # type: ignore[arg-type]
