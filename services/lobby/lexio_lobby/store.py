"""Where tables live: a small protocol, and its embedded SQLite implementation.

The lobby's logic needs only whole-table reads and a **compare-and-set** write on the table's
``version`` (see :mod:`lexio_lobby.model`): read, compute the next value, write it only if
nobody wrote in between, else read again. That is all :class:`TableStore` asks, so the store
shared by several lobby replicas (:mod:`lexio_lobby.redis_store`) plugs in without touching the
logic.

A store that cannot be reached *right now* (a network store that is down) raises
:class:`StoreUnavailableError` from any method, having changed nothing; the servicer answers
``UNAVAILABLE`` / ``store_unavailable`` and the next call tries again.

:class:`SqliteTableStore` is the single-machine default: one file, WAL mode (readers never
block the writer, and a crash of the process loses no committed change), every write a single
statement in its own transaction. All SQLite work runs on one dedicated thread so the event
loop never blocks on the disk, and so one connection is never used from two threads.
``synchronous=NORMAL`` is SQLite's recommended WAL setting: a restart of the lobby loses
nothing; only a power cut or kernel crash may lose the last few commits.

Schema versions (``PRAGMA user_version``): 1 had no table options; 2 adds the ``options``
column (a JSON object). Opening a version-1 file migrates it in place, in one transaction:
its tables get ``{}``, which is what they were created with.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Final, Protocol, TypeVar

from lexio_lobby.model import CloseReason, Seat, Table, TableState
from lexio_lobby.options import options_from_json, options_to_json

T = TypeVar("T")

SCHEMA_VERSION: Final = 2

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS lobby_tables (
    table_id     TEXT PRIMARY KEY,
    code         TEXT NOT NULL UNIQUE,   -- canonical invite code; unique until the row is purged
    game         TEXT NOT NULL,
    min_seats    INTEGER NOT NULL,
    max_seats    INTEGER NOT NULL,
    state        TEXT NOT NULL,          -- open | started | closed
    seats        TEXT NOT NULL,          -- JSON list in arrival order
    created_at   REAL NOT NULL,
    updated_at   REAL NOT NULL,
    version      INTEGER NOT NULL,
    close_reason TEXT,
    options      TEXT NOT NULL DEFAULT '{}'  -- JSON object, fixed at creation (schema 2)
)
"""
_INDEX: Final = (
    "CREATE INDEX IF NOT EXISTS lobby_tables_by_state ON lobby_tables (state, updated_at)"
)
#: Version 1 → 2. The default keeps a version-1 lobby's INSERT (which names its columns)
#: working too, should one still write to the file.
_ADD_OPTIONS: Final = "ALTER TABLE lobby_tables ADD COLUMN options TEXT NOT NULL DEFAULT '{}'"

_COLUMNS: Final = (
    "table_id, code, game, min_seats, max_seats, state, seats, created_at, updated_at, "
    "version, close_reason, options"
)


class StoreError(RuntimeError):
    """The store cannot be opened or used (bad path, foreign schema, not a database)."""


