"""``make run``: every Lexio service on this machine, as real processes, until Ctrl-C.

Services are started in dependency order, each waited for on grpc.health.v1 before the next;
SIGINT/SIGTERM stops them all (SIGTERM, then SIGKILL after a grace period).
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lexio_common.logging import setup_logging

log = logging.getLogger("lexio.devrun")


@dataclass(frozen=True)
class Service:
    name: str
    command: str
    address: str
    health_service: str
    """grpc.health.v1 service name; empty for an HTTP service (checked on /readyz)."""
    env: dict[str, str] = field(default_factory=dict)


SERVICES = (
    Service(
        "lexicon",
        "lexio-lexicon",
        "127.0.0.1:50052",
        "lexio.lexicon.v1.Lexicon",
        {"LEXIO_LEXICON_PORT": "50052", "LEXIO_LEXICON_METRICS_PORT": "9102"},
    ),
    Service(
        "engine",
        "lexio-engine",
        "127.0.0.1:50051",
        "lexio.engine.v1.Engine",
        {
            "LEXIO_ENGINE_PORT": "50051",
            "LEXIO_ENGINE_METRICS_PORT": "9101",
            "LEXIO_LEXICON_ADDRESS": "127.0.0.1:50052",
        },
    ),
    Service(
        "lobby",
        "lexio-lobby",
        "127.0.0.1:50053",
        "lexio.lobby.v1.Lobby",
        {"LEXIO_LOBBY_PORT": "50053", "LEXIO_LOBBY_METRICS_PORT": "9103"},
    ),
    Service(
        "gateway",
        "lexio-gateway",
        "127.0.0.1:8080",
        "",
        {
            "LEXIO_GATEWAY_PORT": "8080",
            "LEXIO_ENGINE_ADDRESS": "127.0.0.1:50051",
            "LEXIO_LOBBY_ADDRESS": "127.0.0.1:50053",
        },
    ),
)


def _http_ready(service: Service, process: subprocess.Popen[bytes], deadline: float) -> bool:
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(f"http://{service.address}/readyz", timeout=1) as reply:
                if reply.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def _wait_serving(service: Service, process: subprocess.Popen[bytes], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    if not service.health_service:
        return _http_ready(service, process, deadline)
    with grpc.insecure_channel(service.address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline and process.poll() is None:
            try:
                reply = stub.Check(
                    health_pb2.HealthCheckRequest(service=service.health_service), timeout=1
                )
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return True
            except grpc.RpcError:
                pass
            time.sleep(0.1)
    return False


def _stop(processes: list[tuple[Service, subprocess.Popen[bytes]]], grace: float = 10.0) -> None:
    for _, process in reversed(processes):
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for service, process in reversed(processes):
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            log.warning("killing", extra={"target": service.name})
            process.kill()


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
    try:
        for service in SERVICES:
            executable = shutil.which(service.command, path=bindir) or service.command
            process = subprocess.Popen([executable], env={**os.environ, **service.env})
            processes.append((service, process))
            if not _wait_serving(service, process, timeout=30):
                log.error("service did not become ready", extra={"target": service.name})
                return 1
            log.info("ready", extra={"target": service.name, "address": service.address})
        print(
            "\nLexio is running. Open http://127.0.0.1:8080/ in two browsers to play.\n"
            + "".join(
                f"  {s.name:8} {'grpc' if s.health_service else 'http'}://{s.address}\n"
                for s in SERVICES
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
