"""The life cycle every gRPC service of Lexio shares.

Health (grpc.health.v1) starts NOT_SERVING and a service flips it once it is ready;
SIGTERM/SIGINT mark it NOT_SERVING, stop accepting calls, let in-flight calls finish
within a grace period, then return.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from prometheus_client import start_http_server

log = logging.getLogger(__name__)

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@dataclass
class RunningServer:
    server: grpc.aio.Server
    port: int
    health: health_aio.HealthServicer
    service_names: tuple[str, ...]

    async def set_serving(self, serving: bool) -> None:
        """Set the overall status ("") and every named service's status."""
        status = SERVING if serving else NOT_SERVING
        for name in ("", *self.service_names):
            await self.health.set(name, status)

    async def stop(self, grace: float) -> None:
        await self.set_serving(False)
        await self.server.stop(grace)


async def start_grpc_server(
    *,
    host: str,
    port: int,
    register: Callable[[grpc.aio.Server], None],
    service_names: Sequence[str],
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
) -> RunningServer:
    """Bind, register the services and the health servicer, start. Port 0 picks a free port."""
    server = grpc.aio.server(interceptors=list(interceptors))
    register(server)
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"cannot bind {host}:{port}")
    await server.start()
    running = RunningServer(server, bound, health, tuple(service_names))
    await running.set_serving(False)
    return running


def start_metrics_server(host: str, port: int) -> None:
    """Serve /metrics on its own port (skipped when the port is negative)."""
    if port >= 0:
        start_http_server(port, addr=host)
        log.info("metrics listening", extra={"host": host, "port": port})


async def wait_for_shutdown_signal() -> signal.Signals:
    """Return when SIGTERM or SIGINT arrives."""
    loop = asyncio.get_running_loop()
    received: asyncio.Future[signal.Signals] = loop.create_future()

    def on_signal(sig: signal.Signals) -> None:
        if not received.done():
            received.set_result(sig)

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal, sig)
    try:
        return await received
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
