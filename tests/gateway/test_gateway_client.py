"""The reference client (``lexio_client``), which tests, benchmarks and ``lexio play`` share."""

from __future__ import annotations

from gateway_play import pass_one_turn, seated_table, started_table, to_play
from lexio_testing import GatewayFactory, LoopThread

from lexio_client import GatewayClient


def test_a_client_keeping_only_its_last_frames_still_resumes_after_missed_turns(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """A long-running player (the load harness) keeps only its last frames; a resume must still
    find its ``table`` and catch-up ``view`` among many frames, however few are kept."""
    gateway = gateway_factory()

    async def scenario() -> None:
        async with seated_table(gateway.url, ["Ana", "Bruno", "Chloe", "Dan"]) as clients:
            await started_table(clients)
            mover = to_play(clients)
            others = [c for c in clients if c is not mover]
            async with GatewayClient.connect(gateway.url, token=mover.token, keep_frames=1) as away:
                assert away.view["turn"] == mover.view["turn"]
                await pass_one_turn([away, *others])
                await away.drop()
                for _ in range(3):
                    await pass_one_turn(others)
                seq_before = away.seq
                received_before = away.received
                await away.open()
                # Catch-up: welcome, table, three events, the view; no more than two kept.
                assert away.received - received_before >= 6
                assert len(away.frames) <= 2
                assert away.seq == seq_before + 3 == others[0].seq
                assert away.view_seq == away.seq
                assert away.view["turn"] == away.table["you"]
                assert [e["kind"] for e in away.log[-3:]] == ["pass"] * 3

    loop_thread.run(scenario(), timeout=60)
