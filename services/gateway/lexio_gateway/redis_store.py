"""The table store shared by several gateway replicas: Redis.

One hash per table (``version``, ``meta`` JSON, ``state`` bytes), one list of its events (the
n-th event at index n − 1), a reply key per applied action, the seat tokens, a set of tables
in play and a sorted set of their clocks' next instants (its key, ``deadlines``, predates
games with other clocks), a sorted set of the finished tables still to close in the lobby,
and two of finished tables by their end instant for the records' retention (``ended``: to
expire; ``expired``: the tombstones, to delete). A commit is one Lua script: compare the
version and the id of the commit that wrote it, write, and publish the commit's notice — so
two replicas can never both apply an action, and every replica sees notices in commit order
(stamped with the commit's instant by Redis's TIME: bus.py). With ``wait_replicas`` the script
returns the stamped notice instead, published only once the replicas confirmed the commit: a
commit a failover could take back is shown to no seat (room.py tells of one found in the
store without its notice once it is confirmed).

Where each key is, on one Redis or on a Redis Cluster, is :mod:`lexio_gateway.redis_layout`'s:
on a cluster a commit's keys, its bucket's indexes and its channel share one hash slot.

Seat tokens expire ``TOKEN_TTL_SECONDS`` after they were given, unless their game ends first:
once its table is closed in the lobby its tokens (listed per table, ``tk:<table>``) become
permanent (:meth:`RedisTableStore.keep_tokens`), and the records' retention deletes them
(:meth:`RedisTableStore.expire_finished`). The tokens are found by their digest alone, so on
a cluster they are in slots of their own: no script touches them, and each step on them is
one a later pass can do again.

Durability is Redis's: run it with ``appendonly yes`` and ``appendfsync everysec`` (or
``always``); docs/operations.md says what an operator must set. Redis replicates
asynchronously: a failover can lose the last commits a master acknowledged. With
``wait_replicas`` (``LEXIO_REDIS_WAIT_REPLICAS``) a commit is acknowledged only once that many
replicas have it (Redis's WAIT); one they did not confirm in time is answered as if Redis
were unavailable, and its action, sent again, is answered from its stored reply or applied
anew if the failover lost it (docs/replicas.md, "What a failover can lose").
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar

import redis.asyncio as aioredis
from redis.exceptions import NoScriptError

from lexio_common import redis_client
from lexio_gateway.bus import ORIGIN
from lexio_gateway.metrics import STORE_COMMIT_SECONDS, STORE_CONFIRM_SECONDS
from lexio_gateway.records import (
    ActionReply,
    SeatToken,
    StoredEvent,
    TableRecord,
    TableStatus,
    record_fields,
    record_from_fields,
    tombstone,
)
from lexio_gateway.redis_layout import PREFIX, Indexes, RedisLayout
from lexio_gateway.store import Expired, StoreUnavailableError, VersionConflictError, stamp_end

log = logging.getLogger(__name__)

T = TypeVar("T")
REPLY_TTL_SECONDS: Final = 7 * 24 * 3600
UNREPLICATED_LOG_SECONDS: Final = 10.0
"""At most one warning this often for the commits Redis's replicas did not confirm (the
metric counts each)."""
TOKEN_TTL_SECONDS: Final = 30 * 24 * 3600
TOKEN_PREFIX: Final = f"{PREFIX}k:"
SCHEMA_KEY: Final = f"{PREFIX}schema"
SCHEMA: Final = 2
"""2: finished tables carry ``ended_at`` and are listed in ``ended``; tokens are listed per
table. :meth:`RedisTableStore.migrate` brings data written before up to it."""

_CLAIM: Final = """
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if due and tonumber(due) <= tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
return 0
"""

# ARGV[13]: 'hold' to have the notice returned, stamped, instead of published (the caller
# publishes it once Redis's replicas confirmed the commit: WAIT), else empty.
# ARGV[14]: '=' and the commit id expected (empty: the version alone); ARGV[15], ARGV[16]:
# the new commit's id and its parent's.
_SAVE: Final = """
local held = redis.call('HMGET', KEYS[1], 'version', 'commit')
if held[1] ~= ARGV[1] then return 0 end
if ARGV[14] ~= '' and '=' .. (held[2] or '') ~= ARGV[14] then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'meta', ARGV[3], 'state', ARGV[4],
  'commit', ARGV[15], 'parent', ARGV[16])
