"""The gateway's table stores, SQLite and Redis, held to the same contract."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from lexio_testing import LoopThread

from lexio_gateway.records import ActionReply, StoredEvent, TableRecord, TableStatus
from lexio_gateway.redis_store import RedisTableStore
from lexio_gateway.store import SqliteTableStore, TableStore, VersionConflictError


@pytest.fixture
def table_store(
    loop_thread: LoopThread, gateway_backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[TableStore]:
    store: TableStore
    if gateway_backend == "redis":
        url = request.getfixturevalue("redis_server").url

        async def connect() -> RedisTableStore:
            return RedisTableStore.from_url(url)

        store = loop_thread.run(connect())
    else:
        store = SqliteTableStore(tmp_path / "gateway.sqlite3")
    yield store
    loop_thread.run(store.close())


def test_one_read_says_the_stored_version_and_whether_an_action_was_applied(
    loop_thread: LoopThread, table_store: TableStore
) -> None:
    """What a replica checks before it acts (room.py): is its copy of the table behind, and
    is this action id a resend?"""
    record = TableRecord("t1", "lexio", "ABCDE-FGHIJ", TableStatus.STARTED, version=3, state=b"s")

    async def scenario() -> None:
        assert await table_store.version_and_reply("t1", "p1", "r1") == (None, None)
        await table_store.create_table(record)
        assert await table_store.version_and_reply("t1", "p1", "r1") == (3, None)
        reply = ActionReply("p1", "r1", {"type": "ack", "id": "r1", "seq": 1})
        after = dataclasses.replace(record, version=4, seq=1, state=b"s2")
        await table_store.save_table(after, 3, [StoredEvent(1, {"kind": "pass"})], reply)
        assert await table_store.version_and_reply("t1", "p1", "r1") == (4, reply)
        assert await table_store.version_and_reply("t1", "p2", "r1") == (4, None)
        with pytest.raises(VersionConflictError):
            await table_store.save_table(dataclasses.replace(after, version=5), 3)
        assert await table_store.version_and_reply("t1", "p1", "r2") == (4, None)

    loop_thread.run(scenario())
