"""The gateway process: configuration from the environment, SIGTERM handled by aiohttp."""

from __future__ import annotations

import gc
import logging
import sys

from aiohttp import web

from lexio_common import eventloop
from lexio_common.buildinfo import record_build_info
from lexio_common.config import ConfigError, env_str
from lexio_common.logging import setup_logging
from lexio_gateway.app import create_app
from lexio_gateway.config import GatewayConfig

log = logging.getLogger("lexio_gateway")


def main() -> None:
    setup_logging("gateway", env_str("LEXIO_LOG_LEVEL", "INFO"))
    try:
        config = GatewayConfig.from_env()
        eventloop.loop_name()  # a bad LEXIO_EVENT_LOOP is a configuration error
    except ConfigError as e:
        log.error("bad configuration", extra={"error": str(e)})
        sys.exit(2)
    record_build_info("gateway")
    # Full collections of a heap this size stopped the event loop for 0.1–1 s under load
    # (p99 of a turn 673–878 ms at 1,500 tables); with the start-up objects frozen and the
    # oldest generation collected rarely, p99 was 53 ms (docs/benchmarks.md, load section).
    gc.freeze()
    gc.set_threshold(700, 10, 1_000_000)
    log.info("gateway listening", extra={"host": config.host, "port": config.port})
    # run_app turns SIGTERM/SIGINT into a graceful shutdown: on_shutdown tells every client
    # to reconnect, then the clean-up context closes the store and the channels.
    web.run_app(
        create_app(config),
        host=config.host,
        port=config.port,
        shutdown_timeout=config.shutdown_grace,
        print=None,
        access_log=None,
        loop=eventloop.new_event_loop(),
    )


if __name__ == "__main__":
    main()
