"""``RunningServer.stop`` leaves no call's task behind: real servers on 127.0.0.1, in an event
loop of the test's own, so that the loop's teardown (what ends a service's process) runs
inside the test and grpc's complaints about what it had to cancel can be seen."""

from __future__ import annotations

import asyncio
import logging

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lexio_common import eventloop
from lexio_common.grpc_service import RunningServer, start_grpc_server

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
SERVICE = "test.v1.Stopping"


async def _server() -> RunningServer:
    running = await start_grpc_server(
        host="127.0.0.1", port=0, register=lambda _server: None, service_names=(SERVICE,)
    )
    await running.set_serving(True)
    return running


def _watch(channel: grpc.aio.Channel) -> grpc.aio.UnaryStreamCall:
    request = health_pb2.HealthCheckRequest(service=SERVICE)
    return health_pb2_grpc.HealthStub(channel).Watch(request)


def _grpc_errors(records: list[logging.LogRecord]) -> list[str]:
    return [
        r.getMessage() for r in records if r.name.startswith("grpc") and r.levelno >= logging.ERROR
    ]


@pytest.mark.parametrize("how", ["cancelled as the stop begins", "still open at the grace's end"])
def test_stop_ends_the_tasks_of_its_calls(
    how: str, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    """Fifty health Watches, either cancelled by their client as SIGTERM flips them (the
    server's stop can return before their tasks have run the cancellation) or never
    cancelled (the core cancels them at the end of the grace, and their tasks may never hear
    of it). Either way the stop ends them: the loop's teardown has nothing to cancel, and
    grpc logs no error. Another server in the same loop keeps its own Watch."""
    caplog.set_level(logging.DEBUG, logger="grpc")

    async def scenario() -> None:
        stopping, staying = await _server(), await _server()
        async with (
            grpc.aio.insecure_channel(f"127.0.0.1:{stopping.port}") as channel,
            grpc.aio.insecure_channel(f"127.0.0.1:{staying.port}") as other_channel,
        ):
            watches = [_watch(channel) for _ in range(50)]
            for watch in watches:
                assert (await watch.read()).status == SERVING
            other = _watch(other_channel)
            assert (await other.read()).status == SERVING

            async def cancel_when_not_serving(watch: grpc.aio.UnaryStreamCall) -> None:
                assert (await watch.read()).status == NOT_SERVING
                watch.cancel()

            cancelling = (
                [asyncio.create_task(cancel_when_not_serving(w)) for w in watches]
                if how == "cancelled as the stop begins"
                else []
            )
            await stopping.stop(0.2)
            await asyncio.gather(*cancelling)
            # The other server's Watch is the only call left (grpc.aio names each handler's
            # task after its method), and it still answers.
            left = [t.get_name() for t in asyncio.all_tasks()]
            assert [n for n in left if n.startswith("HandleExceptions[")] == [
                "HandleExceptions[/grpc.health.v1.Health/Watch]"
            ]
            await staying.set_serving(False)
            assert (await other.read()).status == NOT_SERVING
            other.cancel()
            await staying.stop(0.2)

    eventloop.run(scenario())
    assert _grpc_errors(caplog.records) == []
    assert "Traceback" not in capfd.readouterr().err
