"""The table store shared by several gateway replicas: Redis.

One hash per table (``version``, ``meta`` JSON, ``state`` bytes), one list of its events (the
n-th event at index n − 1), a reply key per applied action, the seat tokens, a set of tables
in play and a sorted set of their clocks' next instants (its key, ``deadlines``, predates
games with other clocks), and a sorted set of the finished tables still to close in the
lobby. A commit is one Lua script: compare the version, write, and publish the commit's
notice — so two replicas can never both apply an action, and every replica sees notices in
commit order.

Durability is Redis's: run it with ``appendonly yes`` and ``appendfsync everysec`` (or
``always``); docs/operations.md says what an operator must set.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar

import redis.asyncio as aioredis

from lexio_common import redis_client
from lexio_gateway.bus import CHANNEL
from lexio_gateway.records import (
    ActionReply,
    SeatToken,
    StoredEvent,
    TableRecord,
    record_fields,
    record_from_fields,
)
from lexio_gateway.store import StoreUnavailableError, VersionConflictError

T = TypeVar("T")
PREFIX: Final = "lexio:gw:"
REPLY_TTL_SECONDS: Final = 7 * 24 * 3600
TOKEN_TTL_SECONDS: Final = 30 * 24 * 3600
LOBBY_CLOSES: Final = f"{PREFIX}lobby-closes"
"""Finished tables still to close in the lobby, scored by when the next try is due."""

_CLAIM: Final = """
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if due and tonumber(due) <= tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
return 0
"""

_SAVE: Final = """
local version = redis.call('HGET', KEYS[1], 'version')
if version ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'meta', ARGV[3], 'state', ARGV[4])
local n = tonumber(ARGV[11])
for i = 1, n do redis.call('RPUSH', KEYS[2], ARGV[11 + i]) end
if ARGV[6] == 'started' then
  redis.call('ZADD', KEYS[3], ARGV[7], ARGV[5])
  redis.call('SADD', KEYS[4], ARGV[5])
else
  redis.call('ZREM', KEYS[3], ARGV[5])
  local was_playing = redis.call('SREM', KEYS[4], ARGV[5])
  if was_playing == 1 and ARGV[6] == 'over' then redis.call('ZADD', KEYS[7], 0, ARGV[5]) end
