"""The tables this replica holds: a room each, heard on the bus from before the table is read
until the replica lets it go (issue 28: a replica hears only the tables it holds)."""

from __future__ import annotations

from collections import Counter

from lexio_gateway.records import TableRecord
from lexio_gateway.room import TableRoom
from lexio_gateway.services import RoomServices


class HeldTables:
    """The rooms of this replica, by table id, and the bus subscriptions that go with them."""

    def __init__(self, services: RoomServices) -> None:
        self._services = services
        self.rooms: dict[str, TableRoom] = {}
        self._loading: Counter[str] = Counter()
        """Tables being loaded (followed, not read yet), and how many times at once."""
        self._heard_while_loading: set[str] = set()

    async def room(self, table_id: str) -> TableRoom | None:
        """The table's room, loaded if not held yet; None if there is no such table."""
        return self.rooms.get(table_id) or await self.hold(table_id)

    async def hold(self, table_id: str, new: TableRecord | None = None) -> TableRoom | None:
        """Start holding a table: follow its notices, then read it (or create ``new`` if it
        does not exist). Following first, no commit falls between the read and the first
        notice heard; one heard while reading (and dropped: no room yet) makes the room read
        the table again."""
        services = self._services
        self._loading[table_id] += 1
        try:
            await services.bus.follow(table_id)
            record = await services.store.get_table(table_id)
            if record is None and new is not None:
                await services.store.create_table(new)
                record = new
        except BaseException:
            self._loaded(table_id)
            await self._unfollow_unless_held(table_id)
            raise
        self._loaded(table_id)
        if record is None:
            await self._unfollow_unless_held(table_id)
            return None
        room = self.rooms.get(table_id)
        if room is None:
            room = self.rooms[table_id] = TableRoom(services, record)
            room.presence.learn(p.player_id for p in record.players)
            if record is not new:
                await self.ask_who(room)
        if table_id in self._heard_while_loading and table_id not in self._loading:
            self._heard_while_loading.discard(table_id)
            async with room.lock:
                await room.refresh()
        return room

    def missed(self, table_id: str) -> None:
        """A notice came for a table that has no room here: if it is being loaded, its room
        reads the table again once it is there."""
        if table_id in self._loading:
            self._heard_while_loading.add(table_id)

    async def release(self, room: TableRoom) -> None:
        """Hold the table no more: its clock stops, its notices are not heard here."""
        room.stop_clock()
        if self.rooms.get(room.table_id) is room:
            del self.rooms[room.table_id]
            await self._unfollow_unless_held(room.table_id)

    async def ask_who(self, room: TableRoom) -> None:
        """Ask the replicas holding the table's seats to say which (shared store only)."""
        services = self._services
        if services.store.shared:
            await services.bus.publish(
                {"kind": "who", "table_id": room.table_id, "replica": services.replica}
            )

    def _loaded(self, table_id: str) -> None:
        self._loading[table_id] -= 1
        if not self._loading[table_id]:
            del self._loading[table_id]

    async def _unfollow_unless_held(self, table_id: str) -> None:
        if table_id not in self.rooms and table_id not in self._loading:
            self._heard_while_loading.discard(table_id)
            await self._services.bus.unfollow(table_id)