local n = tonumber(ARGV[11])
for i = 1, n do redis.call('RPUSH', KEYS[2], ARGV[16 + i]) end
if ARGV[6] == 'started' then
  redis.call('ZADD', KEYS[3], ARGV[7], ARGV[5])
  redis.call('SADD', KEYS[4], ARGV[5])
else
  redis.call('ZREM', KEYS[3], ARGV[5])
  local was_playing = redis.call('SREM', KEYS[4], ARGV[5])
  if was_playing == 1 and ARGV[6] == 'over' then
    -- To close in the lobby; then its seats' tokens are kept (RedisTableStore.keep_tokens).
    redis.call('ZADD', KEYS[7], 0, ARGV[5])
    redis.call('PERSIST', KEYS[9])
  end
end
if ARGV[6] == 'over' and ARGV[12] ~= '' then
  redis.call('ZADD', KEYS[8], 'NX', ARGV[12], ARGV[5])
end
if ARGV[8] ~= '' then redis.call('SET', KEYS[5], ARGV[8], 'EX', ARGV[10]) end
if ARGV[9] ~= '' then
  -- The notice (a JSON object) gets the commit's instant by Redis's clock, one for every
  -- replica: its last character is the closing brace.
  local now = redis.call('TIME')
  local at = now[1] .. '.' .. string.format('%06d', tonumber(now[2]))
  local stamped = string.sub(ARGV[9], 1, -2) .. ',"committed_at":' .. at .. '}'
  if ARGV[13] == 'hold' then return stamped end
  redis.call('SPUBLISH', KEYS[6], stamped)
end
return 1
"""


# A finished table becomes its tombstone (the caller read it, wrote the tombstone's meta, and
# took the names off its tokens first): if it is still that version, its state, events and
# lobby closing go. Replies expire by themselves (REPLY_TTL_SECONDS, shorter than any
# retention).
_EXPIRE: Final = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'meta', ARGV[3], 'state', '')
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[4])
local ended = redis.call('ZSCORE', KEYS[4], ARGV[4])
redis.call('ZREM', KEYS[4], ARGV[4])
redis.call('ZADD', KEYS[5], ended or ARGV[5], ARGV[4])
return 1
"""

# A tombstone past its second retention goes, with the list of its tokens (the caller deleted
# the tokens first); a key that is no tombstone only leaves the list.
_PURGE: Final = """
local meta = redis.call('HGET', KEYS[1], 'meta')
if meta and cjson.decode(meta)['status'] ~= 'expired' then
  redis.call('ZREM', KEYS[3], ARGV[1])
  return 0
end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
"""


def _meta(record: TableRecord) -> str:
    return json.dumps(record_fields(record))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _record(table_id: str, fields: dict[Any, Any]) -> TableRecord:
    record = record_from_fields(
        table_id, int(fields[b"version"]), fields.get(b"state", b""), json.loads(fields[b"meta"])
    )
    # Fields of their own, beside the meta, for the commit script to compare without JSON
    # (and as a replica from before commit ids leaves them: every replica reads the same).
    record.commit = _text(fields.get(b"commit", b""))
    record.parent = _text(fields.get(b"parent", b""))
    return record


