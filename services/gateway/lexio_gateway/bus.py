"""How a table's news reaches every gateway replica that holds one of its players.

A notice is a small JSON object with a ``kind`` (``event``, ``changed``, ``confirmed``,
``seats``, ``presence``, ``taken``, ``who``, ``here``, ``alive``; ``resync``: "you may have
missed notices", of one table or of all). With one gateway the bus is a queue in the process;
with several, Redis carries it:

- each table's notices go on **its own shard channel** (:mod:`lexio_gateway.redis_layout`,
  Redis 7's ``SPUBLISH``/``SSUBSCRIBE``), to which only the replicas that hold the table subscribe
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
from redis.cluster import PRIMARY
from redis.crc import key_slot
from redis.exceptions import RedisClusterException, RedisError

from lexio_common.supervise import being_cancelled
from lexio_gateway.games.contract import GameUnavailableError
from lexio_gateway.metrics import (
    BUS_CONNECTED,
    BUS_LAST_NOTICE_AGE,
    BUS_NOTICE_DELAY,
    BUS_NOTICE_FAILURES,
    BUS_NOTICE_KINDS,
    BUS_NOTICES,
    BUS_RECONNECTS,
    BUS_RESYNCS_REPUBLISHED,
    BUS_TABLES_FOLLOWED,
)
from lexio_gateway.redis_layout import RedisLayout
from lexio_gateway.store import StoreUnavailableError

log = logging.getLogger(__name__)

Notice = dict[str, Any]
Handler = Callable[[Notice], Awaitable[None]]
CHANNEL: Final = "lexio:gw:bus"
"""The site's channel: heartbeats, and the notices of replicas of releases before issue 28
(during a rolling update)."""
ORIGIN: Final = secrets.token_hex(4)
"""Who committed a notice: this process. A replica is a process (its metrics are too), so the
store that stamps its commits and the bus that hears them agree on it without being wired
together; gateways sharing one process (tests) count each other's notices as their own."""


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


NodeClient = Callable[[str, int], aioredis.Redis]
"""A subscriber's client for one node of a Redis Cluster (host, port), as the bus's URL says
how to reach it (password, TLS)."""


class _MovedError(Exception):
    """A shard channel's slot went to another node (a reshard): its link subscribes again."""


class _Link:
    """One subscribing connection and what it subscribes to: on one Redis, the site's channel
    and every followed table's; on a cluster, the followed tables whose slots one master
    serves (or, for the site's link, the site's channel on any node)."""

    def __init__(self, node: str, site: bool) -> None:
        self.node = node
        self.site = site
        self.pubsub: PubSub | None = None
        self.down = site
        """Not hearing what it should: the site's link until it first subscribed, any link
        from a failure until it subscribed again (a link still making its first
        subscription misses nothing: a follow waits for it)."""
        self.wanted: set[str] = set()
        """The channels of the followed tables routed here."""
        self.confirmed: set[str] = set()
        """Of those, the ones Redis confirmed on the current subscription."""
        self.waiters: dict[str, asyncio.Future[None]] = {}
        """A follow waiting for Redis's confirmation, by channel."""
        self.task: asyncio.Task[None] | None = None

    def unsubscribed(self) -> None:
        # Its waiters wait on (for the next subscription's confirmation, or their time-out):
        # a follow that returned now would let its table's next notice be missed, and a
        # resync cannot read a `seats` notice again.
        self.pubsub = None
        self.confirmed.clear()


