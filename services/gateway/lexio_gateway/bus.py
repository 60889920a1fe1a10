"""How a table's news reaches every gateway replica that holds one of its players.

A notice is a small JSON object with a ``kind`` (``event``, ``changed``, ``seats``,
``presence``, ``taken``, ``who``, ``here``, ``alive``; ``resync`` is local: "you may have
missed notices", of one table or of all). With one gateway the bus is a queue in the process;
with several, Redis carries it:

- each table's notices go on **its own shard channel** (:func:`table_channel`, Redis 7's
  ``SPUBLISH``/``SSUBSCRIBE``), to which only the replicas that hold the table subscribe
  (:meth:`Bus.follow`): a replica's bus work grows with its own tables, not with the site
  (issue 28; before, every replica parsed every notice of every table);
- the site's channel (:data:`CHANNEL`) carries what is not about one table: the replicas'
  heartbeats (``alive``).

A store that commits and publishes atomically (Redis) publishes the notices of its commits
itself, so replicas see them in commit order, each stamped with this process's :data:`ORIGIN`
and the commit's instant by Redis's own clock (``committed_at``): the replica that handles it
observes ``lexio_gateway_bus_notice_delay_seconds``.
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
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

from lexio_common.supervise import being_cancelled
from lexio_gateway.metrics import (
    BUS_CONNECTED,
    BUS_LAST_NOTICE_AGE,
    BUS_NOTICE_DELAY,
    BUS_NOTICE_KINDS,
    BUS_NOTICES,
    BUS_RECONNECTS,
    BUS_TABLES_FOLLOWED,
)

log = logging.getLogger(__name__)

Notice = dict[str, Any]
Handler = Callable[[Notice], Awaitable[None]]
CHANNEL: Final = "lexio:gw:bus"
"""The site's channel: heartbeats, and the notices of replicas of releases before issue 28
(during a rolling update)."""
TABLE_CHANNEL_PREFIX: Final = "lexio:gw:bus:"
ORIGIN: Final = secrets.token_hex(4)
"""Who committed a notice: this process. A replica is a process (its metrics are too), so the
store that stamps its commits and the bus that hears them agree on it without being wired
together; gateways sharing one process (tests) count each other's notices as their own."""


def table_channel(table_id: str) -> str:
    """The shard channel of one table's notices. The braces are a hash tag: on a Redis
    Cluster the channel belongs to the slot of the table's id.

    >>> table_channel("t-1a2b")
    'lexio:gw:bus:{t-1a2b}'
    """
    return f"{TABLE_CHANNEL_PREFIX}{{{table_id}}}"


def _table_of(channel: str) -> str:
    return channel[len(TABLE_CHANNEL_PREFIX) + 1 : -1]


def _channel(message: dict[str, Any]) -> str:
    channel = message["channel"]
    return channel.decode() if isinstance(channel, bytes) else str(channel)


