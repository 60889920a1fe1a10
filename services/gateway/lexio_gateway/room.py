"""One table this replica holds: its seats, its game's steps, and the one way it changes.

Everything that changes a table goes in one order (:meth:`TableRoom._commit`): ask the game's
adapter, store the new record (version + 1, compare-and-set) with its events, and only then
tell anyone — through the bus, so that every replica holding one of the table's players
delivers it to its own sockets (:mod:`lexio_gateway.delivery`), each seat its own view only.
Who is connected is :mod:`lexio_gateway.presence`'s; when the table acts by itself is
:mod:`lexio_gateway.table_clock`'s, from what the adapter says.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import hashlib
import itertools
import logging
import secrets
from collections import deque
from typing import Any, Final

from lexio_gateway.bus import Notice
from lexio_gateway.connection import Connection
from lexio_gateway.delivery import Delivery
from lexio_gateway.games import (
    BadActionError,
    GameAdapter,
    GameTable,
    GameUnavailableError,
    Step,
)
from lexio_gateway.lobby_client import LobbyError, LobbyTable
from lexio_gateway.metrics import (
    ACTIVE_TABLES,
    CLOCK_EVENTS,
    GAME_EVENTS,
    GAMES_ENDED,
    REFUSALS,
    TABLES_REWOUND,
)
from lexio_gateway.presence import Presence
from lexio_gateway.protocol import ProtocolError
from lexio_gateway.records import (
    ActionReply,
    Player,
    StoredEvent,
    TableRecord,
    TableStatus,
    new_commit_id,
)
from lexio_gateway.services import RoomServices
from lexio_gateway.store import StoreUnavailableError, VersionConflictError
from lexio_gateway.table_clock import RoomClock, next_event

log = logging.getLogger(__name__)

CLOSE_REPLACED: Final = 4001
CLOSE_SERVICE_RESTART: Final = 1012
CLOSE_TRY_AGAIN_LATER: Final = 1013
CAS_ATTEMPTS: Final = 5
CATCH_UP_RETRY_SECONDS: Final = (0.25, 0.5, 1.0, 2.0)
"""The waits between tries to catch up a connection that the engine or the store could not
serve, the last repeated: the seat gets its view within ~2 s of the service coming back (at
once if a commit of the table shows it is back)."""
OWN_COMMITS_KEPT: Final = 64
"""How many of its own commits a room remembers having told (their notices come back through
the bus within milliseconds; an older one is told again, harmlessly: delivery is by seq)."""
COMMITS_KNOWN: Final = 64
"""How many of the table's last commits a room remembers having held or heard: a notice of
an older version is late, not a sign that the store lost what this replica saw, if it is one."""


def token_hash(token: str) -> str:
    """Tokens are stored and looked up only as SHA-256 digests: the store never holds a token,
    and a lookup's timing can only tell about a digest, never about the secret itself."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_urlsafe(12)}"


def rematch_player_id(table_id: str, host_id: str) -> str:
    """The host's player id at the rematch it opens from ``table_id``: derived, not drawn, so
    that a second ``rematch`` finds the seat the first one took (no field to store, and a
    rematch opened by an older gateway, with a drawn id, simply is not found). It grants
    nothing: a seat is reached only with a token.

    >>> first = rematch_player_id("t1", "p_a")
    >>> first == rematch_player_id("t1", "p_a") != rematch_player_id("t2", "p_a")
    True
    """
    digest = hashlib.sha256(f"rematch\0{table_id}\0{host_id}".encode()).digest()
    return f"p_{base64.urlsafe_b64encode(digest[:12]).decode()}"


