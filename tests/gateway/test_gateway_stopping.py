"""A gateway's stop ends its background loops even when a cancellation is lost under them."""

from __future__ import annotations

import asyncio
import contextlib

from lexio_gateway.hub import background_pass
from lexio_gateway.store import StoreUnavailableError


async def _loop_whose_pass_swallows_cancellation(passes: list[int]) -> None:
    while True:
        with background_pass():
            passes.append(1)
            # What a library under the pass may do: report the cancelled call as done.
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(3600)
        await asyncio.sleep(0)


def test_a_loop_ends_when_its_pass_swallowed_the_cancellation() -> None:
    async def scenario() -> list[int]:
        passes: list[int] = []
        task = asyncio.create_task(_loop_whose_pass_swallows_cancellation(passes))
        await asyncio.sleep(0.01)
        task.cancel()
        async with asyncio.timeout(2):  # before: the loop went on for ever
            with contextlib.suppress(asyncio.CancelledError):
                await task
        assert task.cancelled()
        return passes

    assert asyncio.run(scenario()) == [1]


def test_a_pass_skips_a_store_outage_and_the_loop_goes_on() -> None:
    async def scenario() -> int:
        passes = 0
        for _ in range(3):
            with background_pass():
                passes += 1
                raise StoreUnavailableError("redis: connection refused")
        return passes

    assert asyncio.run(scenario()) == 3
