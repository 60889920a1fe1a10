"""One table in play: its seats and their connections, the turn clock, the order of events.

One :class:`TableRoom` per table this gateway replica holds. Everything that changes a table
goes in one order: ask the engine, store the new state (version + 1, compare-and-set) with its
event, and only then tell anyone — through the bus, so that every replica holding one of the
table's players delivers it to its own sockets, each seat its own view only.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import secrets
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from lexio_gateway.bus import Notice
from lexio_gateway.connection import Connection
from lexio_gateway.games import BadActionError, GameAdapter, GameUnavailableError, Step
from lexio_gateway.lobby_client import LobbyError, LobbyTable
from lexio_gateway.metrics import ACTIVE_TABLES, RECONNECTS, REFUSALS, TABLE_PASSES
from lexio_gateway.protocol import ProtocolError, encode
from lexio_gateway.records import (
    ActionReply,
    Player,
    StoredEvent,
    TableRecord,
    TableStatus,
)
from lexio_gateway.store import StoreUnavailableError, VersionConflictError

if TYPE_CHECKING:
    from lexio_gateway.hub import TableHub

log = logging.getLogger(__name__)

CLOSE_REPLACED: Final = 4001
CLOSE_SERVICE_RESTART: Final = 1012
CAS_ATTEMPTS: Final = 5
UNKNOWN_REPLICA: Final = "?"
"""In :attr:`TableRoom.remote`: "not heard of yet" — neither present nor absent until then."""


@dataclass(frozen=True)
class TableSettings:
    disconnect_grace: float = 5.0
    """R29: the seconds a disconnected seat gets on its turn."""
    replay_events: int = 256
    """How many recent events a reconnecting client may catch up on before a snapshot."""
    events_in_memory: int = 32
    """How many of a table's last events a room keeps, encoded, to replay without reading the
    store: a dropped connection is usually back within a few turns. Older gaps (up to
    ``replay_events``) are read from the store, which holds every event."""
    retry_after_unavailable: float = 1.0
    presence_ttl: float = 10.0
    """A seat connected to another replica counts as present this long after its last word."""
    keep_alive: float = 2.0
    """Every replica repeats the seats it holds this often (shared store only)."""

    @property
    def presence_unknown(self) -> float:
        """How long a replica that just learnt of a table's seats waits to hear where they
        are before it judges one absent: every live replica speaks within a keep-alive."""
        return 1.5 * self.keep_alive


@dataclass(frozen=True, slots=True)
class EncodedEvent:
    """One public event as its ``event`` frame's JSON text."""

    seq: int
    frame: str

    @classmethod
    def of(cls, seq: int, entry: dict[str, Any]) -> EncodedEvent:
        return cls(seq, encode({"type": "event", "seq": seq, "entry": entry}))


