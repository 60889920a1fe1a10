"""Long-lived background tasks that can never end silently.

A service's background loops (the gateway's bus and keep-alive, the lobby's sweeper and store
watch, the engine's lexicon-health mirror) must run until shutdown. A loop that raised once
and was never started again is the worst kind of failure: nothing crashes, nothing is logged,
and the service quietly stops doing its part (issue 13: a bus task ended on an exception its
loop did not expect, and replicas stopped hearing each other). :func:`supervise` runs such a
loop for ever: any return or exception other than cancellation is logged, counted, and the
loop is started again after a backoff.

>>> import asyncio
>>> runs = []
>>> async def flaky() -> None:
...     runs.append(len(runs))
...     if len(runs) < 3:
...         raise RuntimeError("not yet")
...     await asyncio.sleep(3600)
>>> async def main() -> int:
...     task = asyncio.create_task(supervise("flaky", flaky, retry_min=0.001))
...     while len(runs) < 3:
...         await asyncio.sleep(0.001)
...     task.cancel()
...     return len(runs)
>>> asyncio.run(main())
3
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Final

from prometheus_client import Counter

log = logging.getLogger(__name__)

TASK_RESTARTS: Final = Counter(
    "lexio_background_task_restarts_total",
    "Background tasks started again after they failed or returned, by task.",
    ["task"],
)
#: A run that lasted this long was healthy: the next failure starts the backoff from the bottom.
HEALTHY_RUN_SECONDS: Final = 30.0


def being_cancelled() -> bool:
    """Whether the current task has been asked to stop. Some libraries (redis-py 8.1) report a
    call cancelled under them as an ordinary error: a loop that logs and retries on errors must
    check this first, or it swallows its own cancellation and never stops."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def supervise(
    name: str,
    run: Callable[[], Awaitable[None]],
    *,
    retry_min: float = 0.1,
    retry_max: float = 5.0,
    stopping: asyncio.Event | None = None,
) -> None:
    """Run ``run()`` until cancelled (or until it returns with ``stopping`` set: the service
    is shutting down), starting it again whenever it returns or raises.

    ``name`` is a fixed, short task name (a metric label: keep the set bounded).
    """
    TASK_RESTARTS.labels(task=name)
    delay = retry_min
    while True:
        started = time.monotonic()
        try:
            await run()
        except asyncio.CancelledError:
            raise
        except Exception:
            if being_cancelled():
                raise asyncio.CancelledError from None
            log.exception("background task failed", extra={"task": name, "retry_s": delay})
        else:
            if stopping is not None and stopping.is_set():
                # Python 3.11's wait_for can swallow a cancellation that races a result, so
                # a loop told to stop may return instead of raising: it is done either way.
                return
            log.error("background task ended", extra={"task": name, "retry_s": delay})
        TASK_RESTARTS.labels(task=name).inc()
        if time.monotonic() - started >= HEALTHY_RUN_SECONDS:
            delay = retry_min
        await asyncio.sleep(delay)
        delay = min(retry_max, delay * 2)


RECANCEL_SECONDS: Final = 0.5
"""How often :func:`stop_tasks` cancels again a task that has not ended."""


async def stop_tasks(tasks: Iterable[asyncio.Task[Any]], *, give_up_after: float = 10.0) -> None:
    """Cancel ``tasks`` and wait until they have ended, cancelling again every
    :data:`RECANCEL_SECONDS` those that have not: Python 3.11's ``asyncio.wait_for`` (under
    redis-py's reads, among others) returns a result that races a cancellation and drops the
    cancellation, and a loop that never checks for it runs on. A plain cancel-and-gather
    then waits for ever: the gateway's bus did, after a rolling update's drain, and the
    process was killed at the end of its termination grace (5 stops of 7 in load runs at
    1,200 and 2,000 tables). Past ``give_up_after`` seconds the tasks still running are
    logged, and left.

    >>> async def deaf() -> None:  # swallows the first cancellation, as wait_for may
    ...     try:
    ...         await asyncio.sleep(3600)
    ...     except asyncio.CancelledError:
    ...         pass
    ...     await asyncio.sleep(3600)
    >>> async def main() -> bool:
    ...     task = asyncio.create_task(deaf())
    ...     await asyncio.sleep(0)
    ...     await stop_tasks([task])
    ...     return task.cancelled()
    >>> asyncio.run(main())
    True
    """
    pending = {task for task in tasks if not task.done()}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + give_up_after
    rounds = 0
    while pending:
        if rounds == 1:
            log.info(
                "background tasks cancelled again",
                extra={"tasks": sorted(task.get_name() for task in pending)},
            )
        rounds += 1
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=RECANCEL_SECONDS)
        if pending and loop.time() >= deadline:
            log.error(
                "background tasks did not stop",
                extra={"tasks": sorted(task.get_name() for task in pending)},
            )
            return
