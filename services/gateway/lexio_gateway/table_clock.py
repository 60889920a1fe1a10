"""A table's clock on this replica: a timer for the next clock event its game's adapter names.

The instant is absolute and stored with the table, so every replica holding the table (and
this one after a restart) schedules the same event; when several fire, the commit's version
check lets exactly one apply. A clock that cannot commit (store or engine away) tries again
shortly; one that fails for any other reason is logged and tried again too: a stopped clock
would stall the table for every replica trusting this one to fire it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from lexio_gateway.games import ClockEvent, GameAdapter, TableClock
from lexio_gateway.presence import Presence
from lexio_gateway.records import TableRecord, TableStatus
from lexio_gateway.services import RoomServices

Fire = Callable[[int], Coroutine[Any, Any, None]]
"""The room's own handling of a due event, for the table's version then."""


def next_event(record: TableRecord, adapter: GameAdapter, presence: Presence) -> ClockEvent | None:
    """The table's next clock event, the seat's absence (or unknown presence) considered."""
    clock: TableClock | None = record.clock
    if record.status is not TableStatus.STARTED or clock is None:
        return None
    if not 0 <= clock.seat < len(record.players):
        return adapter.clock_event(clock, None)
    player_id = record.players[clock.seat].player_id
    away = presence.absent_since(player_id, clock.since)
    event = adapter.clock_event(clock, away)
    if away is None:
        return event
    # Not heard of yet on any replica: wait to hear before judging them absent.
    return ClockEvent(max(event.at, presence.unknown_until(player_id)), event.action)


class RoomClock:
    def __init__(self, services: RoomServices, fire: Fire) -> None:
        self._services = services
        self._fire = fire
        self._timer: asyncio.TimerHandle | None = None

    def schedule(self, event: ClockEvent | None, version: int) -> None:
        """Fire at ``event``'s instant for the table at ``version`` (None: no clock now)."""
        self.stop()
        if self._services.lifecycle.closing or event is None:
            return
        delay = max(0.0, event.at - self._services.clock())
        self._timer = asyncio.get_running_loop().call_later(
            delay, lambda: self._services.lifecycle.spawn(self._fire(version))
        )

    def retry(self, version: int) -> None:
        """Try again shortly (the store or the engine could not answer, or a bug)."""
        if self._services.lifecycle.closing:
            return
        self.stop()
        self._timer = asyncio.get_running_loop().call_later(
            self._services.settings.retry_after_unavailable,
            lambda: self._services.lifecycle.spawn(self._fire(version)),
        )

    @property
    def scheduled(self) -> bool:
        """Whether a firing is due (a timer is set): what a replica at rest has none of."""
        return self._timer is not None

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
