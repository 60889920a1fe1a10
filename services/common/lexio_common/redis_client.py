"""One way for every service to open its Redis client.

Bounded waits; no automatic retry (a retried compare-and-set whose reply was lost would report
a false conflict or, worse, run twice); and redis-py's maintenance notifications off: with them
on (its default for RESP3) the pool skips its check that an idle connection is still open, and
the first call after a Redis restart fails although Redis is back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.maint_notifications import MaintNotificationsConfig

T = TypeVar("T")


def connect(
    url: str, *, timeout: float, name: str, text: bool, subscriber: bool = False
) -> aioredis.Redis:
    """A client for ``url`` (no I/O yet). ``text``: replies decoded to str. A ``subscriber``
    waits for messages as long as it takes (its reads have no timeout; pings find dead peers).
    ValueError for a URL redis-py cannot read."""
    return aioredis.Redis.from_url(
        url,
        decode_responses=text,
        socket_timeout=None if subscriber else timeout,
        socket_keepalive=True,
        health_check_interval=10 if subscriber else 0,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
        maint_notifications_config=MaintNotificationsConfig(enabled=False),
        client_name=name,
    )


async def guard(call: Awaitable[T], unavailable: type[Exception]) -> T:
    """Await ``call``; any Redis or socket failure becomes ``unavailable`` (the service's own
    "the store cannot answer now"), so callers have one error to handle. That includes
    redis-py's ``BusyLoadingError`` while a restarted Redis loads its data.

    Except in a task being cancelled: redis-py (8.1) sometimes reports a cancelled call as a
    ConnectionError, which would lose the cancellation (a stopping service would wait for ever
    on a loop that thinks Redis is down)."""
    try:
        return await call
    except (RedisError, OSError) as e:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise asyncio.CancelledError from e
        raise unavailable(f"redis: {e}") from e
