"""The grpc.aio metrics interceptor, on a real server on 127.0.0.1 with a registry of its own:
every kind of RPC, every way a handler can end, and the health/readiness wiring of
``start_grpc_server``."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from lexio_testing import eventually
from prometheus_client import CollectorRegistry

from lexio_common.buildinfo import build_labels, record_build_info
from lexio_common.grpc_metrics import (
    CODE_NAMES,
    GrpcServerMetrics,
    ServerMetricsInterceptor,
    split_method,
)
from lexio_common.grpc_service import LIVENESS_SERVICE, start_grpc_server

SERVICE = "test.v1.Echo"


async def _unary_ok(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
    return request


async def _unary_abort(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "no")
    raise AssertionError("unreachable")


async def _unary_crash(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
    raise RuntimeError("a bug")


async def _unary_set_code(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
    context.set_code(grpc.StatusCode.NOT_FOUND)
    context.set_details("nothing here")
    return b""


async def _unary_hangs(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
    """Never answers by itself: it waits on an event that nothing sets, so only the server's
    cancellation (at the caller's deadline) ends it, and the call is counted as the server saw
    it end. A long sleep here ended it too, but only by outlasting the test's wait."""
    await asyncio.Event().wait()
    raise AssertionError("unreachable: nothing sets the event")


async def _stream_gen(request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
    for i in range(3):
        yield request + bytes([i])


async def _stream_write(request: bytes, context: grpc.aio.ServicerContext) -> None:
    for i in range(2):
        await context.write(request + bytes([i]))


async def _stream_forever(
    request: bytes, context: grpc.aio.ServicerContext
) -> AsyncIterator[bytes]:
    while True:
        yield request
        await asyncio.sleep(0.01)


async def _stream_busy(request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
    """Never waits inside the handler: a client's cancel always finds it suspended in
    gRPC's write of a message, outside the generator, which is then closed (GeneratorExit)."""
    while True:
        yield request


async def _client_stream(
    requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext
) -> bytes:
    return b"".join([r async for r in requests])


async def _bidi(
    requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext
) -> AsyncIterator[bytes]:
    async for r in requests:
        yield r


def _identity(b: bytes) -> bytes:
    return b


def _handlers() -> grpc.GenericRpcHandler:
    def uu(f: Callable[..., Any]) -> grpc.RpcMethodHandler:
        return grpc.unary_unary_rpc_method_handler(f, _identity, _identity)

    def us(f: Callable[..., Any]) -> grpc.RpcMethodHandler:
        return grpc.unary_stream_rpc_method_handler(f, _identity, _identity)

    return grpc.method_handlers_generic_handler(
        SERVICE,
        {
            "Ok": uu(_unary_ok),
            "Abort": uu(_unary_abort),
            "Crash": uu(_unary_crash),
            "SetCode": uu(_unary_set_code),
            "Slow": uu(_unary_hangs),
            "Gen": us(_stream_gen),
            "Write": us(_stream_write),
            "Forever": us(_stream_forever),
            "Busy": us(_stream_busy),
            "Collect": grpc.stream_unary_rpc_method_handler(_client_stream, _identity, _identity),
            "Bidi": grpc.stream_stream_rpc_method_handler(_bidi, _identity, _identity),
        },
    )


def _value(registry: CollectorRegistry, name: str, **labels: str) -> float:
    value = registry.get_sample_value(name, labels)
    return 0.0 if value is None else value


def _handled(registry: CollectorRegistry, grpc_type: str, method: str, code: str) -> float:
    return _value(
        registry,
        "grpc_server_handled_total",
        grpc_type=grpc_type,
        grpc_service=SERVICE,
        grpc_method=method,
        grpc_code=code,
    )


async def _until(
    seen: Callable[[], object], wanted: object, what: str, timeout: float = 5.0
) -> None:
    """Until ``seen()`` is ``wanted``; past ``timeout``, fail saying what it still was. The
    server counts a call in its handler's ``finally``, which may run just after the client
    has the last message: the counts are waited for, not read at once."""
    await eventually(
        lambda: seen() == wanted,
        lambda: f"{what}: wanted {wanted!r}, still {seen()!r}",
        timeout,
        every=0.01,
    )


async def _with_server(
    scenario: Callable[[grpc.aio.Channel, CollectorRegistry], Awaitable[None]],
) -> None:
    registry = CollectorRegistry()
    server = grpc.aio.server(interceptors=[ServerMetricsInterceptor(GrpcServerMetrics(registry))])
    server.add_generic_rpc_handlers((_handlers(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            await scenario(channel, registry)
    finally:
        await server.stop(0)


def _call(channel: grpc.aio.Channel, method: str) -> Any:
    return channel.unary_unary(f"/{SERVICE}/{method}", _identity, _identity)


def test_codes_are_spelt_as_in_go() -> None:
    assert len(CODE_NAMES) == len(grpc.StatusCode) == 17
    assert CODE_NAMES[grpc.StatusCode.INVALID_ARGUMENT] == "InvalidArgument"
    assert CODE_NAMES[grpc.StatusCode.CANCELLED] == "Canceled"


def test_split_method() -> None:
    assert split_method("/lexio.game.v1.Engine/Act") == ("lexio.game.v1.Engine", "Act")
    assert split_method("nonsense") == ("unknown", "nonsense")


def test_unary_calls_are_counted_and_timed_by_their_status_code() -> None:
    async def scenario(channel: grpc.aio.Channel, registry: CollectorRegistry) -> None:
        assert await _call(channel, "Ok")(b"x") == b"x"
        assert await _call(channel, "Ok")(b"y") == b"y"
        expected = {
            "Abort": grpc.StatusCode.INVALID_ARGUMENT,
            "Crash": grpc.StatusCode.UNKNOWN,
            "SetCode": grpc.StatusCode.NOT_FOUND,
        }
        for method, code in expected.items():
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await _call(channel, method)(b"")
            assert caught.value.code() == code
            # The caller can hear the status before the server's interceptor has counted
            # it (an abort's status leaves first): wait for the count, then check it.
            code_name = CODE_NAMES[code]
            await _until(
                functools.partial(_handled, registry, "unary", method, code_name),
                1.0,
                f"{method} handled as {code_name}",
            )
            assert _handled(registry, "unary", method, code_name) == 1
        started = {"grpc_type": "unary", "grpc_service": SERVICE, "grpc_method": "Ok"}
        timed = {**started, "grpc_code": "OK"}
        await _until(
            lambda: (
                _handled(registry, "unary", "Ok", "OK"),
                _value(registry, "grpc_server_handling_seconds_count", **timed),
            ),
            (2.0, 2.0),
            "Ok handled twice, timed twice",
        )
        assert _handled(registry, "unary", "Ok", "OK") == 2
        assert _value(registry, "grpc_server_started_total", **started) == 2
        assert _value(registry, "grpc_server_handling_seconds_count", **timed) == 2
        assert 0 < _value(registry, "grpc_server_handling_seconds_sum", **timed) < 1
        # A bucket at the top of the range holds every call.
        assert _value(registry, "grpc_server_handling_seconds_bucket", **timed, le="2.0") == 2

    asyncio.run(_with_server(scenario))


def test_streaming_calls_of_every_kind() -> None:
    async def scenario(channel: grpc.aio.Channel, registry: CollectorRegistry) -> None:
        gen = channel.unary_stream(f"/{SERVICE}/Gen", _identity, _identity)
        assert [r async for r in gen(b"a")] == [b"a\x00", b"a\x01", b"a\x02"]
        write = channel.unary_stream(f"/{SERVICE}/Write", _identity, _identity)
        assert [r async for r in write(b"w")] == [b"w\x00", b"w\x01"]

        async def chunks() -> AsyncIterator[bytes]:
            for part in (b"a", b"b", b"c"):
                yield part

        collect = channel.stream_unary(f"/{SERVICE}/Collect", _identity, _identity)
        assert await collect(chunks()) == b"abc"
        bidi = channel.stream_stream(f"/{SERVICE}/Bidi", _identity, _identity)
        assert [r async for r in bidi(chunks())] == [b"a", b"b", b"c"]
        kinds = (("server_stream", "Gen"), ("server_stream", "Write"),
                 ("client_stream", "Collect"), ("bidi_stream", "Bidi"))  # fmt: skip
        await _until(
            lambda: [_handled(registry, kind, method, "OK") for kind, method in kinds],
            [1.0] * len(kinds),
            f"{kinds} handled, OK",
        )
        assert _handled(registry, "server_stream", "Gen", "OK") == 1
        assert _handled(registry, "server_stream", "Write", "OK") == 1
        assert _handled(registry, "client_stream", "Collect", "OK") == 1
        assert _handled(registry, "bidi_stream", "Bidi", "OK") == 1

    asyncio.run(_with_server(scenario))


def test_cancelled_and_timed_out_calls_are_counted() -> None:
    async def scenario(channel: grpc.aio.Channel, registry: CollectorRegistry) -> None:
        forever = channel.unary_stream(f"/{SERVICE}/Forever", _identity, _identity)
        call = forever(b"f")
        assert await call.read() == b"f"
        call.cancel()
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await _call(channel, "Slow")(b"", timeout=0.1)
        assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        await _until(
            lambda: (
                _handled(registry, "server_stream", "Forever", "Canceled"),
                _handled(registry, "unary", "Slow", "Canceled")
                + _handled(registry, "unary", "Slow", "DeadlineExceeded"),
            ),
            (1.0, 1.0),
            "Forever handled as Canceled, Slow as Canceled or DeadlineExceeded",
        )
        assert _handled(registry, "server_stream", "Forever", "Canceled") == 1
        # The server sees a call abandoned at its deadline as cancelled, or as timed out.
        assert (
            _handled(registry, "unary", "Slow", "Canceled")
            + _handled(registry, "unary", "Slow", "DeadlineExceeded")
            == 1
        )

    asyncio.run(_with_server(scenario))


def test_a_stream_cancelled_between_its_messages_is_counted_as_canceled() -> None:
    """The cancel reaches the handler outside its own code (gRPC writing a message): the
    generator is closed, not cancelled, and that is the client's cancel too, never Unknown.
    Before this case was handled, test_cancelled_and_timed_out_calls_are_counted failed now
    and then under load (its handler sleeps between messages, so the cancel mostly lands in
    the handler's sleep)."""

    async def scenario(channel: grpc.aio.Channel, registry: CollectorRegistry) -> None:
        busy = channel.unary_stream(f"/{SERVICE}/Busy", _identity, _identity)
        call = busy(b"b")
        assert await call.read() == b"b"
        call.cancel()
        await _until(
            lambda: (
                _handled(registry, "server_stream", "Busy", "Canceled"),
                _handled(registry, "server_stream", "Busy", "Unknown"),
            ),
            (1.0, 0.0),
            "Busy handled as Canceled (not Unknown)",
        )

    asyncio.run(_with_server(scenario))


def test_unknown_methods_add_no_label_values() -> None:
    async def scenario(channel: grpc.aio.Channel, registry: CollectorRegistry) -> None:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await channel.unary_unary("/evil.Service/Probe1234", _identity, _identity)(b"")
        assert caught.value.code() == grpc.StatusCode.UNIMPLEMENTED
        names = {
            sample.labels.get("grpc_service")
            for metric in registry.collect()
            for sample in metric.samples
        }
        assert "evil.Service" not in names

    asyncio.run(_with_server(scenario))


def test_start_grpc_server_wires_metrics_liveness_and_readiness() -> None:
    async def scenario() -> None:
        registry = CollectorRegistry()
        metrics = GrpcServerMetrics(registry)

        def register(server: grpc.aio.Server) -> None:
            server.add_generic_rpc_handlers((_handlers(),))

        running = await start_grpc_server(
            host="127.0.0.1", port=0, register=register, service_names=[SERVICE], metrics=metrics
        )
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
                health = health_pb2_grpc.HealthStub(channel)

                async def status(name: str) -> int:
                    request = health_pb2.HealthCheckRequest(service=name)
                    return int((await health.Check(request)).status)

                serving = health_pb2.HealthCheckResponse.SERVING
                # Not ready yet, but alive: what the liveness probe asks.
                assert await status(SERVICE) != serving
                assert await status(LIVENESS_SERVICE) == serving
                assert _value(registry, "lexio_grpc_serving", grpc_service=SERVICE) == 0
                await running.set_serving(True)
                assert await status(SERVICE) == serving
                assert _value(registry, "lexio_grpc_serving", grpc_service=SERVICE) == 1
                assert await _call(channel, "Ok")(b"!") == b"!"

                def checks() -> float:
                    return _value(
                        registry,
                        "grpc_server_handled_total",
                        grpc_type="unary",
                        grpc_service="grpc.health.v1.Health",
                        grpc_method="Check",
                        grpc_code="OK",
                    )

                await _until(
                    lambda: (_handled(registry, "unary", "Ok", "OK"), checks()),
                    (1.0, 3.0),
                    "Ok handled once, health Check three times",
                )
                assert _handled(registry, "unary", "Ok", "OK") == 1
                assert checks() == 3
        finally:
            await running.stop(0)
        assert _value(registry, "lexio_grpc_serving", grpc_service=SERVICE) == 0

    asyncio.run(scenario())


def test_methods_registered_by_name_have_their_series_before_any_call() -> None:
    """Issue 17: what generated code registers (``add_registered_method_handlers``) is
    counted at 0 from the start, code OK, so rates read 0 before the first call."""

    async def scenario() -> None:
        registry = CollectorRegistry()

        def register(server: grpc.aio.Server) -> None:
            handlers = {
                "Ok": grpc.unary_unary_rpc_method_handler(_unary_ok, _identity, _identity),
                "Gen": grpc.unary_stream_rpc_method_handler(_stream_gen, _identity, _identity),
            }
            server.add_generic_rpc_handlers(
                (grpc.method_handlers_generic_handler(SERVICE, handlers),)
            )
            server.add_registered_method_handlers(SERVICE, handlers)

        running = await start_grpc_server(
            host="127.0.0.1",
            port=0,
            register=register,
            service_names=[SERVICE],
            metrics=GrpcServerMetrics(registry),
        )
        try:
            expected = {
                ("unary", SERVICE, "Ok"),
                ("server_stream", SERVICE, "Gen"),
                ("unary", "grpc.health.v1.Health", "Check"),
                ("server_stream", "grpc.health.v1.Health", "Watch"),
            }
            for grpc_type, service, method in expected:
                labels = {"grpc_type": grpc_type, "grpc_service": service, "grpc_method": method}
                coded = {**labels, "grpc_code": "OK"}
                assert registry.get_sample_value("grpc_server_started_total", labels) == 0
                assert registry.get_sample_value("grpc_server_handled_total", coded) == 0
                count = registry.get_sample_value("grpc_server_handling_seconds_count", coded)
                assert count == 0, (grpc_type, service, method)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
                assert await _call(channel, "Ok")(b"!") == b"!"
            await _until(lambda: _handled(registry, "unary", "Ok", "OK"), 1.0, "Ok handled")
            assert _handled(registry, "unary", "Ok", "OK") == 1
        finally:
            await running.stop(0)

    asyncio.run(scenario())


def test_build_info_is_one_series_per_service() -> None:
    registry = CollectorRegistry()
    labels = record_build_info("engine", registry)
    assert labels == build_labels("engine")
    assert labels["version"] != "unknown"  # the installed lexio distribution's version
    assert registry.get_sample_value("lexio_build_info", labels) == 1
