"""Tables and the join limit in Redis: what several lobby replicas share.

Selected by ``LEXIO_REDIS_URL``; the SQLite store stays the single-machine default. The key
layout, under a prefix (``LEXIO_LOBBY_REDIS_PREFIX``, default ``lexio:lobby:``):

* ``schema`` (string): the layout's version, ``1``. A prefix holding another version stops
  start-up, as a foreign SQLite file does.
* ``table:<table_id>`` (hash): one table — the SQLite store's columns, seats and options as
  the same JSON, times as exact float text (``repr``), ``close_reason`` empty when there is
  none. A hash written before table options existed has no ``options`` field and reads as no
  options; adding the field did not change the layout's version, since a lobby that does not
  know it ignores it (and never rewrites it: options are written only by *create*).
* ``code:<code>`` (string): the id of the table holding this canonical invite code. Written
  with ``SET NX``, so a code names one table across every replica, until the table is purged.
* ``state:open``, ``state:started``, ``state:closed`` (sorted sets): table ids scored by
  ``updated_at``, each table in the one set of its state. The sweep reads idle open tables and
  long-closed ones by score; the tables gauge is their sizes.
* ``joins:<caller>`` (sorted set): one caller's counted join attempts (a random ticket scored
  by the attempt's time), expiring one window after the last one.

**Atomicity.** Every write is one Lua script, and Redis runs a script alone and whole: a new
table, its code and its index entry appear together or not at all (and not at all if the id or
the code is taken); a replacement compares ``version`` and writes the hash and moves the index
entry only if it is unchanged, so two replicas racing on a table can never both apply a change;
a purge deletes a table, its code and its index entry together; the limiter trims, counts and
adds in one step, so a burst spread over replicas cannot overshoot. Reads that span keys
(code → table; index → tables) are not atomic, which the lobby tolerates by design: whatever
it reads, it writes back only through the compare-and-set.

**Failure.** Any Redis error (down, timeout, refusing writes) raises
:class:`~lexio_lobby.store.StoreUnavailableError`; the call changed nothing or, for a script
whose reply was lost, all of it. The client does not retry (a retried compare-and-set whose
first reply was lost would report a conflict for a change it made); its pool checks each
connection before use and reconnects, and scripts are loaded again after a Redis restart, so
the lobby resumes as soon as Redis answers. Nothing else is cached. The one exception: what a
player's call reads or writes (a table, a code, a change, a join attempt) is sent again for a
moment when Redis answered that it did not run it — a Redis Cluster's slot in motion (ASK,
MOVED, TRYAGAIN: every script of the lobby meets TRYAGAIN while its slot is split) or a
failover (CLUSTERDOWN, a connection refused) — and, if that outlasts the retries, answered
unavailable with a ``retry_after`` (:class:`lexio_common.redis_client.Retrying`; each retry
counted in ``lexio_lobby_store_retries_total``).

**Durability** is Redis's own: run it with ``appendonly yes`` and ``appendfsync everysec`` (or
``always``), and ``maxmemory-policy noeviction``. Start-up checks and warns otherwise. Redis
replicates asynchronously: with ``wait_replicas`` (``LEXIO_REDIS_WAIT_REPLICAS``, the gateway's
setting too) a new table and each change of one (a seat, the start) is answered only once that
many replicas have it (Redis's WAIT, after the script on its connection); one they did not
confirm in time raises :class:`~lexio_lobby.store.StoreUnavailableError` although the master
applied it, so that no reply promises what a failover can take back (docs/replicas.md).
"""

from __future__ import annotations

import logging
import math
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, TypeVar
from urllib.parse import urlsplit

import redis.asyncio as aioredis
from redis.exceptions import AuthenticationError, AuthorizationError, NoScriptError, RedisError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from lexio_common import redis_client
from lexio_common.redis_client import Retrying
from lexio_lobby.model import CloseReason, Table, TableState
from lexio_lobby.options import options_from_json, options_to_json
from lexio_lobby.ratelimit import DEFAULT_MAX_FAILURES, DEFAULT_WINDOW_SECONDS, Admission
from lexio_lobby.store import StoreError, StoreUnavailableError, seats_from_json, seats_to_json

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_PREFIX: Final = "lexio:lobby:"
CLUSTER_PREFIX: Final = "{lexio:lobby}:"
"""The default on a Redis Cluster: one hash tag, so that every script's keys (a table, its
code and the index of its state) share a slot. The lobby is then on one master (its writes
are a few per game, against one per move for the gateway: docs/scaling.md)."""
#: Seconds to connect, and to wait for any reply, before a call fails with store_unavailable.
DEFAULT_TIMEOUT: Final = 2.0
SCHEMA_VERSION: Final = "1"
#: Closed tables deleted per script run.
PURGE_BATCH: Final = 500
UNCOUNTED: Final = Retrying()
"""The default retries of a call Redis did not run; the server's count them (its metrics)."""

