"""Readiness means "this process can serve its part" (issue 17, point 1), on the real
processes with each dependency stopped:

- the lobby stopped: every gateway stays ready (it would otherwise leave the load balancer and
  cut off every game in play); games in play go on; creating and joining answer
  ``unavailable``; the welcome offers no game; ``lexio_gateway_lobby_ready`` says 0 (on the
  gateway's metrics port: the public port answers 404 on ``/metrics``);
- the lexicon stopped: the engine's process readiness (health name ``readiness``, what its
  probe asks) stays SERVING while the health name of each game that asks words mirrors the
  lexicon (NOT_SERVING, so the lobby stops offering the game: R18); a game in play can still
  pass. A game that asks no words stays SERVING: it can be played without the lexicon
  (before the one engine contract every game's name followed the lexicon's).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import aiohttp
import pytest
from lexio_stack import Stack, http_status, http_text
from lexio_testing import LoopThread
from ops_game import started_table, to_play

from lexio_client import GatewayClient, ServerError
from lexio_common.procs import grpc_serving
from lexio_engine.games import GAMES as ENGINE_GAMES


@pytest.fixture
def loop() -> Iterator[LoopThread]:
    thread = LoopThread()
    yield thread
    thread.close()


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    running = Stack.create(tmp_path)
    running.start()
    yield running
    running.stop()


def _eventually(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"not met in {timeout} s: {inspect.getsource(check)}"
        time.sleep(0.1)


def _metric(stack: Stack, name: str) -> float | None:
    for line in http_text(stack["gateway"].metrics_url).splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


async def _seated(url: str, clients: list[GatewayClient]) -> None:
    clients.extend(GatewayClient(aiohttp.ClientSession(), url, None) for _ in range(2))
    for client in clients:
        await client.open()
    await clients[0].create("Ana")
    await clients[1].join(clients[0].table["code"], "Bruno")
    await started_table(clients)


async def _welcome_games(url: str) -> dict[str, bool]:
    """The games a newcomer's welcome offers."""
    newcomer = GatewayClient(aiohttp.ClientSession(), url, None)
    try:
        await newcomer.open()
        return dict(newcomer.games)
    finally:
        await newcomer.close()


async def _pass(clients: list[GatewayClient]) -> None:
    mover = to_play(clients)
    seq = mover.seq
    await mover.pass_turn()
    for other in clients:
        await other.wait_view(seq + 1)


async def _close(clients: list[GatewayClient]) -> None:
    for client in clients:
        await client.close()


def test_the_gateway_stays_ready_and_games_go_on_without_the_lobby(
    stack: Stack, loop: LoopThread
) -> None:
    url = stack.gateway_url
    clients: list[GatewayClient] = []
    try:
        loop.run(_seated(url, clients), timeout=60)
        assert http_status(f"{url}/metrics") == 404  # metrics have their own port
        _eventually(lambda: _metric(stack, "lexio_gateway_lobby_ready") == 1.0)

        assert stack["lobby"].terminate() == 0
        _eventually(lambda: _metric(stack, "lexio_gateway_lobby_ready") == 0.0)
        # The gateway keeps the lobby's list of games for 2 s: until then a welcome may still
        # offer them.
        _eventually(lambda: not any(loop.run(_welcome_games(url), timeout=30).values()))
        # Ready all along: the gateway checks its store and its bus, not the lobby.
        for _ in range(10):
            assert http_status(f"{url}/readyz") == 200
            time.sleep(0.1)

        async def without_lobby() -> tuple[str, str, dict[str, bool]]:
            await _pass(clients)  # a game in play never calls the lobby
            newcomer = GatewayClient(aiohttp.ClientSession(), url, None)
            try:
                await newcomer.open()
                games = dict(newcomer.games)
                with pytest.raises(ServerError) as created:
                    await newcomer.create("Chloé")
                with pytest.raises(ServerError) as joined:
                    await newcomer.join("ABCD-EFGH", "Chloé")
            finally:
                await newcomer.close()
            return created.value.code, joined.value.code, games

        created, joined, games = loop.run(without_lobby(), timeout=60)
        assert (created, joined) == ("unavailable", "unavailable")
        assert games and not any(games.values()), games

        stack["lobby"].start()
        _eventually(lambda: _metric(stack, "lexio_gateway_lobby_ready") == 1.0)
        log = stack["gateway"].log()
        assert '"msg": "lobby readiness changed"' in log and '"ready": false' in log
    finally:
        loop.run(_close(clients))


def test_the_engine_stays_ready_without_the_lexicon(stack: Stack, loop: LoopThread) -> None:
    engine = stack["engine"].address
    clients: list[GatewayClient] = []
    try:
        loop.run(_seated(stack.gateway_url, clients), timeout=60)
        assert grpc_serving(engine, "readiness") is True
        assert grpc_serving(engine, "lexio.engine.v1.Engine") is True
        wordless = [g.health_name for g in ENGINE_GAMES if not g.asks_words]
        assert wordless and all(grpc_serving(engine, name) is True for name in wordless)

        assert stack["lexicon"].terminate() == 0
        # R18: each word game's name follows the lexicon (the lobby stops offering it)…
        _eventually(lambda: grpc_serving(engine, "lexio.engine.v1.Engine") is False)
        _eventually(lambda: grpc_serving(engine, "lexio.mishqaq.v1.Engine") is False)
        # … a game without words stays offered (a deliberate change of the one contract:
        # its health followed the lexicon's too before) …
        assert all(grpc_serving(engine, name) is True for name in wordless)
        # … and the process stays ready (its probe) and alive.
        assert grpc_serving(engine, "readiness") is True
        assert grpc_serving(engine, "") is True
        assert grpc_serving(engine, "liveness") is True
        # A game in play: a pass needs no word, so it is played.
        loop.run(_pass(clients), timeout=30)
        assert http_status(f"{stack.gateway_url}/readyz") == 200

        stack["lexicon"].start()
        _eventually(lambda: grpc_serving(engine, "lexio.engine.v1.Engine") is True, 30)
    finally:
        loop.run(_close(clients))


def test_the_gateway_logs_its_drain_and_says_ready_only_when_it_is(
    stack: Stack, loop: LoopThread
) -> None:
    clients: list[GatewayClient] = []
    loop.run(_seated(stack.gateway_url, clients), timeout=60)
    try:
        assert stack["gateway"].terminate() == 0
    finally:
        loop.run(asyncio.sleep(0))
        loop.run(_close(clients))
    log = stack["gateway"].log()
    assert '"msg": "gateway ready"' not in log  # "readiness changed" says it, from /readyz
    assert '"msg": "readiness changed"' in log
    for message in ("gateway stopping", "gateway draining", "gateway drained", "gateway stopped"):
        assert f'"msg": "{message}"' in log, (message, log)
    assert '"grace_s"' in log and '"grace_seconds"' not in log