class RedisTableStore:
    shared = True

    def __init__(
        self,
        client: aioredis.Redis | aioredis.RedisCluster,
        clock: Callable[[], float] = time.time,
        *,
        wait_replicas: int = 0,
        seat_wait_replicas: int = 0,
        wait_timeout: float = 0.5,
    ) -> None:
        """``clock``: what stamps a game's end (:func:`stamp_end`), the gateway's own.
        ``wait_replicas``: how many of Redis's replicas must have a commit before it is
        acknowledged, waiting at most ``wait_timeout`` seconds (0: none, Redis's default).
        ``seat_wait_replicas``: as many for a seat's token and a new table, if more (a lost
        token locks its player out of the game: worth a wait even where moves are not)."""
        self._client = client
        self.layout = RedisLayout(cluster=isinstance(client, aioredis.RedisCluster))
        self._clock = clock
        self._wait_replicas = wait_replicas
        self._seat_wait_replicas = max(wait_replicas, seat_wait_replicas)
        self._wait_ms = max(1, round(wait_timeout * 1000))
        self._unreplicated = 0
        self._unreplicated_logged_at = -math.inf
        self._save = client.register_script(_SAVE)
        self._claim = client.register_script(_CLAIM)
        self._expire = client.register_script(_EXPIRE)
        self._purge = client.register_script(_PURGE)
        self._migrated = False

    @classmethod
    def from_url(
        cls,
        url: str,
        clock: Callable[[], float] = time.time,
        *,
        wait_replicas: int = 0,
        seat_wait_replicas: int = 0,
        wait_timeout: float = 0.5,
    ) -> RedisTableStore:
        client = redis_client.connect(url, timeout=2.0, name="lexio-gateway", text=False)
        return cls(
            client,
            clock,
            wait_replicas=wait_replicas,
            seat_wait_replicas=seat_wait_replicas,
            wait_timeout=wait_timeout,
        )

    @property
    def holds_back_notices(self) -> bool:
        return bool(self._wait_replicas)

    @property
    def client(self) -> aioredis.Redis | aioredis.RedisCluster:
        return self._client

    @staticmethod
    async def _guard(call: Callable[[], Awaitable[T]]) -> T:
        return await redis_client.guard(call(), StoreUnavailableError)

    @staticmethod
    async def _ask(call: Awaitable[T]) -> T:
        """:meth:`_guard` of a call already made (where a lambda would close over a loop's
        variable)."""
        return await redis_client.guard(call, StoreUnavailableError)

    async def ping(self) -> bool:
        try:
            return bool(await self._guard(self._client.ping))
        except StoreUnavailableError:
            return False

    async def create_table(self, record: TableRecord) -> None:
        key = self.layout.table(record.table_id)

        async def create() -> int:
            if not await self._client.hsetnx(key, "version", record.version):
                raise VersionConflictError(record.table_id)
            pipe = self._client.pipeline(transaction=False)
            pipe.hset(
                key, mapping={"meta": _meta(record), "state": record.state, "commit": record.commit}
            )
            self._queue_waits(pipe, key)
            return self._replicas(await pipe.execute(), 1)

        self._check_replicas(await self._guard(create), "the table's creation")

    async def get_table(self, table_id: str) -> TableRecord | None:
        fields = await self._guard(lambda: self._client.hgetall(self.layout.table(table_id)))
        if not fields or b"meta" not in fields:
            return None
        return _record(table_id, fields)

    async def save_table(
        self,
        record: TableRecord,
        expected_version: int,
        events: Sequence[StoredEvent] = (),
        reply: ActionReply | None = None,
        notice: dict[str, Any] | None = None,
        *,
        expected_commit: str | None = None,
    ) -> None:
        stamp_end(record, self._clock())
        layout, table_id = self.layout, record.table_id
        indexes = layout.indexes(table_id)
        keys = [
            layout.table(table_id),
            layout.events(table_id),
            indexes.deadlines,
            indexes.playing,
            layout.reply(table_id, *((reply.player_id, reply.action_id) if reply else ())),
            layout.channel(table_id),
            indexes.lobby_closes,
            indexes.ended,
            layout.tokens(table_id),
        ]
        args: list[Any] = [
            str(expected_version),
            str(record.version),
            _meta(record),
            record.state,
            record.table_id,
            record.status.value,
            repr(record.clock_due) if record.clock is not None else "+inf",
            json.dumps(reply.reply) if reply else "",
            json.dumps({**notice, "origin": ORIGIN}) if notice else "",
            REPLY_TTL_SECONDS,
            len(events),
            repr(record.ended_at) if record.ended_at is not None else "",
            # With WAIT the notice is published only once the commit is confirmed: no seat
            # is shown a move a failover then takes back (issue 40).
            "hold" if self._wait_replicas and notice else "",
            f"={expected_commit}" if expected_commit is not None else "",
            record.commit,
            record.parent,
            *(json.dumps(e.entry) for e in events),
        ]
        started = time.perf_counter()
        outcome = "unavailable"
        try:
            applied, replicas = await self._guard(lambda: self._commit(keys, args))
            if not applied:
                outcome = "conflict"
                raise VersionConflictError(record.table_id)
            if replicas < self._wait_replicas:
                outcome = "unreplicated"
                self._unreplicated += 1
                now = time.monotonic()
                if now - self._unreplicated_logged_at >= UNREPLICATED_LOG_SECONDS:
                    # Once in a while: a master without its replica refuses every commit.
                    log.warning(
                        "commits not confirmed by Redis's replicas: not acknowledged",
                        extra={
                            "table_id": record.table_id,
                            "replicas": replicas,
                            "wanted": self._wait_replicas,
                            "since_last_log": self._unreplicated,
                        },
                    )
                    self._unreplicated, self._unreplicated_logged_at = 0, now
                raise StoreUnavailableError("redis: the commit's replication was not confirmed")
            if isinstance(applied, bytes | str):  # the notice held back until confirmed
                channel = layout.channel(table_id)
                await self._guard(lambda: self._client.spublish(channel, applied))
            outcome = "applied"
        finally:
            STORE_COMMIT_SECONDS.labels(outcome=outcome).observe(time.perf_counter() - started)

    async def _commit(self, keys: list[str], args: list[Any]) -> tuple[int | bytes, int]:
        """Run the commit script; with ``wait_replicas``, WAIT after it on the same connection
        (one round trip: WAIT counts the replicas that have this connection's last write).
        Whether it applied (0: not; the stamped notice when it was held back), and how many
        replicas confirmed it."""
        if not self._wait_replicas:
            return await self._save(keys=keys, args=args), 0
        for loaded in (False, True):
            pipe = self._client.pipeline(transaction=False)
            # execute_command: redis-py refuses pipe.evalsha on a cluster, but routes this
            # one by its keys.
            pipe.execute_command("EVALSHA", self._save.sha, len(keys), *keys, *args)
            self._queue_wait(pipe, keys[0], self._wait_replicas)
            try:
                applied, replicas = await pipe.execute()
            except NoScriptError:
                if loaded:
                    raise
                # A Redis that restarted, or a replica promoted: scripts are not replicated.
                await self._client.script_load(_SAVE)
                continue
            return applied, replicas
        raise AssertionError("unreachable")

    def _queue_wait(self, pipe: Any, key: str, replicas: int) -> None:
        """WAIT for ``replicas`` in ``pipe``, after the write to ``key`` and on its
        connection: on a cluster, at the node of the key's slot (redis-py would send WAIT to
        every node)."""
        wait = ("WAIT", replicas, self._wait_ms)
        if isinstance(self._client, aioredis.RedisCluster):
            pipe.execute_command(*wait, target_nodes=self._client.get_node_from_key(key))
        else:
            pipe.execute_command(*wait)

    def _queue_waits(self, pipe: Any, *keys: str) -> None:
        """With ``seat_wait_replicas``, a WAIT after the writes of a seat to each of ``keys``
        (at each key's node, on the connection that wrote it): what follows counts the
        replicas that have them all."""
        if self._seat_wait_replicas:
            for key in keys:
                self._queue_wait(pipe, key, self._seat_wait_replicas)

    def _replicas(self, results: Sequence[Any], writes: int) -> int:
        """How many replicas confirmed the writes of a pipeline of ``writes`` commands and
        :meth:`_queue_waits`'s WAITs (the fewest of them); as many as wanted when not waiting."""
        waits = [int(n) for n in results[writes:]]
        return min(waits) if waits else self._seat_wait_replicas

    def _check_replicas(self, replicas: int, what: str) -> None:
        if replicas < self._seat_wait_replicas:
            log.warning(
                "a write not confirmed by Redis's replicas: not answered",
                extra={"what": what, "replicas": replicas, "wanted": self._seat_wait_replicas},
            )
            raise StoreUnavailableError(f"redis: the replication of {what} was not confirmed")

    async def confirm_replicated(self, table_id: str) -> None:
        if not self._wait_replicas:
            return
        # WAIT counts this connection's writes: one more, in the table's slot (its node), comes
        # after every earlier write there, the unconfirmed commit's included.
        barrier = self.layout.barrier(table_id)
        pipe = self._client.pipeline(transaction=False)
        pipe.incr(barrier)
        self._queue_wait(pipe, barrier, self._wait_replicas)
        started = time.perf_counter()
        outcome = "unavailable"
        try:
            _, replicas = await self._guard(pipe.execute)
            if replicas < self._wait_replicas:
                # A master without its replica (LexioRedisCommitsUnreplicated counts these too:
                # a table whose last commit came before its master's failover never gets to
                # try a commit of its own).
                outcome = "unreplicated"
                raise StoreUnavailableError(
                    "redis: the replication of earlier commits not confirmed"
                )
            outcome = "confirmed"
        finally:
            STORE_CONFIRM_SECONDS.labels(outcome=outcome).observe(time.perf_counter() - started)

    async def events_after(self, table_id: str, seq: int, limit: int) -> list[StoredEvent]:
        if limit <= 0:
            return []
        raw = await self._guard(
            lambda: self._client.lrange(self.layout.events(table_id), seq, seq + limit - 1)
        )
        return [StoredEvent(seq + 1 + i, json.loads(entry)) for i, entry in enumerate(raw)]

    async def find_reply(self, table_id: str, player_id: str, action_id: str) -> ActionReply | None:
        raw = await self._guard(
            lambda: self._client.get(self.layout.reply(table_id, player_id, action_id))
        )
        return ActionReply(player_id, action_id, json.loads(raw)) if raw else None

    async def version_and_reply(
        self, table_id: str, player_id: str, action_id: str
    ) -> tuple[int | None, ActionReply | None]:
        async def read() -> list[Any]:
            pipe = self._client.pipeline(transaction=False)
            pipe.hget(self.layout.table(table_id), "version")
            pipe.get(self.layout.reply(table_id, player_id, action_id))
            return await pipe.execute()

        version, raw = await self._guard(read)
        reply = ActionReply(player_id, action_id, json.loads(raw)) if raw else None
        return (int(version) if version is not None else None), reply

    async def add_token(self, token_hash: str, token: SeatToken) -> None:
        value = json.dumps([token.table_id, token.player_id, token.name])
        listed = self.layout.tokens(token.table_id)

        async def add() -> int:
            # One transaction on one Redis (unless waiting for replicas: WAIT must follow the
            # writes on their connection); on a cluster the token and its table's list are in
            # two slots. A token its list lacks only expires with its TTL.
            waiting = bool(self._seat_wait_replicas)
            pipe = self._client.pipeline(transaction=not (self.layout.cluster or waiting))
            pipe.set(self.layout.token(token_hash), value, ex=TOKEN_TTL_SECONDS)
            pipe.sadd(listed, token_hash)
            pipe.expire(listed, TOKEN_TTL_SECONDS)
            self._queue_waits(pipe, self.layout.token(token_hash), listed)
            return self._replicas(await pipe.execute(), 3)

        # The seat's reply (seated) hands this token to the player: a failover must not lose
        # it, or the player is locked out of their game once their socket closes.
        self._check_replicas(await self._guard(add), "the seat token")

    async def find_token(self, token_hash: str) -> SeatToken | None:
        raw = await self._guard(lambda: self._client.get(self.layout.token(token_hash)))
        if raw is None:
            return None
        table_id, player_id, name = json.loads(raw)
        return SeatToken(table_id, player_id, name)

    async def drop_token(self, token_hash: str) -> None:
        await self._guard(lambda: self._client.delete(self.layout.token(token_hash)))

    async def keep_tokens(self, table_id: str) -> None:
        await self._on_each_token(table_id, lambda pipe, key: pipe.persist(key))

    async def _on_each_token(self, table_id: str, queue: Callable[[Any, str], Any]) -> None:
        """``queue`` one command for each of the table's tokens, in one pipeline."""
        tokens = await self._token_keys(table_id)
        if not tokens:
            return

        async def run() -> None:
            pipe = self._client.pipeline(transaction=False)
            for key in tokens:
                queue(pipe, key)
            await pipe.execute()

        await self._guard(run)

    async def _token_keys(self, table_id: str) -> list[str]:
        digests = await self._guard(lambda: self._client.smembers(self.layout.tokens(table_id)))
        return [self.layout.token(_text(d)) for d in digests]

    async def _each_index(self, read: Callable[[Any, Indexes], Any]) -> list[Any]:
        """``read`` queued for every bucket's indexes in one pipeline (one Redis: one)."""

        async def run() -> list[Any]:
            pipe = self._client.pipeline(transaction=False)
            for indexes in self.layout.all_indexes:
                read(pipe, indexes)
            return await pipe.execute()

        return await self._guard(run)

    async def tables_in_play(self) -> list[TableRecord]:
        found = await self._each_index(lambda pipe, i: pipe.smembers(i.playing))
        records = [await self.get_table(_text(t)) for ids in found for t in ids]
        return [r for r in records if r is not None]

    async def due_tables(self, now: float) -> list[str]:
        found = await self._each_index(lambda pipe, i: pipe.zrangebyscore(i.deadlines, "-inf", now))
        return [_text(t) for ids in found for t in ids]

    async def lobby_closes_due(self, now: float, limit: int) -> list[str]:
        found = await self._each_index(
            lambda pipe, i: pipe.zrangebyscore(i.lobby_closes, "-inf", now, start=0, num=limit)
        )
        return [_text(t) for ids in found for t in ids][:limit]

    async def claim_lobby_close(self, table_id: str, now: float, until: float) -> bool:
        args = [table_id, repr(now), repr(until)]
        keys = [self.layout.indexes(table_id).lobby_closes]
        return bool(await self._guard(lambda: self._claim(keys=keys, args=args)))

    async def lobby_close_done(self, table_id: str) -> None:
        listed = self.layout.indexes(table_id).lobby_closes
        await self._guard(lambda: self._client.zrem(listed, table_id))

    async def expire_finished(
        self, expire_before: float, purge_before: float, limit: int
    ) -> Expired:
        if not self._migrated:
            await self.migrate()
        layout = self.layout
        due = await self._each_index(
            lambda pipe, i: pipe.zrangebyscore(i.ended, "-inf", expire_before, start=0, num=limit)
        )
        expired = []
        for table_id in [_text(t) for ids in due for t in ids][:limit]:
            indexes = layout.indexes(table_id)
            record = await self.get_table(table_id)
            if record is None or record.status is not TableStatus.OVER:
                # Not a finished table (any more): nothing to keep it listed for.
                await self._ask(self._client.zrem(indexes.ended, table_id))
                continue
            await self._unname_tokens(table_id)
            stone = tombstone(record)
            keys = [
                layout.table(table_id),
                layout.events(table_id),
                indexes.lobby_closes,
                indexes.ended,
                indexes.expired,
            ]
            args: list[str | int] = [
                record.version,
                stone.version,
                _meta(stone),
                table_id,
                repr(record.ended_at if record.ended_at is not None else expire_before),
            ]
            if await self._ask(self._expire(keys=keys, args=args)):
                expired.append(table_id)
        old = await self._each_index(
            lambda pipe, i: pipe.zrangebyscore(i.expired, "-inf", purge_before, start=0, num=limit)
        )
        purged = []
        for table_id in [_text(t) for ids in old for t in ids][:limit]:
            record = await self.get_table(table_id)
            if record is None or record.status is TableStatus.EXPIRED:
                await self._on_each_token(table_id, lambda pipe, key: pipe.delete(key))
            keys = [
                layout.table(table_id),
                layout.tokens(table_id),
                layout.indexes(table_id).expired,
            ]
            if await self._ask(self._purge(keys=keys, args=[table_id])):
                purged.append(table_id)
        return Expired(expired, purged)

    async def _unname_tokens(self, table_id: str) -> None:
        """The players' names off the table's tokens (done again harmlessly if the tombstone's
        script does not follow: the table stays listed until it does)."""
        tokens = await self._token_keys(table_id)

        async def unname() -> None:
            read = self._client.pipeline(transaction=False)
            for key in tokens:
                read.get(key)
            write = self._client.pipeline(transaction=False)
            for key, raw in zip(tokens, await read.execute(), strict=True):
                if raw is not None and json.loads(raw)[2] != "":
                    write.set(key, json.dumps([*json.loads(raw)[:2], ""]), keepttl=True)
            await write.execute()

        if tokens:
            await self._guard(unname)

    async def migrate(self) -> None:
        """Data written before :data:`SCHEMA` 2, once per store (any replica; again is
        harmless): each finished table gets an end instant, now (when it ended is unknown:
        its retention counts from the upgrade) and its place in ``ended``; each seat token
        its place in its table's list, and the tokens of finished tables become permanent."""
        await self._ask(self._migrate())

    async def _migrate(self) -> None:
        stored = await self._client.get(SCHEMA_KEY)
        if stored is not None and int(stored) >= SCHEMA:
            self._migrated = True
            return
        if self.layout.cluster:
            # No gateway before schema 2 could use a cluster: nothing to bring up to it.
            await self._client.set(SCHEMA_KEY, SCHEMA)
            self._migrated = True
            return
        now = self._clock()
        finished: set[str] = set()
        tables = 0
        async for key in self._client.scan_iter(match=f"{PREFIX}t:*", count=500):
            table_id = _text(key).removeprefix(f"{PREFIX}t:")
            fields = await self._client.hgetall(key)
            if not fields or b"meta" not in fields:
                continue
            record = _record(table_id, fields)
            if record.status not in (TableStatus.OVER, TableStatus.EXPIRED):
                continue
            finished.add(table_id)
            if record.ended_at is None:
                record.ended_at = now
                # Not a commit (no version + 1): only the meta, if the table is still that
                # version; a table that moved on was written by a gateway that stamps it.
                await self._client.eval(
                    "if redis.call('HGET', KEYS[1], 'version') == ARGV[1] then "
                    "redis.call('HSET', KEYS[1], 'meta', ARGV[2]) end",
                    1,
                    self.layout.table(table_id),
                    str(record.version),
                    _meta(record),
                )
                tables += 1
            indexes = self.layout.indexes(table_id)
            listed = indexes.ended if record.status is TableStatus.OVER else indexes.expired
            await self._client.zadd(listed, {table_id: record.ended_at}, nx=True)
        tokens = 0
        async for key in self._client.scan_iter(match=f"{TOKEN_PREFIX}*", count=500):
            raw = await self._client.get(key)
            if raw is None:
                continue
            table_id = json.loads(raw)[0]
            digest = _text(key).removeprefix(TOKEN_PREFIX)
            pipe = self._client.pipeline(transaction=False)
            pipe.sadd(self.layout.tokens(table_id), digest)
            if table_id in finished:
                pipe.persist(key)
                pipe.persist(self.layout.tokens(table_id))
            else:
                pipe.expire(self.layout.tokens(table_id), TOKEN_TTL_SECONDS)
            await pipe.execute()
            tokens += 1
        await self._client.set(SCHEMA_KEY, SCHEMA)
        self._migrated = True
        log.info("store migrated", extra={"schema": SCHEMA, "tables": tables, "tokens": tokens})

    async def close(self) -> None:
        await self._client.aclose()
