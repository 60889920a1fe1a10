"""How many seats this replica resumes at once, and how long one waits for its turn.

When a gateway replica dies, every seat it held comes to the others within a second (the
clients' first retry is a jittered 0–0.5 s). Let in all at once, 2,000 resumes interleave on
the one event loop: each waits behind all the others' store reads and frames, none finishes
within the store's 2 s time-out, and they fail ``unavailable`` after doing most of their
work, to be tried again (bench/resume_bench.py: 2,000 seats back in p50 5.6 s after three
tries each, the survivor's CPU one third busy). Let in a few at a time, each is done in a few
milliseconds and the others wait their turn on their open sockets, having cost nothing yet.

A resume waits at most ``patience`` seconds. One that waited longer is not run at all: its
client is told to come back later (:class:`ResumeRefusedError`), well before its own time-out
gives the try up (lexio_client's 10 s). Run after that, a resume would seat a socket its
client had already abandoned, and take the seat from the client's newer try on another
replica, which would then come back again: the replica-kill run at 2,000 tables kept losing
40 to 60 seats a second that way for minutes after the kill.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator

from lexio_gateway.metrics import RESUME_WAIT_SECONDS, RESUMES_REFUSED, RESUMES_WAITING


class ResumeRefusedError(Exception):
    """The resume waited past the replica's patience: nothing was done; come back after
    ``retry_after`` seconds (drawn between one and two patiences, so that the seats refused
    together do not come back together)."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"resume refused, retry after {retry_after:.1f} s")
        self.retry_after = retry_after


class ResumeAdmission:
    """At most ``in_flight`` resumes run at once; the rest wait in order of arrival, each at
    most ``patience`` seconds.

    >>> admission = ResumeAdmission(in_flight=2, patience=5.0)
    >>> async def resume() -> None:
    ...     async with admission.slot():
    ...         pass  # read the token, attach the seat, catch it up
    """

    def __init__(self, in_flight: int, patience: float, rng: random.Random | None = None) -> None:
        if in_flight < 1:
            raise ValueError(f"in_flight must be at least 1, got {in_flight}")
        if patience <= 0:
            raise ValueError(f"patience must be positive, got {patience}")
        self._slots = asyncio.Semaphore(in_flight)
        self._patience = patience
        self._rng = rng or random.Random()

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Wait for a turn (ResumeRefusedError past the patience), then hold it."""
        arrived = time.perf_counter()
        RESUMES_WAITING.inc()
        try:
            async with asyncio.timeout(self._patience):
                await self._slots.acquire()
        except TimeoutError:
            RESUMES_REFUSED.inc()
            retry_after = self._patience * self._rng.uniform(1.0, 2.0)
            raise ResumeRefusedError(retry_after) from None
        finally:
            RESUMES_WAITING.dec()
        try:
            RESUME_WAIT_SECONDS.observe(time.perf_counter() - arrived)
            yield
        finally:
            self._slots.release()
