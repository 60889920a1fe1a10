"""Test support shared by every suite: an event loop in a thread and a gateway starter.

Kept apart from conftest.py so that test modules import it by a stable name.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from aiohttp import web

from lexio_gateway.app import create_app
from lexio_gateway.config import GatewayConfig
from lexio_gateway.hub import TableHub
from lexio_gateway.state import HUB

T = TypeVar("T")


class LoopThread:
    """An asyncio loop running in a daemon thread, hosting the servers under test."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()


@dataclass
class GatewayHandle:
    runner: web.AppRunner
    url: str
    config: GatewayConfig

    @property
    def hub(self) -> TableHub:
        return self.runner.app[HUB]


async def start_gateway(
    config: GatewayConfig, seeds: Callable[[], int] | None = None
) -> GatewayHandle:
    runner = web.AppRunner(create_app(config, seeds=seeds), handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", config.port)
    await site.start()
    host, port = runner.addresses[0][:2]
    return GatewayHandle(runner, f"http://{host}:{port}", config)


GatewayFactory = Callable[..., GatewayHandle]
