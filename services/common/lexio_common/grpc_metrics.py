"""Prometheus metrics for grpc.aio servers, under the names every gRPC dashboard knows.

No maintained interceptor covers ``grpc.aio`` servers (py-grpc-prometheus wraps the
synchronous server only), so this module is a small one, with go-grpc-prometheus's names:

``grpc_server_started_total``      counter, {grpc_type, grpc_service, grpc_method}
``grpc_server_handled_total``      counter, {grpc_type, grpc_service, grpc_method, grpc_code}
``grpc_server_handling_seconds``   histogram, {grpc_type, grpc_service, grpc_method, grpc_code}

(the histogram also carries grpc_code, so the latency of failures is told apart). This
histogram is the one latency series of every server hop: a service's own metrics count what
gRPC codes cannot say (the engine's action and outcome, the lobby's refusal reason) and time
nothing. Codes are spelt as Go's ``codes.Code.String()`` (``OK``, ``InvalidArgument``,
``Unavailable``…), as every existing gRPC dashboard and alert expects. Labels stay bounded:
only methods the server registered are counted (an unknown method never reaches a handler),
and codes are the 17 gRPC status codes. Every method a service registers by name (what
generated code does) has its ``OK`` series from the start, at 0, so rates and recording rules
have something to read before the first call.

``lexio_grpc_serving{grpc_service}`` mirrors grpc.health.v1: 1 while the service reports
SERVING, so an alert can say "the lexicon is not ready" without speaking gRPC.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Final

import grpc
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram

__all__ = [
    "CODE_NAMES",
    "HANDLING_BUCKETS",
    "GrpcServerMetrics",
    "ServerMetricsInterceptor",
    "default_metrics",
    "grpc_type_of",
    "split_method",
]

#: Seconds, around the targets: a unary hop on loopback is ~0.5 ms, a turn's budget 50 ms,
#: the callers' deadlines 2–5 s.
HANDLING_BUCKETS: Final = (
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0,
    5.0,
)  # fmt: skip

#: grpc_code label values: Go's spelling of each status code (note "Canceled").
CODE_NAMES: Final = {
    grpc.StatusCode.OK: "OK",
    grpc.StatusCode.CANCELLED: "Canceled",
    grpc.StatusCode.UNKNOWN: "Unknown",
    grpc.StatusCode.INVALID_ARGUMENT: "InvalidArgument",
    grpc.StatusCode.DEADLINE_EXCEEDED: "DeadlineExceeded",
    grpc.StatusCode.NOT_FOUND: "NotFound",
    grpc.StatusCode.ALREADY_EXISTS: "AlreadyExists",
    grpc.StatusCode.PERMISSION_DENIED: "PermissionDenied",
    grpc.StatusCode.RESOURCE_EXHAUSTED: "ResourceExhausted",
    grpc.StatusCode.FAILED_PRECONDITION: "FailedPrecondition",
    grpc.StatusCode.ABORTED: "Aborted",
    grpc.StatusCode.OUT_OF_RANGE: "OutOfRange",
    grpc.StatusCode.UNIMPLEMENTED: "Unimplemented",
    grpc.StatusCode.INTERNAL: "Internal",
    grpc.StatusCode.UNAVAILABLE: "Unavailable",
    grpc.StatusCode.DATA_LOSS: "DataLoss",
    grpc.StatusCode.UNAUTHENTICATED: "Unauthenticated",
}

UNARY: Final = "unary"
CLIENT_STREAM: Final = "client_stream"
SERVER_STREAM: Final = "server_stream"
BIDI_STREAM: Final = "bidi_stream"


def grpc_type_of(handler: grpc.RpcMethodHandler) -> str:
    """The grpc_type label of a method, from its handler's kind of streaming."""
    if handler.request_streaming:
        return BIDI_STREAM if handler.response_streaming else CLIENT_STREAM
    return SERVER_STREAM if handler.response_streaming else UNARY


class GrpcServerMetrics:
    """The server-side gRPC metrics, on a registry of the caller's choice."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        method_labels = ("grpc_type", "grpc_service", "grpc_method")
        self.started = Counter(
            "grpc_server_started_total",
            "RPCs started on the server.",
            method_labels,
            registry=registry,
        )
        self.handled = Counter(
            "grpc_server_handled_total",
            "RPCs completed on the server, whatever their status code.",
            (*method_labels, "grpc_code"),
            registry=registry,
        )
        self.handling_seconds = Histogram(
            "grpc_server_handling_seconds",
            "Time from the start of an RPC to its status, as the server's handler sees it.",
            (*method_labels, "grpc_code"),
            buckets=HANDLING_BUCKETS,
            registry=registry,
        )
        self.serving = Gauge(
            "lexio_grpc_serving",
            "1 while the service reports SERVING on grpc.health.v1, else 0.",
            ("grpc_service",),
            registry=registry,
        )

    def initialise(self, service: str, handlers: Mapping[str, grpc.RpcMethodHandler]) -> None:
        """Create the series of each of ``service``'s methods that ended OK, at 0."""
        for method, handler in handlers.items():
            labels = (grpc_type_of(handler), service, method)
            self.started.labels(*labels)
            self.handled.labels(*labels, "OK")
            self.handling_seconds.labels(*labels, "OK")

    def observe(
        self, grpc_type: str, service: str, method: str, code: grpc.StatusCode, seconds: float
    ) -> None:
        labels = (grpc_type, service, method, CODE_NAMES.get(code, "Unknown"))
        self.handled.labels(*labels).inc()
        self.handling_seconds.labels(*labels).observe(seconds)


