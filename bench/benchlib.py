"""What the benchmarks share: percentiles, and real service processes on loopback."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from lexio_common.procs import free_port, stop_process, wait_grpc_serving

__all__ = [
    "ServiceProcess",
    "engine_process",
    "free_port",
    "lexicon_process",
    "machine",
    "percentiles_us",
    "wait_serving",
]


def percentiles_us(samples_ns: Sequence[int], points: Sequence[float] = (50, 99)) -> list[float]:
    """The given percentiles of nanosecond samples, in microseconds (nearest rank)."""
    ordered = sorted(samples_ns)
    return [ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))] / 1000 for p in points]


def machine() -> str:
    return (
        f"{platform.machine()}, {os.cpu_count()} CPU(s), Python {sys.version.split()[0]}, "
        f"{platform.platform()}"
    )


def wait_serving(
    address: str,
    service: str,
    process: subprocess.Popen[bytes],
    *,
    what: str,
    timeout: float = 60,
) -> None:
    """Until the gRPC health of ``service`` at ``address`` says SERVING; RuntimeError (naming
    ``what``) if ``process`` exits first or ``timeout`` passes."""
    wait_grpc_serving(address, service, process, what=what, timeout=timeout)


class ServiceProcess:
    """A real Lexio service (its console script) on 127.0.0.1, ready once its health serves."""

    def __init__(self, script: str, health_service: str, env: dict[str, str]) -> None:
        self.port = free_port()
        clean = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
        port_var = env.pop("PORT_VAR")
        clean.update(env, **{port_var: str(self.port)}, LEXIO_LOG_LEVEL="WARNING")
        started = time.perf_counter()
        self.process = subprocess.Popen(
            [str(Path(sys.executable).with_name(script))], env=clean, stderr=subprocess.DEVNULL
        )
        self._wait_serving(health_service)
        #: From process start to health SERVING (interpreter start-up included).
        self.ready_seconds = time.perf_counter() - started

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _wait_serving(self, service: str) -> None:
        wait_serving(self.address, service, self.process, what=service)

    def stop(self) -> None:
        stop_process(self.process)


def lexicon_process() -> ServiceProcess:
    return ServiceProcess(
        "lexio-lexicon",
        "lexio.lexicon.v1.Lexicon",
        {"PORT_VAR": "LEXIO_LEXICON_PORT", "LEXIO_LEXICON_METRICS_PORT": "-1"},
    )


def engine_process(lexicon_address: str) -> ServiceProcess:
    """The engine (every game, through lexio.game.v1.Engine), ready once Lexio's health name
    serves: once it sees its lexicon."""
    return ServiceProcess(
        "lexio-engine",
        "lexio.engine.v1.Engine",
        {
            "PORT_VAR": "LEXIO_ENGINE_PORT",
            "LEXIO_ENGINE_METRICS_PORT": "-1",
            "LEXIO_LEXICON_ADDRESS": lexicon_address,
        },
    )
