"""Every table this gateway holds, the seats' tokens, and the lobby calls that seat players."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
from collections.abc import Callable
from typing import Any

from lexio_gateway.bus import Bus, Notice
from lexio_gateway.connection import Connection
from lexio_gateway.games import GameAdapter, GameUnavailableError
from lexio_gateway.lobby_client import LobbyClient, LobbyError, LobbyTable
from lexio_gateway.metrics import ACTIVE_TABLES
from lexio_gateway.protocol import ProtocolError
from lexio_gateway.records import SeatToken, TableRecord, TableStatus
from lexio_gateway.room import (
    CLOSE_SERVICE_RESTART,
    UNKNOWN_REPLICA,
    EncodedEvent,
    TableRoom,
    TableSettings,
    new_id,
    token_hash,
)
from lexio_gateway.store import StoreUnavailableError, TableStore, VersionConflictError

log = logging.getLogger(__name__)


class TableHub:
    """Every room of this gateway, the seats' tokens, and the lobby calls that seat players."""

    def __init__(
        self,
        *,
        store: TableStore,
        bus: Bus,
        lobby: LobbyClient,
        adapters: dict[str, GameAdapter],
        settings: TableSettings,
        clock: Callable[[], float],
        seeds: Callable[[], int] = lambda: secrets.randbits(63),
    ) -> None:
        self.seeds = seeds
        """Where each game's bag seed comes from (injectable, like the clock, for tests)."""
        self.store = store
        self.bus = bus
        self.replica = secrets.token_hex(4)
        """This process, among the gateway replicas sharing the store."""
        self.lobby = lobby
        self.adapters = adapters
        self.settings = settings
        self.clock = clock
        self.rooms: dict[str, TableRoom] = {}
        self.connections: set[Connection] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._games: dict[str, bool] = {}
        self.closing = False
        self._games_at = float("-inf")

    async def close_in_lobby(self, table_id: str, host_id: str) -> None:
        """A finished game's table closes in the lobby (in the host's name), so it can be
        purged there; the game itself stays here for its players to reread."""
        try:
            await self.lobby.close(table_id, host_id)
        except LobbyError as e:
            log.warning("lobby close failed", extra={"table_id": table_id, "code": e.code})

    async def available_games(self) -> dict[str, bool]:
        """R18: which games can be offered now, as the lobby sees them (cached briefly)."""
        now = self.clock()
        if now - self._games_at > 2.0:
            try:
                games = await self.lobby.games()
            except LobbyError:
                games = {}
            self._games = {name: games.get(name, False) for name in self.adapters}
            self._games_at = now
        return self._games

    def spawn(self, coro: Any) -> None:
        """Run ``coro`` in the background; its failure is logged, never lost silently."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._spawned_done)

    def _spawned_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error(
                "background work failed",
                exc_info=error,
                extra={"task": task.get_coro().__qualname__},  # type: ignore[union-attr]
            )

    async def room(self, table_id: str) -> TableRoom | None:
        room = self.rooms.get(table_id)
        if room is None:
            record = await self.store.get_table(table_id)
            if record is None:
                return None
            room = self.rooms.setdefault(table_id, TableRoom(self, record))
            room.learn_remote_seats(())
        return room

    async def recover(self) -> int:
        """After a restart: every game in play resumes its clock; nobody is connected yet.
        With a shared store the other replicas hold their tables: the sweeper picks up only
        the tables nobody holds (see :meth:`sweep`)."""
        if self.store.shared:
            return 0
        now = self.clock()
        records = await self.store.tables_in_play()
        for record in records:
            room = self.rooms.setdefault(record.table_id, TableRoom(self, record))
            room.away_since = {p.player_id: now for p in record.players}
            kept = self.settings.events_in_memory
            room.recent.extend(
                EncodedEvent.of(e.seq, e.entry)
                for e in await self.store.events_after(
                    record.table_id, max(0, record.seq - kept), kept
                )
            )
            room._schedule_clock()
        ACTIVE_TABLES.set(len(records))
        return len(records)

    # Notices from the bus --------------------------------------------------------------

    async def on_notice(self, notice: Notice) -> None:
        kind = notice["kind"]
        if kind == "resync":
            await self._resync_rooms()
            return
        if kind == "alive":
            await self._heard_from(notice)
            return
        if kind == "taken":
            for conn in list(self.connections):
                if (
                    conn.player_id == notice["player_id"]
                    and conn.nonce != notice["nonce"]
                    and conn.room is not None
                ):
                    holder = conn.room
                    if holder.connections.get(notice["player_id"]) is conn:
                        del holder.connections[notice["player_id"]]
                    await holder.replace(conn)
            return
        room = self.rooms.get(notice["table_id"])
        if room is None:
            return
        if kind in ("event", "changed"):
            await room.on_notice(notice)
        elif kind == "seats":
            if room.record.status is TableStatus.OPEN and room.connections:
                with contextlib.suppress(LobbyError):
                    room.lobby_table, _ = await self.lobby.get(room.table_id, "")
            await room.broadcast_table()
        elif kind == "presence" and notice["replica"] != self.replica:
            until = self.clock() + self.settings.presence_ttl
            seen = room.remote.setdefault(notice["player_id"], {})
            if notice["connected"]:
                seen[notice["replica"]] = until
            else:
                seen.pop(notice["replica"], None)
                seen.pop(UNKNOWN_REPLICA, None)
                room.away_since[notice["player_id"]] = self.clock()
            async with room.lock:
                room._schedule_clock()
            await room.broadcast_table()

    async def _resync_rooms(self) -> None:
        """Every room catches up from the store; one that cannot (the store is still loading)
        does not keep the others behind, and the bus tries again (it raises at the end)."""
        failed = 0
        until = self.clock() + self.settings.presence_ttl
        for held in list(self.rooms.values()):
            held.extend_remote_presence(until)
            try:
                await held.resync()
            except (StoreUnavailableError, GameUnavailableError):
                failed += 1
        if failed:
            raise StoreUnavailableError(f"{failed} of {len(self.rooms)} tables not caught up")

    async def _heard_from(self, notice: Notice) -> None:
        if notice["replica"] == self.replica:
            return
        until = self.clock() + self.settings.presence_ttl
        for table_id, player_id in notice["seats"]:
            room = self.rooms.get(table_id)
            if room is not None:
                room.remote.setdefault(player_id, {})[notice["replica"]] = until

    async def announce_presence(
        self, table_id: str, player_id: str, *, connected: bool, conn: Connection
    ) -> None:
        """Tell the other replicas (presence decides R29's grace and the seats' dots); a new
        connection also closes the seat's older tabs wherever they are."""
        if not self.store.shared:
            return
        await self.bus.publish(
            {
                "kind": "presence",
                "table_id": table_id,
                "player_id": player_id,
                "replica": self.replica,
                "connected": connected,
            }
        )
        if connected:
            await self.bus.publish(
                {
                    "kind": "taken",
                    "player_id": player_id,
                    "replica": self.replica,
                    "nonce": conn.nonce,
                }
            )

    async def keep_alive(self, every: float) -> None:
        """Shared store only: say which seats this replica holds, and pick up the tables whose
        clock nobody runs any more (their replica died). Run under
        :func:`lexio_common.supervise.supervise`: a failure other than the store's is a bug,
        logged, and the loop starts again."""
        while True:
            seats = [
                [conn.room.table_id, conn.player_id]
                for conn in list(self.connections)
                if conn.room is not None and conn.player_id is not None
            ]
            await self.bus.publish({"kind": "alive", "replica": self.replica, "seats": seats})
            with contextlib.suppress(StoreUnavailableError):
                await self.sweep()
            await asyncio.sleep(every)

    async def sweep(self) -> int:
        """Load every table in play whose deadline passed and that this replica does not hold,
        so its clock fires here (maybe on other replicas too: the version check lets one
        pass apply). Returns how many were picked up."""
        if not self.bus.healthy:
            return 0  # deaf to the other replicas, this one cannot tell a table is orphaned
        picked = 0
        for table_id in await self.store.due_tables(self.clock()):
            if table_id in self.rooms:
                continue
            room = await self.room(table_id)
            if room is None:
                continue
            now = self.clock()
            room.away_since = {p.player_id: now for p in room.record.players}
            # Its replica may be dead, or only late (say, retrying after Redis came back): the
            # seats count as unknown until every live replica has said which seats it holds.
            room.learn_remote_seats(())
            async with room.lock:
                room._schedule_clock()
            picked += 1
        return picked

    async def _notify_seats(self, table_id: str) -> None:
        if self.store.shared:
            await self.bus.publish({"kind": "seats", "table_id": table_id})

    async def _seat(
        self, conn: Connection, lobby_table: LobbyTable, code: str, player_id: str, name: str
    ) -> str:
        """Mint the seat's token and move the connection into the table's room."""
        room = await self.room(lobby_table.table_id)
        if room is None:
            record = TableRecord(lobby_table.table_id, lobby_table.game, code, TableStatus.OPEN)
            await self.store.create_table(record)
            room = self.rooms.setdefault(record.table_id, TableRoom(self, record))
        room.lobby_table = lobby_table
        token = secrets.token_urlsafe(32)
        await self.store.add_token(token_hash(token), SeatToken(room.table_id, player_id, name))
        await self.leave_room(conn)
        conn.seat = SeatToken(room.table_id, player_id, name)
        conn.seq = (
            -1
        )  # a new table: nothing of it sent yet (the connection may come from a rematch)
        return token

    def _adapter(self, game: str, action_id: str) -> GameAdapter:
        adapter = self.adapters.get(game)
        if adapter is None:
            raise ProtocolError("unknown_game", id=action_id)
        return adapter

    async def create(self, conn: Connection, action_id: str, name: str, game: str) -> None:
        self._adapter(game, action_id)
        player_id = new_id("p")
        try:
            lobby_table, code = await self.lobby.create(game, player_id, name, conn.caller)
        except LobbyError as e:
            raise ProtocolError(e.code, id=action_id, **e.params) from None
        await self._seated(
            conn, action_id, lobby_table=lobby_table, code=code, player_id=player_id, name=name
        )

    async def join(self, conn: Connection, action_id: str, code: str, name: str) -> None:
        player_id = new_id("p")
        try:
            lobby_table = await self.lobby.join(code, player_id, name, conn.caller)
            _, formatted = await self.lobby.get(lobby_table.table_id, player_id)
        except LobbyError as e:
            raise ProtocolError(e.code, id=action_id, **e.params) from None
        self._adapter(lobby_table.game, action_id)
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
        digest = token_hash(token)
        seat = await self.store.find_token(digest)
        if seat is None:
            raise ProtocolError("bad_token")
        room = await self.room(seat.table_id)
        if room is None:
            raise ProtocolError("bad_token")
        await room.refresh()
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
        conn.seq = -1
        await room.attach(conn, last_seq)

    async def leave(self, conn: Connection, action_id: str) -> None:
        """Give up a seat before the start (the lobby moves later arrivals up)."""
        room, seat = conn.room, conn.seat
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
        """After the end, the host opens a new table; the others are offered its code."""
        room, seat = conn.room, conn.seat
        if room is None or seat is None:
            raise ProtocolError("not_seated", id=action_id)
        if room.record.status is not TableStatus.OVER:
            raise ProtocolError("not_over", id=action_id)
        if room.seat_of(seat.player_id) != 0:
            raise ProtocolError("not_host", id=action_id)
        async with room.lock:
            if not room.record.rematch_code:
                player_id = new_id("p")
                try:
                    lobby_table, code = await self.lobby.create(
                        room.record.game, player_id, seat.name, conn.caller
                    )
                except LobbyError as e:
                    raise ProtocolError(e.code, id=action_id, **e.params) from None
                before = room.record
                after = dataclasses.replace(
                    before,
                    version=before.version + 1,
                    rematch_code=code,
                    rematch_table_id=lobby_table.table_id,
                )
                notice: Notice = {
                    "kind": "changed",
                    "table_id": room.table_id,
                    "version": after.version,
                    "seq": after.seq,
                    "entry": None,
                    "views": [],
                    "table": True,
                }
                try:
                    await self.store.save_table(after, before.version, notice=notice)
                except (VersionConflictError, StoreUnavailableError):
                    raise ProtocolError("unavailable", id=action_id) from None
                if not self.store.shared:
                    await self.bus.publish(notice)
                room.record = after
                host_seat: tuple[LobbyTable, str, str] | None = (lobby_table, code, player_id)
            else:
                host_seat = None
        offer = {
            "type": "rematch",
            "code": room.record.rematch_code,
            "table_id": room.record.rematch_table_id,
            "host": seat.name,
        }
        for player_id, peer in list(room.connections.items()):
            if player_id != seat.player_id or host_seat is None:
                await peer.send(offer)
        if host_seat is not None:
            lobby_table, code, player_id = host_seat
            await self._seated(
                conn,
                action_id,
                lobby_table=lobby_table,
                code=code,
                player_id=player_id,
                name=seat.name,
            )

    async def leave_room(self, conn: Connection) -> None:
        room = conn.room
        if room is not None and conn.seat is not None:
            await room.detach(conn)
            self._forget_if_done(room)
        conn.room = None

    def _forget_if_done(self, room: TableRoom) -> None:
        """A finished game nobody here watches leaves memory; it stays in the store for
        anyone who comes back to reread it (the soak showed ~180 KiB kept per finished game)."""
        if room.record.status is TableStatus.OVER and not room.connections:
            room.stop_clock()
            if self.rooms.get(room.table_id) is room:
                del self.rooms[room.table_id]

    async def shutdown(self) -> None:
        """Tell every client to come back later, and stop the clocks."""
        self.closing = True
        for room in self.rooms.values():
            room.stop_clock()
        for conn in list(self.connections):
            await conn.send({"type": "reconnect", "reason": "shutdown"})
            await conn.close(CLOSE_SERVICE_RESTART, "shutdown")
        for task in list(self._tasks):
            task.cancel()