# KEYS: table, code, index of the table's state. ARGV: id, code, score, then field/value pairs.
_INSERT: Final = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if not redis.call('SET', KEYS[2], ARGV[1], 'NX') then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return 1
"""

# KEYS: table, state:open, state:started, state:closed.
# ARGV: expected version, id, new state, score, then field/value pairs.
_REPLACE: Final = """
local index = ({open = KEYS[2], started = KEYS[3], closed = KEYS[4]})[ARGV[3]]
if not index then return redis.error_reply('unknown state ' .. ARGV[3]) end
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('ZREM', KEYS[4], ARGV[2])
redis.call('ZADD', index, ARGV[4], ARGV[2])
return 1
"""

# KEYS: state:closed, then table and code key of each id. ARGV: bound (exclusive), ids.
_PURGE: Final = """
local bound = tonumber(ARGV[1])
local purged = 0
for i = 2, #ARGV do
  local id = ARGV[i]
  local score = redis.call('ZSCORE', KEYS[1], id)
  if score and tonumber(score) < bound then
    if redis.call('GET', KEYS[2 * i - 1]) == id then redis.call('DEL', KEYS[2 * i - 1]) end
    redis.call('DEL', KEYS[2 * i - 2])
    redis.call('ZREM', KEYS[1], id)
    purged = purged + 1
  end
end
return purged
"""

# KEYS: the caller's attempts. ARGV: now, now - window, max, ticket, TTL in ms.
_ADMIT: Final = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return {0, redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]}
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {1, ARGV[1]}
"""


class RedisKeys:
    """Every key the lobby uses, under one prefix."""

    def __init__(self, prefix: str = DEFAULT_PREFIX) -> None:
        if not prefix:
            raise ValueError("the Redis key prefix must not be empty")
        self.prefix = prefix
        self.schema = prefix + "schema"

    def table(self, table_id: str) -> str:
        return f"{self.prefix}table:{table_id}"

    def code(self, code: str) -> str:
        return f"{self.prefix}code:{code}"

    def state(self, state: TableState) -> str:
        return f"{self.prefix}state:{state.value}"

    def joins(self, caller: str) -> str:
        return f"{self.prefix}joins:{caller}"


