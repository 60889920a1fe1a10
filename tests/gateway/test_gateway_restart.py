"""Persistence: a gateway killed with SIGKILL mid-game comes back with every table as it was;
a gateway stopped gracefully tells its clients to reconnect."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from gateway_play import (
    bot,
    pass_one_turn,
    play_one_turn,
    reconnect,
    started_game,
    started_table,
    to_play,
)
from lexio_testing import (
    GatewayFactory,
    GatewayProcess,
    LoopThread,
    environment_without_lexio,
    free_port,
)

from lexio_client import GatewayClient
from lexio_engine.server import RunningEngine
from lexio_lobby.server import RunningLobby


@pytest.fixture
def gateway_env(
    engine_server: RunningEngine, lobby_server: RunningLobby, tmp_path: Path
) -> Iterator[tuple[dict[str, str], int]]:
    port = free_port()
    env = environment_without_lexio()
    env.update(
        LEXIO_GATEWAY_PORT=str(port),
        LEXIO_ENGINE_ADDRESS=f"127.0.0.1:{engine_server.port}",
        LEXIO_LOBBY_ADDRESS=f"127.0.0.1:{lobby_server.port}",
        LEXIO_GATEWAY_DB=str(tmp_path / "gateway.sqlite3"),
        LEXIO_DISCONNECT_GRACE="30",
    )
    yield env, port


def test_sigkill_mid_game_loses_nothing(
    loop_thread: LoopThread, gateway_env: tuple[dict[str, str], int]
) -> None:
    env, port = gateway_env
    first = GatewayProcess(env, port)
    try:

        async def before_the_crash() -> tuple[list[GatewayClient], list[dict[str, object]]]:
            clients = [GatewayClient(aiohttp.ClientSession(), first.url, None) for _ in range(2)]
            for client in clients:
                await client.open()
            await clients[0].create("Ana")
            await clients[1].join(clients[0].table["code"], "Bruno")
            await started_table(clients)
            player = bot(5)
            for _ in range(3):
                await play_one_turn(clients, player)
            return clients, [dict(c.view) for c in clients]

        clients, views = loop_thread.run(before_the_crash(), timeout=60)
    finally:
        first.kill()
    second = GatewayProcess(env, port)
    try:

        async def after_the_restart() -> None:
            for client in clients:
                await asyncio.wait_for(client.closed.wait(), 5)
                await reconnect(client)
            for client, before in zip(clients, views, strict=True):
                assert client.seq == 3
                for key in ("board", "rack", "scores", "turn", "turn_deadline", "bag_count"):
                    assert client.view[key] == before[key], key
                assert len(client.log) == 3
            # The game goes on where it was.
            mover = to_play(clients)
            await mover.pass_turn()
            for client in clients:
                await client.wait_view(4)
                await client.close()
                await client.session.close()

        loop_thread.run(after_the_restart(), timeout=60)
    finally:
        assert second.stop() == 0


def test_graceful_stop_tells_clients_to_reconnect(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory()

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            await gateway.runner.cleanup()
            for client in (ana, bruno):
                notice = await client.wait_for(lambda f: f["type"] == "reconnect")
                assert notice["reason"] == "shutdown"
                await asyncio.wait_for(client.closed.wait(), 5)
                assert client._ws is not None and client._ws.close_code == 1012

    loop_thread.run(scenario(), timeout=30)


def test_rematch_opens_a_new_table_for_the_same_people(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, lobby_server: RunningLobby
) -> None:
    gateway = gateway_factory()

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            for _ in range(4):  # R31: two rounds without a placement
                await pass_one_turn([ana, bruno])
            assert ana.view["ending"]["cause"] == "no_placement"
            old_table = ana.table["table_id"]
            offer_waiter = asyncio.ensure_future(bruno.wait_for(lambda f: f["type"] == "rematch"))
            seated = await ana.rematch()
            offer = await offer_waiter
            assert seated["type"] == "seated" and seated["table_id"] != old_table
            assert offer["code"] == seated["code"] and offer["host"] == "Ana"
            await bruno.request({"type": "join", "code": offer["code"], "name": "Bruno"})
            table = await ana.wait_for(lambda f: f["type"] == "table" and len(f["seats"]) == 2)
            assert [s["name"] for s in table["seats"]] == ["Ana", "Bruno"]
            assert table["state"] == "open"
            # The finished table closed in the lobby.
            for _ in range(50):  # closing is done in the background once the game ends
                lobby_table, _ = await lobby_server.lobby.get(old_table)
                if lobby_table.state.value == "closed":
                    break
                await asyncio.sleep(0.02)
            assert lobby_table.state.value == "closed"
            # Nobody watches the finished game any more: it left the gateway's memory.
            assert old_table not in gateway.hub.rooms

    loop_thread.run(scenario(), timeout=30)


def test_a_second_rematch_of_the_host_is_answered_with_its_id(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """Issue 36: the host opened a rematch (rm1) and was seated; back on the finished table
    with its old token (another tab, a reconnection), its ``rematch`` (rm2) is answered
    ``seated`` with rm2, at the same seat of the same new table (a new token), and nobody is
    offered it twice. Once the host left that table, a third is answered the offer, with
    its id."""
    gateway = gateway_factory()

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            for _ in range(4):  # R31: two rounds without a placement
                await pass_one_turn([ana, bruno])
            old_token = ana.token
            before_offer = bruno.received
            first = await ana.request({"type": "rematch", "id": "rm1"})
            assert first["type"] == "seated"
            await bruno.wait_for(lambda f: f["type"] == "rematch", since=before_offer)
            offers_to_bruno = sum(f["type"] == "rematch" for f in bruno.frames)
            async with GatewayClient.connect(gateway.url, token=old_token) as again:
                second = await again.request({"type": "rematch", "id": "rm2"})
                assert second["type"] == "seated" and second["id"] == "rm2"
                assert second["table_id"] == first["table_id"]
                assert second["code"] == first["code"]
                assert second["player"] == first["player"]
                assert second["token"] != first["token"]
                table = await again.wait_for(
                    lambda f: f["type"] == "table" and f["table_id"] == first["table_id"]
                )
                assert table["you"] == 0 and [s["name"] for s in table["seats"]] == ["Ana"]
                await again.request({"type": "leave", "id": "l1"})
            async with GatewayClient.connect(gateway.url, token=old_token) as third:
                offer = await third.request({"type": "rematch", "id": "rm3"})
                assert offer == {
                    "type": "rematch",
                    "id": "rm3",
                    "code": first["code"],
                    "table_id": first["table_id"],
                    "host": "Ana",
                }
            seen = bruno.received
            await bruno.send({"type": "ping"})  # its pong comes after all sent before it
            await bruno.wait_for(lambda f: f["type"] == "pong", since=seen)
            assert sum(f["type"] == "rematch" for f in bruno.frames) == offers_to_bruno

    loop_thread.run(scenario(), timeout=30)


def test_a_finished_game_nobody_watches_leaves_memory_but_not_the_store(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory()

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            for _ in range(4):  # R31
                await pass_one_turn([ana, bruno])
            table_id = ana.table["table_id"]
            assert ana.view["ending"] is not None
            await ana.drop()
            await bruno.drop()
            for _ in range(50):
                if table_id not in gateway.hub.rooms:
                    break
                await asyncio.sleep(0.02)
            assert table_id not in gateway.hub.rooms
            await ana.open()  # back to reread the finished game
            assert ana.view["ending"]["cause"] == "no_placement" and len(ana.log) == 4

    loop_thread.run(scenario(), timeout=30)
