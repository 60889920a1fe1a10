"""How a table's news reaches every gateway replica that holds one of its players.

A notice is a small JSON object with a ``kind`` (``event``, ``changed``, ``seats``,
``presence``, ``taken``, ``alive``; ``resync`` is local: "you may have missed notices").
With one gateway the bus is a queue in the process; with several, Redis pub/sub carries it. A
store that commits and publishes atomically (Redis) publishes the notices of its commits
itself, so replicas see them in commit order, each stamped with this process's
:data:`ORIGIN` and the commit's instant by Redis's own clock (``committed_at``): the replica
that handles it observes ``lexio_gateway_bus_notice_delay_seconds``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final, Protocol

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from lexio_common.supervise import being_cancelled
from lexio_gateway.metrics import (
    BUS_CONNECTED,
    BUS_LAST_NOTICE_AGE,
    BUS_NOTICE_DELAY,
    BUS_RECONNECTS,
)

log = logging.getLogger(__name__)

Notice = dict[str, Any]
Handler = Callable[[Notice], Awaitable[None]]
CHANNEL: Final = "lexio:gw:bus"
ORIGIN: Final = secrets.token_hex(4)
"""Who committed a notice: this process. A replica is a process (its metrics are too), so the
store that stamps its commits and the bus that hears them agree on it without being wired
together; gateways sharing one process (tests) count each other's notices as their own."""


class Bus(Protocol):
    @property
    def healthy(self) -> bool:
        """Whether this replica hears every commit now (readiness)."""
        ...

    async def publish(self, notice: Notice) -> None: ...

    async def run(self, handler: Handler) -> None:
        """Deliver every notice to ``handler``, in order, until cancelled."""
        ...

    async def close(self) -> None: ...


class LocalBus:
    """One process: notices go through a queue, delivered in order by one task."""

    healthy = True

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Notice] = asyncio.Queue()
        BUS_CONNECTED.set(1)

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
    from the store, which does keep every event.

    Nothing ends :meth:`run` but cancellation: a lost connection, a failed resync (Redis
    answers SUBSCRIBE while it is still loading its data, and reads only later) or a failed
    notice is logged and retried with backoff. :attr:`healthy` says whether this replica hears
    the others now: subscribed, and caught up since."""

    def __init__(
        self,
        client: aioredis.Redis,
        retry_min: float = 0.1,
        retry_max: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        *,
        wall_clock: Callable[[], float] = time.time,
        origin: str = ORIGIN,
    ) -> None:
        """``wall_clock`` is compared with the commits' Redis TIME (``committed_at``)."""
        self._client = client
        self._retry_min = retry_min
        self._retry_max = retry_max
        self._clock = clock
        self._wall_clock = wall_clock
        self._origin = origin
        self._healthy = False
        self._subscriptions = 0
        self.last_notice_at: float | None = None
        """When the last message of the channel arrived (``clock`` time), or None."""
        BUS_CONNECTED.set(0)
        BUS_LAST_NOTICE_AGE.set_function(self._notice_age)

    @property
    def healthy(self) -> bool:
        return self._healthy

    def _notice_age(self) -> float:
        if self.last_notice_at is None:
            return float("nan")
        return self._clock() - self.last_notice_at

    def _set_healthy(self, healthy: bool) -> None:
        if healthy != self._healthy:
            log.info("bus healthy" if healthy else "bus down", extra={"healthy": healthy})
        self._healthy = healthy
        BUS_CONNECTED.set(int(healthy))

    async def close(self) -> None:
        await self._client.aclose()

    async def publish(self, notice: Notice) -> None:
        try:
            await self._client.publish(CHANNEL, json.dumps(notice))
        except (RedisError, OSError) as e:
            if being_cancelled():
                # redis-py may report the cancelled call as an error: returning would lose
                # the cancellation, and the keep-alive loop would never stop.
                raise asyncio.CancelledError from None
            # A lost notice is repaired by the next resync or the next event of the table.
            log.warning("publish failed", extra={"kind": notice.get("kind"), "error": str(e)})

    async def run(self, handler: Handler) -> None:
        delay = self._retry_min
        while True:
            pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(CHANNEL)
                self._subscriptions += 1
                if self._subscriptions > 1:
                    BUS_RECONNECTS.inc()
                await self._resync(handler)
                self._set_healthy(True)
                delay = self._retry_min
                async for message in pubsub.listen():
                    self.last_notice_at = self._clock()
                    if message["type"] != "message":
                        continue
                    try:
                        notice = json.loads(message["data"])
                        await handler(notice)
                        self._observe_delay(notice)
                    except asyncio.CancelledError:
                        raise
                    except Exception:
                        if being_cancelled():
                            raise asyncio.CancelledError from None
                        # This notice may be lost for some seats: catch them up from the store.
                        log.exception("notice failed: resync")
                        self._set_healthy(False)
                        await self._resync(handler)
                        self._set_healthy(True)
                log.warning("bus unsubscribed", extra={"retry_s": delay})
            except asyncio.CancelledError:
                raise
            except Exception as e:
                _failed("bus disconnected", e, delay)
            finally:
                self._set_healthy(False)
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]  # untyped upstream
            await asyncio.sleep(delay)
            delay = min(self._retry_max, delay * 2)

    def _observe_delay(self, notice: Notice) -> None:
        """A commit's notice handled: how long after the commit (Redis's TIME, so one clock
        for every publisher; a receiver's clock behind Redis's would make it negative: 0)."""
        committed_at = notice.get("committed_at")
        if not isinstance(committed_at, (int, float)):
            return  # not a commit's notice (alive, presence, taken...)
        source = "own" if notice.get("origin") == self._origin else "other"
        delay = max(0.0, self._wall_clock() - committed_at)
        BUS_NOTICE_DELAY.labels(source=source).observe(delay)

    async def _resync(self, handler: Handler) -> None:
        """Catch up from the store, until that succeeds: right after a restart Redis accepts
        the subscription but answers reads with LOADING for a while."""
        delay = self._retry_min
        while True:
            try:
                await handler({"kind": "resync"})
                return
            except asyncio.CancelledError:
                raise
            except Exception as e:
                _failed("resync failed", e, delay)
            await asyncio.sleep(delay)
            delay = min(self._retry_max, delay * 2)


def _failed(what: str, error: Exception, retry_s: float) -> None:
    """A failure the bus retries after ``retry_s``: logged; unless the task is being
    cancelled (redis-py may report a cancelled call as an error), then it is a cancellation."""
    if being_cancelled():
        raise asyncio.CancelledError from None
    log.warning(what, extra={"error": f"{type(error).__name__}: {error}", "retry_s": retry_s})