class RedisBus:
    """Several replicas: Redis pub/sub, the site's channel and a shard channel per followed
    table. Pub/sub keeps nothing for a subscriber that is away, so after every
    (re)subscription — once Redis confirmed every channel — the handler gets ``resync`` and
    catches up from the store, which does keep every event.

    On one Redis one connection subscribes to everything. On a Redis Cluster a table's shard
    channel is served by the master of its slot: one connection per such master, and one for
    the site's channel (classic pub/sub reaches every node). When a master dies (its replica
    promoted) or a slot moves (a reshard: Redis then unsubscribes its channels), the
    connection's channels are routed again by the cluster's new map of slots, subscribed where
    they now are, and every table resynced.

    Nothing ends :meth:`run` but cancellation: a lost connection, a failed resync (Redis
    answers SUBSCRIBE while it is still loading its data, and reads only later) or a failed
    notice is logged and retried with backoff; a failed notice of one table resyncs that table.
    :attr:`healthy` says whether this replica hears the others now: every connection
    subscribed, and caught up since."""

    def __init__(
        self,
        client: aioredis.Redis | aioredis.RedisCluster,
        retry_min: float = 0.1,
        retry_max: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        *,
        wall_clock: Callable[[], float] = time.time,
        origin: str = ORIGIN,
        confirm_timeout: float = 2.0,
        node_client: NodeClient | None = None,
    ) -> None:
        """``client`` publishes, and on one Redis subscribes too; on a cluster
        ``node_client`` gives each master's subscriber. ``wall_clock`` is compared with the
        commits' Redis TIME (``committed_at``); ``confirm_timeout`` bounds the wait for Redis
        to confirm a subscription."""
        self._client = client
        self._cluster = client if isinstance(client, aioredis.RedisCluster) else None
        if self._cluster is not None and node_client is None:
            raise ValueError("a bus on a Redis Cluster needs a client for each of its nodes")
        self._node_client = node_client
        self.layout = RedisLayout(cluster=self._cluster is not None)
        self._retry_min = retry_min
        self._retry_max = retry_max
        self._clock = clock
        self._wall_clock = wall_clock
        self._origin = origin
        self._confirm_timeout = confirm_timeout
        self._healthy = False
        self._subscriptions = 0
        self._site = _Link("", site=True)
        self._links: dict[str, _Link] = {}
        """The tables' links by node (one Redis: the site's link, under "")."""
        if self._cluster is None:
            self._links[""] = self._site
        self._handler: Handler | None = None
        self._refollowing: set[asyncio.Task[None]] = set()
        self._owed: set[str] = set()
        """Tables whose notice could not be published: a ``resync`` of each is owed to the
        other replicas, published by :meth:`_pay_owed` once Redis takes it."""
        self._paying: asyncio.Task[None] | None = None
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
        return frozenset(
            self.layout.table_of_channel(channel)
            for link in self._links.values()
            for channel in link.wanted
        )

    def _notice_age(self) -> float:
        if self.last_notice_at is None:
            return float("nan")
        return self._clock() - self.last_notice_at

    def _update_health(self) -> None:
        healthy = not self._site.down and not any(link.down for link in self._links.values())
        if healthy != self._healthy:
            log.info("bus healthy" if healthy else "bus down", extra={"healthy": healthy})
        self._healthy = healthy
        BUS_CONNECTED.set(int(healthy))

    def _count_followed(self) -> None:
        BUS_TABLES_FOLLOWED.set(sum(len(link.wanted) for link in self._links.values()))

    async def close(self) -> None:
        if self._paying is not None:
            self._paying.cancel()
        await self._client.aclose()

    async def publish(self, notice: Notice) -> None:
        table_id = notice.get("table_id")
        data = json.dumps(notice)
        try:
            if table_id is None:
                await self._client.publish(CHANNEL, data)
            else:
                await self._client.spublish(self.layout.channel(table_id), data)
        except (RedisError, OSError) as e:
            if being_cancelled():
                # redis-py may report the cancelled call as an error: returning would lose
                # the cancellation, and the keep-alive loop would never stop.
                raise asyncio.CancelledError from None
            log.warning("publish failed", extra={"kind": notice.get("kind"), "error": str(e)})
            if table_id is not None:
                # The other replicas would miss it until their next resync, and a table whose
                # seats wait for that notice has no next event to repair it (each seat on
                # another replica sees the other's turn): a resync of the table is owed to
                # them, published as soon as Redis takes it (a failover's new master).
                self._owe_resync(table_id)

    def _owe_resync(self, table_id: str) -> None:
        self._owed.add(table_id)
        if self._paying is None or self._paying.done():
            self._paying = asyncio.get_running_loop().create_task(self._pay_owed())

    async def _pay_owed(self) -> None:
        """Publish a ``resync`` of each table owed one, with backoff, until all are out."""
        delay = self._retry_min
        while self._owed:
            await asyncio.sleep(delay)
            for table_id in sorted(self._owed):
                notice = {"kind": "resync", "table_id": table_id}
                try:
                    await self._client.spublish(self.layout.channel(table_id), json.dumps(notice))
                except (RedisError, RedisClusterException, OSError) as e:
                    if being_cancelled():
                        raise asyncio.CancelledError from None
                    _failed("owed resync not published yet", e, delay)
                    break
                self._owed.discard(table_id)
                BUS_RESYNCS_REPUBLISHED.inc()
            delay = min(self._retry_max, delay * 2)

    # Following tables ---------------------------------------------------------------------

    def _link_of(self, channel: str) -> _Link:
        """The link a channel is routed to now (on a cluster, by the client's map of slots:
        a link of a master that is no more finds out when it fails, and routes again)."""
        if self._cluster is None:
            return self._site
        try:
            node = self._cluster.nodes_manager.get_node_from_slot(key_slot(channel.encode()))
            name = node.name
        except (RedisError, RedisClusterException, KeyError):
            name = "?"  # no map yet, or the slot is not covered: the next routing places it
        link = self._links.get(name)
        if link is None:
            link = self._links[name] = _Link(name, site=False)
            if self._handler is not None:
                self._start(link)
        return link

    async def follow(self, table_id: str) -> None:
        channel = self.layout.channel(table_id)
        if any(channel in link.wanted for link in self._links.values()):
            link = next(link for link in self._links.values() if channel in link.wanted)
        else:
            link = self._link_of(channel)
            link.wanted.add(channel)
        self._count_followed()
        pubsub = link.pubsub
        if channel in link.confirmed:
            return  # heard already
        if pubsub is None and (self._cluster is None or link.task is None):
            return  # the link is down, and its next subscription resyncs
        waiter = link.waiters.get(channel)
        if waiter is None:
            waiter = link.waiters[channel] = asyncio.get_running_loop().create_future()
            try:
                # A link still connecting (on a cluster, the first table of a master)
                # subscribes to it with the others: wait for that, as for this.
                if pubsub is not None:
                    await pubsub.ssubscribe(channel)
            except (RedisError, OSError):
                link.waiters.pop(channel, None)
                if being_cancelled():
                    raise asyncio.CancelledError from None
                return  # the subscription is failing: its link makes it again, then resyncs
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self._confirm_timeout):
                await asyncio.shield(waiter)
        if not waiter.done() and link.waiters.get(channel) is waiter:
            del link.waiters[channel]  # a later follow asks again rather than wait on this one

    async def unfollow(self, table_id: str) -> None:
        channel = self.layout.channel(table_id)
        for link in self._links.values():
            if channel not in link.wanted:
                continue
            link.wanted.discard(channel)
            waiter = link.waiters.pop(channel, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
            pubsub = link.pubsub
            # Forgotten at once, not on Redis's confirmation: a follow meanwhile subscribes
            # anew.
            if channel in link.confirmed and pubsub is not None:
                link.confirmed.discard(channel)
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.sunsubscribe(channel)  # if it fails, so does the link
        self._count_followed()

    async def _subscribe(self, link: _Link, pubsub: PubSub) -> list[dict[str, Any]]:
        """The link's channels; returns once Redis confirmed them all, so that a resync
        after it reads every commit the bus will not tell, with the notices that came
        meanwhile: a follow confirmed before the others may already have been answered, and
        its table's next notice be one a resync cannot read again (``seats``, ``taken``)."""
        # Connected before a follow can use it: two first commands at once would each open a
        # connection, and the one kept would not be the other's (its messages never read).
        await pubsub.connect()  # type: ignore[no-untyped-call]  # untyped upstream
        link.pubsub = pubsub
        pending = set(link.wanted)
        if link.site:
            await pubsub.subscribe(CHANNEL)
            pending.add(CHANNEL)
        if link.wanted:
            for channels in self._by_slot(link.wanted):
                await pubsub.ssubscribe(*channels)
        early: list[dict[str, Any]] = []
        while pending:
            message = await pubsub.get_message(timeout=self._confirm_timeout)
            if message is None:
                raise TimeoutError(f"{len(pending)} subscriptions not confirmed")
            if message["type"] in ("message", "smessage"):
                early.append(message)
                continue
            if message["type"] in ("subscribe", "ssubscribe"):
                pending.discard(_channel(message))
            await self._on_subscription(link, pubsub, message)
        return early

    def _by_slot(self, channels: set[str]) -> list[list[str]]:
        """One SSUBSCRIBE takes channels of one slot only, on a cluster."""
        if self._cluster is None:
            return [sorted(channels)]
        slots: dict[int, list[str]] = {}
        for channel in channels:
            slots.setdefault(key_slot(channel.encode()), []).append(channel)
        return list(slots.values())

    async def _on_subscription(self, link: _Link, pubsub: PubSub, message: dict[str, Any]) -> None:
        """Redis confirmed a (un)subscription: wake the follow waiting on it, and catch up
        with a follow or unfollow that came meanwhile."""
        kind = message["type"]
        channel = _channel(message)
        if kind == "ssubscribe":
            link.confirmed.add(channel)
            waiter = link.waiters.pop(channel, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
            if channel not in link.wanted:  # unfollowed before Redis confirmed
                link.confirmed.discard(channel)
                await pubsub.sunsubscribe(channel)
        elif kind == "sunsubscribe" and channel in link.wanted and channel not in link.waiters:
            if channel in link.confirmed and self._cluster is not None:
                # Redis's own: the slot moved to another node.
                raise _MovedError(channel)
            if channel not in link.confirmed:
                await pubsub.ssubscribe(channel)  # followed again, and none on its way

    # Delivering ---------------------------------------------------------------------------

    async def run(self, handler: Handler) -> None:
        self._handler = handler
        try:
            if self._cluster is None:
                await self._run_link(self._site)
                return
            for link in list(self._links.values()):
                self._start(link)
            await self._run_link(self._site)
        finally:
            self._handler = None
            for link in self._links.values():
                if link.task is not None:
                    link.task.cancel()
                    link.task = None
            for task in self._refollowing:
                task.cancel()

    def _start(self, link: _Link) -> None:
        link.task = asyncio.get_running_loop().create_task(self._run_link(link))

    async def _connect(self, link: _Link) -> aioredis.Redis:
        """The client a link subscribes with (on a cluster, to its master now)."""
        if self._cluster is None:
            assert isinstance(self._client, aioredis.Redis)
            return self._client
        assert self._node_client is not None
        node = (
            self._cluster.get_random_node()
            if link.site
            else self._cluster.nodes_manager.nodes_cache.get(link.node)
        )
        if node is None or (not link.site and node.server_type != PRIMARY):
            raise _MovedError(link.node)
        return self._node_client(node.host, int(node.port))

    async def _run_link(self, link: _Link) -> None:
        delay = self._retry_min
        while True:
            client: aioredis.Redis | None = None
            pubsub: PubSub | None = None
            try:
                if self._cluster is not None:
                    await self._route_again(link)
                    if not link.site and not link.wanted:
                        return  # its master serves no table followed here (any more)
                client = await self._connect(link)
                pubsub = client.pubsub()
                early = await self._subscribe(link, pubsub)
                self._subscriptions += 1
                if self._subscriptions > 1:
                    BUS_RECONNECTS.inc()
                assert self._handler is not None
                await self._resync(self._handler)
                link.down = False
                self._update_health()
                delay = self._retry_min
                for message in early:
                    await self._deliver(message["data"], self._handler)
                async for message in pubsub.listen():
                    self.last_notice_at = self._clock()
                    if message["type"] in ("message", "smessage"):
                        await self._deliver(message["data"], self._handler)
                    else:
                        await self._on_subscription(link, pubsub, message)
                if link.site or link.wanted:
                    log.warning("bus unsubscribed", extra={"retry_s": delay})
                    link.down = True
                # else: a cluster's link whose last table was let go (it ends below)
            except asyncio.CancelledError:
                raise
            except _MovedError as e:
                log.info("bus: channels moved", extra={"node": link.node, "channel": str(e)})
                link.down = True
                delay = 0.0
            except Exception as e:
                link.down = True
                _failed("bus disconnected", e, delay)
            finally:
                link.unsubscribed()
                self._update_health()
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()  # type: ignore[no-untyped-call]  # untyped upstream
                if client is not None and client is not self._client:
                    with contextlib.suppress(Exception):
                        await client.aclose()
            await asyncio.sleep(delay)
            delay = min(self._retry_max, max(self._retry_min, delay * 2))

    async def _route_again(self, link: _Link) -> None:
        """On a cluster, before a link (re)subscribes: read the map of slots again, and
        move each of its channels to the link of the master serving its slot now. A channel
        moved to a link already subscribed is followed there (its table resynced once Redis
        confirmed it: its notices since this link failed are lost); the others come with
        their link's own subscription, which resyncs every table."""
        assert self._cluster is not None
        await self._cluster.nodes_manager.initialize()
        for channel in list(link.wanted):
            owner = self._link_of(channel)
            if owner is link:
                continue
            link.wanted.discard(channel)
            table_id = self.layout.table_of_channel(channel)
            if owner.pubsub is not None:
                self._spawn_refollow(table_id)
            else:
                owner.wanted.add(channel)
        if not link.site and not link.wanted:
            self._links.pop(link.node, None)
            self._update_health()

    def _spawn_refollow(self, table_id: str) -> None:
        async def refollow() -> None:
            await self.follow(table_id)
            if self._handler is not None:
                try:
                    await self._handler({"kind": "resync", "table_id": table_id})
                except Exception as e:
                    _failed("table resync failed: resync every table", e, 0.0)
                    await self._resync(self._handler)

        task = asyncio.get_running_loop().create_task(refollow())
        self._refollowing.add(task)
        task.add_done_callback(self._refollowing.discard)

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
        except Exception as e:
            if being_cancelled():
                raise asyncio.CancelledError from None
            # This notice may be lost for some seats: catch them up from the store — only
            # its table's (a notice's failure under overload once resynced every table the
            # replica held, and added thousands of reads to the overload: issue 27).
            _notice_failed(e, table_id)
            if table_id is not None:
                try:
                    await handler({"kind": "resync", "table_id": table_id})
                    return
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    _failed("table resync failed: resync every table", e, 0.0)
            self._healthy = False
            BUS_CONNECTED.set(0)
            await self._resync(handler)
            self._update_health()

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


def _notice_failed(error: Exception, table_id: str | None) -> None:
    """A notice not applied, its table about to be resynced: counted; an outage (the store or
    the game's engine cannot answer now, a read timed out under load) is a warning, as the
    bus's other expected failures are, anything else a bug, with its traceback."""
    if isinstance(error, StoreUnavailableError | GameUnavailableError):
        cause = (
            "store_unavailable" if isinstance(error, StoreUnavailableError) else "game_unavailable"
        )
        BUS_NOTICE_FAILURES.labels(cause=cause).inc()
        log.warning(
            "notice not applied: resync",
            extra={"table_id": table_id, "cause": cause, "error": _chain(error)},
        )
        return
    BUS_NOTICE_FAILURES.labels(cause="other").inc()
    log.error("notice failed: resync", extra={"table_id": table_id}, exc_info=error)


def _chain(error: BaseException) -> str:
    """The error and what caused it, one line: ``StoreUnavailableError: redis: Timeout
    reading from socket <- TimeoutError: Timeout reading from socket``."""
    parts: list[str] = []
    seen: BaseException | None = error
    while seen is not None and len(parts) < 4:
        parts.append(f"{type(seen).__name__}: {seen}"[:200])
        seen = seen.__cause__ or seen.__context__
    return " <- ".join(parts)


def _failed(what: str, error: Exception, retry_s: float) -> None:
    """A failure the bus retries after ``retry_s``: logged; unless the task is being
    cancelled (redis-py may report a cancelled call as an error), then it is a cancellation."""
    if being_cancelled():
        raise asyncio.CancelledError from None
    log.warning(what, extra={"error": f"{type(error).__name__}: {error}", "retry_s": retry_s})