class TableRoom:
    def __init__(self, services: RoomServices, record: TableRecord) -> None:
        self._services = services
        self.record = record
        self.lobby_table: LobbyTable | None = None
        self.lock = asyncio.Lock()
        self.presence = Presence(services, record.table_id)
        self.delivery = Delivery(services, record.table_id)
        self.clock = RoomClock(services, self._expire)
        self._catching_up: asyncio.Task[None] | None = None
        self._told_here: deque[str] = deque(maxlen=OWN_COMMITS_KEPT)
        """Ids of this replica's own commits, told to its sockets as they were made: their
        notices, when they come back through the bus, have nothing more to say here."""
        self._known: deque[str] = deque(
            [] if services.store.holds_back_notices else [record.commit], maxlen=COMMITS_KNOWN
        )
        """Ids of the table's commits this replica held or heard, the last ones. Where the
        store holds notices back until Redis's replicas confirm a commit, only the confirmed
        ones (a record read from the store is confirmed before its first use: :meth:`refresh`)."""
        self._announced: str | None = None
        """The last commit this replica confirmed late and announced to the others."""
        self._unsettled = False
        """A commit of this room failed in the store (its outcome unknown: perhaps written,
        its replicas not confirming it in time): the room reads the table again until the
        store answers (:meth:`_catch_up_later`)."""
        self._rematch_offered: str | None = None
        """The rematch code this replica's sockets were offered: the host's replica offers it
        as it opens it (TableHub.rematch), every other replica when the commit's notice comes."""

    @property
    def adapter(self) -> GameAdapter:
        return self._services.adapters[self.record.game]

    @property
    def table_id(self) -> str:
        return self.record.table_id

    @property
    def connections(self) -> dict[str, Connection]:
        return self.presence.connections

    def _game_table(self) -> GameTable:
        return GameTable(self.record.state, self.record.options, self.record.clock)

    # Seats ------------------------------------------------------------------------------

    def _players(self) -> list[Player]:
        if self.record.status is TableStatus.OPEN and self.lobby_table is not None:
            return [Player(s.player_id, s.name) for s in self.lobby_table.seats]
        return self.record.players

    def seat_of(self, player_id: str) -> int:
        for index, player in enumerate(self._players()):
            if player.player_id == player_id:
                return index
        return -1

    def table_frame(self, player_id: str) -> dict[str, Any]:
        players = self._players()
        lobby = self.lobby_table
        state = self.record.status.value
        if self.record.status is TableStatus.OPEN and lobby is not None:
            state = lobby.state
        hosts = [s.host for s in lobby.seats] if lobby and state == "open" else None
        frame: dict[str, Any] = {
            "type": "table",
            "table_id": self.table_id,
            "game": self.record.game,
            "code": self.record.code,
            "state": state,
            "seats": [
                {
                    "name": p.name,
                    "host": hosts[i] if hosts else i == 0,
                    "connected": self.presence.present(p.player_id),
                }
                for i, p in enumerate(players)
            ],
            "you": self.seat_of(player_id),
            "min_seats": self.record.min_seats,
            "max_seats": self.record.max_seats,
            "options": self.record.options,
            "rematch": None,
        }
        if self.record.rematch_code:
            frame["rematch"] = {
                "code": self.record.rematch_code,
                "table_id": self.record.rematch_table_id,
            }
        return frame

    async def broadcast_table(self) -> None:
        for player_id, conn in list(self.connections.items()):
            await conn.send(self.table_frame(player_id))

    # Connections ------------------------------------------------------------------------

    async def attach(self, conn: Connection, last_seq: int | None) -> None:
        """Seat ``conn`` in this room; the newest connection of a seat wins (other tabs close,
        on this replica at once, on the others through the bus)."""
        assert conn.seat is not None
        player_id = conn.seat.player_id
        async with self.lock:
            await self.refresh()
            older = self.presence.connect(player_id, conn)
            conn.room = self
            if older is not None:
                await self.replace(older)
            await conn.send(self.table_frame(player_id))
            caught_up = True
            if self.record.status is not TableStatus.OPEN:
                # What the seat has (its word: a wrong number only costs it a snapshot).
                known = last_seq is not None and 0 <= last_seq <= self.record.seq
                conn.seq = last_seq if known and last_seq is not None else -1
                caught_up = await self._catch_up(conn)
            self.schedule_clock()
        await self.presence.announce(player_id, connected=True, nonce=conn.nonce)
        await self.broadcast_table()
        if not caught_up:
            # Seated all the same: its events and view follow once the engine answers.
            raise ProtocolError("unavailable")

    async def replace(self, older: Connection) -> None:
        older.room = None
        await older.send({"type": "replaced"})
        # Not awaited here: closing waits for the peer's answer (seconds, if the old tab's
        # network is gone), and the caller may hold the table's lock.
        self._services.lifecycle.spawn(older.close(CLOSE_REPLACED, "replaced"))

    async def detach(self, conn: Connection) -> None:
        assert conn.seat is not None
        player_id = conn.seat.player_id
        async with self.lock:
            if not self.presence.disconnect(player_id, conn):
                return
            conn.room = None
            self.schedule_clock()
        await self.presence.announce(player_id, connected=False, nonce=conn.nonce)
        await self.broadcast_table()

    async def _catch_up(self, conn: Connection) -> bool:
        """Send ``conn`` what it lacks since :attr:`Connection.seq` (under the lock); when the
        engine or the store cannot answer, leave it behind and try again later."""
        assert conn.seat is not None
        try:
            await self.delivery.catch_up(
                conn,
                self.seat_of(conn.seat.player_id),
                conn.seq if conn.seq >= 0 else None,
                self.record.seq,
                self._view_of,
            )
        except (GameUnavailableError, StoreUnavailableError) as e:
            log.log(
                logging.DEBUG if self.catching_up else logging.INFO,
                "catch-up postponed",
                extra={"table_id": self.table_id, "error": type(e).__name__},
            )
            self._retry_later()
            return False
        return True

    def _retry_later(self) -> None:
        """Read the table again and catch its seats up, a little later, until the store and
        the engine answer (:meth:`_catch_up_later`), unless that is under way."""
        if not self.catching_up:
            self._catching_up = asyncio.get_running_loop().create_task(self._catch_up_later())

    async def _read_and_catch_up(self) -> bool:
        """(Under the lock.) Read the table again, catch up every seat here that lacks its
        events, and re-arm the clock; whether every seat is caught up."""
        await self.refresh()
        self._mark_behind()
        caught_up = await self.catch_up_behind()
        self.schedule_clock()
        return caught_up

    def _mark_behind(self) -> None:
        """Every seat here that lacks events of the record held is caught up next."""
        if self.record.status is TableStatus.OPEN:
            return
        for conn in self.connections.values():
            if conn.seat is not None and conn.room is self and conn.seq < self.record.seq:
                conn.behind = True

    async def catch_up_behind(self) -> bool:
        """Catch up every connection left behind (under the lock); whether all are now."""
        for conn in [c for c in self.connections.values() if c.behind and c.room is self]:
            if not await self._catch_up(conn):
                return False  # the service is still away: the others would wait on it too
        return True

    async def _catch_up_later(self) -> None:
        waits = itertools.chain(
            CATCH_UP_RETRY_SECONDS, itertools.repeat(CATCH_UP_RETRY_SECONDS[-1])
        )
        for wait in waits:
            await asyncio.sleep(wait)
            if self._services.lifecycle.closing:
                return
            async with self.lock:
                if not self._unsettled and not any(c.behind for c in self.connections.values()):
                    return
                try:
                    caught_up = await self._read_and_catch_up()
                    self._unsettled = False
                    if caught_up:
                        return
                except StoreUnavailableError:
                    continue
                except Exception:
                    log.exception("catch-up failed", extra={"table_id": self.table_id})

    @property
    def catching_up(self) -> bool:
        """Whether the room is still trying to catch seats left behind up (its engine or its
        store away), or to learn what became of a commit the store did not answer: until it
        stops, those seats may still be sent what they missed."""
        return self._catching_up is not None and not self._catching_up.done()

    def stop_catching_up(self) -> None:
        if self._catching_up is not None:
            self._catching_up.cancel()

    async def _view_of(self, seat: int, with_log: bool) -> dict[str, Any]:
        now = self._services.clock()
        return await self.adapter.view(self._game_table(), seat, now, with_log=with_log)

    # Changing the table -------------------------------------------------------------------

    async def refresh(self) -> None:
        """With a shared store another replica may have moved the table on: read it again.

        The store's record is the truth, even when it is older than the one held here: Redis
        can lose commits it acknowledged (a failover, a crash), and the table plays on from
        what it kept. What this replica told of the lost ones is then taken back
        (:meth:`_rewound`). Older, or another commit of the same version, is certainly that;
        newer may be too, when the lost commits were followed by others. Newer follows from
        the record held here if it is the next commit after it (its parent), else if the
        last event told here is the store's (one more read)."""
        if not self._services.store.shared:
            return
        store = self._services.store
        record = await store.get_table(self.table_id)
        if record is None:
            return
        confirmed_late = store.holds_back_notices and record.commit not in self._known
        if confirmed_late:
            # Not told on the bus, nor confirmed here: perhaps a commit Redis's replicas never
            # confirmed (its mover was answered unavailable), which a failover would take back.
            # No seat is shown it (a snapshot, a catch-up) before they have it
            # (StoreUnavailableError: the caller answers unavailable).
            await store.confirm_replicated(self.table_id)
            self._known.append(record.commit)
        held = self.record
        if (record.version, record.commit) == (held.version, held.commit):
            if confirmed_late:
                await self._announce_confirmed()
            return
        if record.version <= held.version:
            lost = True
        elif record.version == held.version + 1 and record.parent == held.commit:
            lost = False
        else:
            lost = not await self.delivery.agrees_with_store(held.seq)
        known = {p.player_id for p in held.players}
        self.record = record
        self._known.append(record.commit)
        self.presence.learn(p.player_id for p in record.players if p.player_id not in known)
        if lost:
            await self._rewound(held)
        if confirmed_late:
            await self._announce_confirmed()

    async def _announce_confirmed(self) -> None:
        """(Under the lock.) The record held was confirmed here, not told on the bus: its
        notice may never have been published (its commit's WAIT failed, and nobody since
        confirmed it), and a replica holding the table at an older version would wait for
        it for ever (each seat seeing the other's turn). A ``confirmed`` notice tells them
        to read it; a replica holding it already only looks at its commit id."""
        if self._announced == self.record.commit:
            return
        self._announced = self.record.commit
        await self._services.bus.publish(
            {
                "kind": "confirmed",
                "table_id": self.table_id,
                "version": self.record.version,
                "commit": self.record.commit,
            }
        )

    async def on_confirmed(self, notice: Notice) -> None:
        """Another replica confirmed a commit whose notice may never have been published
        (:meth:`_announce_confirmed`): read the table if it is not the one held, and catch
        this replica's seats up."""
        commit = notice.get("commit")
        async with self.lock:
            if not isinstance(commit, str) or commit == self.record.commit:
                return
            self._known.append(commit)  # confirmed by the replica that says so
            rematch = self.record.rematch_code
            await self._read_and_catch_up()
            changed = self.record.rematch_code != rematch
        if changed:
            await self.broadcast_table()
            await self._offer_rematch_here()

    async def _rewound(self, held: TableRecord) -> None:
        """The store lost commits this replica had seen (``held`` among them): forget what it
        remembers of them, and send each seat here a snapshot of the table as it is now."""
        TABLES_REWOUND.inc()
        log.warning(
            "table rewound: the store lost commits it had acknowledged",
            extra={
                "table_id": self.table_id,
                "held_version": held.version,
                "held_seq": held.seq,
                "stored_version": self.record.version,
                "stored_seq": self.record.seq,
            },
        )
        self.delivery.forget()
        self._told_here.clear()
        self._known.clear()
        self._known.append(self.record.commit)
        if self.record.status is TableStatus.OPEN:
            return
        for conn in self.connections.values():
            if conn.seat is not None and conn.room is self:
                conn.seq, conn.behind = -1, True
        await self.catch_up_behind()

    def _after_step(self, step: Step, before: TableRecord) -> TableRecord:
        """The record after ``step``, which the game computed from ``before``."""
        status = before.status
        if step.over and status is TableStatus.STARTED:
            status = TableStatus.OVER
        return dataclasses.replace(
            before,
            version=before.version + 1,
            state=step.state,
            seq=before.seq + len(step.events),
            clock=step.clock if not step.over else None,
            status=status,
        )

    async def _commit(
        self,
        after: TableRecord,
        *,
        step: Step | None = None,
        reply: ActionReply | None = None,
        started: bool = False,
        table_changed: bool = False,
        answer: Connection | None = None,
    ) -> None:
        """The one way a table changes: store ``after`` (version + 1) with the step's events and
        the action's reply, publish its notice, hold it, send ``answer`` the action's reply,
        then tell this replica's sockets. VersionConflictError: another replica got there
        first; StoreUnavailableError: nothing was written.

        The version and commit expected in the store are those ``after`` was computed from
        (it still carries that commit's id), never the record held now: read again meanwhile
        (newer), it would let a step computed on the older state be written over a change it
        never saw."""
        before = self.record
        expected_commit = after.commit
        after = dataclasses.replace(after, commit=new_commit_id(), parent=expected_commit)
        entries = step.events if step is not None else []
        first = after.seq - len(entries) + 1
        events = [StoredEvent(first + i, entry) for i, entry in enumerate(entries)]
        notice: Notice = {
            "kind": "event" if events else "changed",
            "table_id": self.table_id,
            "version": after.version,
            "seq": after.seq,
            "entries": entries,
            "views": step.views if step is not None else [],
            "started": started,
            "table": table_changed,
            "commit": after.commit,
        }
        store = self._services.store
        try:
            await store.save_table(
                after, after.version - 1, events, reply, notice, expected_commit=expected_commit
            )
        except StoreUnavailableError:
            # Perhaps written all the same (a time-out; replicas not confirming it in time):
            # whatever the store kept is read again until it answers, and told to every seat
            # (its player may never act again, and the others wait for that move).
            self._unsettled = True
            self._retry_later()
            raise
        if not store.shared:
            await self._services.bus.publish(notice)
        self.record = after
        self._known.append(after.commit)
        if after.status is TableStatus.OVER and before.status is TableStatus.STARTED:
            ACTIVE_TABLES.dec()
            cause = (step.end_cause if step is not None else None) or "unknown"
            GAMES_ENDED.labels(game=after.game, cause=cause).inc()
            GAME_EVENTS.labels(game=after.game).observe(after.seq)
            log.info(
                "game over",
                extra={"table_id": self.table_id, "events": after.seq, "cause": cause},
            )
            # The commit left the table's closing in the lobby to do (TableHub.close_in_lobby).
            self._services.lifecycle.game_ended.set()
        if answer is not None and reply is not None:
            await answer.send(reply.reply)  # the ack (or refusal) before the event it caused
        try:
            await self._tell_here(notice)
        except Exception:
            # Committed all the same: the notice's own return through the bus tells them.
            log.exception("delivery of a commit failed", extra={"table_id": self.table_id})
        else:
            self._told_here.append(after.commit)

    async def _tell_here(self, notice: Notice) -> None:
        """Tell this replica's sockets of a commit of this table (under the lock)."""
        await self.delivery.deliver(notice, self.record.players, self.connections, self.table_frame)
        if any(c.behind for c in self.connections.values()):
            await self.catch_up_behind()  # a commit: the engine may well be back
        if notice.get("table"):  # the table itself changed (a rematch was opened)
            await self.broadcast_table()
        self.schedule_clock()

    async def on_notice(self, notice: Notice) -> None:
        """A commit of this table from the bus: another replica's, or this one's come back."""
        commit = notice.get("commit")  # None from a replica that predates commit ids
        if commit is not None and commit in self._told_here:
            return  # this replica's own commit, told as it was made
        async with self.lock:
            stale = notice["version"] > self.record.version or (
                # Of a version held here: late, or the store lost the commit held here.
                commit is not None and commit not in self._known
            )
            if commit is not None:
                self._known.append(commit)  # told on the bus: confirmed, if notices wait for it
            if stale:
                await self.refresh()
            await self._tell_here(notice)
            if notice.get("table"):
                await self._offer_rematch_here()

    async def refresh_seats(self) -> None:
        """An open table's seats and options, read again from the lobby: they change there
        (a join, a leave, new options), and the store holds no record of them. A lobby that
        cannot answer leaves the last ones seen; its next `seats` notice reads them again."""
        if self.record.status is TableStatus.OPEN and self.connections:
            with contextlib.suppress(LobbyError):
                self.lobby_table, _ = await self._services.lobby.get(self.table_id, "")

    async def resync(self) -> None:
        """After a break in the bus: catch this replica's sockets up from the store, and an
        open table's seats from the lobby (a missed `seats` notice is not in the store)."""
        await self.refresh_seats()
        async with self.lock:
            await self._read_and_catch_up()
            await self.broadcast_table()

    async def start(self, conn: Connection, action_id: str) -> None:
        assert conn.seat is not None
        player_id = conn.seat.player_id
        lobby = self._services.lobby
        async with self.lock:
            await self.refresh()
            if self.record.status is not TableStatus.OPEN:
                raise ProtocolError("game_started", id=action_id)
            try:
                lobby_table = await lobby.start(self.table_id, player_id)
            except LobbyError as e:
                if e.code != "game_started":
                    raise ProtocolError(e.code, id=action_id, **e.params) from None
                # Started in the lobby but not here (the engine failed last time): go on.
                lobby_table, _ = await lobby.get(self.table_id, player_id)
                if lobby_table.seat_of(player_id) != 0:
                    raise ProtocolError("not_host", id=action_id) from None
            self.lobby_table = lobby_table
            players = [Player(s.player_id, s.name) for s in lobby_table.seats]
            now = self._services.clock()
            options = dict(lobby_table.options) or self.record.options
            seed = self._services.seeds(self.table_id)
            opened = self.record
            try:
                step = await self.adapter.start(len(players), options, seed, now)
            except GameUnavailableError:
                raise ProtocolError("unavailable", id=action_id) from None
            except BadActionError:
                raise ProtocolError("bad_options", id=action_id) from None
            self.record = dataclasses.replace(
                opened, status=TableStatus.STARTED, players=players, options=options
            )
            try:
                await self._commit(self._after_step(step, self.record), step=step, started=True)
            except VersionConflictError:
                self.record = opened
                raise ProtocolError("game_started", id=action_id) from None
            except StoreUnavailableError:
                self.record = opened
                raise ProtocolError("unavailable", id=action_id) from None
            ACTIVE_TABLES.inc()
            log.info("game started", extra={"table_id": self.table_id, "seats": len(players)})

    async def act(self, conn: Connection, action_id: str, action: dict[str, Any]) -> str:
        """Play one action for the connection's seat; returns the outcome for metrics."""
        assert conn.seat is not None
        player_id = conn.seat.player_id
        async with self.lock:
            for _ in range(CAS_ATTEMPTS):
                try:
                    return await self._act_once(conn, player_id, action_id, action)
                except VersionConflictError:
                    # Another replica moved the table on: read it again and decide anew.
                    await self.refresh()
                except StoreUnavailableError:
                    raise ProtocolError("unavailable", id=action_id) from None
            raise ProtocolError("unavailable", id=action_id)

    async def _act_once(
        self, conn: Connection, player_id: str, action_id: str, action: dict[str, Any]
    ) -> str:
        # One round trip tells whether another replica moved the table on (then, and only
        # then, it is read whole) and whether this action was already applied.
        store = self._services.store
        version, earlier = await store.version_and_reply(self.table_id, player_id, action_id)
        told = set(self._known)
        if version is None or version != self.record.version:
            await self.refresh()
        if earlier is not None or self.record.commit not in told:
            # The store may hold a commit Redis's replicas had not confirmed (answered
            # unavailable; with held-back notices, told to no seat): neither acknowledged
            # nor built on before they have it, then told.
            await store.confirm_replicated(self.table_id)
            if store.holds_back_notices and self.record.commit not in told:
                await self._tell_unannounced()
        if self.record.status is TableStatus.OPEN:
            raise ProtocolError("not_started", id=action_id)
        if earlier is not None:
            await conn.send(earlier.reply)
            return "duplicate"
        seat = self.seat_of(player_id)
        now = self._services.clock()
        base = self.record
        try:
            step = await self.adapter.act(self._game_table(), seat, action, now)
        except BadActionError:
            raise ProtocolError("bad_action", id=action_id) from None
        except GameUnavailableError:
            raise ProtocolError("unavailable", id=action_id) from None
        after = self._after_step(step, base)
        if step.accepted:
            reply = {"type": "ack", "id": action_id, "seq": after.seq}
            await self._commit(
                after, step=step, reply=ActionReply(player_id, action_id, reply), answer=conn
            )
            return "accepted"
        assert step.refusal is not None
        refused = {"type": "refused", "id": action_id, **step.refusal}
        if step.state_changed:
            await self._commit(
                after, step=step, reply=ActionReply(player_id, action_id, refused), answer=conn
            )
        else:
            await conn.send(refused)
        REFUSALS.labels(game=self.record.game, reason=step.refusal["reason"]).inc()
        if step.state_changed and not step.events:
            await conn.send({"type": "view", "seq": self.record.seq, "view": step.views[seat]})
        return "refused"

    async def _tell_unannounced(self) -> None:
        """(Under the lock.) A confirmed commit found in the store whose notice may never have
        been published (its WAIT failed then): this replica's seats are caught up from the
        store, the other replicas' through a ``confirmed`` notice."""
        self._mark_behind()
        await self.catch_up_behind()
        await self._announce_confirmed()

    async def preview(self, conn: Connection, action_id: str, action: dict[str, Any]) -> None:
        assert conn.seat is not None
        async with self.lock:
            await self.refresh()
        if self.record.status is TableStatus.OPEN:
            raise ProtocolError("not_started", id=action_id)
        seat = self.seat_of(conn.seat.player_id)
        try:
            result = await self.adapter.preview(self._game_table(), seat, action)
        except BadActionError:
            raise ProtocolError("bad_action", id=action_id) from None
        except GameUnavailableError:
            raise ProtocolError("unavailable", id=action_id) from None
        await conn.send({"type": "preview", "id": action_id, **result})

    async def open_rematch(self, code: str, table_id: str) -> None:
        """Record the new table the host opened for the same people (under the lock)."""
        after = dataclasses.replace(
            self.record,
            version=self.record.version + 1,
            rematch_code=code,
            rematch_table_id=table_id,
        )
        await self._commit(after, table_changed=True)
        self._rematch_offered = code

    def rematch_offer(self) -> dict[str, Any]:
        """The ``rematch`` frame of the table the host opened (docs/protocol.md)."""
        return {
            "type": "rematch",
            "code": self.record.rematch_code,
            "table_id": self.record.rematch_table_id,
            "host": self.record.players[0].name,
        }

    async def _offer_rematch_here(self) -> None:
        """Offer another replica's new rematch to this replica's seats, once: the host's
        replica cannot reach them, and a seat waits for this frame (the table frame's
        ``rematch`` field says it too, but only a client that looks)."""
        code = self.record.rematch_code
        if not code or code == self._rematch_offered:
            return
        self._rematch_offered = code
        host = self.record.players[0].player_id
        offer = self.rematch_offer()
        for player_id, conn in list(self.connections.items()):
            if player_id != host:
                await conn.send(offer)

    # The clock ----------------------------------------------------------------------------

    def schedule_clock(self) -> None:
        """(Re)arm the timer for the table's next clock event, as the record now says."""
        event = next_event(self.record, self.adapter, self.presence)
        self.clock.schedule(event, self.record.version)

    async def _expire(self, version: int) -> None:
        """The clock event fell due. Several replicas may fire at once: the version check lets
        exactly one of them apply it."""
        async with self.lock:
            try:
                await self.refresh()
                event = next_event(self.record, self.adapter, self.presence)
                if self.record.version != version or event is None:
                    self.schedule_clock()
                    return
                now = self._services.clock()
                if now < event.at:
                    self.schedule_clock()
                    return
                base = self.record
                step = await self.adapter.on_clock(self._game_table(), event, now)
                if not step.accepted:
                    log.error(
                        "clock event refused",
                        extra={"table_id": self.table_id, "action": event.action},
                    )
                    return
                await self._commit(self._after_step(step, base), step=step)
                CLOCK_EVENTS.labels(game=self.record.game, action=event.action).inc()
            except VersionConflictError:
                await self.refresh()
                self.schedule_clock()
            except (GameUnavailableError, StoreUnavailableError):
                self.clock.retry(version)
            except Exception:
                log.exception("table clock failed", extra={"table_id": self.table_id})
                self.clock.retry(version)

    def stop_clock(self) -> None:
        self.clock.stop()
        self.stop_catching_up()


def room_of(conn: Connection) -> TableRoom | None:
    """The room of the seat ``conn`` holds, if any."""
    room = conn.room
    assert room is None or isinstance(room, TableRoom), room
    return room
