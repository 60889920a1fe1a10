"""One start-up and shutdown for every Lexio process: :func:`run_service`.

Every service's ``main()`` is ``run_service(name, load_config=…, start=…, grace=…)``, so the
four agree on what an operator sees:

- logging: JSON lines on stderr at ``LEXIO_LOG_LEVEL`` (INFO); an unknown level is a
  configuration error like any other;
- a configuration the service cannot use (``ConfigError``, a bad ``LEXIO_EVENT_LOOP``, a bad
  ``LEXIO_LOG_LEVEL``): one error line ``bad configuration: …`` and exit status 2
  (:data:`EXIT_BAD_CONFIG`: a restart will not fix it);
- ``lexio_build_info``, then the metrics port (``/metrics`` on a port of its own), then the
  service's ``start``; a port that cannot be opened is exit status 1
  (:data:`EXIT_CANNOT_LISTEN`: maybe transient); a :class:`StartupError` (a word list that
  does not load, a store that does not open) is its one line and its own status;
- SIGTERM or SIGINT: ``<service> stopping`` (``signal``, ``grace_s``), the service's
  ``stop(grace)``, ``<service> stopped``, exit status 0.

Log vocabulary (every service): ``<service> listening`` (``host``, ``port``) when its port is
open, ``<service> ready`` / ``<service> serving`` when it serves, ``readiness changed``
(``ready``, ``reason``) when it stops or starts being ready, ``<service> stopping`` and
``<service> stopped``; durations end in ``_s``.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Awaitable, Callable
from typing import Any, Final, NoReturn, Protocol, TypeVar

from prometheus_client import disable_created_metrics

from lexio_common import eventloop
from lexio_common.buildinfo import record_build_info
from lexio_common.config import ConfigError, env_str
from lexio_common.grpc_service import start_metrics_server, wait_for_shutdown_signal
from lexio_common.logging import setup_logging

__all__ = [
    "EXIT_BAD_CONFIG",
    "EXIT_CANNOT_LISTEN",
    "EXIT_OK",
    "Running",
    "StartupError",
    "run_service",
    "serve",
]

log = logging.getLogger("lexio_common.service")

EXIT_OK: Final = 0
#: The ports could not be opened (in use, not permitted): maybe transient, worth a restart.
EXIT_CANNOT_LISTEN: Final = 1
#: Configuration, a word list, a store: what a restart will not fix.
EXIT_BAD_CONFIG: Final = 2

C = TypeVar("C")


class Running(Protocol):
    """A started service: ``stop(grace)`` lets calls in flight finish within ``grace`` s."""

    async def stop(self, grace: float) -> None: ...


class StartupError(Exception):
    """The service cannot start: ``message`` is logged as one error line (with ``fields``)
    and the process exits with ``exit_code``."""

    def __init__(self, message: str, *, exit_code: int = EXIT_BAD_CONFIG, **fields: Any) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.fields = fields


async def serve(
    service: str,
    config: C,
    *,
    start: Callable[[C], Awaitable[Running]],
    grace: float,
    metrics: tuple[str, int] | None = None,
) -> int:
    """Start, wait for SIGTERM/SIGINT, stop; the process's exit status."""
    disable_created_metrics()  # type: ignore[no-untyped-call]  # counters and histograms without their _created series
    record_build_info(service)
    try:
        if metrics is not None:
            start_metrics_server(*metrics)
        running = await start(config)
    except StartupError as e:
        log.error(e.message, extra=e.fields)
        return e.exit_code
    except OSError as e:
        log.error("cannot listen: %s", e, extra={"error": str(e)})
        return EXIT_CANNOT_LISTEN
    received = await wait_for_shutdown_signal()
    log.info(f"{service} stopping", extra={"signal": received.name, "grace_s": grace})
    await running.stop(grace)
    log.info(f"{service} stopped")
    return EXIT_OK


def run_service(
    service: str,
    *,
    load_config: Callable[[], C],
    start: Callable[[C], Awaitable[Running]],
    grace: Callable[[C], float],
    metrics: Callable[[C], tuple[str, int]] | None = None,
) -> NoReturn:
    """A service's ``main()``: logging, configuration, the event loop, :func:`serve`, exit."""
    try:
        setup_logging(service, env_str("LEXIO_LOG_LEVEL", "INFO"))
    except ValueError:  # an unknown level name: log at INFO and say so
        setup_logging(service)
        message = "LEXIO_LOG_LEVEL is not a logging level"
        log.error(f"bad configuration: {message}", extra={"error": message})
        sys.exit(EXIT_BAD_CONFIG)
    try:
        config = load_config()
        eventloop.loop_name()  # a bad LEXIO_EVENT_LOOP is a configuration error
    except ConfigError as e:
        log.error(f"bad configuration: {e}", extra={"error": str(e)})
        sys.exit(EXIT_BAD_CONFIG)
    sys.exit(
        eventloop.run(
            serve(
                service,
                config,
                start=start,
                grace=grace(config),
                metrics=metrics(config) if metrics is not None else None,
            )
        )
    )
