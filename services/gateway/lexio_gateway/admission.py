"""How many seats this replica resumes at once.

When a gateway replica dies, every seat it held comes to the others within a second (the
clients' first retry is a jittered 0–0.5 s). Let in all at once, 2,000 resumes interleave on
the one event loop: each waits behind all the others' store reads and frames, none finishes
within the store's 2 s time-out, and they fail ``unavailable`` after doing most of their
work, to be tried again (bench/resume_bench.py: 2,000 seats back in p50 5.6 s after three
tries each, the survivor's CPU one third busy). Let in a few at a time, each is done in a few
milliseconds and the others wait their turn on their open sockets, having cost nothing yet.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

from lexio_gateway.metrics import RESUME_WAIT_SECONDS, RESUMES_WAITING


class ResumeAdmission:
    """At most ``in_flight`` resumes run at once; the rest wait in order of arrival.

    >>> admission = ResumeAdmission(in_flight=2)
    >>> async def resume() -> None:
    ...     async with admission.slot():
    ...         pass  # read the token, attach the seat, catch it up
    """

    def __init__(self, in_flight: int) -> None:
        if in_flight < 1:
            raise ValueError(f"in_flight must be at least 1, got {in_flight}")
        self._slots = asyncio.Semaphore(in_flight)

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        arrived = time.perf_counter()
        RESUMES_WAITING.inc()
        try:
            await self._slots.acquire()
        finally:
            RESUMES_WAITING.dec()
        try:
            RESUME_WAIT_SECONDS.observe(time.perf_counter() - arrived)
            yield
        finally:
            self._slots.release()
