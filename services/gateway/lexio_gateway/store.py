"""Where tables live: an interface with compare-and-set on the version, and SQLite under it.

Every accepted action is stored (state, event, version + 1) before anyone hears of it. The
version makes a second writer (another gateway replica, later a Redis store) fail loudly
instead of overwriting: :class:`VersionConflictError`.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

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


class VersionConflictError(Exception):
    """The table changed since it was read: the write was not applied."""


class StoreUnavailableError(Exception):
    """The store cannot be reached; nothing was written."""


@dataclass(frozen=True)
class Expired:
    """What one pass of :meth:`TableStore.expire_finished` did."""

    expired: list[str]
    """Finished tables now tombstones: their state, events and replies deleted."""
    purged: list[str]
    """Tombstones deleted with their tokens: nothing of these tables is left."""


def stamp_end(record: TableRecord, now: float) -> None:
    """A record written as finished without its end instant gets ``now``: the commit that ends
    the game stores it (whichever step ended it: a move, a clock, a resignation), and the
    caller's copy, which is the table's record from then on, carries it."""
    if record.status is TableStatus.OVER and record.ended_at is None:
        record.ended_at = now


class TableStore(Protocol):
    shared: bool
    """True when several gateway replicas share the store (it then publishes commit notices)."""

    @property
    def holds_back_notices(self) -> bool:
        """Whether a commit's notice waits for the store's replicas: then the store may hold
        a commit no notice told of (answered unavailable), which room.py tells of once the
        replicas confirm it."""
        ...

    async def create_table(self, record: TableRecord) -> None: ...

    async def get_table(self, table_id: str) -> TableRecord | None: ...

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
        """Write ``record`` (whose version is ``expected_version + 1``), its new events and
        the action's reply atomically, or raise :class:`VersionConflictError`. A shared store
        publishes ``notice`` on the bus in the same atomic step, and compares the stored
        :attr:`~TableRecord.commit` with ``expected_commit`` too (None: the version alone). A
        finished record without its end instant gets the store's clock's now
        (:func:`stamp_end`), written in that step."""
        ...

    async def events_after(self, table_id: str, seq: int, limit: int) -> list[StoredEvent]: ...

    async def find_reply(
        self, table_id: str, player_id: str, action_id: str
    ) -> ActionReply | None: ...

    async def version_and_reply(
        self, table_id: str, player_id: str, action_id: str
    ) -> tuple[int | None, ActionReply | None]:
        """The table's stored version and :meth:`find_reply`, in one round trip: all a
        replica must know before it acts (it reads the whole table only when it is behind)."""
        ...

    async def add_token(self, token_hash: str, token: SeatToken) -> None: ...

    async def find_token(self, token_hash: str) -> SeatToken | None: ...

    async def drop_token(self, token_hash: str) -> None: ...

    async def confirm_replicated(self, table_id: str) -> None:
        """Return once every write so far of the table's data is on as many of the store's
        replicas as a commit must be (StoreUnavailableError if not in time): before an action
        sent again is answered from its stored reply."""
        ...

    async def keep_tokens(self, table_id: str) -> None:
        """A finished game's seat tokens last as long as its record from now on (the records'
        retention deletes them): done once its table is closed in the lobby. Again is
        harmless."""
        ...

    async def tables_in_play(self) -> list[TableRecord]: ...

    async def lobby_closes_due(self, now: float, limit: int) -> list[str]:
        """Finished tables whose closing in the lobby is due (at most ``limit``). A commit
        that ends a game (``started`` to ``over``) adds its table, in the same atomic step:
        the to-do survives any crash of the gateway."""
        ...

    async def claim_lobby_close(self, table_id: str, now: float, until: float) -> bool:
        """Take a due closing until ``until`` (when it is due again unless done): whether this
        replica got it. Several replicas may look at once; one gets it."""
        ...

    async def lobby_close_done(self, table_id: str) -> None:
        """The lobby confirmed (or no longer knows the table): nothing left to do."""
        ...

    async def due_tables(self, now: float) -> list[str]:
        """Tables in play whose clock event is due (shared stores; others: none)."""
        ...

    async def expire_finished(
        self, expire_before: float, purge_before: float, limit: int
    ) -> Expired:
        """The records' retention, one batch (at most ``limit`` tables of each kind): finished
        tables that ended at or before ``expire_before`` become tombstones (status
        ``expired``: their state, events, replies and players' names deleted; their tokens
        kept, nameless), and tombstones of tables that ended at or before ``purge_before``
        go, with their tokens. Several replicas may run it at once: each table is changed
        once, by one of them."""
        ...

    async def ping(self) -> bool:
        """Whether the store answers now (readiness); never raises."""
        ...

    async def close(self) -> None: ...


_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    code TEXT NOT NULL,
    status TEXT NOT NULL,
    version INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    players TEXT NOT NULL,
    state BLOB NOT NULL,
    turn INTEGER NOT NULL DEFAULT -1,
    deadline REAL NOT NULL DEFAULT 0,
    turn_since REAL NOT NULL DEFAULT 0,
    rematch_code TEXT NOT NULL,
    rematch_table_id TEXT NOT NULL,
    clock TEXT,
    seats TEXT,
    options TEXT,
    ended_at REAL
);
CREATE INDEX IF NOT EXISTS tables_by_status ON tables (status);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    entry TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tokens (
    token_hash TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    player_id TEXT NOT NULL,
    name TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tokens_by_table ON tokens (table_id);
CREATE TABLE IF NOT EXISTS lobby_closes (
    table_id TEXT PRIMARY KEY,
    due REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS replies (
    table_id TEXT NOT NULL,
    player_id TEXT NOT NULL,
    action_id TEXT NOT NULL,
    reply TEXT NOT NULL,
    PRIMARY KEY (table_id, player_id, action_id)
) WITHOUT ROWID;
"""

