"""The gateway's table stores, SQLite and Redis, held to the same contract."""

from __future__ import annotations

import dataclasses
import functools
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from lexio_testing import LoopThread, RedisServer, eventually
from prometheus_client import REGISTRY

from lexio_gateway.records import (
    ActionReply,
    SeatToken,
    StoredEvent,
    TableRecord,
    TableStatus,
)
from lexio_gateway.redis_store import RedisTableStore
from lexio_gateway.store import (
    SqliteTableStore,
    StoreUnavailableError,
    TableStore,
    VersionConflictError,
)


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


@pytest.mark.parametrize("gateway_backend", ["redis"])
def test_redis_compares_the_commit_that_wrote_a_version_too(
    loop_thread: LoopThread, table_store: TableStore
) -> None:
    """After Redis lost a commit, the next one reuses its version: a replica that computed on
    the lost one must be refused although its version matches (docs/replicas.md)."""
    record = TableRecord("t1", "lexio", "ABCDE-FGHIJ", TableStatus.STARTED, version=3, commit="c3")

    async def scenario() -> None:
        await table_store.create_table(record)
        lost = dataclasses.replace(record, version=4, commit="lost", parent="c3")
        with pytest.raises(VersionConflictError):
            await table_store.save_table(lost, 3, expected_commit="other")
        await table_store.save_table(lost, 3, expected_commit="c3")
        stored = await table_store.get_table("t1")
        assert stored is not None and (stored.commit, stored.parent) == ("lost", "c3")
        # What a failover does: the table as it was before "lost"; then another commit of
        # version 4, with no commit id (None: the version alone, as a replica from before).
        assert isinstance(table_store, RedisTableStore)
        await table_store.client.hset(
            table_store.layout.table("t1"), mapping={"version": 3, "commit": "c3"}
        )
        await table_store.save_table(dataclasses.replace(lost, commit="next"), 3)
        computed_on_lost = dataclasses.replace(lost, version=5, commit="late", parent="lost")
        with pytest.raises(VersionConflictError):
            await table_store.save_table(computed_on_lost, 4, expected_commit="lost")
        await table_store.save_table(
            dataclasses.replace(computed_on_lost, parent="next"), 4, expected_commit="next"
        )

    loop_thread.run(scenario())


