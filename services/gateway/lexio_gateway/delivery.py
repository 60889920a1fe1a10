"""Delivery and replay of a table's public events and each seat's own view.

Every commit's notice (from this replica or another) is delivered here to this replica's
sockets, each sent what it has not been sent yet, in order: missed events first (from the last
events kept in memory, else from the store, which keeps all of them), then the new ones, then
its own view. A socket coming back gets the events it missed and a view, or a snapshot when the
gap is too old.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lexio_gateway.bus import Notice
from lexio_gateway.connection import Connection
from lexio_gateway.metrics import RECONNECTS
from lexio_gateway.protocol import encode
from lexio_gateway.records import Player
from lexio_gateway.services import RoomServices

ViewOf = Callable[[int, bool], Awaitable[dict[str, Any]]]
"""A seat's view now: (seat, with the whole log?)."""


@dataclass(frozen=True, slots=True)
class EncodedEvent:
    """One public event as its ``event`` frame's JSON text."""

    seq: int
    frame: str

    @classmethod
    def of(cls, seq: int, entry: dict[str, Any]) -> EncodedEvent:
        return cls(seq, encode({"type": "event", "seq": seq, "entry": entry}))


def notice_events(notice: Notice) -> list[EncodedEvent]:
    """A commit notice's new events, numbered up to its ``seq``."""
    entries = notice.get("entries") or []
    first = notice["seq"] - len(entries) + 1
    return [EncodedEvent.of(first + i, entry) for i, entry in enumerate(entries)]


class Delivery:
    def __init__(self, services: RoomServices, table_id: str) -> None:
        self._services = services
        self._table_id = table_id
        self.recent: deque[EncodedEvent] = deque(maxlen=services.settings.events_in_memory)
        """The last events as sent, kept as JSON text: ~0.7 KB for a placement, where its
        decoded entry took ~3 KB; 256 decoded entries per table grew a gateway by 0.5 MiB/s
        at 1,750 tables (docs/benchmarks.md, soak)."""

    async def remember_from_store(self, seq: int) -> None:
        """After a restart: keep the table's last events in memory again."""
        kept = self._services.settings.events_in_memory
        stored = await self._services.store.events_after(self._table_id, max(0, seq - kept), kept)
        self.recent.extend(EncodedEvent.of(e.seq, e.entry) for e in stored)

    def forget(self) -> None:
        """The store lost events this replica kept (a failover, a crash): keep none."""
        self.recent.clear()

    async def agrees_with_store(self, seq: int) -> bool:
        """Whether the last event kept here, up to ``seq``, is the store's (nothing kept: no
        sign otherwise). One read; a commit the store lost leaves its events here only."""
        kept = [e for e in self.recent if e.seq <= seq]
        if not kept:
            return True
        last = kept[-1]
        stored = await self._services.store.events_after(self._table_id, last.seq - 1, 1)
        return bool(stored) and EncodedEvent.of(last.seq, stored[0].entry).frame == last.frame

    async def _events_after(self, seq: int, last: int) -> list[EncodedEvent]:
        """Events ``seq + 1`` to ``last``, in order (fewer if the store lacks some)."""
        seq = max(seq, 0)
        if last <= seq:
            return []
        missed = [e for e in self.recent if seq < e.seq <= last]
        if len(missed) != last - seq:
            stored = await self._services.store.events_after(self._table_id, seq, last - seq)
            missed = [EncodedEvent.of(e.seq, e.entry) for e in stored if e.seq <= last]
        return missed

    async def catch_up(
        self, conn: Connection, seat: int, last_seq: int | None, seq: int, view_of: ViewOf
    ) -> None:
        """Missed events in order then the current view, or a snapshot when the gap is old.

        All or nothing: the view is asked for before anything is sent, so when the engine
        or the store does not answer (GameUnavailableError, StoreUnavailableError) the
        connection was sent nothing, stays :attr:`~Connection.behind`, and a later catch-up
        from the same point sends each event once."""
        conn.behind = True
        gap = seq - last_seq if last_seq is not None else None
        if (
            last_seq is not None
            and gap is not None
            and 0 <= gap <= self._services.settings.replay_events
        ):
            missed = await self._events_after(last_seq, seq)
            if len(missed) == gap:
                view = await view_of(seat, False)
                for event in missed:
                    await conn.send_encoded(event.frame, "event")
                await conn.send({"type": "view", "seq": seq, "view": view})
                conn.seq, conn.behind = seq, False
                RECONNECTS.labels(mode="replay").inc()
                return
        view = await view_of(seat, True)
        await conn.send({"type": "snapshot", "seq": seq, "view": view})
        conn.seq, conn.behind = seq, False
        RECONNECTS.labels(mode="snapshot").inc()

    async def deliver(
        self,
        notice: Notice,
        players: Sequence[Player],
        connections: dict[str, Connection],
        table_frame: Callable[[str], dict[str, Any]],
    ) -> None:
        """A commit of this table: tell this replica's sockets, each what it lacks."""
        seq = notice["seq"]
        new = notice_events(notice)
        first_new = new[0].seq if new else seq + 1
        for index, player in enumerate(players):
            peer = connections.get(player.player_id)
            if peer is None or peer.behind:
                continue  # one that is behind is caught up whole by its room, in order
            view = notice["views"][index] if notice["views"] else None
            if notice.get("started") and peer.seq < 0:
                # The game's first view holds its whole log so far: the start's own events.
                await peer.send(table_frame(player.player_id))
                snapshot = {**view, "log": notice.get("entries") or []} if view else view
                await peer.send({"type": "snapshot", "seq": seq, "view": snapshot})
                peer.seq = seq
            elif new and peer.seq < seq:
                for event in await self._events_after(peer.seq, first_new - 1):
                    await peer.send_encoded(event.frame, "event")
                for event in new:
                    if event.seq > peer.seq:
                        await peer.send_encoded(event.frame, "event")
                await peer.send({"type": "view", "seq": seq, "view": view})
                peer.seq = seq
        # In order only: a replica tells its own commit as it is made, so an earlier commit of
        # another replica may come after it (its events then come from the store if needed).
        last = self.recent[-1].seq if self.recent else -1
        self.recent.extend(e for e in new if e.seq > last)