def token_hash(token: str) -> str:
    """Tokens are stored and looked up only as SHA-256 digests: the store never holds a token,
    and a lookup's timing can only tell about a digest, never about the secret itself."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_urlsafe(12)}"


class TableRoom:
    def __init__(self, hub: TableHub, record: TableRecord) -> None:
        self.hub = hub
        self.record = record
        self.lobby_table: LobbyTable | None = None
        self.connections: dict[str, Connection] = {}
        self.away_since: dict[str, float] = {}
        self.remote: dict[str, dict[str, float]] = {}
        """Seats connected to other replicas: player → {replica: valid until}."""
        self.recent: deque[EncodedEvent] = deque(maxlen=hub.settings.events_in_memory)
        """The last events as sent, kept as JSON text: ~0.7 KB for a placement, where its
        decoded entry took ~3 KB; 256 decoded entries per table grew a gateway by 0.5 MiB/s
        at 1,750 tables (docs/benchmarks.md, soak)."""
        self.lock = asyncio.Lock()
        self._timer: asyncio.TimerHandle | None = None

    @property
    def adapter(self) -> GameAdapter:
        return self.hub.adapters[self.record.game]

    @property
    def table_id(self) -> str:
        return self.record.table_id

    # Seats and presence ---------------------------------------------------------------

    def _players(self) -> list[Player]:
        if self.record.status is TableStatus.OPEN and self.lobby_table is not None:
            return [Player(s.player_id, s.name) for s in self.lobby_table.seats]
        return self.record.players

    def seat_of(self, player_id: str) -> int:
        for index, player in enumerate(self._players()):
            if player.player_id == player_id:
                return index
        return -1

    def present(self, player_id: str) -> bool:
        """Connected here, or lately heard of on another replica. While this replica cannot
        hear the others (its bus is down), a seat last seen elsewhere counts as still there:
        silence then says nothing, and R29 must not pass for a player who never left."""
        if player_id in self.connections:
            return True
        seen = self.remote.get(player_id)
        if not seen:
            return False
        if not self.hub.bus.healthy:
            return True
        now = self.hub.clock()
        return any(until > now for replica, until in seen.items() if replica != UNKNOWN_REPLICA)

    def _unknown_until(self, player_id: str) -> float:
        """Until when this replica does not know yet whether the seat is connected elsewhere."""
        return self.remote.get(player_id, {}).get(UNKNOWN_REPLICA, float("-inf"))

    def learn_remote_seats(self, known_before: Sequence[Player]) -> None:
        """The seats this replica just learnt of (it loaded the table, or saw it start) may be
        connected to other replicas, which announced them before this one could hear. Until
        those replicas' next word (within a keep-alive) their presence is unknown: the clock
        waits that long before passing for one of them, so that R29 neither passes for a
        player who is there nor names a present player "disconnected"."""
        if not self.hub.store.shared:
            return
        until = self.hub.clock() + self.hub.settings.presence_unknown
        known = {p.player_id for p in known_before}
        for player in self.record.players:
            if player.player_id not in known and player.player_id not in self.connections:
                self.remote.setdefault(player.player_id, {}).setdefault(UNKNOWN_REPLICA, until)

    def extend_remote_presence(self, until: float) -> None:
        """After a break in the bus: give every seat seen elsewhere until ``until`` to be
        heard of again (its replica says so every few seconds)."""
        for seen in self.remote.values():
            for replica, valid in seen.items():
                seen[replica] = max(valid, until)

    def table_frame(self, player_id: str) -> dict[str, Any]:
        players = self._players()
        lobby = self.lobby_table
        state = self.record.status.value
        if self.record.status is TableStatus.OPEN and lobby is not None:
            state = lobby.state
        hosts = [s.host for s in lobby.seats] if lobby and state == "open" else None
        adapter = self.adapter
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
                    "connected": self.present(p.player_id),
                }
                for i, p in enumerate(players)
            ],
            "you": self.seat_of(player_id),
            "min_seats": adapter.min_seats,
            "max_seats": adapter.max_seats,
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

    async def attach(self, conn: Connection, last_seq: int | None) -> None:
        """Seat ``conn`` in this room; the newest connection of a seat wins (other tabs close,
        on this replica at once, on the others through the bus)."""
        assert conn.seat is not None
        player_id = conn.seat.player_id
        async with self.lock:
            await self.refresh()
            older = self.connections.get(player_id)
            self.connections[player_id] = conn
            self.away_since.pop(player_id, None)
            conn.room = self
            if older is not None and older is not conn:
                await self.replace(older)
            await conn.send(self.table_frame(player_id))
            if self.record.status is not TableStatus.OPEN:
                await self._catch_up(conn, last_seq)
            self._schedule_clock()
        await self.hub.announce_presence(self.table_id, player_id, connected=True, conn=conn)
        await self.broadcast_table()

    async def replace(self, older: Connection) -> None:
        older.room = None
        await older.send({"type": "replaced"})
        # Not awaited here: closing waits for the peer's answer (seconds, if the old tab's
        # network is gone), and the caller may hold the table's lock.
        self.hub.spawn(older.close(CLOSE_REPLACED, "replaced"))

    async def detach(self, conn: Connection) -> None:
        assert conn.seat is not None
        player_id = conn.seat.player_id
        async with self.lock:
            if self.connections.get(player_id) is not conn:
                return
            del self.connections[player_id]
            self.away_since[player_id] = self.hub.clock()
            conn.room = None
            self._schedule_clock()
        await self.hub.announce_presence(self.table_id, player_id, connected=False, conn=conn)
        await self.broadcast_table()

    async def _catch_up(self, conn: Connection, last_seq: int | None) -> None:
        """Missed events in order then the current view, or a snapshot when the gap is old."""
        assert conn.seat is not None
        seat = self.seat_of(conn.seat.player_id)
        now = self.hub.clock()
        gap = self.record.seq - last_seq if last_seq is not None else None
        if gap is not None and 0 <= gap <= self.hub.settings.replay_events:
            missed = await self._events_after(last_seq or 0, self.record.seq)
            if len(missed) == gap:
                for event in missed:
                    await conn.send_encoded(event.frame, "event")
                view = await self.adapter.view(self.record.state, seat, now, with_log=False)
                await conn.send({"type": "view", "seq": self.record.seq, "view": view})
                conn.seq = self.record.seq
                RECONNECTS.labels(mode="replay").inc()
                return
        view = await self.adapter.view(self.record.state, seat, now, with_log=True)
        await conn.send({"type": "snapshot", "seq": self.record.seq, "view": view})
        conn.seq = self.record.seq
        RECONNECTS.labels(mode="snapshot").inc()

    async def _events_after(self, seq: int, last: int) -> list[EncodedEvent]:
        if last <= seq:
            return []
        missed = [e for e in self.recent if seq < e.seq <= last]
        if len(missed) != last - seq:
            stored = await self.hub.store.events_after(self.table_id, seq, last - seq)
            missed = [EncodedEvent.of(e.seq, e.entry) for e in stored]
        return missed

    # Changing the table ---------------------------------------------------------------

    async def refresh(self) -> None:
        """With a shared store another replica may have moved the table on: read it again."""
        if not self.hub.store.shared:
            return
        record = await self.hub.store.get_table(self.table_id)
        if record is not None and record.version > self.record.version:
            known = self.record.players
            self.record = record
            if record.players != known:
                self.learn_remote_seats(known)

    async def _commit(
        self, step: Step, now: float, reply: ActionReply | None = None, started: bool = False
    ) -> None:
        """Store the step's state (version + 1) and event with its notice; the room changes
        only once stored. VersionConflictError: another replica got there first."""
        before = self.record
        after = dataclasses.replace(before, state=step.state, version=before.version + 1)
        events = []
        if step.event is not None:
            after.seq += 1
            events.append(StoredEvent(after.seq, step.event))
        if step.event is not None or started:
            after.turn_since = now  # a new turn begins: R29's grace counts from here
        after.turn = step.turn.seat
        after.deadline = step.turn.deadline
        if step.turn.over and after.status is TableStatus.STARTED:
            after.status = TableStatus.OVER
        notice: Notice = {
            "kind": "event" if events else "changed",
            "table_id": self.table_id,
            "version": after.version,
            "seq": after.seq,
            "entry": step.event,
            "views": step.views,
            "started": started,
        }
        store = self.hub.store
        await store.save_table(after, before.version, events, reply, notice)
        if not store.shared:
            await self.hub.bus.publish(notice)
        self.record = after
        if after.status is TableStatus.OVER and before.status is TableStatus.STARTED:
            ACTIVE_TABLES.dec()
            log.info("game over", extra={"table_id": self.table_id, "events": after.seq})
            self.hub.spawn(self.hub.close_in_lobby(self.table_id, after.players[0].player_id))

    async def on_notice(self, notice: Notice) -> None:
        """A commit of this table (here or on another replica): tell this replica's sockets,
        each what it has not been sent yet, in order."""
        async with self.lock:
            if notice["version"] > self.record.version:
                await self.refresh()
            seq = notice["seq"]
            new_event: EncodedEvent | None = None
            for index, player in enumerate(self.record.players):
                peer = self.connections.get(player.player_id)
                if peer is None:
                    continue
                if notice.get("started") and peer.seq < 0:
                    view = notice["views"][index]
                    await peer.send(self.table_frame(player.player_id))
                    await peer.send({"type": "snapshot", "seq": seq, "view": view})
                    peer.seq = seq
                elif notice["kind"] == "event" and peer.seq < seq:
                    view = notice["views"][index]
                    for event in await self._events_after(peer.seq, seq - 1):
                        await peer.send_encoded(event.frame, "event")
                    if new_event is None:
                        new_event = EncodedEvent.of(seq, notice["entry"])
                    await peer.send_encoded(new_event.frame, "event")
                    await peer.send({"type": "view", "seq": seq, "view": view})
                    peer.seq = seq
            if notice["kind"] == "event":
                self.recent.append(new_event or EncodedEvent.of(seq, notice["entry"]))
            elif notice.get("table"):  # the table itself changed (a rematch was opened)
                await self._broadcast_table_locked()
            self._schedule_clock()

    async def _broadcast_table_locked(self) -> None:
        for player_id, conn in list(self.connections.items()):
            await conn.send(self.table_frame(player_id))

    async def resync(self) -> None:
        """After a break in the bus: catch this replica's sockets up from the store."""
        async with self.lock:
            await self.refresh()
            if self.record.status is not TableStatus.OPEN:
                for conn in list(self.connections.values()):
                    if conn.seq < self.record.seq:
                        await self._catch_up(conn, conn.seq if conn.seq >= 0 else None)
            await self._broadcast_table_locked()
            self._schedule_clock()

    async def start(self, conn: Connection, action_id: str) -> None:
        assert conn.seat is not None
        player_id = conn.seat.player_id
        async with self.lock:
            await self.refresh()
            if self.record.status is not TableStatus.OPEN:
                raise ProtocolError("game_started", id=action_id)
            try:
                lobby_table = await self.hub.lobby.start(self.table_id, player_id)
            except LobbyError as e:
                if e.code != "game_started":
                    raise ProtocolError(e.code, id=action_id, **e.params) from None
                # Started in the lobby but not here (the engine failed last time): go on.
                lobby_table, _ = await self.hub.lobby.get(self.table_id, player_id)
                if lobby_table.seat_of(player_id) != 0:
                    raise ProtocolError("not_host", id=action_id) from None
            self.lobby_table = lobby_table
            players = [Player(s.player_id, s.name) for s in lobby_table.seats]
            now = self.hub.clock()
            try:
                step = await self.adapter.start(len(players), self.hub.seeds(), now)
            except GameUnavailableError:
                raise ProtocolError("unavailable", id=action_id) from None
            opened = self.record
            self.record = dataclasses.replace(opened, status=TableStatus.STARTED, players=players)
            try:
                await self._commit(step, now, started=True)
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
        version, earlier = await self.hub.store.version_and_reply(
            self.table_id, player_id, action_id
        )
        if version is None or version > self.record.version:
            await self.refresh()
        if self.record.status is TableStatus.OPEN:
            raise ProtocolError("not_started", id=action_id)
        if earlier is not None:
            await conn.send(earlier.reply)
            return "duplicate"
        seat = self.seat_of(player_id)
        now = self.hub.clock()
        try:
            step = await self.adapter.act(self.record.state, seat, action, now)
        except BadActionError:
            raise ProtocolError("bad_action", id=action_id) from None
        except GameUnavailableError:
            raise ProtocolError("unavailable", id=action_id) from None
        if step.accepted:
            reply = {"type": "ack", "id": action_id, "seq": self.record.seq + 1}
            await self._commit(step, now, ActionReply(player_id, action_id, reply))
            await conn.send(reply)
            return "accepted"
        assert step.refusal is not None
        view = step.views[seat]
        refused = {
            "type": "refused",
            "id": action_id,
            "reason": step.refusal["reason"],
            "words": step.refusal["words"],
            "reserve_tries": view["reserve_tries"],
            "reserve_next_in": view["reserve_next_in"],
        }
        if step.state_changed:
            await self._commit(step, now, ActionReply(player_id, action_id, refused))
        REFUSALS.labels(reason=step.refusal["reason"]).inc()
        await conn.send(refused)
        if step.state_changed:
            await conn.send({"type": "view", "seq": self.record.seq, "view": view})
        return "refused"

    async def preview(self, conn: Connection, action_id: str, action: dict[str, Any]) -> None:
        assert conn.seat is not None
        async with self.lock:
            await self.refresh()
        if self.record.status is TableStatus.OPEN:
            raise ProtocolError("not_started", id=action_id)
        seat = self.seat_of(conn.seat.player_id)
        try:
            result = await self.adapter.preview(self.record.state, seat, action)
        except BadActionError:
            raise ProtocolError("bad_action", id=action_id) from None
        except GameUnavailableError:
            raise ProtocolError("unavailable", id=action_id) from None
        await conn.send({"type": "preview", "id": action_id, **result})

    # The clock (R28, R29) -------------------------------------------------------------

    def _due(self) -> float | None:
        """When the table passes for the seat to play: its deadline, or sooner if it is away."""
        record = self.record
        if record.status is not TableStatus.STARTED or not 0 <= record.turn < len(record.players):
            return None
        player_id = record.players[record.turn].player_id
        if self.present(player_id):
            return record.deadline
        away = max(record.turn_since, self.away_since.get(player_id, record.turn_since))
        due = min(record.deadline, away + self.hub.settings.disconnect_grace)
        return max(due, self._unknown_until(player_id))

    def _schedule_clock(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.hub.closing:
            return
        due = self._due()
        if due is None:
            return
        delay = max(0.0, due - self.hub.clock())
        version = self.record.version
        self._timer = asyncio.get_running_loop().call_later(
            delay, lambda: self.hub.spawn(self._expire(version))
        )

    async def _expire(self, version: int) -> None:
        """The table passes for the seat to play. Several replicas may try at once: the
        version check lets exactly one of them apply it."""
        async with self.lock:
            try:
                await self.refresh()
                due = self._due()
                if self.record.version != version or due is None:
                    self._schedule_clock()
                    return
                now = self.hub.clock()
                if now < due:
                    self._schedule_clock()
                    return
                seat = self.record.turn
                present = self.present(self.record.players[seat].player_id)
                cause = "clock" if present else "disconnected"
                step = await self.adapter.table_pass(self.record.state, seat, cause, now)
                if not step.accepted:
                    log.error("table pass refused", extra={"table_id": self.table_id})
                    return
                await self._commit(step, now)
                TABLE_PASSES.labels(cause=cause).inc()
            except VersionConflictError:
                await self.refresh()
                self._schedule_clock()
            except (GameUnavailableError, StoreUnavailableError):
                self._retry_expire(version)
            except Exception:
                # A clock that stopped here would stall the table for every replica that
                # trusts this one to fire it: log the bug and keep the clock alive.
                log.exception("table clock failed", extra={"table_id": self.table_id})
                self._retry_expire(version)

    def _retry_expire(self, version: int) -> None:
        if self.hub.closing:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(
            self.hub.settings.retry_after_unavailable,
            lambda: self.hub.spawn(self._expire(version)),
        )

    def stop_clock(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
