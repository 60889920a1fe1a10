"""The collaborators every table room of this replica uses, handed to it explicitly."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

from lexio_gateway.bus import Bus
from lexio_gateway.games import GameAdapter
from lexio_gateway.heartbeats import Heartbeats
from lexio_gateway.lobby_client import LobbyClient
from lexio_gateway.store import TableStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TableSettings:
    replay_events: int = 256
    """How many recent events a reconnecting client may catch up on before a snapshot."""
    events_in_memory: int = 32
    """How many of a table's last events a room keeps, encoded, to replay without reading the
    store: a dropped connection is usually back within a few turns. Older gaps (up to
    ``replay_events``) are read from the store, which holds every event."""
    retry_after_unavailable: float = 1.0
    presence_ttl: float = 10.0
    """A replica counts as alive (and the seats connected to it as present) this long after
    its last word."""
    keep_alive: float = 2.0
    """Every replica says it is alive this often (shared store only)."""
    resumes_in_flight: int = 16
    """Seats resumed at once; the others come back wait their turn (admission.py)."""
    resume_patience: float = 5.0
    """How long a seat come back waits for its turn before it is told to come back later."""

    @property
    def presence_unknown(self) -> float:
        """How long a replica that just learnt of a table's seats waits to hear where they
        are before it judges one absent: the replicas holding them answer its ``who`` at once
        (and it asks again after a break in its bus)."""
        return 1.5 * self.keep_alive


@dataclass
class Lifecycle:
    """Whether the replica is shutting down (then no clock is scheduled any more)."""

    closing: bool = False
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    game_ended: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when a game of this replica ends: its table's closing in the lobby is due now."""

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` in the background, kept until done (the loop holds tasks weakly)."""
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error(
                "background work failed",
                exc_info=error,
                extra={"task": task.get_coro().__qualname__},  # type: ignore[union-attr]
            )


@dataclass(frozen=True)
class RoomServices:
    store: TableStore
    bus: Bus
    lobby: LobbyClient
    adapters: Mapping[str, GameAdapter]
    settings: TableSettings
    clock: Callable[[], float]
    """Unix seconds (injectable for tests)."""
    seeds: Callable[[str], int]
    """Each new game's seed, given its table id (injectable for tests and the load bench)."""
    replica: str
    """This process, among the gateway replicas sharing the store."""
    lifecycle: Lifecycle
    heartbeats: Heartbeats
    """Which other replicas are alive."""
