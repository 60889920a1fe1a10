"""Every table this gateway holds, the seats' tokens, the lobby calls that seat players, and
the notices of the bus routed to the rooms they concern."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable, Iterator, Mapping
from typing import Final

from lexio_common.supervise import being_cancelled
from lexio_gateway.admission import ResumeAdmission
from lexio_gateway.bus import Bus, Notice
from lexio_gateway.connection import Connection
from lexio_gateway.drain import SentAway
from lexio_gateway.games import GameAdapter, GameUnavailableError, OptionValue
from lexio_gateway.heartbeats import Heartbeats
from lexio_gateway.holding import HeldTables
from lexio_gateway.lobby_client import LobbyClient, LobbyError, LobbyTable
from lexio_gateway.metrics import ACTIVE_TABLES, RECORDS_EXPIRED
from lexio_gateway.protocol import ProtocolError
from lexio_gateway.records import SeatToken, TableRecord, TableStatus
from lexio_gateway.room import (
    CLOSE_SERVICE_RESTART,
    TableRoom,
    new_id,
    rematch_player_id,
    room_of,
    token_hash,
)
from lexio_gateway.services import Lifecycle, RoomServices, TableSettings
from lexio_gateway.store import (
    Expired,
    StoreUnavailableError,
    TableStore,
    VersionConflictError,
)

log = logging.getLogger(__name__)

LOBBY_CLOSE_RETRY_SECONDS: Final = (1.0, 2.0, 4.0, 8.0, 15.0)
"""The waits between tries to close one finished table in the lobby, the last repeated."""
LOBBY_CLOSE_BATCH: Final = 100
RECORD_EXPIRY_BATCH: Final = 200
"""Tables expired (and tombstones purged) per store call: SQLite's run on the event loop, so
a backlog (a first sweep after a long stop) goes in short steps between which tables move."""


@contextlib.contextmanager
def background_pass() -> Iterator[None]:
    """One pass of a background loop of the hub's: the store being away skips it (the next
    pass tries again). A cancellation can also be lost under such a pass — seen about one
    gateway stop in ten on Redis under load: the task said ``cancelling() == 1`` and went on
    passing for ever while the stop waited for it — so a pass ends its loop when the task is
    being cancelled, whether or not the cancellation was raised."""
    with contextlib.suppress(StoreUnavailableError):
        yield
    if being_cancelled():
        raise asyncio.CancelledError


class TableHub:
    """Every room of this gateway, the seats' tokens, and the lobby calls that seat players."""

    def __init__(
        self,
        *,
        store: TableStore,
        bus: Bus,
        lobby: LobbyClient,
        adapters: Mapping[str, GameAdapter],
        settings: TableSettings,
        clock: Callable[[], float],
        seeds: Callable[[str], int] = lambda _table_id: secrets.randbits(63),
    ) -> None:
        self.lifecycle = Lifecycle()
        self.services = RoomServices(
            store=store,
            bus=bus,
            lobby=lobby,
            adapters=adapters,
            settings=settings,
            clock=clock,
            seeds=seeds,
            replica=secrets.token_hex(4),
            lifecycle=self.lifecycle,
            heartbeats=Heartbeats(clock, settings.presence_ttl),
        )
        self.held = HeldTables(self.services)
        self.sent_away = SentAway()
        """The seats this replica sent away as it stops, and which of them are back elsewhere."""
        self.rooms: dict[str, TableRoom] = self.held.rooms
        self.connections: set[Connection] = set()
        self._games: dict[str, bool] = {}
        self._games_at = float("-inf")
        self._lobby_close_tries: dict[str, int] = {}
        self._lobby_away = False
        self._admission = ResumeAdmission(settings.resumes_in_flight, settings.resume_patience)

    # The collaborators, by name (what tests and the app read).
    @property
    def store(self) -> TableStore:
        return self.services.store

    @property
    def bus(self) -> Bus:
        return self.services.bus

    @property
    def lobby(self) -> LobbyClient:
        return self.services.lobby

    @property
    def settings(self) -> TableSettings:
        return self.services.settings

    @property
    def replica(self) -> str:
        return self.services.replica

    def clock(self) -> float:
        return self.services.clock()

    @property
    def default_game(self) -> str:
        """The game a ``create`` frame that names none opens: the first of this gateway's
        configured games (``LEXIO_GATEWAY_GAMES``' order; by default the first game of
        :data:`lexio_gateway.games.site.GAMES`). "" for a gateway that serves none."""
        return next(iter(self.services.adapters), "")

    async def available_games(self) -> dict[str, bool]:
        """R18: which games can be offered now, as the lobby sees them (cached briefly): the
        games both the lobby and this gateway know; every game this gateway knows, not
        available, while the lobby does not answer."""
        now = self.clock()
        if now - self._games_at > 2.0:
            adapters = self.services.adapters
            try:
                games = await self.lobby.games()
                self._games = {name: up for name, up in games.items() if name in adapters}
            except LobbyError:
                self._games = dict.fromkeys(adapters, False)
            self._games_at = now
        return self._games

    async def room(self, table_id: str) -> TableRoom | None:
        """The table's room, loaded (and from then on heard on the bus) if not held yet;
        None if there is no such table."""
        return await self.held.room(table_id)

    async def recover(self) -> int:
        """After a restart: every game in play resumes its clock; nobody is connected yet.
        With a shared store the other replicas hold their tables: the sweeper picks up only
        the tables nobody holds (see :meth:`sweep`)."""
        if self.store.shared:
            return 0
        records = await self.store.tables_in_play()
        for record in records:
            room = self.rooms.setdefault(record.table_id, TableRoom(self.services, record))
            room.presence.everyone_away(p.player_id for p in record.players)
            await room.delivery.remember_from_store(record.seq)
            room.schedule_clock()
        ACTIVE_TABLES.set(len(records))
        return len(records)

    # Notices from the bus --------------------------------------------------------------

    async def on_notice(self, notice: Notice) -> None:
        kind = notice["kind"]
        if kind == "resync":
            await self._resync(notice.get("table_id"))
        elif kind == "alive":
            self._heard_from(notice)
        elif kind == "taken":
            await self._taken_elsewhere(notice)
        elif (room := self.rooms.get(notice["table_id"])) is None:
            self.held.missed(notice["table_id"])
        elif kind in ("event", "changed"):
            await room.on_notice(notice)
        elif kind == "confirmed":
            await room.on_confirmed(notice)
        elif kind == "seats":
            await room.refresh_seats()
            await room.broadcast_table()
        elif kind == "presence" and notice["replica"] != self.replica:
            if notice["connected"]:
                self.sent_away.back(room.table_id, notice["player_id"])
            room.presence.heard(
                notice["player_id"], notice["replica"], connected=notice["connected"]
            )
            async with room.lock:
                room.schedule_clock()
            await room.broadcast_table()
        elif kind == "who" and notice["replica"] != self.replica:
            if room.connections:
                await self.bus.publish(
                    {
                        "kind": "here",
                        "table_id": room.table_id,
                        "replica": self.replica,
                        "players": list(room.connections),
                    }
                )
        elif kind == "here" and notice["replica"] != self.replica:
            room.presence.here(notice["replica"], notice["players"])
            async with room.lock:
                room.schedule_clock()
            await room.broadcast_table()

    async def _resync(self, table_id: str | None) -> None:
        """After notices may have been missed — every table's (a break in the bus) or one
        table's (its notice failed here) — catch the rooms up from the store and ask again
        who is where. A room that cannot (the store is still loading) does not keep the
        others behind, and the bus tries again (this raises at the end)."""
        if table_id is None:
            self.services.heartbeats.extend()
            rooms = list(self.rooms.values())
        else:
            rooms = [self.rooms[table_id]] if table_id in self.rooms else []
        failed = 0
        for held in rooms:
            try:
                await held.resync()
            except (StoreUnavailableError, GameUnavailableError):
                failed += 1
            await self.held.ask_who(held)
        if failed:
            raise StoreUnavailableError(f"{failed} of {len(rooms)} tables not caught up")

    def _heard_from(self, notice: Notice) -> None:
        """A replica's heartbeat. One of a release before issue 28 lists its seats too."""
        replica = notice["replica"]
        if replica == self.replica:
            return
        self.services.heartbeats.heard(replica)
        for table_id, player_id in notice.get("seats", ()):
            room = self.rooms.get(table_id)
            if room is not None:
                room.presence.heard(player_id, replica, connected=True)

    async def _taken_elsewhere(self, notice: Notice) -> None:
        """The seat connected on another tab (maybe another replica): close this one.

        Found through the seat's room, not by a look at every connection: every seat that
        comes back sends this notice to every replica, and when a replica dies its thousands of
        seats all come back at once (a scan made that storm quadratic: 29 % of the survivor's
        CPU for 2,000 seats, bench/resume_bench.py)."""
        player_id = notice["player_id"]
        table_id = notice.get("table_id")
        if table_id is None:  # from a replica of an earlier release, during a rolling update
            held = [c for c in self.connections if c.player_id == player_id]
        else:
            room = self.rooms.get(table_id)
            here = room.presence.connections.get(player_id) if room is not None else None
            held = [here] if here is not None else []
        for conn in held:
            holder = room_of(conn)
            if conn.nonce != notice["nonce"] and holder is not None:
                holder.presence.disconnect(player_id, conn)
                await holder.replace(conn)

    async def keep_alive(self, every: float) -> None:
        """Shared store only: say this replica is alive, and pick up the tables whose
        clock nobody runs any more (their replica died). Run under
        :func:`lexio_common.supervise.supervise`: a failure other than the store's is a bug,
        logged, and the loop starts again."""
        while True:
            await self.bus.publish({"kind": "alive", "replica": self.replica})
            self.services.heartbeats.forget_dead()
            with background_pass():
                await self.sweep()
            await asyncio.sleep(every)

    async def sweep(self) -> int:
        """Load every table in play whose clock event is due and that this replica does not
        hold, so its clock fires here (maybe on other replicas too: the version check lets one
        apply). Returns how many were picked up."""
        if not self.bus.healthy:
            return 0  # deaf to the other replicas, this one cannot tell a table is orphaned
        picked = 0
        for table_id in await self.store.due_tables(self.clock()):
            if table_id in self.rooms:
                continue
            room = await self.room(table_id)
            if room is None:
                continue
            # Its replica may be dead, or only late (say, retrying after Redis came back): the
            # seats count as unknown until every live replica has said which seats it holds.
            room.presence.everyone_away(p.player_id for p in room.record.players)
            async with room.lock:
                room.schedule_clock()
            picked += 1
        return picked

    # Finished tables close in the lobby -------------------------------------------------

    async def close_in_lobby(self, every: float) -> None:
        """Close each finished game's table in the lobby (so that the lobby can purge it and
        its code), until the lobby confirms: at once when a game ends here, and every
        ``every`` seconds for what is left (a lobby that was away, a replica that died, a
        restart). Run under :func:`lexio_common.supervise.supervise`."""
        ended = self.lifecycle.game_ended
        while True:
            with background_pass():
                await self.close_finished_tables()
            # asyncio.timeout, not wait_for: Python 3.11's wait_for can turn a cancellation
            # that races its timeout into a TimeoutError, which this loop would swallow and
            # go on for ever (a gateway's stop then never ended: about one test run in ten).
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(every):
                    await ended.wait()
            ended.clear()

    async def close_finished_tables(self) -> int:
        """One pass over the finished tables whose closing is due; how many it closed. The
        store's claim lets one replica try a table at a time; the lobby's close is
        idempotent all the same (a table it already closed or purged counts as closed)."""
        now = self.clock()
        closed = 0
        for table_id in await self.store.lobby_closes_due(now, LOBBY_CLOSE_BATCH):
            tries = self._lobby_close_tries.get(table_id, 0)
            wait = LOBBY_CLOSE_RETRY_SECONDS[min(tries, len(LOBBY_CLOSE_RETRY_SECONDS) - 1)]
            if not await self.store.claim_lobby_close(table_id, now, now + wait):
                continue
            record = await self.store.get_table(table_id)
            if record is not None and record.players:
                try:
                    await self.lobby.close(table_id, record.players[0].player_id)
                except LobbyError as e:
                    if e.code == "unavailable":
                        self._lobby_close_tries[table_id] = tries + 1
                        if not self._lobby_away:
                            self._lobby_away = True
                            log.warning("lobby away: finished tables will close later")
                        return closed  # the others would wait on it too
                    if e.code != "table_closed":
                        log.warning(
                            "lobby refused to close a finished table",
                            extra={"table_id": table_id, "code": e.code},
                        )
            await self.store.keep_tokens(table_id)
            await self.store.lobby_close_done(table_id)
            self._lobby_close_tries.pop(table_id, None)
            closed += 1
        if closed and self._lobby_away:
            self._lobby_away = False
            log.info("lobby back: finished tables closed", extra={"tables": closed})
        return closed

    # Finished games' records expire -----------------------------------------------------

    async def expire_records(self, every: float, retention: float) -> None:
        """The records' retention (``retention`` seconds after a game's end), every ``every``
        seconds, the first at once. Run under :func:`lexio_common.supervise.supervise`."""
        while True:
            with background_pass():
                await self.expire_finished_records(retention)
            await asyncio.sleep(every)

    async def expire_finished_records(self, retention: float) -> Expired:
        """One pass: every finished game that ended ``retention`` ago or more becomes a
        tombstone, every tombstone twice that old goes (the store says which); none of them
        stays in this replica's memory."""
        now = self.clock()
        done = Expired([], [])
        while True:
            batch = await self.store.expire_finished(
                now - retention, now - 2 * retention, RECORD_EXPIRY_BATCH
            )
            for table_id in batch.expired + batch.purged:
                await self._evict(table_id)
            RECORDS_EXPIRED.inc(len(batch.expired))
            done.expired.extend(batch.expired)
            done.purged.extend(batch.purged)
            if max(len(batch.expired), len(batch.purged)) < RECORD_EXPIRY_BATCH:
                break
            await asyncio.sleep(0)  # the tables in play move between two batches
        if done.expired or done.purged:
            log.info(
                "records expired",
                extra={"count": len(done.expired), "tombstones_deleted": len(done.purged)},
            )
        return done

    async def _evict(self, table_id: str) -> None:
        """Forget a table whose record is gone (a connection still in its room keeps the old
        object, whose next write fails on the version: the store's tombstone is newer)."""
        room = self.rooms.get(table_id)
        if room is not None:
            await self.held.release(room)

    # Seating ------------------------------------------------------------------------------

    async def _notify_seats(self, table_id: str) -> None:
        if self.store.shared:
            await self.bus.publish({"kind": "seats", "table_id": table_id})

    async def _seat(
        self, conn: Connection, lobby_table: LobbyTable, code: str, player_id: str, name: str
    ) -> str:
        """Mint the seat's token and move the connection into the table's room."""
        room = self.rooms.get(lobby_table.table_id) or await self.held.hold(
            lobby_table.table_id,
            new=TableRecord(
                lobby_table.table_id,
                lobby_table.game,
                code,
                TableStatus.OPEN,
                min_seats=lobby_table.min_seats,
                max_seats=lobby_table.max_seats,
                options=dict(lobby_table.options),
            ),
        )
        assert room is not None  # created if it did not exist
        room.lobby_table = lobby_table
        token = secrets.token_urlsafe(32)
        await self.store.add_token(token_hash(token), SeatToken(room.table_id, player_id, name))
        await self.leave_room(conn)
        conn.seat = SeatToken(room.table_id, player_id, name)
        conn.sent_nothing_yet()  # a new table (the connection may come from a rematch)
        return token

    def _known_game(self, game: str, action_id: str) -> None:
        if game not in self.services.adapters:
            raise ProtocolError("unknown_game", id=action_id)

    async def create(
        self,
        conn: Connection,
        action_id: str,
        name: str,
        game: str,
        options: Mapping[str, OptionValue],
    ) -> None:
        self._known_game(game, action_id)
        player_id = new_id("p")
        try:
            lobby_table, code = await self.lobby.create(game, player_id, name, conn.caller, options)
        except LobbyError as e:
            raise ProtocolError(e.code, id=action_id, **e.params) from None
        await self._seated(
            conn, action_id, lobby_table=lobby_table, code=code, player_id=player_id, name=name
        )

    async def lookup(self, conn: Connection, action_id: str, code: str) -> None:
        """What an invitation is, before joining: its game, options and seats taken."""
        try:
            invitation = await self.lobby.lookup(code, conn.caller)
        except LobbyError as e:
            raise ProtocolError(e.code, id=action_id, **e.params) from None
        await conn.send({"type": "invitation", "id": action_id, **invitation})

    async def join(self, conn: Connection, action_id: str, code: str, name: str) -> None:
        player_id = new_id("p")
        try:
            lobby_table = await self.lobby.join(code, player_id, name, conn.caller)
            _, formatted = await self.lobby.get(lobby_table.table_id, player_id)
        except LobbyError as e:
            raise ProtocolError(e.code, id=action_id, **e.params) from None
        self._known_game(lobby_table.game, action_id)
        await self._seated(
            conn,
            action_id,
            lobby_table=lobby_table,
            code=formatted,
            player_id=player_id,
            name=name,
        )

    async def _seated(
        self,
        conn: Connection,
        action_id: str,
        *,
        lobby_table: LobbyTable,
        code: str,
        player_id: str,
        name: str,
    ) -> None:
        token = await self._seat(conn, lobby_table, code, player_id, name)
        await conn.send(
            {
                "type": "seated",
                "id": action_id,
                "token": token,
                "table_id": lobby_table.table_id,
                "code": code,
                "player": player_id,
            }
        )
        room = await self.room(lobby_table.table_id)
        assert room is not None
        await room.attach(conn, None)
        await self._notify_seats(room.table_id)
        log.info("seated", extra={"table_id": room.table_id, "seat": room.seat_of(player_id)})

    async def resume(self, conn: Connection, token: str, last_seq: int | None) -> None:
        async with self._admission.slot():
            await self._resume(conn, token, last_seq)

    async def _resume(self, conn: Connection, token: str, last_seq: int | None) -> None:
        digest = token_hash(token)
        seat = await self.store.find_token(digest)
        if seat is None:
            raise ProtocolError("bad_token")
        room = await self.room(seat.table_id)
        if room is None:
            raise ProtocolError("bad_token")
        async with room.lock:  # an action of the table may be waiting on its engine
            await room.refresh()
        if room.record.status is TableStatus.EXPIRED:
            # Only the review tells a late visitor that the record expired; here the seat
            # is simply gone.
            await self._evict(room.table_id)
            raise ProtocolError("bad_token")
        if room.record.status is TableStatus.OPEN:
            try:
                room.lobby_table, _ = await self.lobby.get(room.table_id, seat.player_id)
            except LobbyError as e:
                raise ProtocolError(e.code, **e.params) from None
            if room.lobby_table.seat_of(seat.player_id) < 0:
                await self.store.drop_token(digest)
                raise ProtocolError("bad_token")
        await self.leave_room(conn)
        conn.seat = seat
        conn.sent_nothing_yet()
        await room.attach(conn, last_seq)

    async def leave(self, conn: Connection, action_id: str) -> None:
        """Give up a seat before the start (the lobby moves later arrivals up)."""
        room, seat = room_of(conn), conn.seat
        if room is None or seat is None:
            raise ProtocolError("not_seated", id=action_id)
        if room.record.status is not TableStatus.OPEN:
            raise ProtocolError("game_started", id=action_id)
        try:
            room.lobby_table = await self.lobby.leave(room.table_id, seat.player_id)
        except LobbyError as e:
            raise ProtocolError(e.code, id=action_id, **e.params) from None
        await room.detach(conn)
        conn.seat = None
        await conn.send({"type": "left", "id": action_id})
        await room.broadcast_table()
        await self._notify_seats(room.table_id)

    async def rematch(self, conn: Connection, action_id: str) -> None:
        """After the end, the host opens a new table of the same game and options; the others
        are offered its code. The host's ``rematch`` once it is open (another tab, a
        reconnection with the finished table's token, a second click) seats it again at its
        seat there, with a new token; if it left that table, it is answered the offer, with
        its ``id``, like a guest (docs/protocol.md)."""
        room, seat = room_of(conn), conn.seat
        if room is None or seat is None:
            raise ProtocolError("not_seated", id=action_id)
        if room.record.status is not TableStatus.OVER:
            raise ProtocolError("not_over", id=action_id)
        if room.seat_of(seat.player_id) != 0:
            raise ProtocolError("not_host", id=action_id)
        host_id = rematch_player_id(room.table_id, seat.player_id)
        opened_now = False
        lobby_table: LobbyTable | None
        async with room.lock:
            if not room.record.rematch_code:
                try:
                    lobby_table, code = await self.lobby.create(
                        room.record.game, host_id, seat.name, conn.caller, room.record.options
                    )
                except LobbyError as e:
                    raise ProtocolError(e.code, id=action_id, **e.params) from None
                try:
                    await room.open_rematch(code, lobby_table.table_id)
                except (VersionConflictError, StoreUnavailableError):
                    raise ProtocolError("unavailable", id=action_id) from None
                opened_now = True
            else:
                lobby_table = await self._host_seat_at_rematch(room, host_id)
                code = room.record.rematch_code
        offer = room.rematch_offer()
        if opened_now:
            for player_id, peer in list(room.connections.items()):
                if player_id != seat.player_id:
                    await peer.send(offer)
        if lobby_table is None:
            await conn.send({**offer, "id": action_id})
            return
        await self._seated(
            conn, action_id, lobby_table=lobby_table, code=code, player_id=host_id, name=seat.name
        )

    async def _host_seat_at_rematch(self, room: TableRoom, host_id: str) -> LobbyTable | None:
        """The rematch table, if its host (``host_id``) still sits at it."""
        try:
            lobby_table, _ = await self.lobby.get(room.record.rematch_table_id, host_id)
        except LobbyError:
            return None  # gone (closed and swept): only the offer is left to give
        return lobby_table if lobby_table.seat_of(host_id) >= 0 else None

    async def leave_room(self, conn: Connection) -> None:
        room = room_of(conn)
        if room is not None and conn.seat is not None:
            await room.detach(conn)
            await self._forget_if_done(room)
        conn.room = None

    async def _forget_if_done(self, room: TableRoom) -> None:
        """A finished game nobody here watches leaves memory (and this replica's bus); it
        stays in the store for anyone who comes back to reread it (the soak showed ~180 KiB
        kept per finished game)."""
        if room.record.status is TableStatus.OVER and not room.connections:
            await self.held.release(room)

    async def shutdown(self) -> None:
        """Tell every client to come back later, and stop the clocks."""
        self.lifecycle.closing = True
        for room in self.rooms.values():
            room.stop_clock()
        for conn in list(self.connections):
            await conn.send({"type": "reconnect", "reason": "shutdown"})
            await conn.close(CLOSE_SERVICE_RESTART, "shutdown")
        for task in list(self.lifecycle.tasks):
            task.cancel()
