"""SqliteTableStore on a real file: WAL, compare-and-set, unique codes, reopening, bad files."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from lexio_testing import LoopThread

from lexio_lobby import model
from lexio_lobby.model import CloseReason, Seat, Table, TableState
from lexio_lobby.store import SqliteTableStore, StoreError


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


@pytest.fixture
def store(loop_thread: LoopThread, tmp_path: Path) -> Iterator[SqliteTableStore]:
    opened = loop_thread.run(SqliteTableStore.open(tmp_path / "sub" / "dir" / "lobby.sqlite3"))
    yield opened
    loop_thread.run(opened.close())


def test_the_file_is_created_in_wal_mode(
    store: SqliteTableStore, loop_thread: LoopThread, tmp_path: Path
) -> None:
    assert loop_thread.run(store.journal_mode()) == "wal"
    assert (tmp_path / "sub" / "dir" / "lobby.sqlite3").exists()


def test_insert_get_and_find_by_code_round_trip(
    store: SqliteTableStore, loop_thread: LoopThread
) -> None:
    table = _table()
    assert loop_thread.run(store.insert(table))
    assert loop_thread.run(store.get("t1")) == table
    assert loop_thread.run(store.find_by_code("2345678923")) == table
    assert loop_thread.run(store.get("nope")) is None
    assert loop_thread.run(store.find_by_code("ZZZZZZZZZZ")) is None


def test_ids_and_codes_are_unique(store: SqliteTableStore, loop_thread: LoopThread) -> None:
    assert loop_thread.run(store.insert(_table()))
    assert not loop_thread.run(store.insert(_table(table_id="t2")))  # same code
    assert not loop_thread.run(store.insert(_table(code="3333333333")))  # same id
    assert loop_thread.run(store.insert(_table(table_id="t2", code="3333333333")))


def test_replace_is_a_compare_and_set_on_the_version(
    store: SqliteTableStore, loop_thread: LoopThread
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


def test_sweep_queries(store: SqliteTableStore, loop_thread: LoopThread) -> None:
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


def test_everything_survives_reopening(loop_thread: LoopThread, tmp_path: Path) -> None:
    path = tmp_path / "lobby.sqlite3"
    first = loop_thread.run(SqliteTableStore.open(path))
    table = model.leave(model.join(_table(), Seat("p1", "ليلى", 101.0), 101.0)[0], "p0", 102.0)
    closed = replace(
        _table("t2", "3333333333"), state=TableState.CLOSED, close_reason=CloseReason.EXPIRED
    )
    loop_thread.run(first.insert(table))
    loop_thread.run(first.insert(closed))
    loop_thread.run(first.close())
    second = loop_thread.run(SqliteTableStore.open(path))
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
