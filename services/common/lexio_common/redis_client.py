"""One way for every service to open its Redis client.

Bounded waits; no automatic retry (a retried compare-and-set whose reply was lost would report
a false conflict or, worse, run twice); and redis-py's maintenance notifications off: with them
on (its default for RESP3) the pool skips its check that an idle connection is still open, and
the first call after a Redis restart fails although Redis is back.

The one retry there is, :class:`Retrying`, is of a command Redis provably did not run: a
Redis Cluster's passing states (a slot in motion, a failover) answer that way, and a call that
meets one is sent again for a moment before it is answered as unavailable (issue 40).

On a Redis Cluster every command that names a key is sent to its key's master, always
(:class:`_RoutedByKey`; redis-py 8.1, in the moment after it reloaded its map of the slots,
sent such commands to a random master, which answered "no such key" during a migration).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import redis.asyncio as aioredis
from redis._parsers.commands import CommandPolicies, RequestPolicy, ResponsePolicy
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.commands.policies import AsyncPolicyResolver, AsyncStaticPolicyResolver
from redis.exceptions import (
    AskError,
    ClusterDownError,
    ClusterError,
    RedisClusterException,
    RedisError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.maint_notifications import MaintNotificationsConfig

log = logging.getLogger(__name__)

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
    the caller's next command goes to the promoted replica. It sends every command naming a
    key to the key's master (:class:`_RoutedByKey`), and learns a slot's new master from its
    MOVED alone: redis-py's default, a reload of the whole map every 5th MOVED, closed every
    connection of the client, failing the calls in flight on every master (a slot in motion,
    whose ASK redis-py 8.1 often follows on the wrong connection, answers MOVED many times).

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
            f"{CLUSTER_SCHEMES[scheme]}://{rest}",
            max_connections=MAX_CONNECTIONS,
            policy_resolver=_RoutedByKey(),
            reinitialize_steps=0,
            **options,
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


class _RoutedByKey(AsyncPolicyResolver):
    """Where redis-py's cluster client sends a command: by its key's slot whenever it has
    keys, as it does itself — except in the moment after it closed its connections to reload
    its map (after a CLUSTERDOWN; by default also every 5th MOVED), when it has no default
    node: redis-py 8.1 then sends a command its tables do not list to a random master.
    During a slot's migration the target may get it on a connection that an earlier ASK left
    ASKING (redis-py sends ASKING and the command on two connections of its pool), and it
    serves it from the half of the slot it has: a table, a code, a seat token "not found"
    (the lobby's ``unknown_table``, the gateway's ``bad_token``).
    tests/lobby/test_lobby_cluster_moves.py makes that state.

    The commands redis-py's tables list (PING, CONFIG GET, SCRIPT LOAD, WAIT...) keep their
    own routing; every other command is routed by its keys (a command without one fails at
    once, "Missing key", as it always did)."""

    _KEYED: Final = CommandPolicies(
        request_policy=RequestPolicy.DEFAULT_KEYED, response_policy=ResponsePolicy.DEFAULT_KEYED
    )

    def __init__(self) -> None:
        self._known = AsyncStaticPolicyResolver()

    async def resolve(self, command_name: str) -> CommandPolicies | None:
        known = await self._known.resolve(command_name)
        if known is not None or command_name.upper() in aioredis.RedisCluster.COMMAND_FLAGS:
            return known
        return self._KEYED

    def with_fallback(self, fallback: AsyncPolicyResolver) -> AsyncPolicyResolver:
        """Itself: every command resolves here, a fallback would never be asked."""
        return self


RETRY_REASONS: Final = ("redirected", "cluster_down", "slot_not_covered", "refused")
"""Why a command provably did not run (:func:`not_run`): a bounded label set for counters."""

RETRY_AFTER: Final = 1.0
"""Seconds a caller is told to wait when a cluster's passing state outlasted the retries."""