end
if ARGV[8] ~= '' then redis.call('SET', KEYS[5], ARGV[8], 'EX', ARGV[10]) end
if ARGV[9] ~= '' then redis.call('PUBLISH', KEYS[6], ARGV[9]) end
return 1
"""


def _meta(record: TableRecord) -> str:
    return json.dumps(record_fields(record))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _record(table_id: str, fields: dict[Any, Any]) -> TableRecord:
    return record_from_fields(
        table_id, int(fields[b"version"]), fields.get(b"state", b""), json.loads(fields[b"meta"])
    )


class RedisTableStore:
    shared = True

    def __init__(self, client: aioredis.Redis) -> None:
        self._client = client
        self._save = client.register_script(_SAVE)
        self._claim = client.register_script(_CLAIM)

    @classmethod
    def from_url(cls, url: str) -> RedisTableStore:
        return cls(redis_client.connect(url, timeout=2.0, name="lexio-gateway", text=False))

    @property
    def client(self) -> aioredis.Redis:
        return self._client

    @staticmethod
    async def _guard(call: Callable[[], Awaitable[T]]) -> T:
        return await redis_client.guard(call(), StoreUnavailableError)

    async def ping(self) -> bool:
        try:
            return bool(await self._guard(self._client.ping))
        except StoreUnavailableError:
            return False

    @staticmethod
    def _table_key(table_id: str) -> str:
        return f"{PREFIX}t:{table_id}"

    @staticmethod
    def _events_key(table_id: str) -> str:
        return f"{PREFIX}ev:{table_id}"

    async def create_table(self, record: TableRecord) -> None:
        key = self._table_key(record.table_id)

        async def create() -> None:
            if not await self._client.hsetnx(key, "version", record.version):
                raise VersionConflictError(record.table_id)
            await self._client.hset(key, mapping={"meta": _meta(record), "state": record.state})

        await self._guard(create)

    async def get_table(self, table_id: str) -> TableRecord | None:
        fields = await self._guard(lambda: self._client.hgetall(self._table_key(table_id)))
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
    ) -> None:
        reply_key = (
            f"{PREFIX}r:{record.table_id}:{reply.player_id}:{reply.action_id}" if reply else ""
        )
        keys = [
            self._table_key(record.table_id),
            self._events_key(record.table_id),
            f"{PREFIX}deadlines",
            f"{PREFIX}playing",
            reply_key or f"{PREFIX}r:none",
            CHANNEL,
            LOBBY_CLOSES,
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
            json.dumps(notice) if notice else "",
            REPLY_TTL_SECONDS,
            len(events),
            *(json.dumps(e.entry) for e in events),
        ]
        applied = await self._guard(lambda: self._save(keys=keys, args=args))
        if not applied:
            raise VersionConflictError(record.table_id)

    async def events_after(self, table_id: str, seq: int, limit: int) -> list[StoredEvent]:
        if limit <= 0:
            return []
        raw = await self._guard(
            lambda: self._client.lrange(self._events_key(table_id), seq, seq + limit - 1)
        )
        return [StoredEvent(seq + 1 + i, json.loads(entry)) for i, entry in enumerate(raw)]

    async def find_reply(self, table_id: str, player_id: str, action_id: str) -> ActionReply | None:
        raw = await self._guard(
            lambda: self._client.get(f"{PREFIX}r:{table_id}:{player_id}:{action_id}")
        )
        return ActionReply(player_id, action_id, json.loads(raw)) if raw else None

    async def version_and_reply(
        self, table_id: str, player_id: str, action_id: str
    ) -> tuple[int | None, ActionReply | None]:
        async def read() -> list[Any]:
            pipe = self._client.pipeline(transaction=False)
            pipe.hget(self._table_key(table_id), "version")
            pipe.get(f"{PREFIX}r:{table_id}:{player_id}:{action_id}")
            return await pipe.execute()

        version, raw = await self._guard(read)
        reply = ActionReply(player_id, action_id, json.loads(raw)) if raw else None
        return (int(version) if version is not None else None), reply

    async def add_token(self, token_hash: str, token: SeatToken) -> None:
        value = json.dumps([token.table_id, token.player_id, token.name])
        await self._guard(
            lambda: self._client.set(f"{PREFIX}k:{token_hash}", value, ex=TOKEN_TTL_SECONDS)
        )

    async def find_token(self, token_hash: str) -> SeatToken | None:
        raw = await self._guard(lambda: self._client.get(f"{PREFIX}k:{token_hash}"))
        if raw is None:
            return None
        table_id, player_id, name = json.loads(raw)
        return SeatToken(table_id, player_id, name)

    async def drop_token(self, token_hash: str) -> None:
        await self._guard(lambda: self._client.delete(f"{PREFIX}k:{token_hash}"))

    async def tables_in_play(self) -> list[TableRecord]:
        ids = await self._guard(lambda: self._client.smembers(f"{PREFIX}playing"))
        records = [await self.get_table(_text(i)) for i in ids]
        return [r for r in records if r is not None]

    async def due_tables(self, now: float) -> list[str]:
        ids = await self._guard(
            lambda: self._client.zrangebyscore(f"{PREFIX}deadlines", "-inf", now)
        )
        return [_text(i) for i in ids]

    async def lobby_closes_due(self, now: float, limit: int) -> list[str]:
        ids = await self._guard(
            lambda: self._client.zrangebyscore(LOBBY_CLOSES, "-inf", now, start=0, num=limit)
        )
        return [_text(i) for i in ids]

    async def claim_lobby_close(self, table_id: str, now: float, until: float) -> bool:
        args = [table_id, repr(now), repr(until)]
        return bool(await self._guard(lambda: self._claim(keys=[LOBBY_CLOSES], args=args)))

    async def lobby_close_done(self, table_id: str) -> None:
        await self._guard(lambda: self._client.zrem(LOBBY_CLOSES, table_id))

    async def close(self) -> None:
        await self._client.aclose()