class Bus(Protocol):
    @property
    def healthy(self) -> bool:
        """Whether this replica hears every commit now (readiness)."""
        ...

    async def publish(self, notice: Notice) -> None:
        """To the replicas holding the notice's table (``table_id``), or to every replica."""
        ...

    async def follow(self, table_id: str) -> None:
        """Hear the table's notices from now on. Once this returns, every commit of the table
        that a read of the store does not show yet will be heard: follow, then read."""
        ...

    async def unfollow(self, table_id: str) -> None:
        """This replica holds the table no more."""
        ...

    async def run(self, handler: Handler) -> None:
        """Deliver every notice of the followed tables and of the site to ``handler``, each
        table's in commit order, until cancelled."""
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

    async def follow(self, table_id: str) -> None:
        return None  # one replica holds every table: it hears all

    async def unfollow(self, table_id: str) -> None:
        return None

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
    """Several replicas: Redis pub/sub, the site's channel and a shard channel per followed
    table. Pub/sub keeps nothing for a subscriber that is away, so after every
    (re)subscription — once Redis confirmed every channel — the handler gets ``resync`` and
    catches up from the store, which does keep every event.

    Nothing ends :meth:`run` but cancellation: a lost connection, a failed resync (Redis
    answers SUBSCRIBE while it is still loading its data, and reads only later) or a failed
    notice is logged and retried with backoff; a failed notice of one table resyncs that table.
    :attr:`healthy` says whether this replica hears the others now: subscribed, and caught up
    since."""

    def __init__(
        self,
        client: aioredis.Redis,
        retry_min: float = 0.1,
        retry_max: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        *,
        wall_clock: Callable[[], float] = time.time,
        origin: str = ORIGIN,
        confirm_timeout: float = 2.0,
    ) -> None:
        """``wall_clock`` is compared with the commits' Redis TIME (``committed_at``);
        ``confirm_timeout`` bounds the wait for Redis to confirm a subscription."""
        self._client = client
        self._retry_min = retry_min
        self._retry_max = retry_max
        self._clock = clock
        self._wall_clock = wall_clock
        self._origin = origin
        self._confirm_timeout = confirm_timeout
        self._healthy = False
        self._subscriptions = 0
        self._pubsub: PubSub | None = None
        self._wanted: set[str] = set()
        """The channels of the followed tables."""
        self._confirmed: set[str] = set()
        """Of those, the ones Redis confirmed on the current subscription."""
        self._waiters: dict[str, asyncio.Future[None]] = {}
        """A follow waiting for Redis's confirmation, by channel."""
        self.last_notice_at: float | None = None
        """When the last message of the channel arrived (``clock`` time), or None."""
        BUS_CONNECTED.set(0)
        BUS_TABLES_FOLLOWED.set(0)
        BUS_LAST_NOTICE_AGE.set_function(self._notice_age)

    @property
    def healthy(self) -> bool:
        return self._healthy

    @property
    def followed(self) -> frozenset[str]:
        """The tables this replica follows."""
        return frozenset(_table_of(channel) for channel in self._wanted)

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
        table_id = notice.get("table_id")
        data = json.dumps(notice)
        try:
            if table_id is None:
                await self._client.publish(CHANNEL, data)
            else:
                await self._client.spublish(table_channel(table_id), data)
        except (RedisError, OSError) as e:
            if being_cancelled():
                # redis-py may report the cancelled call as an error: returning would lose
                # the cancellation, and the keep-alive loop would never stop.
                raise asyncio.CancelledError from None
            # A lost notice is repaired by the next resync or the next event of the table.
            log.warning("publish failed", extra={"kind": notice.get("kind"), "error": str(e)})

    # Following tables ---------------------------------------------------------------------

    async def follow(self, table_id: str) -> None:
        channel = table_channel(table_id)
        self._wanted.add(channel)
        BUS_TABLES_FOLLOWED.set(len(self._wanted))
        pubsub = self._pubsub
        if channel in self._confirmed or pubsub is None:
            return  # heard already; or the bus is down, and its next subscription resyncs
        waiter = self._waiters.get(channel)
        if waiter is None:
            waiter = self._waiters[channel] = asyncio.get_running_loop().create_future()
            try:
                await pubsub.ssubscribe(channel)
            except (RedisError, OSError):
                self._waiters.pop(channel, None)
                if being_cancelled():
                    raise asyncio.CancelledError from None
                return  # the subscription is failing: run() makes it again, then resyncs
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self._confirm_timeout):
                await asyncio.shield(waiter)

    async def unfollow(self, table_id: str) -> None:
        channel = table_channel(table_id)
        self._wanted.discard(channel)
        BUS_TABLES_FOLLOWED.set(len(self._wanted))
        pubsub = self._pubsub
        # Forgotten at once, not on Redis's confirmation: a follow meanwhile subscribes anew.
        if channel in self._confirmed and pubsub is not None:
            self._confirmed.discard(channel)
            with contextlib.suppress(RedisError, OSError):
                await pubsub.sunsubscribe(channel)  # if it fails, so does the subscription

    async def _subscribe(self, pubsub: PubSub) -> None:
        """The site's channel and every followed table's; returns once Redis confirmed them
        all, so that a resync after it reads every commit the bus will not tell. Notices that
        come before are dropped: the resync reads what they said."""
        await pubsub.subscribe(CHANNEL)
        self._pubsub = pubsub
        pending = {CHANNEL, *self._wanted}
        if self._wanted:
            await pubsub.ssubscribe(*self._wanted)
        while pending:
            message = await pubsub.get_message(timeout=self._confirm_timeout)
            if message is None:
                raise TimeoutError(f"{len(pending)} subscriptions not confirmed")
            if message["type"] in ("subscribe", "ssubscribe"):
                pending.discard(_channel(message))
            await self._on_subscription(pubsub, message)

    async def _on_subscription(self, pubsub: PubSub, message: dict[str, Any]) -> None:
        """Redis confirmed a (un)subscription: wake the follow waiting on it, and catch up
        with a follow or unfollow that came meanwhile."""
        kind = message["type"]
        channel = _channel(message)
        if kind == "ssubscribe":
            self._confirmed.add(channel)
            waiter = self._waiters.pop(channel, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
            if channel not in self._wanted:  # unfollowed before Redis confirmed
                self._confirmed.discard(channel)
                await pubsub.sunsubscribe(channel)
        elif (
            kind == "sunsubscribe"
            and channel in self._wanted
            and channel not in self._confirmed
            and channel not in self._waiters
        ):
            await pubsub.ssubscribe(channel)  # followed again, and no subscription is on its way

    def _unsubscribed(self) -> None:
        self._pubsub = None
        self._confirmed.clear()
        for waiter in self._waiters.values():
            if not waiter.done():
                waiter.set_result(None)  # the next subscription resyncs the table
        self._waiters.clear()

    # Delivering ---------------------------------------------------------------------------

    async def run(self, handler: Handler) -> None:
        delay = self._retry_min
        while True:
            pubsub = self._client.pubsub()
            try:
                await self._subscribe(pubsub)
                self._subscriptions += 1
                if self._subscriptions > 1:
                    BUS_RECONNECTS.inc()
                await self._resync(handler)
                self._set_healthy(True)
                delay = self._retry_min
                async for message in pubsub.listen():
                    self.last_notice_at = self._clock()
                    if message["type"] in ("message", "smessage"):
                        await self._deliver(message["data"], handler)
                    else:
                        await self._on_subscription(pubsub, message)
                log.warning("bus unsubscribed", extra={"retry_s": delay})
            except asyncio.CancelledError:
                raise
            except Exception as e:
                _failed("bus disconnected", e, delay)
            finally:
                self._set_healthy(False)
                self._unsubscribed()
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]  # untyped upstream
            await asyncio.sleep(delay)
            delay = min(self._retry_max, delay * 2)

    async def _deliver(self, data: bytes, handler: Handler) -> None:
        table_id: str | None = None
        try:
            notice = json.loads(data)
            table_id = notice.get("table_id")
            kind = notice.get("kind")
            BUS_NOTICES.labels(kind=kind if kind in BUS_NOTICE_KINDS else "other").inc()
            await handler(notice)
            self._observe_delay(notice)
        except asyncio.CancelledError:
            raise
        except Exception:
            if being_cancelled():
                raise asyncio.CancelledError from None
            # This notice may be lost for some seats: catch them up from the store — only
            # its table's (a notice's failure under overload once resynced every table the
            # replica held, and added thousands of reads to the overload: issue 27).
            log.exception("notice failed: resync", extra={"table_id": table_id})
            if table_id is not None:
                try:
                    await handler({"kind": "resync", "table_id": table_id})
                    return
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    _failed("table resync failed: resync every table", e, 0.0)
            self._set_healthy(False)
            await self._resync(handler)
            self._set_healthy(True)

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
