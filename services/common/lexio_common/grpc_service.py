"""The life cycle every gRPC service of Lexio shares.

Health (grpc.health.v1) starts NOT_SERVING and a service flips it once it is ready;
SIGTERM/SIGINT mark it NOT_SERVING, stop accepting calls, let in-flight calls finish
within a grace period, then return. The health name ``liveness`` answers SERVING for as
long as the server runs (what a liveness probe asks: readiness may depend on other
services, liveness must not). The health name ``readiness`` is what a readiness probe asks:
whether this process can serve its part. For most services that is the services' own status;
a server started with ``own_readiness`` (the engine) reports it apart, so that its named
services may mirror a dependency (the engine's mirror the lexicon for R18) while the process
stays in its Service. Every server counts and times its calls
(:mod:`lexio_common.grpc_metrics`) and mirrors its readiness in ``lexio_grpc_serving``.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from prometheus_client import start_http_server

from lexio_common.grpc_metrics import GrpcServerMetrics, ServerMetricsInterceptor, default_metrics
from lexio_common.streamed_calls import StreamDrain

log = logging.getLogger(__name__)

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
#: The health name liveness probes ask for: SERVING from start to stop, whatever readiness says.
LIVENESS_SERVICE = "liveness"
#: The health name readiness probes ask for: this process can serve its part.
READINESS_SERVICE = "readiness"


#: How long :meth:`RunningServer.stop` waits, once the server has stopped, for the handlers
#: it cancels to end.
HANDLER_END_SECONDS = 1.0


class _HandlerTasks(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """The tasks running this server's call handlers, so that :meth:`RunningServer.stop`
    can end those the server leaves behind.

    grpc.aio runs each call's handler, its interceptors first, in a task of its own, so the
    task an interceptor runs in is the call's. The server's stop returns when the gRPC core
    has no live call, and a handler's task can outlive that: the cancellation of a call the
    client cancelled just before (a health Watch as SIGTERM flips it) is still on its way, or
    a call the core cancelled at the end of the grace never hears of it. The event loop's
    teardown would then cancel the task that awaits the handler, and grpc logs that as an
    error with a traceback, for what was a clean stop (seen in CI; 8 runs in 30 of the
    SIGTERM test with fifty Watches).
    """

    def __init__(self) -> None:
        self._running: set[asyncio.Task[Any]] = set()

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        task = asyncio.current_task()
        if task is not None:
            self._running.add(task)
            task.add_done_callback(self._running.discard)
        return await continuation(handler_call_details)

    async def end(self, timeout: float) -> None:
        """Cancel the handlers still running, and wait for them (``timeout`` at most).

        Only once the server has stopped: its calls are over, nothing a handler does can
        reach a client, and grpc takes the cancellation as a cancelled call (a debug line).
        """
        running = [task for task in self._running if not task.done()]
        for task in running:
            task.cancel()
        if running:
            _, still = await asyncio.wait(running, timeout=timeout)
            if still:
                log.warning(
                    "handlers still running after the server stopped", extra={"calls": len(still)}
                )
        # What awaited each handler resumes in the same turn of the loop as this wait did.
        await asyncio.sleep(0)


@dataclass
class RunningServer:
    server: grpc.aio.Server
    port: int
    health: health_aio.HealthServicer
    service_names: tuple[str, ...]
    metrics: GrpcServerMetrics | None = None
    own_readiness: bool = False
    drain: StreamDrain = field(default_factory=StreamDrain)
    """Begun at :meth:`stop`: the services' long-lived streams end, answered, within the
    grace (lexio_common.streamed_calls)."""
    handlers: _HandlerTasks = field(default_factory=_HandlerTasks)
    """Ended at :meth:`stop`, once the server has stopped: the handlers it left running."""

    async def set_serving(self, serving: bool, names: Sequence[str] | None = None) -> None:
        """Set the status of ``names`` (default: every named service) and, unless the server
        reports its readiness apart, of the overall status "" and ``readiness``."""
        status = SERVING if serving else NOT_SERVING
        chosen = self.service_names if names is None else tuple(names)
        overall = () if self.own_readiness else ("", READINESS_SERVICE)
        for name in (*overall, *chosen):
            await self.health.set(name, status)
        if self.metrics is not None:
            for name in chosen:
                self.metrics.serving.labels(name).set(int(serving))

    async def set_ready(self, ready: bool) -> None:
        """The process's own readiness ("" and ``readiness``), for an ``own_readiness`` server."""
        status = SERVING if ready else NOT_SERVING
        for name in ("", READINESS_SERVICE):
            await self.health.set(name, status)

    async def stop(self, grace: float) -> None:
        await self.set_serving(False)
        await self.set_ready(False)
        self.drain.begin()
        await self.server.stop(grace)
        await self.handlers.end(HANDLER_END_SECONDS)


class _InitialisingServer:
    """The server as ``register`` sees it: each service registered by name (what generated
    ``add_*_to_server`` code does) gets its metrics series before any call, since the
    interceptor only learns a method when it is first called."""

    def __init__(self, server: grpc.aio.Server, metrics: GrpcServerMetrics) -> None:
        self._server = server
        self._metrics = metrics

    def add_registered_method_handlers(
        self, service_name: str, method_handlers: Mapping[str, grpc.RpcMethodHandler]
    ) -> None:
        self._metrics.initialise(service_name, method_handlers)
        self._server.add_registered_method_handlers(service_name, method_handlers)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._server, name)


async def start_grpc_server(
    *,
    host: str,
    port: int,
    register: Callable[[grpc.aio.Server], None],
    service_names: Sequence[str],
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
    metrics: GrpcServerMetrics | None = None,
    own_readiness: bool = False,
    drain: StreamDrain | None = None,
) -> RunningServer:
    """Bind, register the services and the health servicer, start. Port 0 picks a free port.

    The metrics interceptor comes first (after the one that only notes each call's task), so
    it times the other interceptors too.
    """
    metrics = metrics or default_metrics()
    handlers = _HandlerTasks()
    server = grpc.aio.server(
        interceptors=[handlers, ServerMetricsInterceptor(metrics), *interceptors]
    )
    registering = cast(grpc.aio.Server, _InitialisingServer(server, metrics))
    register(registering)
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, registering)
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"cannot bind {host}:{port}")
    await server.start()
    running = RunningServer(
        server,
        bound,
        health,
        tuple(service_names),
        metrics,
        own_readiness,
        drain or StreamDrain(),
        handlers,
    )
    await health.set(LIVENESS_SERVICE, SERVING)
    await running.set_serving(False)
    await running.set_ready(False)
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
