"""Who of a table's seats is connected: to this replica, or to another one that is alive.

Presence is what a game's absence rule (if it has one) and the seats' dots read. With several
replicas, a replica announces on the table's channel each seat that connects to it or leaves;
one that starts holding a table asks who is where (``who``), and the replicas holding the
table's seats answer (``here``); a seat counts as present elsewhere while that replica is alive
(heartbeats.py). Silence is not absence while this replica cannot hear the others (its bus is
down), and a seat this replica has just learnt of is neither present nor absent until the
others have had time to answer.
"""

from __future__ import annotations

from collections.abc import Iterable

from lexio_gateway.connection import Connection
from lexio_gateway.services import RoomServices


class Presence:
    def __init__(self, services: RoomServices, table_id: str) -> None:
        self._services = services
        self._table_id = table_id
        self.connections: dict[str, Connection] = {}
        """This replica's live socket of each seated player."""
        self.remote: dict[str, set[str]] = {}
        """The other replicas each seat is connected to, as they said."""
        self.unknown: dict[str, float] = {}
        """Seats not heard of yet, until when they count as neither present nor absent."""
        self.away_since: dict[str, float] = {}
        """When each absent player was last known to leave (or this replica learnt of them)."""

    def present(self, player_id: str) -> bool:
        if player_id in self.connections:
            return True
        replicas = self.remote.get(player_id)
        if not replicas:
            return False
        if not self._services.bus.healthy:
            return True
        alive = self._services.heartbeats.alive
        return any(alive(replica) for replica in replicas)

    def unknown_until(self, player_id: str) -> float:
        """Until when this replica does not know yet whether the seat is connected elsewhere."""
        return self.unknown.get(player_id, float("-inf"))

    def absent_since(self, player_id: str, default: float) -> float | None:
        """None if the player is present; else since when they are away (``default`` if this
        replica never saw them leave)."""
        if self.present(player_id):
            return None
        return self.away_since.get(player_id, default)

    # This replica's sockets ---------------------------------------------------------------

    def connect(self, player_id: str, conn: Connection) -> Connection | None:
        """``conn`` is now the seat's socket here; the one it replaces, if any."""
        older = self.connections.get(player_id)
        self.connections[player_id] = conn
        self.away_since.pop(player_id, None)
        return older if older is not conn else None

    def disconnect(self, player_id: str, conn: Connection) -> bool:
        """Forget ``conn`` if it is still the seat's socket here; whether it was."""
        if self.connections.get(player_id) is not conn:
            return False
        del self.connections[player_id]
        self.away_since[player_id] = self._services.clock()
        return True

    async def announce(self, player_id: str, *, connected: bool, nonce: str) -> None:
        """Tell the other replicas; a new connection also closes the seat's older tabs."""
        services = self._services
        if not services.store.shared:
            return
        await services.bus.publish(
            {
                "kind": "presence",
                "table_id": self._table_id,
                "player_id": player_id,
                "replica": services.replica,
                "connected": connected,
            }
        )
        if connected:
            await services.bus.publish(
                {
                    "kind": "taken",
                    "table_id": self._table_id,
                    "player_id": player_id,
                    "replica": services.replica,
                    "nonce": nonce,
                }
            )

    # What the other replicas say ----------------------------------------------------------

    def heard(self, player_id: str, replica: str, *, connected: bool) -> None:
        """A presence notice of another replica."""
        self._services.heartbeats.heard(replica)
        self.unknown.pop(player_id, None)
        if connected:
            self.remote.setdefault(player_id, set()).add(replica)
        else:
            self.remote.get(player_id, set()).discard(replica)
            self.away_since[player_id] = self._services.clock()

    def here(self, replica: str, player_ids: Iterable[str]) -> None:
        """Another replica's answer to ``who``: the seats of the table connected to it now
        (every other seat it may have been heard to hold has left it)."""
        self._services.heartbeats.heard(replica)
        connected = set(player_ids)
        for player_id in connected:
            self.remote.setdefault(player_id, set()).add(replica)
            self.unknown.pop(player_id, None)
        for player_id, replicas in self.remote.items():
            if player_id not in connected:
                replicas.discard(replica)

    def learn(self, player_ids: Iterable[str]) -> None:
        """Seats this replica just learnt of (it loaded the table, or saw it start) may be
        connected to other replicas, which announced them before this one could hear. Until
        those replicas answer, their presence is unknown: a game's clock waits that long
        before judging one of them absent."""
        if not self._services.store.shared:
            return
        until = self._services.clock() + self._services.settings.presence_unknown
        for player_id in player_ids:
            if player_id not in self.connections:
                self.unknown.setdefault(player_id, until)

    def everyone_away(self, player_ids: Iterable[str]) -> None:
        """The table was orphaned (its replica died): nobody is known to be anywhere."""
        now = self._services.clock()
        self.away_since = dict.fromkeys(player_ids, now)
