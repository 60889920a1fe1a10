"""The table stores on real storage: compare-and-set, unique codes, the sweep's queries,
options and reopening on both (SQLite file, redis-server); WAL, bad files and the migration of
version-1 files for SQLite; tables stored before options existed on both."""

from __future__ import annotations

import asyncio
import concurrent.futures
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from lexio_testing import LoopThread, RedisServer
from lobby_fixtures import (
    BACKENDS,
    open_store,
    redis_for,
    redis_tables,
    write_v1_file,
    write_v1_hash,
)

from lexio_lobby import model
from lexio_lobby import store as store_module
from lexio_lobby.model import CloseReason, Seat, Table, TableState
from lexio_lobby.redis_store import RedisTableStore
from lexio_lobby.store import SqliteTableStore, StoreError, TableStore


def _table(table_id: str = "t1", code: str = "2345678923", now: float = 100.0) -> Table:
    return model.new_table(
        table_id=table_id,
        code=code,
        game="cards",
        min_seats=2,
        max_seats=4,
        host=Seat("p0", "Zoé 🦊", now),
        now=now,
    )


@pytest.fixture(params=BACKENDS)
def redis(request: pytest.FixtureRequest) -> RedisServer | None:
    """The test's redis-server on the "redis" backend; None on "sqlite"."""
    return redis_for(request)


@pytest.fixture
def store(
    loop_thread: LoopThread, tmp_path: Path, redis: RedisServer | None
) -> Iterator[TableStore]:
    opened = loop_thread.run(
        open_store(tmp_path / "sub" / "dir" / "lobby.sqlite3", redis.url if redis else "")
    )
    yield opened
    loop_thread.run(opened.close())
    if redis is not None:
        redis_tables(redis.url)  # whatever the test did, the keys agree with each other


def test_the_file_is_created_in_wal_mode(loop_thread: LoopThread, tmp_path: Path) -> None:
    store = loop_thread.run(SqliteTableStore.open(tmp_path / "sub" / "dir" / "lobby.sqlite3"))
    try:
        assert loop_thread.run(store.journal_mode()) == "wal"
        assert loop_thread.run(store.ping())
    finally:
        loop_thread.run(store.close())
    assert (tmp_path / "sub" / "dir" / "lobby.sqlite3").exists()


def test_insert_get_and_find_by_code_round_trip(store: TableStore, loop_thread: LoopThread) -> None:
    table = _table()
    assert loop_thread.run(store.insert(table))
    assert loop_thread.run(store.get("t1")) == table
    assert loop_thread.run(store.find_by_code("2345678923")) == table
    assert loop_thread.run(store.get("nope")) is None
    assert loop_thread.run(store.find_by_code("ZZZZZZZZZZ")) is None


def test_ids_and_codes_are_unique(store: TableStore, loop_thread: LoopThread) -> None:
    assert loop_thread.run(store.insert(_table()))
    assert not loop_thread.run(store.insert(_table(table_id="t2")))  # same code
    assert not loop_thread.run(store.insert(_table(code="3333333333")))  # same id
    assert loop_thread.run(store.insert(_table(table_id="t2", code="3333333333")))


def test_replace_is_a_compare_and_set_on_the_version(
    store: TableStore, loop_thread: LoopThread
) -> None:
    table = _table()
    loop_thread.run(store.insert(table))
    joined, _, _ = model.join(table, Seat("p1", "Bea", 101.0), 101.0)
    other, _, _ = model.join(table, Seat("p2", "Cy", 101.5), 101.5)
    assert loop_thread.run(store.replace(joined, table.version))
    # A second writer that read the same version loses, and changes nothing.
    assert not loop_thread.run(store.replace(other, table.version))
    assert loop_thread.run(store.get("t1")) == joined
    assert not loop_thread.run(store.replace(replace(joined, table_id="gone"), joined.version))


def test_writers_racing_through_two_connections_apply_one_change_and_one_code(
    loop_thread: LoopThread, tmp_path: Path, redis: RedisServer | None
) -> None:
    """Two stores on one file or one Redis, as two lobby replicas have: of 20 writes made
    from the same version only one lands, and of 10 tables wanting one code only one gets it."""

    async def scenario() -> tuple[list[bool], Table | None, list[Table], list[bool]]:
        url = redis.url if redis else ""
        stores = [await open_store(tmp_path / "lobby.sqlite3", url) for _ in range(2)]
        try:
            table = _table()
            assert await stores[0].insert(table)
            changes = [
                model.join(table, Seat(f"r{i}", f"R{i}", 101.0 + i), 101.0 + i)[0]
                for i in range(20)
            ]
            applied = await asyncio.gather(
                *(stores[i % 2].replace(change, table.version) for i, change in enumerate(changes))
            )
            inserted = await asyncio.gather(
                *(stores[i % 2].insert(_table(f"x{i}", "7777777777")) for i in range(10))
            )
            return list(applied), await stores[1].get("t1"), changes, list(inserted)
        finally:
            for store in stores:
                await store.close()

    applied, stored, changes, inserted = loop_thread.run(scenario())
    assert applied.count(True) == 1
    assert stored == changes[applied.index(True)]
    assert inserted.count(True) == 1


