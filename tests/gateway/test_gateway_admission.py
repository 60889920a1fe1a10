"""Admission of resumes (admission.py): a dead replica's seats all come back at once, and the
survivor resumes a few at a time, in order of arrival, the others waiting on their sockets."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest
from gateway_play import started_game
from lexio_testing import GatewayFactory, LoopThread
from prometheus_client import REGISTRY

from lexio_client import Backoff, GatewayClient
from lexio_gateway.admission import ResumeAdmission, ResumeRefusedError
from lexio_gateway.config import GatewayConfig
from lexio_gateway.metrics import RESUMES_WAITING


def test_at_most_in_flight_resumes_run_at_once_in_order_of_arrival(
    loop_thread: LoopThread,
) -> None:
    async def scenario() -> None:
        admission = ResumeAdmission(in_flight=2, patience=5.0)
        running: set[int] = set()
        most = 0
        order: list[int] = []
        release = asyncio.Event()

        async def resume(n: int) -> None:
            nonlocal most
            async with admission.slot():
                running.add(n)
                most = max(most, len(running))
                order.append(n)
                await release.wait()
                running.discard(n)

        waiting_before = RESUMES_WAITING._value.get()
        tasks = [asyncio.create_task(resume(n)) for n in range(6)]
        await asyncio.sleep(0.05)
        assert running == {0, 1}
        assert RESUMES_WAITING._value.get() - waiting_before == 4
        release.set()
        await asyncio.gather(*tasks)
        assert most == 2
        assert order == [0, 1, 2, 3, 4, 5]
        assert RESUMES_WAITING._value.get() == waiting_before

    loop_thread.run(scenario(), timeout=10)


def test_a_resume_that_fails_or_is_cancelled_gives_its_slot_back(loop_thread: LoopThread) -> None:
    async def scenario() -> None:
        admission = ResumeAdmission(in_flight=1, patience=5.0)
        with pytest.raises(RuntimeError):
            async with admission.slot():
                raise RuntimeError("the store went away")
        holder = asyncio.Event()

        async def hold() -> None:
            async with admission.slot():
                holder.set()
                await asyncio.sleep(3600)

        held = asyncio.create_task(hold())
        await holder.wait()
        queued = asyncio.create_task(hold())  # waits for the slot, then is cancelled
        await asyncio.sleep(0.01)
        queued.cancel()
        held.cancel()
        await asyncio.gather(held, queued, return_exceptions=True)
        async with asyncio.timeout(1):
            async with admission.slot():
                pass

    loop_thread.run(scenario(), timeout=10)


def test_the_admission_and_the_backlog_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = GatewayConfig.from_env()
    assert (config.resumes_in_flight, config.resume_patience, config.backlog) == (16, 5.0, 4096)
    monkeypatch.setenv("LEXIO_GATEWAY_RESUMES_IN_FLIGHT", "4")
    monkeypatch.setenv("LEXIO_GATEWAY_RESUME_PATIENCE", "2.5")
    monkeypatch.setenv("LEXIO_GATEWAY_BACKLOG", "1024")
    config = GatewayConfig.from_env()
    assert (config.resumes_in_flight, config.resume_patience, config.backlog) == (4, 2.5, 1024)
    with pytest.raises(ValueError):
        ResumeAdmission(in_flight=0, patience=1.0)
    with pytest.raises(ValueError):
        ResumeAdmission(in_flight=1, patience=0.0)


def test_seats_that_come_back_together_are_all_resumed_one_at_a_time(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """Four seats of two tables lose their sockets and come back in the same instant to a
    gateway that resumes one at a time: each is resumed, with its table and view."""
    gateway = gateway_factory(resumes_in_flight=1)

    def admitted() -> float:
        return REGISTRY.get_sample_value("lexio_gateway_resume_wait_seconds_count") or 0.0

    async def scenario() -> None:
        async with (
            started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno),
            started_game(gateway.url, ["Chloé", "Dan"]) as (chloe, dan),
        ):
            seats = [ana, bruno, chloe, dan]
            seqs = [seat.seq for seat in seats]
            before = admitted()
            at_once = Backoff(schedule=(0.0,))
            await asyncio.gather(*(seat.drop() for seat in seats))
            tries = await asyncio.gather(
                *(seat.reconnect([gateway.url], backoff=at_once) for seat in seats)
            )
            assert tries == [1, 1, 1, 1]
            assert admitted() - before == 4
            for seat, seq in zip(seats, seqs, strict=True):
                assert seat.connected and seat.view_seq == seq
            await ana.pass_turn()
            await bruno.wait_view(ana.seq)
            assert RESUMES_WAITING._value.get() == 0

    loop_thread.run(scenario(), timeout=60)


def test_a_resume_that_waits_past_the_patience_is_refused_and_never_run(
    loop_thread: LoopThread,
) -> None:
    def refused() -> float:
        return REGISTRY.get_sample_value("lexio_gateway_resumes_refused_total") or 0.0

    async def scenario() -> None:
        admission = ResumeAdmission(in_flight=1, patience=0.1)
        ran = False
        before = refused()
        async with admission.slot():
            with pytest.raises(ResumeRefusedError) as busy:
                async with admission.slot():
                    ran = True
        assert not ran
        assert 0.1 <= busy.value.retry_after <= 0.2
        assert refused() - before == 1
        async with admission.slot():  # the refused one took no slot with it
            pass

    loop_thread.run(scenario(), timeout=10)


def test_a_seat_refused_as_busy_is_told_when_to_come_back_and_then_resumed(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """Every slot taken (by the test) for longer than the patience: the seat's resume is
    answered `reconnect` `busy` with `retry_after`, its socket closed with 1013 (try again
    later), and nothing of its seat changed; its client waits at least that long, then
    resumes."""
    gateway = gateway_factory(resumes_in_flight=1, resume_patience=0.2)

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            room = await gateway.hub.room(ana.table["table_id"])
            assert room is not None
            await bruno.drop()
            async with gateway.hub._admission.slot():
                async with aiohttp.ClientSession() as session:
                    probe = GatewayClient(session, gateway.url, None)
                    probe.token, probe.seq = bruno.token, bruno.seq
                    with pytest.raises(ConnectionError):
                        await probe.open()
                    busy = [f for f in probe.frames if f["type"] == "reconnect"]
                    assert busy == [
                        {"type": "reconnect", "reason": "busy", "retry_after": probe.retry_after}
                    ]
                    assert 0.2 <= probe.retry_after <= 0.4
                    await asyncio.wait_for(probe.closed.wait(), 5)
                    assert probe._ws is not None and probe._ws.close_code == 1013
                    await probe.close()
                assert bruno.player not in room.connections
            waits: list[float] = []

            async def sleep(seconds: float) -> None:
                waits.append(seconds)

            bruno.retry_after = probe.retry_after
            await bruno.reconnect([gateway.url], backoff=Backoff(schedule=(0.0,)), sleep=sleep)
            assert waits == [probe.retry_after] and bruno.retry_after == 0.0
            assert bruno.player in room.connections and bruno.connected

    loop_thread.run(scenario(), timeout=60)
