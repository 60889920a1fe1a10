"""What the benchmarks share: percentiles, and real service processes on loopback."""

from __future__ import annotations

import os
import platform
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def percentiles_us(samples_ns: Sequence[int], points: Sequence[float] = (50, 99)) -> list[float]:
    """The given percentiles of nanosecond samples, in microseconds (nearest rank)."""
    ordered = sorted(samples_ns)
    return [ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))] / 1000 for p in points]


def machine() -> str:
    return (
        f"{platform.machine()}, {os.cpu_count()} CPU(s), Python {sys.version.split()[0]}, "
        f"{platform.platform()}"
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"{what} exited with {process.returncode}")
            try:
                request = health_pb2.HealthCheckRequest(service=service)
                if stub.Check(request, timeout=1).status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.05)
    raise RuntimeError(f"{what} not serving after {timeout} s")


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
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def lexicon_process() -> ServiceProcess:
    return ServiceProcess(
        "lexio-lexicon",
        "lexio.lexicon.v1.Lexicon",
        {"PORT_VAR": "LEXIO_LEXICON_PORT", "LEXIO_LEXICON_METRICS_PORT": "-1"},
    )


def engine_process(lexicon_address: str) -> ServiceProcess:
    return ServiceProcess(
        "lexio-engine",
        "lexio.engine.v1.Engine",
        {
            "PORT_VAR": "LEXIO_ENGINE_PORT",
            "LEXIO_ENGINE_METRICS_PORT": "-1",
            "LEXIO_LEXICON_ADDRESS": lexicon_address,
        },
    )