def _watch_checkpoints(monkeypatch: pytest.MonkeyPatch, path: Path) -> list[tuple[int, int, int]]:
    """What every ``PRAGMA wal_checkpoint`` run on the database at ``path`` answered, in the
    order they ended: (1 if it could not finish, frames in the log, frames copied into the
    database). Connections to other files (another service's) are left alone."""
    answers: list[tuple[int, int, int]] = []
    connect = sqlite3.connect

    class Watched(sqlite3.Connection):
        def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
            cursor = super().execute(sql, parameters)
            if sql.startswith("PRAGMA wal_checkpoint"):
                busy, frames, copied = cursor.fetchone()  # its one row, which nobody reads
                answers.append((busy, frames, copied))
            return cursor

    def watched_connect(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if Path(database) == path:
            kwargs["factory"] = Watched
        connection: sqlite3.Connection = connect(database, *args, **kwargs)
        return connection

    monkeypatch.setattr(sqlite3, "connect", watched_connect)
    return answers


def test_the_sqlite_log_is_copied_off_the_event_loop_and_stays_bounded(
    loop_thread: LoopThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commits on the event loop never checkpoint (SQLite's automatic checkpoint is off:
    it ran inside a commit, with an fsync, stalling every table); the store's own thread does,
    so the write-ahead log does not grow without end, and closing folds it in."""
    from lexio_gateway import store as store_module  # noqa: PLC0415 - its tunable

    monkeypatch.setattr(store_module, "CHECKPOINT_SECONDS", 0.05)
    path = tmp_path / "gateway.sqlite3"
    wal = Path(f"{path}-wal")
    checkpoints = _watch_checkpoints(monkeypatch, path)
    store = SqliteTableStore(path)
    record = TableRecord("t1", "lexio", "ABCDE-FGHIJ", TableStatus.STARTED, version=0, state=b"")

    def whole_log_copied_after(ended: int) -> bool:
        """Whether a checkpoint begun after the first ``ended`` had ended copied the whole log.
        The checkpointer runs one at a time: the next to end may have begun before, not the
        ones after it."""
        return any(
            busy == 0 and copied == frames for busy, frames, copied in checkpoints[ended + 1 :]
        )

    async def scenario() -> list[int]:
        await store.create_table(record)
        sizes = []
        for version in range(1, 4001):
            before = dataclasses.replace(record, version=version, seq=version, state=b"x" * 3000)
            await store.save_table(before, version - 1, [StoredEvent(version, {"kind": "pass"})])
            if version % 1000 == 0:
                sizes.append(wal.stat().st_size)
                # The checkpointer's turn. Once it has copied the whole log, the next commit
                # writes the log from its start again.
                await eventually(
                    functools.partial(whole_log_copied_after, len(checkpoints)),
                    f"a checkpoint begun after commit {version} that copied the whole log",
                )
        return sizes

    assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    sizes = loop_thread.run(scenario(), timeout=60)
    # Every 1,000 commits add ~13 MB of log (pages of 4 KB) unless it is copied and reused:
    # then its size stays where the first thousand left it.
    assert sizes[-1] < 2 * sizes[0], sizes
    loop_thread.run(store.close())
    assert not wal.exists() or wal.stat().st_size == 0


@pytest.mark.parametrize(
    ("moves", "seats"), [(1, 0), (0, 1)], ids=["wait-replicas", "seat-wait-replicas"]
)
def test_with_wait_replicas_a_seat_token_and_a_new_table_are_on_a_replica_before_they_are_answered(
    loop_thread: LoopThread,
    redis_server: RedisServer,
    redis_replica: RedisServer,
    moves: int,
    seats: int,
) -> None:
    """Issue 40: LEXIO_REDIS_WAIT_REPLICAS=1 covers every write a reply promises, not only
    commits. A seat token (what `seated` hands the player) and a table's record are on the
    replica when the store returns; with the replica gone, both are refused as unavailable
    (a failover to a replica without the token would lock the player out of their game).
    LEXIO_REDIS_SEAT_WAIT_REPLICAS=1 alone does the same for seats, while moves are
    acknowledged without a replica."""
    seat = SeatToken("t1", "p1", "Ana")

    async def scenario() -> None:
        # Patient while the replica answers (a loaded machine acks slowly), quick once it is gone.
        store, quick = (
            RedisTableStore.from_url(
                redis_server.url, wait_replicas=moves, seat_wait_replicas=seats, wait_timeout=t
            )
            for t in (5.0, 0.3)
        )
        try:
            await eventually(lambda: b"state=online" in redis_server.command("INFO"), "online")
            await store.add_token("h1", seat)
            with redis.Redis.from_url(redis_replica.url) as on_replica:
                held = on_replica.get(store.layout.token("h1"))
                assert held is not None, "the token was answered before the replica had it"
                record = TableRecord("t1", "lexio", "ABCDE-FGHIJ", TableStatus.OPEN, version=1)
                await store.create_table(record)
                assert on_replica.hget(store.layout.table("t1"), "meta") is not None
            redis_replica.stop(kill=True)
            with pytest.raises(StoreUnavailableError, match="seat token"):
                await quick.add_token("h2", SeatToken("t1", "p2", "Bruno"))
            with pytest.raises(StoreUnavailableError, match="creation"):
                await quick.create_table(dataclasses.replace(record, table_id="t2"))
            started = dataclasses.replace(record, status=TableStatus.STARTED, version=2)
            if moves:
                with pytest.raises(StoreUnavailableError, match="replication"):
                    await quick.save_table(started, 1)
            else:
                await quick.save_table(started, 1)  # a move: not waited for
        finally:
            await store.close()
            await quick.close()

    loop_thread.run(scenario())


def test_with_wait_replicas_a_commits_notice_is_published_only_once_a_replica_has_it(
    loop_thread: LoopThread, redis_server: RedisServer, redis_replica: RedisServer
) -> None:
    """Issue 40: with WAIT 1, a commit no replica confirmed was applied and published all the
    same, so the other seats saw a move the mover was told had failed, and a failover then
    took it back. Now its notice is held back until the replicas have the commit: published
    (stamped with Redis's instant) when they do, never when they do not."""
    record = TableRecord("t1", "lexio", "ABCDE-FGHIJ", TableStatus.STARTED, version=3)

    def notice(version: int) -> dict[str, Any]:
        return {"kind": "event", "table_id": "t1", "version": version, "seq": version - 3}

    async def scenario() -> None:
        # Patient while the replica answers (a loaded machine acks slowly), quick once it is gone.
        store = RedisTableStore.from_url(redis_server.url, wait_replicas=1, wait_timeout=5.0)
        quick = RedisTableStore.from_url(redis_server.url, wait_replicas=1, wait_timeout=0.3)
        channel = store.layout.channel("t1")
        listener = redis.Redis.from_url(redis_server.url)
        heard = listener.pubsub()  # type: ignore[no-untyped-call]
        heard.ssubscribe(channel)

        def next_message() -> dict[str, Any]:
            while True:
                message = heard.get_sharded_message(timeout=5.0)
                assert message is not None, "nothing published"
                if message["type"] == "smessage":
                    return dict(json.loads(message["data"]))

        try:
            await eventually(lambda: b"state=online" in redis_server.command("INFO"), "online")
            await store.create_table(record)
            await store.save_table(dataclasses.replace(record, version=4), 3, notice=notice(4))
            published = next_message()
            assert published["version"] == 4 and "committed_at" in published
            redis_replica.stop(kill=True)
            with pytest.raises(StoreUnavailableError, match="replication"):
                await quick.save_table(dataclasses.replace(record, version=5), 4, notice=notice(5))
            # Redis runs one command at a time: a notice the commit had published would come
            # before this marker.
            listener.spublish(channel, json.dumps({"marker": True}))
            assert next_message() == {"marker": True}, "an unconfirmed commit was published"
        finally:
            heard.close()
            listener.close()
            await store.close()
            await quick.close()

    loop_thread.run(scenario())


def test_with_wait_replicas_a_commit_no_replica_confirmed_is_not_acknowledged(
    loop_thread: LoopThread, redis_server: RedisServer, redis_replica: RedisServer
) -> None:
    """LEXIO_REDIS_WAIT_REPLICAS=1: a commit counts once Redis's replica has it. With the
    replica gone it is still applied on the master (its reply stored: the action sent again
    is answered from it once a replica has it), but answered as unavailable, never
    acknowledged, so that a failover to a replica without it cannot lose an acknowledged
    move."""
    record = TableRecord("t1", "lexio", "ABCDE-FGHIJ", TableStatus.STARTED, version=3)
    reply = ActionReply("p1", "r1", {"type": "ack", "id": "r1", "seq": 1})

    async def scenario() -> None:
        # Patient while the replica answers (on a loaded machine its ack can take over a
        # second), quick once it is gone.
        patient = RedisTableStore.from_url(redis_server.url, wait_replicas=1, wait_timeout=10.0)
        store = RedisTableStore.from_url(redis_server.url, wait_replicas=1, wait_timeout=1.0)
        try:
            # The replica online first: creating the table waits for it too (issue 40).
            await eventually(lambda: b"state=online" in redis_server.command("INFO"), "online")
            await patient.create_table(record)
            await patient.save_table(dataclasses.replace(record, version=4), 3)
            await patient.confirm_replicated("t1")  # the replica has everything so far
            redis_replica.stop(kill=True)
            after = dataclasses.replace(record, version=5, seq=1)
            with pytest.raises(StoreUnavailableError, match="replication"):
                await store.save_table(after, 4, [StoredEvent(1, {"kind": "pass"})], reply)
            assert await store.version_and_reply("t1", "p1", "r1") == (5, reply)
            # The action sent again is answered from that reply only once a replica has it.
            with pytest.raises(StoreUnavailableError, match="replication"):
                await store.confirm_replicated("t1")
        finally:
            await store.close()
            await patient.close()

    loop_thread.run(scenario())
    waited = REGISTRY.get_sample_value(
        "lexio_gateway_store_commit_seconds_count", {"outcome": "unreplicated"}
    )
    assert waited is not None and waited >= 1