def describe_url(url: str) -> str:
    """The URL without user, password or query (``?password=`` is allowed): safe to log."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "(unparsable URL)"
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}{port}{parts.path}"


def key_prefix(url: str, prefix: str = DEFAULT_PREFIX) -> str:
    """The prefix to use with ``url``: on a Redis Cluster the default becomes
    :data:`CLUSTER_PREFIX`, and another one must hold a hash tag (StoreError otherwise).

    >>> key_prefix("redis+cluster://redis:6379"), key_prefix("redis://redis:6379/0")
    ('{lexio:lobby}:', 'lexio:lobby:')
    """
    if not redis_client.is_cluster_url(url):
        return prefix
    if prefix == DEFAULT_PREFIX:
        return CLUSTER_PREFIX
    if not re.search(r"\{[^}]+\}", prefix):
        raise StoreError(
            f"on a Redis Cluster the lobby's key prefix needs a hash tag, as in "
            f"{CLUSTER_PREFIX!r}, not {prefix!r} (LEXIO_LOBBY_REDIS_PREFIX)"
        )
    return prefix


def connect(url: str, timeout: float = DEFAULT_TIMEOUT) -> aioredis.Redis | aioredis.RedisCluster:
    """A client for ``url`` (no I/O yet): text replies, bounded waits, no automatic retry."""
    try:
        return redis_client.connect(url, timeout=timeout, name="lexio-lobby", text=True)
    except ValueError as e:
        raise StoreError(f"bad Redis URL {describe_url(url)}: {e}") from None


async def _guard(call: Awaitable[T]) -> T:
    """Redis errors become StoreUnavailableError (see :func:`redis_client.guard`)."""
    return await redis_client.guard(call, StoreUnavailableError)


def _down(message: str, retry_after: float | None) -> StoreUnavailableError:
    """What :meth:`Retrying.call` raises for the lobby: the store is unavailable, for about
    ``retry_after`` seconds when that is known."""
    return StoreUnavailableError(message, retry_after=retry_after)


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _fields(table: Table) -> dict[str, str]:
    return {
        "table_id": table.table_id,
        "code": table.code,
        "game": table.game,
        "min_seats": str(table.min_seats),
        "max_seats": str(table.max_seats),
        "state": table.state.value,
        "seats": seats_to_json(table.seats),
        "created_at": repr(float(table.created_at)),
        "updated_at": repr(float(table.updated_at)),
        "version": str(table.version),
        "close_reason": table.close_reason.value if table.close_reason else "",
        "options": options_to_json(table.options),
    }


def _table(raw: Mapping[bytes | str, bytes | str]) -> Table | None:
    if not raw:
        return None
    f = {_text(k): _text(v) for k, v in raw.items()}
    return Table(
        table_id=f["table_id"],
        code=f["code"],
        game=f["game"],
        min_seats=int(f["min_seats"]),
        max_seats=int(f["max_seats"]),
        state=TableState(f["state"]),
        seats=seats_from_json(f["seats"]),
        created_at=float(f["created_at"]),
        updated_at=float(f["updated_at"]),
        version=int(f["version"]),
        close_reason=CloseReason(f["close_reason"]) if f["close_reason"] else None,
        options=options_from_json(f.get("options")),
    )


def _flat(pairs: Mapping[str, str]) -> list[str]:
    return [item for pair in pairs.items() for item in pair]


class RedisTableStore:
    """:class:`~lexio_lobby.store.TableStore` in Redis. Open it with :meth:`open`."""

    def __init__(
        self,
        client: aioredis.Redis | aioredis.RedisCluster,
        prefix: str = DEFAULT_PREFIX,
        *,
        wait_replicas: int = 0,
        wait_timeout: float = 0.5,
        retrying: Retrying = UNCOUNTED,
    ) -> None:
        """``wait_replicas``: how many of Redis's replicas must have a write before it is
        answered, waiting at most ``wait_timeout`` seconds. ``retrying``: how a player's call
        that Redis did not run (a cluster's passing state) is sent again."""
        self.client = client
        self.keys = RedisKeys(prefix)
        self._retrying = retrying
        self._wait_replicas = wait_replicas
        self._wait_ms = max(1, round(wait_timeout * 1000))
        self._insert = client.register_script(_INSERT)
        self._replace = client.register_script(_REPLACE)
        self._purge = client.register_script(_PURGE)

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        prefix: str = DEFAULT_PREFIX,
        timeout: float = DEFAULT_TIMEOUT,
        wait_replicas: int = 0,
        wait_timeout: float = 0.5,
        retrying: Retrying = UNCOUNTED,
    ) -> RedisTableStore:
        """Connect, check the schema version (setting it on a fresh prefix), and warn about a
        Redis that would not keep tables (no AOF, eviction). Unreachable: StoreError."""
        store = cls(
            connect(url, timeout),
            key_prefix(url, prefix),
            wait_replicas=wait_replicas,
            wait_timeout=wait_timeout,
            retrying=retrying,
        )
        try:
            await store._check(describe_url(url))
        except BaseException:
            await store.close()
            raise
        return store

    async def _check(self, where: str) -> None:
        try:
            await self.client.ping()
            await self.client.set(self.keys.schema, SCHEMA_VERSION, nx=True)
            stored = await self.client.get(self.keys.schema)
        except (AuthenticationError, AuthorizationError) as e:
            raise StoreError(f"cannot use Redis at {where}: {e}") from None
        except (RedisConnectionError, RedisTimeoutError, OSError) as e:
            raise StoreError(f"cannot reach Redis at {where}: {e}") from None
        except RedisError as e:
            raise StoreError(f"cannot use Redis at {where}: {e}") from None
        found = None if stored is None else _text(stored)
        if found != SCHEMA_VERSION:
            raise StoreError(
                f"Redis at {where}, prefix {self.keys.prefix!r}: schema version {found}, "
                f"this lobby knows {SCHEMA_VERSION}"
            )
        for problem in await self.durability_problems():
            log.warning(
                "Redis is not configured to keep the lobby's tables: %s",
                problem,
                extra={"redis": where},
            )

    async def durability_problems(self) -> list[str]:
        """What in Redis's configuration could lose tables (empty when all is well)."""
        try:
            settings: dict[str, str] = {}
            for name in ("appendonly", "appendfsync", "maxmemory-policy"):
                for key, value in (await self.client.config_get(name)).items():
                    settings[_text(key)] = _text(value)
        except RedisError as e:  # CONFIG disabled or renamed, as on some managed services
            return [
                f"cannot read its configuration ({e}); make sure it runs with appendonly yes, "
                "appendfsync everysec (or always) and maxmemory-policy noeviction"
            ]
        problems = []
        if settings.get("appendonly") != "yes":
            problems.append("appendonly is not 'yes': a Redis restart loses every table")
        elif settings.get("appendfsync") not in ("everysec", "always"):
            problems.append(
                f"appendfsync is {settings.get('appendfsync')!r}: a crash of the machine may "
                "lose any number of recent changes (use everysec or always)"
            )
        if settings.get("maxmemory-policy") != "noeviction":
            problems.append(
                f"maxmemory-policy is {settings.get('maxmemory-policy')!r}: when full, Redis "
                "may delete tables and codes (use noeviction)"
            )
        return problems

    # -- TableStore ------------------------------------------------------------------------

    async def insert(self, table: Table) -> bool:
        k = self.keys
        keys = [k.table(table.table_id), k.code(table.code), k.state(table.state)]
        args = [table.table_id, table.code, repr(float(table.updated_at)), *_flat(_fields(table))]
        return bool(await self._write(self._insert, keys, args, "the new table"))

    async def get(self, table_id: str) -> Table | None:
        key = self.keys.table(table_id)
        return _table(await self._retrying.call(lambda: self.client.hgetall(key), _down, "table"))

    async def find_by_code(self, code: str) -> Table | None:
        key = self.keys.code(code)
        table_id = await self._retrying.call(lambda: self.client.get(key), _down, "code")
        if table_id is None:
            return None
        table = await self.get(_text(table_id))
        return table if table is not None and table.code == code else None

    async def replace(self, table: Table, expected_version: int) -> bool:
        k = self.keys
        keys = [k.table(table.table_id), *(k.state(state) for state in TableState)]
        changed = {
            name: value
            for name, value in _fields(table).items()
            if name in ("state", "seats", "updated_at", "version", "close_reason")
        }
        args = [
            str(expected_version),
            table.table_id,
            table.state.value,
            changed["updated_at"],
            *_flat(changed),
        ]
        return bool(await self._write(self._replace, keys, args, "the table's change"))

    async def _write(self, script: Any, keys: list[str], args: list[Any], what: str) -> Any:
        """Run a write ``script``; with ``wait_replicas``, WAIT after it on the same connection
        and at the node of its keys (one slot: the prefix's hash tag on a cluster), and raise
        StoreUnavailableError when fewer replicas than wanted confirmed a write it made.

        A script Redis did not run (:func:`redis_client.not_run`) is sent again
        (:attr:`_retrying`); one whose WAIT failed is not: it may have run."""
        if not self._wait_replicas:
            return await self._retrying.call(lambda: script(keys=keys, args=args), _down, what)
        wait = ("WAIT", self._wait_replicas, self._wait_ms)

        async def run() -> list[Any]:
            for loaded in (False, True):
                pipe = self.client.pipeline(transaction=False)
                # execute_command: redis-py refuses pipe.evalsha on a cluster, but routes it.
                pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
                if isinstance(self.client, aioredis.RedisCluster):
                    node = self.client.get_node_from_key(keys[0])
                    pipe.execute_command(*wait, target_nodes=node)
                else:
                    pipe.execute_command(*wait)
                # Each reply on its own: the script's failure says whether it ran (and may be
                # retried); the WAIT's, after a script that ran, must not send it again.
                written, confirmed = await pipe.execute(raise_on_error=False)
                if isinstance(written, NoScriptError) and not loaded:
                    # A Redis that restarted, or a replica promoted: scripts are not replicated.
                    await self.client.script_load(script.script)
                    continue
                if isinstance(written, Exception):
                    raise written
                if isinstance(confirmed, Exception):
                    raise RedisError(f"WAIT after the write failed: {confirmed}") from confirmed
                return [written, confirmed]
            raise AssertionError("unreachable")

        result, replicas = await self._retrying.call(run, _down, what)
        if result and int(replicas) < self._wait_replicas:
            log.warning(
                "a write not confirmed by Redis's replicas: answered as unavailable",
                extra={"what": what, "replicas": replicas, "wanted": self._wait_replicas},
            )
            raise StoreUnavailableError(f"redis: the replication of {what} was not confirmed")
        return result

    async def _tables(self, table_ids: Sequence[str]) -> list[Table]:
        async def read() -> list[Any]:
            async with self.client.pipeline(transaction=False) as pipe:
                for table_id in table_ids:
                    pipe.hgetall(self.keys.table(table_id))
                return await pipe.execute()

        found = [_table(raw) for raw in await _guard(read())] if table_ids else []
        return [table for table in found if table is not None]

    async def idle_open(self, updated_at_most: float, limit: int) -> Sequence[Table]:
        ids = await _guard(
            self.client.zrangebyscore(
                self.keys.state(TableState.OPEN), "-inf", repr(float(updated_at_most)), 0, limit
            )
        )
        # The index and the hashes are read apart: keep only what is still idle and open.
        return [
            table
            for table in await self._tables([_text(i) for i in ids])
            if table.state is TableState.OPEN and table.updated_at <= updated_at_most
        ]

    async def purge_closed(self, updated_before: float) -> int:
        closed = self.keys.state(TableState.CLOSED)
        bound = repr(float(updated_before))
        purged = 0
        while True:
            ids = [
                _text(i)
                for i in await _guard(
                    self.client.zrangebyscore(closed, "-inf", f"({bound}", 0, PURGE_BATCH)
                )
            ]
            if not ids:
                return purged
            codes = {t.table_id: t.code for t in await self._tables(ids)}
            keys = [closed]
            for table_id in ids:
                # A table missing its hash still leaves the index; its code key is unknown.
                keys += [self.keys.table(table_id), self.keys.code(codes.get(table_id, ""))]
            done = int(await _guard(self._purge(keys=keys, args=[bound, *ids])))
            purged += done
            if len(ids) < PURGE_BATCH or done == 0:
                return purged

    async def count_by_state(self) -> dict[TableState, int]:
        async def count() -> list[Any]:
            async with self.client.pipeline(transaction=True) as pipe:
                for state in TableState:
                    pipe.zcard(self.keys.state(state))
                return await pipe.execute()

        return dict(zip(TableState, (int(n) for n in await _guard(count())), strict=True))

    async def ping(self) -> bool:
        try:
            return bool(await _guard(self.client.ping()))
        except StoreUnavailableError:
            return False

    async def close(self) -> None:
        await self.client.aclose()