class StoreUnavailableError(RuntimeError):
    """The store cannot be reached for now; the call changed nothing and may be retried.
    ``retry_after`` (seconds), when known: the store was in a passing state (a Redis Cluster's
    slot in motion, a failover) that outlasted the store's own retries."""

    def __init__(self, message: str = "", retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class TableStore(Protocol):
    """What the lobby needs from storage. Every method is atomic on its own."""

    async def insert(self, table: Table) -> bool:
        """Store a new table; False (and nothing stored) if its id or code is already used."""
        ...

    async def get(self, table_id: str) -> Table | None: ...

    async def find_by_code(self, code: str) -> Table | None:
        """The table holding this canonical code, whatever its state, until it is purged."""
        ...

    async def replace(self, table: Table, expected_version: int) -> bool:
        """Write ``table`` over the stored one only if that one is still at
        ``expected_version``; False if it moved on (or is gone)."""
        ...

    async def idle_open(self, updated_at_most: float, limit: int) -> Sequence[Table]:
        """Up to ``limit`` open tables last changed at or before ``updated_at_most``, oldest
        first (for the expiry sweep)."""
        ...

    async def purge_closed(self, updated_before: float) -> int:
        """Delete tables closed before ``updated_before``; how many went."""
        ...

    async def count_by_state(self) -> dict[TableState, int]: ...

    async def ping(self) -> bool:
        """True if the store answers now (what health reports); never raises."""
        ...

    async def close(self) -> None: ...


def seats_to_json(seats: Sequence[Seat]) -> str:
    """Seats as stored (by every store): a JSON list in arrival order."""
    return json.dumps(
        [{"player_id": s.player_id, "name": s.display_name, "at": s.joined_at} for s in seats],
        ensure_ascii=False,
    )


def seats_from_json(text: str) -> tuple[Seat, ...]:
    return tuple(
        Seat(player_id=s["player_id"], display_name=s["name"], joined_at=float(s["at"]))
        for s in json.loads(text)
    )


def _row_to_table(row: sqlite3.Row) -> Table:
    seats = seats_from_json(row["seats"])
    return Table(
        table_id=row["table_id"],
        code=row["code"],
        game=row["game"],
        min_seats=row["min_seats"],
        max_seats=row["max_seats"],
        state=TableState(row["state"]),
        seats=seats,
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        version=row["version"],
        close_reason=CloseReason(row["close_reason"]) if row["close_reason"] else None,
        options=options_from_json(row["options"]),
    )


def _values(table: Table) -> tuple[object, ...]:
    return (
        table.table_id,
        table.code,
        table.game,
        table.min_seats,
        table.max_seats,
        table.state.value,
        seats_to_json(table.seats),
        table.created_at,
        table.updated_at,
        table.version,
        table.close_reason.value if table.close_reason else None,
        options_to_json(table.options),
    )


class SqliteTableStore:
    """:class:`TableStore` on a SQLite file. Open it with :meth:`open`."""

    def __init__(self, connection: sqlite3.Connection, executor: ThreadPoolExecutor) -> None:
        self._db = connection
        self._executor = executor

    @classmethod
    async def open(cls, path: Path, *, synchronous: str = "NORMAL") -> SqliteTableStore:
        """Open (creating the file and its directory if needed) and check the schema."""
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lobby-sqlite")
        loop = asyncio.get_running_loop()
        try:
            connection = await loop.run_in_executor(executor, _connect, path, synchronous)
        except BaseException:
            executor.shutdown(wait=False)
            raise
        return cls(connection, executor)

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, work, self._db)

    async def insert(self, table: Table) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            try:
                with db:
                    db.execute(
                        f"INSERT INTO lobby_tables ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                        _values(table),
                    )
            except sqlite3.IntegrityError:
                return False
            return True

        return await self._run(work)

    async def get(self, table_id: str) -> Table | None:
        return await self._one("table_id", table_id)

    async def find_by_code(self, code: str) -> Table | None:
        return await self._one("code", code)

    async def _one(self, column: str, value: str) -> Table | None:
        def work(db: sqlite3.Connection) -> Table | None:
            row = db.execute(
                f"SELECT {_COLUMNS} FROM lobby_tables WHERE {column} = ?", (value,)
            ).fetchone()
            return None if row is None else _row_to_table(row)

        return await self._run(work)

    async def replace(self, table: Table, expected_version: int) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            with db:
                cursor = db.execute(
                    "UPDATE lobby_tables SET state = ?, seats = ?, updated_at = ?, version = ?, "
                    "close_reason = ? WHERE table_id = ? AND version = ?",
                    (
                        table.state.value,
                        seats_to_json(table.seats),
                        table.updated_at,
                        table.version,
                        table.close_reason.value if table.close_reason else None,
                        table.table_id,
                        expected_version,
                    ),
                )
            return cursor.rowcount == 1

        return await self._run(work)

    async def idle_open(self, updated_at_most: float, limit: int) -> Sequence[Table]:
        def work(db: sqlite3.Connection) -> list[Table]:
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM lobby_tables WHERE state = ? AND updated_at <= ? "
                "ORDER BY updated_at LIMIT ?",
                (TableState.OPEN.value, updated_at_most, limit),
            ).fetchall()
            return [_row_to_table(row) for row in rows]

        return await self._run(work)

    async def purge_closed(self, updated_before: float) -> int:
        def work(db: sqlite3.Connection) -> int:
            with db:
                cursor = db.execute(
                    "DELETE FROM lobby_tables WHERE state = ? AND updated_at < ?",
                    (TableState.CLOSED.value, updated_before),
                )
            return cursor.rowcount

        return await self._run(work)

    async def count_by_state(self) -> dict[TableState, int]:
        def work(db: sqlite3.Connection) -> dict[TableState, int]:
            counts = dict.fromkeys(TableState, 0)
            for state, count in db.execute(
                "SELECT state, COUNT(*) FROM lobby_tables GROUP BY state"
            ):
                counts[TableState(state)] = count
            return counts

        return await self._run(work)

    async def ping(self) -> bool:
        try:
            await self._run(lambda db: db.execute("SELECT 1").fetchone())
        except Exception:
            return False
        return True

    async def journal_mode(self) -> str:
        """The connection's journal mode ("wal"): for tests and start-up checks."""
        return await self._run(lambda db: str(db.execute("PRAGMA journal_mode").fetchone()[0]))

    async def close(self) -> None:
        try:
            await self._run(lambda db: db.close())
        finally:
            self._executor.shutdown(wait=True)


