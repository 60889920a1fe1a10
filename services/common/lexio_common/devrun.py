"""``make run``: every Lexio service on this machine, as real processes, until Ctrl-C.

Services are started in dependency order, each waited for (grpc.health.v1, or the gateway's
``/readyz``) before the next; SIGINT/SIGTERM stops them all (SIGTERM, then SIGKILL after a
grace period).

Every port comes from the environment, under the services' own names, so that a second copy
can run beside the first: ``LEXIO_LEXICON_PORT`` (50052), ``LEXIO_LEXICON_METRICS_PORT``
(9102), ``LEXIO_ENGINE_PORT`` (50051), ``LEXIO_ENGINE_METRICS_PORT`` (9101),
``LEXIO_LOBBY_PORT`` (50053), ``LEXIO_LOBBY_METRICS_PORT`` (9103), ``LEXIO_GATEWAY_PORT``
(8080) and ``LEXIO_GATEWAY_METRICS_PORT`` (9104); ``0`` picks a free port. The addresses the
services give each other follow (the engine's lexicon, the lobby's games' health checks, the
gateway's engine and lobby). Every other ``LEXIO_`` variable reaches every service as set.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from lexio_common.grpc_service import READINESS_SERVICE
from lexio_common.logging import setup_logging
from lexio_common.procs import free_port, stop_process, wait_grpc_serving, wait_http_ready

log = logging.getLogger("lexio.devrun")

#: Each service's port variables and their defaults.
PORTS: dict[str, int] = {
    "LEXIO_LEXICON_PORT": 50052,
    "LEXIO_LEXICON_METRICS_PORT": 9102,
    "LEXIO_ENGINE_PORT": 50051,
    "LEXIO_ENGINE_METRICS_PORT": 9101,
    "LEXIO_LOBBY_PORT": 50053,
    "LEXIO_LOBBY_METRICS_PORT": 9103,
    "LEXIO_GATEWAY_PORT": 8080,
    "LEXIO_GATEWAY_METRICS_PORT": 9104,
}


@dataclass(frozen=True)
class Service:
    name: str
    command: str
    address: str
    health_service: str
    """grpc.health.v1 service name; empty for an HTTP service (checked on /readyz)."""
    env: dict[str, str] = field(default_factory=dict)


def ports(environ: Mapping[str, str]) -> dict[str, int]:
    """The ports to use: the environment's (``0``: a free one), else the defaults."""
    chosen = {}
    for name, default in PORTS.items():
        raw = environ.get(name, "")
        try:
            port = int(raw) if raw else default
        except ValueError:
            raise SystemExit(f"{name} must be a port number, got {raw!r}") from None
        chosen[name] = port if port != 0 else free_port()
    return chosen


def services(environ: Mapping[str, str]) -> tuple[Service, ...]:
    p = {k: str(v) for k, v in ports(environ).items()}
    lexicon = f"127.0.0.1:{p['LEXIO_LEXICON_PORT']}"
    engine = f"127.0.0.1:{p['LEXIO_ENGINE_PORT']}"
    lobby = f"127.0.0.1:{p['LEXIO_LOBBY_PORT']}"
    return (
        Service(
            "lexicon",
            "lexio-lexicon",
            lexicon,
            "lexio.lexicon.v1.Lexicon",
            {
                "LEXIO_LEXICON_PORT": p["LEXIO_LEXICON_PORT"],
                "LEXIO_LEXICON_METRICS_PORT": p["LEXIO_LEXICON_METRICS_PORT"],
            },
        ),
        Service(
            "engine",
            "lexio-engine",
            engine,
            READINESS_SERVICE,  # every game it serves: ready once the lexicon is
            {
                "LEXIO_ENGINE_PORT": p["LEXIO_ENGINE_PORT"],
                "LEXIO_ENGINE_METRICS_PORT": p["LEXIO_ENGINE_METRICS_PORT"],
                "LEXIO_LEXICON_ADDRESS": lexicon,
            },
        ),
        Service(
            "lobby",
            "lexio-lobby",
            lobby,
            "lexio.lobby.v1.Lobby",
            {
                "LEXIO_LOBBY_PORT": p["LEXIO_LOBBY_PORT"],
                "LEXIO_LOBBY_METRICS_PORT": p["LEXIO_LOBBY_METRICS_PORT"],
                # Its games: LEXIO_LOBBY_GAMES if set, else the site's, ready through this engine.
                "LEXIO_ENGINE_ADDRESS": engine,
            },
        ),
        Service(
            "gateway",
            "lexio-gateway",
            f"127.0.0.1:{p['LEXIO_GATEWAY_PORT']}",
            "",
            {
                "LEXIO_GATEWAY_PORT": p["LEXIO_GATEWAY_PORT"],
                "LEXIO_GATEWAY_METRICS_PORT": p["LEXIO_GATEWAY_METRICS_PORT"],
                "LEXIO_ENGINE_ADDRESS": engine,
                "LEXIO_LOBBY_ADDRESS": lobby,
            },
        ),
    )


def _wait_serving(service: Service, process: subprocess.Popen[bytes], timeout: float) -> bool:
    try:
        if service.health_service:
            wait_grpc_serving(
                service.address, service.health_service, process, what=service.name, timeout=timeout
            )
        else:
            url = f"http://{service.address}/readyz"
            wait_http_ready(url, process, what=service.name, timeout=timeout)
    except RuntimeError:
        return False
    return True


def _stop(processes: list[tuple[Service, subprocess.Popen[bytes]]], grace: float = 10.0) -> None:
    for _, process in reversed(processes):
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for service, process in reversed(processes):
        if stop_process(process, grace) is None:
            log.warning("killed", extra={"target": service.name})


def main() -> int:
    setup_logging("devrun")
    bindir = os.path.dirname(sys.executable)
    processes: list[tuple[Service, subprocess.Popen[bytes]]] = []
    stopping = False

    def on_signal(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    chosen = services(os.environ)
    try:
        for service in chosen:
            executable = shutil.which(service.command, path=bindir) or service.command
            process = subprocess.Popen([executable], env={**os.environ, **service.env})
            processes.append((service, process))
            if not _wait_serving(service, process, timeout=60):
                log.error("service did not become ready", extra={"target": service.name})
                return 1
            log.info("ready", extra={"target": service.name, "address": service.address})
        gateway = chosen[-1]
        print(
            f"\nLexio is running. Open http://{gateway.address}/ in two browsers to play.\n"
            + "".join(
                f"  {s.name:8} {'grpc' if s.health_service else 'http'}://{s.address}\n"
                for s in chosen
            )
            + "Storage: var/ (SQLite). Ctrl-C stops everything.\n",
            flush=True,
        )
        while not stopping:
            for service, process in processes:
                if process.poll() is not None:
                    log.error(
                        "service exited", extra={"target": service.name, "code": process.returncode}
                    )
                    return 1
            time.sleep(0.5)
        return 0
    finally:
        _stop(processes)


if __name__ == "__main__":
    sys.exit(main())
