"""A replica's players sent to the others a batch at a time when it stops (SIGTERM).

Every deploy is a rolling update: telling every client at once to reconnect sends all of a
replica's seats to the survivors in one instant, the storm a kill -9 makes (seats back in p99
29-41 s at 2,000 tables: docs/benchmarks.md). Instead the seats leave at a bounded rate, each
once its table's turn in flight is done (its player hears the answer first), while the others
play on here; the survivors resume a few at a time. The listening socket is already closed
(aiohttp stops its sites before ``on_shutdown``), so no player arrives meanwhile and the load
balancer's probe fails: the replica is no longer ready.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Sequence
from typing import Final

from lexio_gateway.connection import Connection
from lexio_gateway.metrics import SEATS_SENT_AWAY
from lexio_gateway.room import CLOSE_SERVICE_RESTART, room_of

log = logging.getLogger(__name__)

BATCH_SECONDS: Final = 0.1
"""How often a batch leaves: ten a second, each a tenth of the rate's seats."""


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


async def send_away(connections: Sequence[Connection], seconds: float) -> None:
    """Tell each of ``connections`` to reconnect (``reconnect``, ``shutdown``; then close
    1012), spread evenly over ``seconds`` in batches every :data:`BATCH_SECONDS`."""
    if not connections:
        return
    batches = max(1, min(len(connections), math.ceil(seconds / BATCH_SECONDS)))
    size = math.ceil(len(connections) / batches)
    started = time.monotonic()
    log.info(
        "sending players away",
        extra={"connections": len(connections), "spread_s": round(seconds, 3), "batches": batches},
    )
    closing: list[asyncio.Task[None]] = []
    for number, first in enumerate(range(0, len(connections), size)):
        batch = connections[first : first + size]
        await asyncio.gather(*(_tell(c) for c in batch))
        # Closing waits for each peer's answer (a slow phone: seconds): not the next batch.
        closing.extend(asyncio.create_task(_close(c)) for c in batch)
        due = started + (number + 1) * seconds / batches
        await asyncio.sleep(max(0.0, due - time.monotonic()))
    await asyncio.gather(*closing)
    log.info(
        "players sent away",
        extra={"connections": len(connections), "took_s": round(time.monotonic() - started, 3)},
    )


async def _close(conn: Connection) -> None:
    await conn.close(CLOSE_SERVICE_RESTART, "shutdown")


async def _tell(conn: Connection) -> None:
    """``reconnect`` to one connection, after the turn in flight at its table (the turn's
    answer reaches its player first)."""
    room = room_of(conn)
    if room is not None:
        async with room.lock:
            await conn.send({"type": "reconnect", "reason": "shutdown"})
    else:
        await conn.send({"type": "reconnect", "reason": "shutdown"})
    SEATS_SENT_AWAY.inc()