def test_sweep_queries(store: TableStore, loop_thread: LoopThread) -> None:
    old = _table("old", "2222222222", now=10.0)
    new = _table("new", "3333333333", now=50.0)
    started = model.start(
        model.join(_table("run", "4444444444", now=5.0), Seat("p1", "B", 5.0), 5.0)[0], "p0", 6.0
    )
    closed = model.close(_table("shut", "5555555555", now=1.0), "p0", 2.0)
    for table in (old, new, started, closed):
        assert loop_thread.run(store.insert(table))
    assert [t.table_id for t in loop_thread.run(store.idle_open(50.0, 10))] == ["old", "new"]
    assert [t.table_id for t in loop_thread.run(store.idle_open(49.0, 10))] == ["old"]
    assert [t.table_id for t in loop_thread.run(store.idle_open(60.0, 1))] == ["old"]
    assert loop_thread.run(store.count_by_state()) == {
        TableState.OPEN: 2,
        TableState.STARTED: 1,
        TableState.CLOSED: 1,
    }
    assert loop_thread.run(store.purge_closed(2.0)) == 0
    assert loop_thread.run(store.purge_closed(2.5)) == 1
    assert loop_thread.run(store.get("shut")) is None
    assert loop_thread.run(store.count_by_state())[TableState.CLOSED] == 0


def test_everything_survives_reopening(
    loop_thread: LoopThread, tmp_path: Path, redis: RedisServer | None
) -> None:
    path = tmp_path / "lobby.sqlite3"
    url = redis.url if redis else ""
    first = loop_thread.run(open_store(path, url))
    table = model.leave(model.join(_table(), Seat("p1", "ليلى", 101.0), 101.0)[0], "p0", 102.0)
    closed = replace(
        _table("t2", "3333333333"), state=TableState.CLOSED, close_reason=CloseReason.EXPIRED
    )
    loop_thread.run(first.insert(table))
    loop_thread.run(first.insert(closed))
    loop_thread.run(first.close())
    if redis is not None:  # and Redis restarts in between, reloading its append-only file
        redis.stop()
        redis.start()
    second = loop_thread.run(open_store(path, url))
    try:
        assert loop_thread.run(second.get("t1")) == table
        assert loop_thread.run(second.get("t2")) == closed
    finally:
        loop_thread.run(second.close())


def test_a_file_that_is_not_a_lobby_store_is_refused(
    loop_thread: LoopThread, tmp_path: Path
) -> None:
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="cannot use"):
        loop_thread.run(SqliteTableStore.open(garbage))
    future = tmp_path / "future.sqlite3"
    with sqlite3.connect(future) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="schema version 99"):
        loop_thread.run(SqliteTableStore.open(future))


def test_a_path_that_cannot_be_created_is_refused(loop_thread: LoopThread, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StoreError, match="cannot open"):
        loop_thread.run(SqliteTableStore.open(blocker / "lobby.sqlite3"))


def test_the_table_repr_never_shows_the_code() -> None:
    table = _table(code="7KQF3XMP9A")
    assert "7KQF3XMP9A" not in repr(table)
    assert "7KQF3XMP9A" not in str(table)


# -- options ------------------------------------------------------------------------------------

MISHQAQ_OPTIONS = (
    ("host_side", "arabic"),
    ("latin", "en"),
    ("latin_minutes", 40),
    ("arabic_minutes", 20),
)


def test_options_round_trip_exactly_through_writes_and_reopening(
    loop_thread: LoopThread, tmp_path: Path, redis: RedisServer | None
) -> None:
    path = tmp_path / "lobby.sqlite3"
    url = redis.url if redis else ""
    table = replace(_table(), options=MISHQAQ_OPTIONS)
    first = loop_thread.run(open_store(path, url))
    try:
        assert loop_thread.run(first.insert(table))
        assert loop_thread.run(first.insert(_table("t2", "3333333333")))  # no options
        joined, _, _ = model.join(table, Seat("p1", "Bea", 101.0), 101.0)
        assert loop_thread.run(first.replace(joined, table.version))
    finally:
        loop_thread.run(first.close())
    second = loop_thread.run(open_store(path, url))
    try:
        for found in (
            loop_thread.run(second.get("t1")),
            loop_thread.run(second.find_by_code("2345678923")),
            *(t for t in loop_thread.run(second.idle_open(1000.0, 10)) if t.table_id == "t1"),
        ):
            assert found == joined
            assert found.options == MISHQAQ_OPTIONS  # same order, same values...
            assert [type(v) for _, v in found.options] == [str, str, int, int]  # ...same types
        plain = loop_thread.run(second.get("t2"))
        assert plain is not None and plain.options == ()
    finally:
        loop_thread.run(second.close())