class RedisJoinLimiter:
    """The join limit of :mod:`lexio_lobby.ratelimit`, shared by every replica on one Redis.

    Each caller's counted attempts are a sorted set (a random ticket scored by the attempt's
    time); one script drops those older than the window, counts the rest and, below the limit,
    adds this attempt — so concurrent attempts through several replicas cannot overshoot. A
    refund removes exactly its ticket. The key expires one window after the caller's last
    counted attempt, which bounds memory without a prune.

    ``clock`` must be comparable across replicas: epoch seconds (``time.time``, kept in step
    by NTP as expiry already requires), not a monotonic clock.
    """

    def __init__(
        self,
        client: aioredis.Redis | aioredis.RedisCluster,
        *,
        prefix: str = DEFAULT_PREFIX,
        max_failures: int = DEFAULT_MAX_FAILURES,
        window: float = DEFAULT_WINDOW_SECONDS,
        clock: Callable[[], float] = time.time,
        retrying: Retrying = UNCOUNTED,
    ) -> None:
        if max_failures < 1 or window <= 0:
            raise ValueError("max_failures and window must be positive")
        self.max_failures = max_failures
        self.window = window
        self._client = client
        self._keys = RedisKeys(prefix)
        self._clock = clock
        self._ttl_ms = max(1, math.ceil(window * 1000))
        self._admit = client.register_script(_ADMIT)
        self._retrying = retrying

    async def admit(self, caller: str) -> Admission:
        now = float(self._clock())
        ticket = secrets.token_hex(8)
        args: list[str | int] = [
            repr(now),
            repr(now - self.window),
            self.max_failures,
            ticket,
            self._ttl_ms,
        ]
        keys = [self._keys.joins(caller)]
        allowed, at = await self._retrying.call(
            lambda: self._admit(keys=keys, args=args), _down, "join attempt"
        )
        if not int(allowed):
            return Admission(False, retry_after=float(at) + self.window - now)
        return Admission(True, _ticket=ticket)

    async def refund(self, caller: str, admission: Admission) -> None:
        if isinstance(admission._ticket, str):
            key, ticket = self._keys.joins(caller), admission._ticket
            await self._retrying.call(lambda: self._client.zrem(key, ticket), _down, "refund")

    async def prune(self) -> None:
        """Nothing to do: a caller's key expires one window after its last counted attempt."""