# Added to files made before the clock was the game's and tables had options. A row written
# then keeps NULL there and is read from its old turn/deadline/turn_since columns (which new
# rows leave at their defaults). ended_at: see _ENDED_BEFORE_THE_COLUMN.
_MIGRATIONS = (
    ("clock", "ALTER TABLE tables ADD COLUMN clock TEXT"),
    ("seats", "ALTER TABLE tables ADD COLUMN seats TEXT"),
    ("options", "ALTER TABLE tables ADD COLUMN options TEXT"),
    ("ended_at", "ALTER TABLE tables ADD COLUMN ended_at REAL"),
)
# The games that ended before their end instant was stored: when is unknown, so their
# retention counts from the upgrade that added the column (no record expires at once).
_ENDED_BEFORE_THE_COLUMN = "UPDATE tables SET ended_at = ? WHERE status = ? AND ended_at IS NULL"
# After the migrations: an older file has no ended_at column before them.
_INDEXES = "CREATE INDEX IF NOT EXISTS tables_by_end ON tables (status, ended_at)"
_JSON_COLUMNS = ("players", "clock", "seats", "options")
_COLUMNS = (
    "table_id, game, code, status, version, seq, players, state, clock, seats, options, "
    "rematch_code, rematch_table_id, ended_at"
)
_READ_COLUMNS = f"{_COLUMNS}, turn, deadline, turn_since"


def _row(record: TableRecord) -> tuple[object, ...]:
    fields = record_fields(record)
    for column in _JSON_COLUMNS:
        fields[column] = json.dumps(fields[column])
    return (
        record.table_id,
        *(fields[c] for c in ("game", "code", "status")),
        record.version,
        fields["seq"],
        fields["players"],
        record.state,
        *(fields[c] for c in ("clock", "seats", "options", "rematch_code", "rematch_table_id")),
        record.ended_at,
    )


def _record(row: sqlite3.Row) -> TableRecord:
    fields = {key: row[key] for key in row.keys()}  # noqa: SIM118 - sqlite3.Row is no Mapping
    for column in _JSON_COLUMNS:
        if fields[column] is None:
            del fields[column]  # a row from before the column: see _MIGRATIONS
        else:
            fields[column] = json.loads(fields[column])
    return record_from_fields(row["table_id"], row["version"], bytes(row["state"]), fields)


log = logging.getLogger(__name__)

CHECKPOINT_SECONDS = 1.0
"""How often the log is copied into the database file, off the event loop."""


class _Checkpointer(threading.Thread):
    """Copies the write-ahead log into the database file every :data:`CHECKPOINT_SECONDS`,
    on a connection and a thread of its own (sqlite3 lets other threads run meanwhile).

    SQLite's own checkpoint runs inside the commit that fills the log past 1,000 pages: on
    the event loop, with an fsync, 5–8 ms on this machine's disk once every ~2 s at 200 moves
    a second, during which no table of the gateway moved. A passive checkpoint never blocks
    a writer; committed moves are as durable as before (the log is fsynced when copied).
    """

    def __init__(self, path: Path) -> None:
        super().__init__(name="sqlite-checkpoint", daemon=True)
        self._path = path
        self._stopping = threading.Event()

    def run(self) -> None:
        db = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA busy_timeout=5000")
            while not self._stopping.wait(CHECKPOINT_SECONDS):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error as e:
                    log.warning("checkpoint failed", extra={"error": str(e)})
        finally:
            db.close()

    def stop(self) -> None:
        self._stopping.set()
        self.join(timeout=10)