_DEFAULT: GrpcServerMetrics | None = None


def default_metrics() -> GrpcServerMetrics:
    """The metrics on the default registry (what ``/metrics`` serves), created once."""
    global _DEFAULT  # noqa: PLW0603 - one set of collectors per process registry
    if _DEFAULT is None:
        _DEFAULT = GrpcServerMetrics()
    return _DEFAULT


def split_method(full_method: str) -> tuple[str, str]:
    """``/lexio.game.v1.Engine/Act`` → (``lexio.game.v1.Engine``, ``Act``)."""
    service, _, method = full_method.lstrip("/").rpartition("/")
    return (service or "unknown", method or "unknown")


def _final_code(context: grpc.aio.ServicerContext, error: BaseException | None) -> grpc.StatusCode:
    """The status the client receives: the one set on the context (abort or set_code),
    else OK on return, CANCELLED on cancellation, UNKNOWN on any other exception. A streaming
    handler's generator closed before it finished (GeneratorExit) is a cancellation too: the
    cancel found the handler inside gRPC's write of a message, outside the generator, and gRPC
    then closes the generator instead of cancelling it."""
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return code
    if isinstance(code, int):  # some grpc versions hand back the raw integer
        return next((c for c in grpc.StatusCode if c.value[0] == code), grpc.StatusCode.UNKNOWN)
    if error is None:
        return grpc.StatusCode.OK
    if isinstance(error, asyncio.CancelledError | GeneratorExit):
        return grpc.StatusCode.CANCELLED
    return grpc.StatusCode.UNKNOWN


class ServerMetricsInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Counts and times every RPC the server handles (unary and streaming, both styles of
    streaming handler: async generators and ``context.write``)."""

    def __init__(self, metrics: GrpcServerMetrics | None = None) -> None:
        self._metrics = metrics or default_metrics()

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None:  # unknown method: gRPC answers UNIMPLEMENTED, nothing to label
            return handler
        service, method = split_method(handler_call_details.method)
        if handler.unary_unary:
            return grpc.unary_unary_rpc_method_handler(
                self._unary(handler.unary_unary, UNARY, service, method),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.stream_unary:
            return grpc.stream_unary_rpc_method_handler(
                self._unary(handler.stream_unary, CLIENT_STREAM, service, method),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream:
            return grpc.unary_stream_rpc_method_handler(
                self._stream(handler.unary_stream, SERVER_STREAM, service, method),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.stream_stream:
            return grpc.stream_stream_rpc_method_handler(
                self._stream(handler.stream_stream, BIDI_STREAM, service, method),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler  # pragma: no cover - a handler always has one of the four

    def _unary(
        self, behaviour: Callable[..., Any], grpc_type: str, service: str, method: str
    ) -> Callable[..., Awaitable[Any]]:
        metrics = self._metrics

        @functools.wraps(behaviour)
        async def wrapped(request: Any, context: grpc.aio.ServicerContext) -> Any:
            metrics.started.labels(grpc_type, service, method).inc()
            started = time.perf_counter()
            error: BaseException | None = None
            try:
                result = behaviour(request, context)
                if inspect.isawaitable(result):
                    result = await result
                return result
            except BaseException as e:
                error = e
                raise
            finally:
                code = _final_code(context, error)
                metrics.observe(grpc_type, service, method, code, time.perf_counter() - started)

        return wrapped

    def _stream(
        self, behaviour: Callable[..., Any], grpc_type: str, service: str, method: str
    ) -> Callable[..., Any]:
        metrics = self._metrics

        if inspect.isasyncgenfunction(behaviour):

            @functools.wraps(behaviour)
            async def generator(
                request: Any, context: grpc.aio.ServicerContext
            ) -> AsyncIterator[Any]:
                metrics.started.labels(grpc_type, service, method).inc()
                started = time.perf_counter()
                error: BaseException | None = None
                try:
                    async for response in behaviour(request, context):
                        yield response
                except BaseException as e:
                    error = e
                    raise
                finally:
                    code = _final_code(context, error)
                    metrics.observe(grpc_type, service, method, code, time.perf_counter() - started)

            return generator

        # A coroutine that streams with ``await context.write(...)`` (grpc_health's Watch).
        return self._unary(behaviour, grpc_type, service, method)
