"""Outages are not errors (issue 23): kill -9 of the engine, the lexicon and the lobby during a
game, each brought back, leaves no error-level line in the other services' logs — an
operator alerting on errors is not paged for a service that restarts — and the game goes on:
the moves during an outage answer ``unavailable`` and change nothing, and the game that ends
while the lobby is away closes there once it is back."""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from lexio_stack import Stack
from lexio_testing import LoopThread, until_closed_in_the_lobby
from ops_game import bot, pass_to_the_end, started_table, to_play

from lexio_client import GatewayClient, ServerError

OUTAGE_SECONDS = 2.0


@pytest.fixture
def loop() -> Iterator[LoopThread]:
    thread = LoopThread()
    yield thread
    thread.close()


def _errors(log: Path) -> list[str]:
    """The error-level lines of a service's log: JSON lines at ``error`` or worse, and any
    line that is not JSON (a traceback printed by something that bypassed logging)."""
    errors = []
    for line in log.read_text(errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            if line.strip():
                errors.append(line)
            continue
        if entry.get("level") in ("error", "critical"):
            errors.append(line)
    return errors


async def _until_answered(act: Callable[[], Awaitable[Any]], timeout: float = 30.0) -> Any:
    """``act`` again while the gateway answers ``unavailable`` (a service still coming back)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return await act()
        except ServerError as e:
            assert e.code == "unavailable", e.frame
            assert time.monotonic() < deadline, "still unavailable"
            await asyncio.sleep(0.2)


async def _try_a_move(clients: list[GatewayClient], seed: int) -> bool:
    """The seat to play tries the bot's move: whether it was answered (else ``unavailable``)."""
    mover = to_play(clients)
    seq = mover.seq
    try:
        await mover.act(bot(seed).choose(mover.view))
    except ServerError as e:
        if e.frame.get("type") != "refused":
            assert e.code == "unavailable", e.frame
            return False
    for client in clients:
        await client.wait_view(seq + 1)
    return True


async def _a_move(clients: list[GatewayClient], seed: int) -> None:
    """The seat to play places the bot's word (a pass if it finds none or is refused)."""
    mover = to_play(clients)
    seq = mover.seq
    action = bot(seed).choose(mover.view)
    try:
        await mover.act(action)
    except ServerError as e:
        if e.code != "refused" and e.frame.get("type") != "refused":
            raise
        await mover.pass_turn()
    for client in clients:
        await client.wait_view(seq + 1)


TABLES = 16
"""Tables moving at once when a service is killed: questions in flight on its stream."""


def test_kill_9_of_each_back_end_logs_no_error_in_the_other_services(
    tmp_path: Path, loop: LoopThread
) -> None:
    stack = Stack.create(tmp_path)
    tables: list[list[GatewayClient]] = []
    try:
        stack.start()

        async def seated() -> None:
            for _ in range(TABLES):
                clients = [GatewayClient(aiohttp.ClientSession(), stack.gateway_url, None)]
                clients.append(GatewayClient(aiohttp.ClientSession(), stack.gateway_url, None))
                tables.append(clients)
                for client in clients:
                    await client.open()
                await clients[0].create("Ana")
                await clients[1].join(clients[0].table["code"], "Bruno")
                await started_table(clients)

        loop.run(seated(), timeout=120)
        for victim in ("engine", "lexicon"):

            async def killed_under_moves(victim: str) -> None:
                """Every table moves at once and the victim dies under them: each move is
                answered (it was done in time) or refused ``unavailable`` with nothing
                changed."""
                befores = [dict(to_play(t).view) for t in tables]
                moves = [asyncio.create_task(_try_a_move(t, seed)) for seed, t in enumerate(tables)]
                await asyncio.sleep(0.01)
                stack[victim].kill()
                for table, before, answered in zip(
                    tables, befores, await asyncio.gather(*moves), strict=True
                ):
                    if not answered:
                        assert to_play(table).view == before
                await asyncio.sleep(OUTAGE_SECONDS)

            loop.run(killed_under_moves(victim), timeout=60)
            stack.start((victim,))
            for seed, table in enumerate(tables):
                loop.run(_until_answered(functools.partial(_a_move, table, seed)), timeout=60)

        stack["lobby"].kill()
        clients = tables[0]
        loop.run(pass_to_the_end(clients), timeout=60)
        time.sleep(OUTAGE_SECONDS)
        stack.start(("lobby",))
        code = clients[0].table["code"]

        loop.run(until_closed_in_the_lobby(clients[0], code), timeout=60)
    finally:
        for table in tables:
            for client in table:
                loop.run(client.close())
                loop.run(client.session.close())
        statuses = stack.stop()
    assert all(status == 0 for status in statuses.values()), statuses
    for name, service in stack.services.items():
        assert _errors(service.log_path) == [], name
