"""One way for every service to open its Redis client.

Bounded waits; no automatic retry (a retried compare-and-set whose reply was lost would report
a false conflict or, worse, run twice); and redis-py's maintenance notifications off: with them
on (its default for RESP3) the pool skips its check that an idle connection is still open, and
the first call after a Redis restart fails although Redis is back.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable
from typing import Any, Final, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisClusterException, RedisError
from redis.maint_notifications import MaintNotificationsConfig

T = TypeVar("T")


CLUSTER_SCHEMES: Final = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
"""A URL in one of these schemes names a Redis Cluster (any of its nodes; the client finds
the others), e.g. ``redis+cluster://redis-cluster:6379``."""


MAX_CONNECTIONS: Final = 100
"""Connections one client opens at most to one Redis (each master of a cluster). A call that
finds them all busy waits for one, as long as a call may take, rather than fail: a burst of
calls is queued, not refused. (redis-py's own pool refuses the call at once: under 2,000 tables
a notice's read failed with "Too many connections", issue 36.)"""


def is_cluster_url(url: str) -> bool:
    """
    >>> is_cluster_url("redis+cluster://redis:6379"), is_cluster_url("redis://redis:6379/0")
    (True, False)
    """
    return url.split("://", 1)[0] in CLUSTER_SCHEMES


def connect(
    url: str, *, timeout: float, name: str, text: bool, subscriber: bool = False
) -> aioredis.Redis | aioredis.RedisCluster:
    """A client for ``url`` (no I/O yet): a Redis Cluster's (:data:`CLUSTER_SCHEMES`), else
    one Redis's. ``text``: replies decoded to str. A ``subscriber`` waits for messages as long
    as it takes (its reads have no timeout; pings find dead peers). ValueError for a URL
    redis-py cannot read.

    A cluster client follows MOVED and ASK (the command did not run), and refreshes its map
    of the slots after a connection error, but does not retry the failed command either:
    the caller's next command goes to the promoted replica.

    A call that finds the client's :data:`MAX_CONNECTIONS` busy waits up to ``timeout`` for
    one (then a ConnectionError "No connection available.")."""
    options: dict[str, Any] = {
        "decode_responses": text,
        "socket_timeout": None if subscriber else timeout,
        "socket_keepalive": True,
        "health_check_interval": 10 if subscriber else 0,
        "socket_connect_timeout": timeout,
        "retry": Retry(NoBackoff(), 0),
        "maint_notifications_config": MaintNotificationsConfig(enabled=False),
        "client_name": name,
    }
    scheme, _, rest = url.partition("://")
    if scheme in CLUSTER_SCHEMES:
        # redis-py's cluster client has no waiting pool: past MAX_CONNECTIONS to one master a
        # call fails (MaxConnectionsError, a store unavailable for that call).
        return aioredis.RedisCluster.from_url(
            f"{CLUSTER_SCHEMES[scheme]}://{rest}", max_connections=MAX_CONNECTIONS, **options
        )
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=MAX_CONNECTIONS, timeout=timeout, **options
    )
    return aioredis.Redis.from_pool(pool)


def node_url(url: str, host: str, port: int) -> str:
    """The URL of one node of the cluster ``url`` names: its user, password and TLS, that
    node's address.

    >>> node_url("redis+cluster://:pw@redis:6379", "10.0.0.7", 6380)
    'redis://:pw@10.0.0.7:6380'
    """
    scheme, _, rest = url.partition("://")
    address_start = rest.rfind("@", 0, rest.find("/") if "/" in rest else len(rest)) + 1
    end = rest.find("/", address_start)
    tail = rest[end:] if end >= 0 else ""
    return f"{CLUSTER_SCHEMES.get(scheme, scheme)}://{rest[:address_start]}{host}:{port}{tail}"


def connect_one(
    url: str, *, timeout: float, name: str, text: bool, subscriber: bool = False
) -> aioredis.Redis:
    """:func:`connect` where only one Redis will do: ValueError for a cluster's URL."""
    client = connect(url, timeout=timeout, name=name, text=text, subscriber=subscriber)
    if not isinstance(client, aioredis.Redis):
        raise ValueError("a single Redis is needed here, not a cluster")
    return client


async def guard(call: Awaitable[T], unavailable: type[Exception]) -> T:
    """Await ``call``; any Redis or socket failure becomes ``unavailable`` (the service's own
    "the store cannot answer now"), so callers have one error to handle. That includes
    redis-py's ``BusyLoadingError`` while a restarted Redis loads its data, and a cluster
    client's errors outside RedisError (no node reachable, a slot not served: a failover).

    Except in a task being cancelled: redis-py (8.1) sometimes reports a cancelled call as a
    ConnectionError, which would lose the cancellation (a stopping service would wait for ever
    on a loop that thinks Redis is down)."""
    try:
        return await call
    except (RedisError, RedisClusterException, OSError, AttributeError) as e:
        if isinstance(e, AttributeError) and not _connection_closed_under_it(e):
            raise
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise asyncio.CancelledError from e
        raise unavailable(f"redis: {e}") from e


def _connection_closed_under_it(error: AttributeError) -> bool:
    """redis-py 8.1's cluster client, handling a dead node, closes the node's connections
    while other calls are using them: those fail with an AttributeError on the closed
    connection's stream (None), raised inside redis-py (bench/cluster_failover_bench.py, a
    master killed under 200 tables' commits). That is a failed call, not a bug of ours."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = tb.tb_frame.f_code.co_filename if tb is not None else ""
    return error.obj is None and f"{os.sep}redis{os.sep}asyncio{os.sep}" in where