WAL_SWITCH_SECONDS: Final = 5.0


def _switch_to_wal(db: sqlite3.Connection) -> str:
    """The file's journal mode after asking for WAL. Switching an old rollback-journal file
    needs its exclusive lock, and SQLite answers "database is locked" at once, without the busy
    handler, when another process is taking it for the same switch (two lobbies opening one old
    file together): try again for as long as busy_timeout would have waited."""
    deadline = time.monotonic() + WAL_SWITCH_SECONDS
    while True:
        try:
            return str(db.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def _connect(path: Path, synchronous: str) -> sqlite3.Connection:
    """Runs on the store's thread: open, switch to WAL, create or check the schema."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Writes open with BEGIN IMMEDIATE: a writer takes the lock up front, so two lobby
        # processes on one file wait (busy_timeout) instead of failing on a lock upgrade.
        db = sqlite3.connect(path, isolation_level="IMMEDIATE", check_same_thread=False)
    except (OSError, sqlite3.Error) as e:
        raise StoreError(f"cannot open {path}: {e}") from e
    try:
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA busy_timeout = 5000")
        mode = _switch_to_wal(db)
        if str(mode).lower() != "wal":
            raise StoreError(f"{path}: SQLite refused WAL mode (got {mode!r})")
        if synchronous.upper() not in {"NORMAL", "FULL"}:
            raise StoreError(f"synchronous must be NORMAL or FULL, got {synchronous!r}")
        db.execute(f"PRAGMA synchronous = {synchronous.upper()}")
        _create_or_migrate(db, path)
    except sqlite3.Error as e:
        db.close()
        raise StoreError(f"cannot use {path}: {e}") from e
    except StoreError:
        db.close()
        raise
    return db


def _create_or_migrate(db: sqlite3.Connection, path: Path) -> None:
    """Create the schema in a new file, or bring a version-1 file to the current version.

    The version is read inside the write transaction, so two lobbies opening one old file at
    once migrate it once: the second waits for the lock, then finds it current."""
    db.execute("BEGIN IMMEDIATE")
    try:
        found = db.execute("PRAGMA user_version").fetchone()[0]
        if found == 0:
            db.execute(_SCHEMA)
        elif found == 1:
            db.execute(_ADD_OPTIONS)
        elif found != SCHEMA_VERSION:
            raise StoreError(f"{path}: schema version {found}, this lobby knows {SCHEMA_VERSION}")
        db.execute(_INDEX)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.commit()
    except BaseException:
        db.rollback()
        raise
