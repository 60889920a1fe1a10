"""The per-caller limit on unknown-code joins, with an injected clock: the same rules for the
in-process limiter and the one shared through Redis."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Protocol

import pytest
import redis
from lexio_testing import LoopThread, RedisServer
from lobby_fixtures import FakeClock

from lexio_lobby.ratelimit import (
    DEFAULT_MAX_FAILURES,
    DEFAULT_WINDOW_SECONDS,
    Admission,
    JoinRateLimiter,
    LocalJoinLimiter,
)
from lexio_lobby.redis_store import DEFAULT_PREFIX, RedisJoinLimiter, connect


class Limiter(Protocol):
    """What these tests drive: the rules, called synchronously."""

    def admit(self, caller: str) -> Admission: ...

    def refund(self, caller: str, admission: Admission) -> None: ...

    def __len__(self) -> int:
        """How many callers are tracked."""
        ...


class _SyncRedisLimiter:
    """A :class:`RedisJoinLimiter` driven from the test's thread."""

    def __init__(self, loop_thread: LoopThread, limiter: RedisJoinLimiter, url: str) -> None:
        self._loop = loop_thread
        self._limiter = limiter
        self._url = url

    def admit(self, caller: str) -> Admission:
        return self._loop.run(self._limiter.admit(caller))

    def refund(self, caller: str, admission: Admission) -> None:
        self._loop.run(self._limiter.refund(caller, admission))

    def __len__(self) -> int:
        with redis.Redis.from_url(self._url) as client:
            return len(list(client.scan_iter(DEFAULT_PREFIX + "joins:*")))


MakeLimiter = Callable[..., Limiter]


@pytest.fixture(params=["memory", "redis"])
def make_limiter(request: pytest.FixtureRequest, loop_thread: LoopThread) -> Iterator[MakeLimiter]:
    """Builds a limiter of the backend under test: ``make(max_failures=, window=, clock=)``."""
    if request.param == "memory":
        yield JoinRateLimiter
        return
    server: RedisServer = request.getfixturevalue("redis_server")
    client = connect(server.url)

    def make(**settings: float) -> Limiter:
        limiter = RedisJoinLimiter(client, **settings)  # type: ignore[arg-type]
        return _SyncRedisLimiter(loop_thread, limiter, server.url)

    yield make
    loop_thread.run(client.aclose())


def _fail(limiter: Limiter, caller: str, times: int) -> None:
    for _ in range(times):
        assert limiter.admit(caller).allowed


def test_the_documented_defaults() -> None:
    assert (DEFAULT_MAX_FAILURES, DEFAULT_WINDOW_SECONDS) == (10, 600.0)


def test_refused_once_the_failures_fill_the_window_until_the_oldest_ages_out(
    make_limiter: MakeLimiter,
) -> None:
    clock = FakeClock(0.0)
    limiter = make_limiter(max_failures=3, window=60, clock=clock)
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


def test_refused_attempts_do_not_extend_the_wait(make_limiter: MakeLimiter) -> None:
    clock = FakeClock(0.0)
    limiter = make_limiter(max_failures=2, window=60, clock=clock)
    _fail(limiter, "a", 2)
    for _ in range(59):
        clock.advance(1)
        assert not limiter.admit("a").allowed
    clock.advance(1)
    assert limiter.admit("a").allowed


def test_a_refunded_attempt_does_not_count(make_limiter: MakeLimiter) -> None:
    clock = FakeClock(0.0)
    limiter = make_limiter(max_failures=2, window=60, clock=clock)
    for _ in range(100):
        limiter.refund("a", limiter.admit("a"))
    assert len(limiter) == 0
    _fail(limiter, "a", 1)
    second = limiter.admit("a")
    assert not limiter.admit("a").allowed
    limiter.refund("a", second)  # removes exactly that attempt
    assert limiter.admit("a").allowed
    assert not limiter.admit("a").allowed


def test_concurrent_attempts_count_before_their_outcome_is_known(
    make_limiter: MakeLimiter,
) -> None:
    """Admissions in flight hold their place: a burst cannot exceed the limit."""
    limiter = make_limiter(max_failures=3, window=60, clock=FakeClock(0.0))
    in_flight = [limiter.admit("a") for _ in range(10)]
    assert [a.allowed for a in in_flight] == [True] * 3 + [False] * 7


def test_a_burst_through_two_replicas_cannot_exceed_the_limit(
    loop_thread: LoopThread, redis_server: RedisServer
) -> None:
    """Two clients on one Redis (as two lobby replicas have), 40 attempts at once."""

    async def burst() -> list[bool]:
        clients = [connect(redis_server.url) for _ in range(2)]
        limiters = [RedisJoinLimiter(c, max_failures=3, window=60) for c in clients]
        try:
            admitted = await asyncio.gather(*(limiters[i % 2].admit("a") for i in range(40)))
        finally:
            for client in clients:
                await client.aclose()
        return [a.allowed for a in admitted]

    assert loop_thread.run(burst()).count(True) == 3


def test_a_callers_attempts_expire_with_the_window(
    loop_thread: LoopThread, redis_server: RedisServer
) -> None:
    """In Redis, memory is bounded by expiry: a caller's key lives one window after its last
    counted attempt, and a refund of the last attempt removes it at once."""
    client = connect(redis_server.url)
    limiter = RedisJoinLimiter(client, max_failures=3, window=60, clock=FakeClock())
    try:
        first = loop_thread.run(limiter.admit("a"))
        loop_thread.run(limiter.admit("b"))
        with redis.Redis.from_url(redis_server.url) as raw:
            assert 59_000 < raw.pttl(DEFAULT_PREFIX + "joins:a") <= 60_000
            loop_thread.run(limiter.refund("a", first))
            assert not raw.exists(DEFAULT_PREFIX + "joins:a")
            assert raw.exists(DEFAULT_PREFIX + "joins:b")
    finally:
        loop_thread.run(client.aclose())


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


def test_the_local_limiter_speaks_the_async_protocol(loop_thread: LoopThread) -> None:
    local = LocalJoinLimiter(JoinRateLimiter(max_failures=1, window=10, clock=FakeClock(0.0)))
    first = loop_thread.run(local.admit("a"))
    assert not loop_thread.run(local.admit("a")).allowed
    loop_thread.run(local.refund("a", first))
    loop_thread.run(local.prune())
    assert len(local.limiter) == 0


@pytest.mark.parametrize("bad", [{"max_failures": 0}, {"window": 0.0}, {"max_callers": 0}])
def test_nonsense_settings_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="positive"):
        JoinRateLimiter(**bad)  # type: ignore[arg-type]
    if "max_callers" not in bad:
        with pytest.raises(ValueError, match="positive"):
            RedisJoinLimiter(connect("redis://127.0.0.1:1/0"), **bad)  # type: ignore[arg-type]