class SqliteTableStore:
    """The embedded default: one SQLite file in WAL mode.

    The interface is async so that a networked store (Redis) fits it; SQLite calls are short
    and local, so they run on the event loop's thread: a commit in WAL mode with
    synchronous=NORMAL appends to the log and needs no fsync of the database. Copying the
    log into the database (the checkpoint, which does) is a thread's (:class:`_Checkpointer`).
    """

    shared = False
    holds_back_notices = False

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        """``clock``: what stamps a game's end (:func:`stamp_end`), the gateway's own."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.execute("PRAGMA wal_autocheckpoint=0")
        self._db.executescript(_SCHEMA)
        self._clock = clock
        present = {row["name"] for row in self._db.execute("PRAGMA table_info(tables)")}
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            for column, statement in _MIGRATIONS:
                if column not in present:
                    self._db.execute(statement)
            if "ended_at" not in present:
                self._db.execute(_ENDED_BEFORE_THE_COLUMN, (clock(), TableStatus.OVER.value))
            self._db.execute(_INDEXES)
        self._checkpointer = _Checkpointer(path)
        self._checkpointer.start()

    async def create_table(self, record: TableRecord) -> None:
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                # The old columns get their neutral values: older files have no defaults there.
                f"INSERT INTO tables ({_COLUMNS}, turn, deadline, turn_since) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,-1,0,0)",
                _row(record),
            )

    async def get_table(self, table_id: str) -> TableRecord | None:
        row = self._db.execute(
            f"SELECT {_READ_COLUMNS} FROM tables WHERE table_id = ?", (table_id,)
        ).fetchone()
        return _record(row) if row else None

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
        # One gateway, the store's only writer: the version says it all (commit ids are for
        # stores that replicas share, which Redis can roll back under them).
        del expected_commit
        stamp_end(record, self._clock())
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            values = _row(record)
            if record.status is TableStatus.OVER:
                was = self._db.execute(
                    "SELECT status FROM tables WHERE table_id = ?", (record.table_id,)
                ).fetchone()
                if was is not None and was["status"] == TableStatus.STARTED.value:
                    self._db.execute(
                        "INSERT OR IGNORE INTO lobby_closes (table_id, due) VALUES (?, 0)",
                        (record.table_id,),
                    )
            updated = self._db.execute(
                "UPDATE tables SET game=?, code=?, status=?, version=?, seq=?, players=?, state=?, "
                "clock=?, seats=?, options=?, rematch_code=?, rematch_table_id=?, ended_at=? "
                "WHERE table_id = ? AND version = ?",
                (*values[1:], record.table_id, expected_version),
            )
            if updated.rowcount != 1:
                raise VersionConflictError(record.table_id)
            self._db.executemany(
                "INSERT INTO events (table_id, seq, entry) VALUES (?, ?, ?)",
                [(record.table_id, e.seq, json.dumps(e.entry)) for e in events],
            )
            if reply is not None:
                self._db.execute(
                    "INSERT OR REPLACE INTO replies (table_id, player_id, action_id, reply) "
                    "VALUES (?, ?, ?, ?)",
                    (record.table_id, reply.player_id, reply.action_id, json.dumps(reply.reply)),
                )

    async def events_after(self, table_id: str, seq: int, limit: int) -> list[StoredEvent]:
        rows = self._db.execute(
            "SELECT seq, entry FROM events WHERE table_id = ? AND seq > ? ORDER BY seq LIMIT ?",
            (table_id, seq, limit),
        ).fetchall()
        return [StoredEvent(r["seq"], json.loads(r["entry"])) for r in rows]

    async def find_reply(self, table_id: str, player_id: str, action_id: str) -> ActionReply | None:
        row = self._db.execute(
            "SELECT reply FROM replies WHERE table_id = ? AND player_id = ? AND action_id = ?",
            (table_id, player_id, action_id),
        ).fetchone()
        return ActionReply(player_id, action_id, json.loads(row["reply"])) if row else None

    async def version_and_reply(
        self, table_id: str, player_id: str, action_id: str
    ) -> tuple[int | None, ActionReply | None]:
        row = self._db.execute(
            "SELECT version FROM tables WHERE table_id = ?", (table_id,)
        ).fetchone()
        return (row["version"] if row else None), await self.find_reply(
            table_id, player_id, action_id
        )

    async def add_token(self, token_hash: str, token: SeatToken) -> None:
        with self._db:
            self._db.execute(
                "INSERT INTO tokens (token_hash, table_id, player_id, name) VALUES (?, ?, ?, ?)",
                (token_hash, token.table_id, token.player_id, token.name),
            )

    async def find_token(self, token_hash: str) -> SeatToken | None:
        row = self._db.execute(
            "SELECT table_id, player_id, name FROM tokens WHERE token_hash = ?", (token_hash,)
        ).fetchone()
        return SeatToken(row["table_id"], row["player_id"], row["name"]) if row else None

    async def drop_token(self, token_hash: str) -> None:
        with self._db:
            self._db.execute("DELETE FROM tokens WHERE token_hash = ?", (token_hash,))

    async def keep_tokens(self, table_id: str) -> None:
        return None  # they never expire here but with their record

    async def confirm_replicated(self, table_id: str) -> None:
        return None  # one file, no replicas

    async def tables_in_play(self) -> list[TableRecord]:
        rows = self._db.execute(
            f"SELECT {_READ_COLUMNS} FROM tables WHERE status = ?", (TableStatus.STARTED.value,)
        ).fetchall()
        return [_record(r) for r in rows]

    async def due_tables(self, now: float) -> list[str]:
        return []  # one process holds every table: its own timers fire

    async def lobby_closes_due(self, now: float, limit: int) -> list[str]:
        rows = self._db.execute(
            "SELECT table_id FROM lobby_closes WHERE due <= ? ORDER BY due LIMIT ?", (now, limit)
        ).fetchall()
        return [r["table_id"] for r in rows]

    async def claim_lobby_close(self, table_id: str, now: float, until: float) -> bool:
        with self._db:
            claimed = self._db.execute(
                "UPDATE lobby_closes SET due = ? WHERE table_id = ? AND due <= ?",
                (until, table_id, now),
            )
        return claimed.rowcount == 1

    async def lobby_close_done(self, table_id: str) -> None:
        with self._db:
            self._db.execute("DELETE FROM lobby_closes WHERE table_id = ?", (table_id,))

    async def expire_finished(
        self, expire_before: float, purge_before: float, limit: int
    ) -> Expired:
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            rows = self._db.execute(
                f"SELECT {_READ_COLUMNS} FROM tables WHERE status = ? AND ended_at <= ? "
                "ORDER BY ended_at LIMIT ?",
                (TableStatus.OVER.value, expire_before, limit),
            ).fetchall()
            expired = [_record(row) for row in rows]
            for record in expired:
                stone = tombstone(record)
                self._db.execute(
                    "UPDATE tables SET game=?, code=?, status=?, version=?, seq=?, players=?, "
                    "state=?, clock=?, seats=?, options=?, rematch_code=?, rematch_table_id=?, "
                    "ended_at=? WHERE table_id = ?",
                    (*_row(stone)[1:], stone.table_id),
                )
                for table in ("events", "replies", "lobby_closes"):
                    self._db.execute(f"DELETE FROM {table} WHERE table_id = ?", (stone.table_id,))
                # Kept for the answer record_expired, without the names they were given.
                self._db.execute(
                    "UPDATE tokens SET name = '' WHERE table_id = ?", (stone.table_id,)
                )
            purged = [
                row["table_id"]
                for row in self._db.execute(
                    "SELECT table_id FROM tables WHERE status = ? AND ended_at <= ? LIMIT ?",
                    (TableStatus.EXPIRED.value, purge_before, limit),
                ).fetchall()
            ]
            for table_id in purged:
                self._db.execute("DELETE FROM tokens WHERE table_id = ?", (table_id,))
                self._db.execute("DELETE FROM tables WHERE table_id = ?", (table_id,))
        return Expired([r.table_id for r in expired], purged)

    async def ping(self) -> bool:
        try:
            self._db.execute("SELECT 1").fetchone()
        except sqlite3.Error:
            return False
        return True

    async def close(self) -> None:
        self._checkpointer.stop()
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as e:  # the next start replays the log: nothing is lost
            log.warning("final checkpoint failed", extra={"error": str(e)})
        self._db.close()
