"""One browser's WebSocket: what it may send, and to which seat it speaks."""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from lexio_gateway.metrics import ERRORS, FRAMES
from lexio_gateway.protocol import encode
from lexio_gateway.records import SeatToken

log = logging.getLogger(__name__)

SEND_TIMEOUT_SECONDS = 2.0


class TokenBucket:
    """``rate`` frames a second on average, bursts of ``burst``."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic):
        self._rate = rate
        self._burst = burst
        self._tokens = burst
        self._clock = clock
        self._last = clock()

    def take(self) -> bool:
        now = self._clock()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    def retry_after(self) -> int:
        """Whole seconds (at least 1) until :meth:`take` succeeds again: what a refused
        client is told to wait."""
        missing = max(0.0, 1 - self._tokens)
        return max(1, math.ceil(missing / self._rate))


class Connection:
    def __init__(self, ws: web.WebSocketResponse, caller: str, bucket: TokenBucket) -> None:
        self.ws = ws
        self.caller = caller
        self.bucket = bucket
        self.welcomed = False
        self.seat: SeatToken | None = None
        self.room: object | None = None
        """The room of the seat it holds (a :class:`lexio_gateway.room.TableRoom`, which
        :func:`lexio_gateway.room.room_of` gives typed): named loosely here, so that this
        module, which every part of the core imports, imports none of them."""
        self.seq = -1
        """The last event this connection was sent (or -1)."""
        self.behind = False
        """True while a catch-up of this connection could not finish (the engine or the store
        did not answer): deliveries pass it by, and its room catches it up from :attr:`seq`
        as soon as it can (see ``TableRoom.catch_up_behind``)."""
        self.nonce = secrets.token_hex(8)

    def sent_nothing_yet(self) -> None:
        """A new seat for this connection (a resume, a new table): nothing of it sent yet."""
        self.seq = -1
        self.behind = False

    @property
    def player_id(self) -> str | None:
        return self.seat.player_id if self.seat else None

    async def send(self, frame: dict[str, Any]) -> None:
        if await self.send_encoded(encode(frame), frame["type"]) and frame["type"] == "error":
            ERRORS.labels(code=frame["code"]).inc()

    async def send_encoded(self, text: str, kind: str) -> bool:
        """Send a frame already encoded (one encoding for every seat that gets the same
        frame); whether it went out."""
        if self.ws.closed:
            return False
        try:
            # Bounded: a peer that stops reading would otherwise hold the table's lock (and
            # every delivery behind it) for as long as its socket buffer stays full.
            await asyncio.wait_for(self.ws.send_str(text), SEND_TIMEOUT_SECONDS)
        except TimeoutError:
            log.warning("slow peer closed", extra={"frame": kind})
            asyncio.get_running_loop().create_task(self.ws.close(code=1013, message=b"too slow"))
            return False
        except ConnectionError:
            return False
        FRAMES.labels(direction="out").inc()
        return True

    async def close(self, code: int, message: str) -> None:
        await self.ws.close(code=code, message=message.encode())