def not_run(error: BaseException) -> str | None:
    """Which of :data:`RETRY_REASONS` proves that the command ``error`` ended never ran on
    Redis, so that sending it again cannot apply it twice; None when it may have run (a reply
    lost, a connection closed after the command went out) or is no Redis error.

    * ``redirected``: ASK, MOVED or TRYAGAIN came back, or redis-py gave up following them
      ("TTL exhausted": it only goes on after those answers). A slot in motion.
    * ``cluster_down``: CLUSTERDOWN or MASTERDOWN came back: a master failed, no heir yet.
    * ``slot_not_covered``: redis-py found no master for the slot in its map: nothing sent.
    * ``refused``: the connection was refused before anything was sent: a master just died.

    >>> not_run(TryAgainError("Multiple keys request during rehashing of slot"))
    'redirected'
    >>> not_run(RedisConnectionError("Connection closed by server.")) is None
    True
    """
    if isinstance(error, AskError | TryAgainError):  # MovedError is an AskError
        return "redirected"
    if isinstance(error, ClusterDownError):
        return "cluster_down"
    if type(error) is ClusterError:  # redis-py's "TTL exhausted."
        return "redirected"
    if isinstance(error, SlotNotCoveredError):
        return "slot_not_covered"
    if isinstance(error, RedisConnectionError) and isinstance(
        error.__context__, ConnectionRefusedError
    ):
        return "refused"
    return None


def _uncounted(reason: str) -> None:
    """A retry nobody counts."""


@dataclass(frozen=True)
class Retrying:
    """A call sent again, for at most ``within`` seconds, while each try fails in a way that
    proves the command did not run (:func:`not_run`): a Redis Cluster's passing states — a
    slot in motion, a master being replaced — answer that way for a moment, and a caller
    should not be refused for them. Anything else fails at once (a reply lost may hide a
    change made: sending a compare-and-set again would report a false conflict). ``on_retry``
    is told each retry's reason (one of :data:`RETRY_REASONS`), for a counter."""

    within: float = 1.0
    first_delay: float = 0.05
    max_delay: float = 0.25
    on_retry: Callable[[str], None] = _uncounted

    async def call(
        self,
        make: Callable[[], Awaitable[T]],
        unavailable: Callable[[str, float | None], Exception],
        what: str,
    ) -> T:
        """``make()``'s result. A failure raises ``unavailable(message, retry_after)`` as
        :func:`guard` does, ``retry_after`` being :data:`RETRY_AFTER` when the last try
        provably did not run (a passing state outlasted the retries) and None otherwise."""
        started = time.monotonic()
        delay = self.first_delay
        retries: list[str] = []
        while True:
            try:
                result = await make()
            except Exception as e:  # classified, then raised through guard as ever
                reason = not_run(e)
                task = asyncio.current_task()
                waited = time.monotonic() - started
                if (
                    reason is None
                    or waited + delay > self.within
                    or (task is not None and task.cancelling())
                ):
                    if retries:
                        log.warning(
                            "redis call retried, still failing: answered as unavailable",
                            extra=_retried(what, retries, reason or "other", waited),
                        )
                    after = RETRY_AFTER if reason is not None else None
                    return await guard(
                        _raise(e), functools.partial(_with_retry_after, unavailable, after)
                    )
                retries.append(reason)
                self.on_retry(reason)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.max_delay)
                continue
            if retries:
                log.info(
                    "redis call retried, then answered",
                    extra=_retried(what, retries, "ok", time.monotonic() - started),
                )
            return result


def _retried(what: str, retries: list[str], outcome: str, waited: float) -> dict[str, Any]:
    return {
        "what": what,
        "retries": len(retries),
        "reasons": sorted(set(retries)),
        "outcome": outcome,
        "waited_s": round(waited, 3),
    }


async def _raise(error: Exception) -> Any:
    raise error


def _with_retry_after(
    unavailable: Callable[[str, float | None], Exception], retry_after: float | None, message: str
) -> Exception:
    return unavailable(message, retry_after)


async def guard(call: Awaitable[T], unavailable: Callable[[str], Exception]) -> T:
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
