"""A replica's players sent to the others a batch at a time when it stops (SIGTERM).

Every deploy is a rolling update: telling every client at once to reconnect sends all of a
replica's seats to the survivors in one instant, the storm a kill -9 makes (seats back in p99
29-41 s at 2,000 tables: docs/benchmarks.md). Instead the seats leave at a bounded rate, each
once its table's turn in flight is done (its player hears the answer first), while the others
play on here; the survivors resume a few at a time. The listening socket is already closed
(aiohttp stops its sites before ``on_shutdown``), so no player arrives meanwhile and the load
balancer's probe fails: the replica is no longer ready.

The pace is the survivors': a fixed rate that they could not follow only moved the queue to
them (2,000 tables, 3,996 seats at 400 a second: back in p99 16 s). Each seat resumed
elsewhere is announced on its table's channel (a ``presence`` notice), which this replica still
hears: :class:`SentAway` counts the seats sent and not yet back, and no more are sent than the
survivors took back in the last :data:`TARGET_SECONDS` (at least :data:`FIRST_WINDOW`: a slow
start). Only the shutdown grace overrides it: what is left is sent at the rate that ends in
time.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Final

from lexio_gateway.connection import Connection
from lexio_gateway.metrics import SEATS_SENT_AWAY
from lexio_gateway.room import CLOSE_SERVICE_RESTART, room_of

log = logging.getLogger(__name__)

BATCH_SECONDS: Final = 0.1
"""How often a batch may leave: ten a second."""
FIRST_WINDOW: Final = 32
"""Seats sent before any is known to be back, and the fewest ever in flight."""
TARGET_SECONDS: Final = 0.8
"""In flight at most: the seats the survivors took back in this many seconds, so that a seat
sent waits about that long in their queue (the client's own jitter, 0-0.5 s, comes on top)."""
PATIENCE_SECONDS: Final = 5.0
"""A seat not back after this long no longer counts as in flight (its player closed the tab,
or it came back to a replica that does not announce it)."""


class SentAway:
    """The seats this replica sent away, and those another replica has taken back since (its
    ``presence`` notice: :meth:`back`), for :func:`send_away`'s pace.

    >>> seats = SentAway(clock=lambda: 10.0)
    >>> seats.sent("t1", "p1"); seats.sent("t1", "p2"); seats.back("t1", "p1")
    >>> seats.in_flight(), seats.taken_within(1.0)
    (1, 1)
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._sent: dict[tuple[str, str], float] = {}
        self._back: deque[float] = deque()

    def sent(self, table_id: str, player_id: str) -> None:
        self._sent[table_id, player_id] = self._clock()

    def back(self, table_id: str, player_id: str) -> None:
        """A seat connected to another replica: one of ours, if it was sent away."""
        if self._sent.pop((table_id, player_id), None) is not None:
            self._back.append(self._clock())

    def in_flight(self) -> int:
        """Seats sent, not back yet, and not past :data:`PATIENCE_SECONDS`."""
        now = self._clock()
        for key, when in list(self._sent.items()):
            if now - when > PATIENCE_SECONDS:
                del self._sent[key]
        return len(self._sent)

    def taken_within(self, seconds: float) -> int:
        """Seats taken back by the others in the last ``seconds``."""
        horizon = self._clock() - seconds
        while self._back and self._back[0] < horizon:
            self._back.popleft()
        return len(self._back)


def spread_seconds(seats: int, rate: float, longest: float) -> float:
    """How long sending ``seats`` away takes at ``rate`` seats a second, at most ``longest``
    (the shutdown grace's share for it: past it the rate rises).

    >>> spread_seconds(4000, 300.0, 10.0)
    10.0
    >>> spread_seconds(30, 300.0, 10.0)
    0.1
    """
    if seats <= 0 or rate <= 0:
        return 0.0
    return min(longest, seats / rate)


async def send_away(
    connections: Sequence[Connection],
    *,
    within: float,
    rate: float,
    seats: SentAway | None = None,
) -> None:
    """Tell each of ``connections`` to reconnect (``reconnect``, ``shutdown``; then close
    1012), in batches every :data:`BATCH_SECONDS`, all within ``within`` seconds and at most
    ``rate`` a second unless that is too slow to end in time (:func:`spread_seconds`).
    Without ``seats``, evenly so; with it, as fast as the other replicas take them back (see
    the module) within those bounds."""
    if not connections:
        return
    total = len(connections)
    spread = spread_seconds(total, rate, within)
    started = time.monotonic()
    log.info(
        "sending players away",
        extra={
            "connections": total,
            "spread_s": round(spread, 3),
            "within_s": round(within, 3),
            "paced": seats is not None,
        },
    )
    closing: list[asyncio.Task[None]] = []
    done = 0
    ticks = 0

    def by(seconds: float, elapsed: float) -> int:
        """Seats still to send for ``total`` to be gone evenly over ``seconds``."""
        return math.ceil(total * (min(1.0, elapsed / seconds) if seconds > 0 else 1.0)) - done

    while done < total:
        ticks += 1
        elapsed = time.monotonic() - started + BATCH_SECONDS  # at the end of this batch
        count = by(spread, elapsed)
        if seats is not None:
            window = max(FIRST_WINDOW, round(seats.taken_within(TARGET_SECONDS)))
            # The survivors' pace, under the rate's, over the grace's.
            count = max(by(within, elapsed), min(count, window - seats.in_flight()))
        due = started + ticks * BATCH_SECONDS
        batch = connections[done : done + max(0, count)]
        if batch:
            await asyncio.gather(*(_tell(c, seats) for c in batch))
            # Closing waits for each peer's answer (a slow phone: seconds): not the next batch.
            closing.extend(asyncio.create_task(_close(c)) for c in batch)
            done += len(batch)
        await asyncio.sleep(max(0.0, due - time.monotonic()))
    await asyncio.gather(*closing)
    log.info(
        "players sent away",
        extra={"connections": total, "took_s": round(time.monotonic() - started, 3)},
    )


async def _close(conn: Connection) -> None:
    await conn.close(CLOSE_SERVICE_RESTART, "shutdown")


async def _tell(conn: Connection, seats: SentAway | None) -> None:
    """``reconnect`` to one connection, after the turn in flight at its table (the turn's
    answer reaches its player first)."""
    room = room_of(conn)
    if room is not None:
        async with room.lock:
            await conn.send({"type": "reconnect", "reason": "shutdown"})
        if seats is not None and conn.seat is not None:
            seats.sent(room.table_id, conn.seat.player_id)
    else:
        await conn.send({"type": "reconnect", "reason": "shutdown"})
    SEATS_SENT_AWAY.inc()
