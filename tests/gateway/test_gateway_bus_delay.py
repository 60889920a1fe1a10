"""The bus notice delay (issue 27): two real gateway processes on one real Redis, each with
its own /metrics; a move committed on one replica is observed in the other's
``lexio_gateway_bus_notice_delay_seconds`` as another replica's notice.

Processes, not in-process gateways: a replica's notices are told apart from the others' by
its process (``lexio_gateway.bus.ORIGIN``), and its metrics are its process's registry."""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Iterator

import pytest
from gateway_play import bot, play_one_turn, seated_table, started_table, to_play
from lexio_testing import (
    GatewayProcess,
    LoopThread,
    RedisServer,
    environment_without_lexio,
    free_port,
)
from prometheus_client.parser import text_string_to_metric_families

from lexio_engine.server import RunningEngine
from lexio_lobby.server import RunningLobby

DELAY = "lexio_gateway_bus_notice_delay_seconds"


class Replica:
    def __init__(self, env: dict[str, str]) -> None:
        port, self.metrics_port = free_port(), free_port()
        self.process = GatewayProcess(
            {
                **env,
                "LEXIO_GATEWAY_PORT": str(port),
                "LEXIO_GATEWAY_METRICS_PORT": str(self.metrics_port),
            },
            port,
        )
        self.url = self.process.url

    def delays(self) -> dict[str, tuple[float, float]]:
        """(count, sum) of the histogram by source."""
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=5) as reply:
            text = reply.read().decode()
        out: dict[str, tuple[float, float]] = {}
        for family in text_string_to_metric_families(text):
            if family.name != DELAY:
                continue
            for sample in family.samples:
                source = sample.labels["source"]
                count, total = out.get(source, (0.0, 0.0))
                if sample.name.endswith("_count"):
                    out[source] = (sample.value, total)
                elif sample.name.endswith("_sum"):
                    out[source] = (count, sample.value)
        return out


@pytest.fixture
def replicas(
    engine_server: RunningEngine, lobby_server: RunningLobby, redis_server: RedisServer
) -> Iterator[list[Replica]]:
    env = environment_without_lexio(
        LEXIO_ENGINE_ADDRESS=f"127.0.0.1:{engine_server.port}",
        LEXIO_LOBBY_ADDRESS=f"127.0.0.1:{lobby_server.port}",
        LEXIO_REDIS_URL=redis_server.url,
    )
    started: list[Replica] = []
    try:
        started.append(Replica(env))
        started.append(Replica(env))
        yield started
    finally:
        for replica in started:
            replica.process.stop()


def test_a_move_on_one_replica_is_observed_in_the_others_notice_delay(
    loop_thread: LoopThread, replicas: list[Replica]
) -> None:
    first, second = replicas
    assert first.delays() == second.delays() == {"other": (0.0, 0.0), "own": (0.0, 0.0)}
    moves_on_first = 0

    async def scenario() -> None:
        nonlocal moves_on_first
        # Ana on the first replica, Bruno on the second.
        async with seated_table([first.url, second.url], ["Ana", "Bruno"]) as clients:
            await started_table(clients)
            player = bot(3)
            for _ in range(4):
                moves_on_first += to_play(clients) is clients[0]
                await play_one_turn(clients, player)

    loop_thread.run(scenario(), timeout=90)
    assert moves_on_first >= 2  # the seats alternate: each replica committed moves

    # Every commit reaches both replicas: each one's own commits are the other's "other".
    # The histogram is observed once the notice is handled, just after its frames are
    # sent: wait for the last ones.
    deadline = time.monotonic() + 10
    while True:
        a, b = first.delays(), second.delays()
        if (b["other"][0], a["other"][0]) == (a["own"][0], b["own"][0]):
            break
        assert time.monotonic() < deadline, (a, b)
        time.sleep(0.05)
    # The first replica committed at least the start and Ana's moves; the second, Bruno's.
    assert b["other"][0] >= moves_on_first + 1
    assert a["other"][0] >= 4 - moves_on_first
    for count, total in (a["other"], b["other"], a["own"], b["own"]):
        # Seconds since a commit by Redis's clock, never negative, nothing like an epoch.
        assert 0.0 <= total < 10.0 * count
