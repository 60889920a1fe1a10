"""The gateway process: configuration from the environment, the shared start-up and shutdown
(:func:`lexio_common.service.run_service`), the web application on its port and ``/metrics``
on a port of its own."""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import web

from lexio_common.service import run_service
from lexio_gateway.app import create_app
from lexio_gateway.config import GatewayConfig
from lexio_gateway.http_layer import GatewayRunner

log = logging.getLogger("lexio_gateway")


@dataclass
class RunningGateway:
    runner: web.AppRunner
    port: int

    async def stop(self, grace: float) -> None:
        """Close the listening socket, drain (the application's on_shutdown: turns in flight
        finish, every client is told to reconnect; bounded by ``grace``), close the store."""
        await self.runner.cleanup()


async def start_gateway(
    config: GatewayConfig, *, seeds: Callable[[str], int] | None = None
) -> RunningGateway:
    """Open the store and the channels, resume the games in play, listen.

    ``seeds`` is for the load bench only (bench/load_gateway.py), which replays games found
    ahead of time: ``main`` never passes it, and no setting of the environment reaches it."""
    # Full collections of a heap this size stopped the event loop for 0.1–1 s under load
    # (p99 of a turn 673–878 ms at 1,500 tables); with the start-up objects frozen and the
    # oldest generation collected rarely, p99 was 53 ms (docs/benchmarks.md, load section).
    gc.freeze()
    gc.set_threshold(700, 10, 1_000_000)
    runner = GatewayRunner(
        create_app(config, seeds=seeds),
        handle_signals=False,
        access_log=None,
        shutdown_timeout=config.shutdown_grace,
    )
    await runner.setup()
    try:
        site = web.TCPSite(runner, config.host, config.port, backlog=config.backlog)
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    port = int(runner.addresses[0][1])
    log.info("gateway listening", extra={"host": config.host, "port": port})
    return RunningGateway(runner, port)


def main() -> None:
    """Entry point of ``lexio-gateway``."""
    run_service(
        "gateway",
        load_config=GatewayConfig.from_env,
        start=start_gateway,
        grace=lambda config: config.shutdown_grace,
        metrics=lambda config: (config.host, config.metrics_port),
    )


if __name__ == "__main__":
    main()
