"""How a table's news reaches every gateway replica that holds one of its players.

A notice is a small JSON object with a ``kind`` (``event``, ``changed``, ``seats``,
``presence``, ``taken``, ``alive``; ``resync`` is local: "you may have missed notices").
With one gateway the bus is a queue in the process; with several, Redis pub/sub carries it. A
store that commits and publishes atomically (Redis) publishes the notices of its commits
itself, so replicas see them in commit order.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final, Protocol

import redis.asyncio as aioredis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

Notice = dict[str, Any]
Handler = Callable[[Notice], Awaitable[None]]
CHANNEL: Final = "lexio:gw:bus"


class Bus(Protocol):
    async def publish(self, notice: Notice) -> None: ...

    async def run(self, handler: Handler) -> None:
        """Deliver every notice to ``handler``, in order, until cancelled."""
        ...

    async def close(self) -> None: ...


class LocalBus:
    """One process: notices go through a queue, delivered in order by one task."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Notice] = asyncio.Queue()

    async def publish(self, notice: Notice) -> None:
        self._queue.put_nowait(notice)

    async def close(self) -> None:
        return None

    async def run(self, handler: Handler) -> None:
        while True:
            notice = await self._queue.get()
            try:
                await handler(notice)
            except Exception:
                log.exception("notice failed", extra={"kind": notice.get("kind")})


class RedisBus:
    """Several replicas: Redis pub/sub on one channel. Pub/sub keeps nothing for a subscriber
    that is away, so after every (re)subscription the handler gets ``resync`` and catches up
    from the store, which does keep every event."""

    def __init__(self, client: aioredis.Redis, retry_max: float = 2.0) -> None:
        self._client = client
        self._retry_max = retry_max

    async def close(self) -> None:
        await self._client.aclose()

    async def publish(self, notice: Notice) -> None:
        try:
            await self._client.publish(CHANNEL, json.dumps(notice))
        except RedisError as e:
            # A lost notice is repaired by the next resync or the next event of the table.
            log.warning("publish failed", extra={"kind": notice.get("kind"), "error": str(e)})

    async def run(self, handler: Handler) -> None:
        delay = 0.1
        while True:
            pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(CHANNEL)
                delay = 0.1
                await handler({"kind": "resync"})
                async for message in pubsub.listen():
                    if message["type"] != "message":
                        continue
                    try:
                        await handler(json.loads(message["data"]))
                    except Exception:
                        log.exception("notice failed")
            except (RedisError, OSError) as e:
                log.warning("bus disconnected", extra={"error": str(e), "retry_s": delay})
            finally:
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]  # untyped upstream
            await asyncio.sleep(delay)
            delay = min(self._retry_max, delay * 2)