def test_a_version_1_file_is_migrated_and_its_tables_load_without_options(
    loop_thread: LoopThread, tmp_path: Path
) -> None:
    path = tmp_path / "old.sqlite3"
    write_v1_file(path, "old", "2345678923")
    store = loop_thread.run(SqliteTableStore.open(path))
    try:
        old = loop_thread.run(store.get("old"))
        assert old is not None
        assert (old.game, old.options, old.seats[0].display_name) == ("cards", (), "Zoé")
        joined, _, _ = model.join(old, Seat("p1", "Bea", 101.0), 101.0)
        assert loop_thread.run(store.replace(joined, old.version))
        assert loop_thread.run(
            store.insert(replace(_table("new", "3333333333"), options=(("a", 1),)))
        )
        assert loop_thread.run(store.get("old")) == joined
    finally:
        loop_thread.run(store.close())
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 2
        rows = dict(db.execute("SELECT table_id, options FROM lobby_tables"))
    db.close()
    assert rows == {"old": "{}", "new": '{"a": 1}'}


def test_two_lobbies_opening_one_old_file_at_once_migrate_it_once(
    loop_thread: LoopThread, tmp_path: Path
) -> None:
    async def both(path: Path) -> list[Table | None]:
        stores = await asyncio.gather(*(SqliteTableStore.open(path) for _ in range(2)))
        try:
            return [await store.get("old") for store in stores]
        finally:
            for store in stores:
                await store.close()

    # Twenty old files: the race of the two switches to WAL ("database is locked" at once,
    # without the busy handler) hit about one opening in seven before it was retried.
    for attempt in range(20):
        path = tmp_path / f"old-{attempt}.sqlite3"
        write_v1_file(path, "old", "2345678923")
        first, second = loop_thread.run(both(path))
        assert first is not None and first == second and first.options == ()


def test_a_redis_table_written_before_options_loads_and_plays(
    loop_thread: LoopThread, redis_server: RedisServer
) -> None:
    write_v1_hash(redis_server.url, "old", "2345678923")
    store = loop_thread.run(RedisTableStore.open(redis_server.url))
    try:
        old = loop_thread.run(store.find_by_code("2345678923"))
        assert old is not None and old.options == ()
        joined, _, _ = model.join(old, Seat("p1", "Bea", 101.0), 101.0)
        assert loop_thread.run(store.replace(joined, old.version))
        assert loop_thread.run(store.get("old")) == joined
    finally:
        loop_thread.run(store.close())
    (fields,) = redis_tables(redis_server.url).values()
    assert "options" not in fields  # a change never writes options: they are fixed at creation


def test_a_switch_to_wal_refused_as_locked_is_tried_again_until_the_lock_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race of the test above, made certain: the switch to WAL is refused "database is
    locked" at once (as in that race, where SQLite answers without its busy handler: here the
    switching connection has none), while another connection holds the old file's exclusive
    lock; the switch is tried again, and succeeds once the lock is released."""
    path = tmp_path / "old.sqlite3"
    write_v1_file(path, "old", "2345678923")
    holder = sqlite3.connect(path, isolation_level=None)
    switching = sqlite3.connect(path, check_same_thread=False)
    switching.execute("PRAGMA busy_timeout = 0")
    holder.execute("BEGIN EXCLUSIVE")
    refused = threading.Event()
    real_sleep = time.sleep

    def between_tries(seconds: float) -> None:
        if threading.current_thread().name.startswith("switching"):
            refused.set()  # the switch was refused, and waits to try again
        real_sleep(seconds)

    # The store's module calls time.sleep between two tries (on the switching thread).
    monkeypatch.setattr(time, "sleep", between_tries)
    try:
        with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="switching") as thread:
            switched = thread.submit(store_module._switch_to_wal, switching)
            assert refused.wait(10), f"the switch was never refused: {switched}"
            assert not switched.done()
            holder.execute("COMMIT")
            assert switched.result(timeout=10) == "wal"
    finally:
        holder.close()
        switching.close()


def test_a_closed_store_answers_ping_false(loop_thread: LoopThread, tmp_path: Path) -> None:
    """What readiness asks: a store that cannot run a query says no, and raises nothing."""

    async def scenario() -> tuple[bool, bool]:
        store = await SqliteTableStore.open(tmp_path / "lobby.sqlite3")
        before = await store.ping()
        await store.close()
        return before, await store.ping()

    assert loop_thread.run(scenario()) == (True, False)
