"""One table in play: its seats and their connections, the turn clock, the order of events.

One :class:`TableRoom` per table this gateway holds. Everything that changes a table runs
under the room's lock, in this order: ask the engine, store the new state (version + 1) with
its event, and only then tell anyone. Each seat hears only its own view.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import secrets
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from lexio_gateway.connection import Connection
from lexio_gateway.games import BadActionError, GameAdapter, GameUnavailableError, Step
from lexio_gateway.lobby_client import LobbyError, LobbyTable
from lexio_gateway.metrics import ACTIVE_TABLES, RECONNECTS, REFUSALS, TABLE_PASSES
from lexio_gateway.protocol import ProtocolError
from lexio_gateway.records import (
    ActionReply,
    Player,
    StoredEvent,
    TableRecord,
    TableStatus,
)

if TYPE_CHECKING:
    from lexio_gateway.hub import TableHub

log = logging.getLogger(__name__)

CLOSE_REPLACED: Final = 4001
CLOSE_SERVICE_RESTART: Final = 1012


@dataclass(frozen=True)
class TableSettings:
    disconnect_grace: float = 5.0
    """R29: the seconds a disconnected seat gets on its turn."""
    replay_events: int = 256
    """How many recent events a reconnecting client may catch up on before a snapshot."""
    retry_after_unavailable: float = 1.0


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
        self.recent: deque[StoredEvent] = deque(maxlen=hub.settings.replay_events)
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
                    "connected": p.player_id in self.connections,
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
        """Seat ``conn`` in this room; the newest connection of a seat wins (other tabs close)."""
        assert conn.seat is not None
        player_id = conn.seat.player_id
        async with self.lock:
            older = self.connections.get(player_id)
            self.connections[player_id] = conn
            self.away_since.pop(player_id, None)
            conn.room = self
            if older is not None and older is not conn:
                older.room = None
                await older.send({"type": "replaced"})
                await older.close(CLOSE_REPLACED, "replaced")
            await conn.send(self.table_frame(player_id))
            if self.record.status is not TableStatus.OPEN:
                await self._catch_up(conn, last_seq)
            self._schedule_clock()
        await self.broadcast_table()

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
        await self.broadcast_table()

    async def _catch_up(self, conn: Connection, last_seq: int | None) -> None:
        """Missed events in order then the current view, or a snapshot when the gap is old."""
        assert conn.seat is not None
        seat = self.seat_of(conn.seat.player_id)
        now = self.hub.clock()
        gap = self.record.seq - last_seq if last_seq is not None else None
        if gap is not None and 0 <= gap <= self.hub.settings.replay_events:
            missed = [e for e in self.recent if e.seq > (last_seq or 0)]
            if len(missed) != gap:
                missed = await self.hub.store.events_after(self.table_id, last_seq or 0, gap)
            if len(missed) == gap:
                for event in missed:
                    await conn.send({"type": "event", "seq": event.seq, "entry": event.entry})
                view = await self.adapter.view(self.record.state, seat, now, with_log=False)
                await conn.send({"type": "view", "seq": self.record.seq, "view": view})
                RECONNECTS.labels(mode="replay").inc()
                return
        view = await self.adapter.view(self.record.state, seat, now, with_log=True)
        await conn.send({"type": "snapshot", "seq": self.record.seq, "view": view})
        RECONNECTS.labels(mode="snapshot").inc()

    # Changing the table ---------------------------------------------------------------

    async def _commit(self, step: Step, now: float, reply: ActionReply | None = None) -> None:
        """Store the step's state (version + 1) and event; the room changes only once stored."""
        before = self.record
        after = dataclasses.replace(before, state=step.state, version=before.version + 1)
        events = []
        if step.event is not None:
            after.seq += 1
            events.append(StoredEvent(after.seq, step.event))
            after.turn_since = now
        after.turn = step.turn.seat
        after.deadline = step.turn.deadline
        if step.turn.over and after.status is TableStatus.STARTED:
            after.status = TableStatus.OVER
        await self.hub.store.save_table(after, before.version, events, reply)
        self.record = after
        self.recent.extend(events)
        if after.status is TableStatus.OVER and before.status is TableStatus.STARTED:
            ACTIVE_TABLES.dec()
            log.info("game over", extra={"table_id": self.table_id, "events": after.seq})
            self.hub.spawn(self.hub.close_in_lobby(self.table_id, after.players[0].player_id))

    async def _publish(self, step: Step) -> None:
        """Each seat: the public event, then its own view (and nobody else's)."""
        seq = self.record.seq
        for index, player in enumerate(self.record.players):
            conn = self.connections.get(player.player_id)
            if conn is None:
                continue
            if step.event is not None:
                await conn.send({"type": "event", "seq": seq, "entry": step.event})
            await conn.send({"type": "view", "seq": seq, "view": step.views[index]})

    async def start(self, conn: Connection, action_id: str) -> None:
        assert conn.seat is not None
        player_id = conn.seat.player_id
        async with self.lock:
            if self.record.status is not TableStatus.OPEN:
                raise ProtocolError("game_started", id=action_id)
            try:
                lobby_table = await self.hub.lobby.start(self.table_id, player_id)
            except LobbyError as e:
                if e.code != "game_started":
                    raise ProtocolError(e.code, id=action_id) from None
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
            self.record = dataclasses.replace(
                self.record, status=TableStatus.STARTED, players=players
            )
            await self._commit(step, now)
            ACTIVE_TABLES.inc()
            log.info("game started", extra={"table_id": self.table_id, "seats": len(players)})
            for index, player in enumerate(players):
                peer = self.connections.get(player.player_id)
                if peer is not None:
                    await peer.send(self.table_frame(player.player_id))
                    snapshot = {
                        "type": "snapshot",
                        "seq": self.record.seq,
                        "view": step.views[index],
                    }
                    await peer.send(snapshot)
            self._schedule_clock()

    async def act(self, conn: Connection, action_id: str, action: dict[str, Any]) -> str:
        """Play one action for the connection's seat; returns the outcome for metrics."""
        assert conn.seat is not None
        player_id = conn.seat.player_id
        async with self.lock:
            if self.record.status is TableStatus.OPEN:
                raise ProtocolError("not_started", id=action_id)
            earlier = await self.hub.store.find_reply(self.table_id, player_id, action_id)
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
                await self._publish(step)
                self._schedule_clock()
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
            REFUSALS.labels(reason=step.refusal["reason"]).inc()
            if step.state_changed:
                await self._commit(step, now, ActionReply(player_id, action_id, refused))
            await conn.send(refused)
            if step.state_changed:
                await conn.send({"type": "view", "seq": self.record.seq, "view": view})
            return "refused"

    async def preview(self, conn: Connection, action_id: str, action: dict[str, Any]) -> None:
        assert conn.seat is not None
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
        if player_id in self.connections:
            return record.deadline
        away = max(record.turn_since, self.away_since.get(player_id, record.turn_since))
        return min(record.deadline, away + self.hub.settings.disconnect_grace)

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
        async with self.lock:
            due = self._due()
            if self.record.version != version or due is None:
                return
            now = self.hub.clock()
            if now < due:
                self._schedule_clock()
                return
            seat = self.record.turn
            cause = (
                "clock"
                if self.record.players[seat].player_id in self.connections
                else ("disconnected")
            )
            try:
                step = await self.adapter.table_pass(self.record.state, seat, cause, now)
            except GameUnavailableError:
                self._timer = asyncio.get_running_loop().call_later(
                    self.hub.settings.retry_after_unavailable,
                    lambda: self.hub.spawn(self._expire(version)),
                )
                return
            if not step.accepted:
                log.error(
                    "table pass refused", extra={"table_id": self.table_id, **(step.refusal or {})}
                )
                return
            TABLE_PASSES.labels(cause=cause).inc()
            await self._commit(step, now)
            await self._publish(step)
            self._schedule_clock()

    def stop_clock(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
