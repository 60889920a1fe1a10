"""Several gateway replicas on one Redis (issue 7): one table across replicas, racing actions,
a replica or Redis going away mid-game. Everything real: Redis, lobby, engine, lexicon."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from gateway_play import bot, play_to_the_end, seated_table, started_table, to_play
from lexio_testing import GatewayFactory, LoopThread, RedisServer

from lexio_client import GatewayClient, ServerError
from lexio_gateway.records import SeatToken

pytestmark = pytest.mark.parametrize("gateway_backend", ["redis"])


class SocketRecorder:
    """Stands where a WebSocket would: keeps the frames a room sends to one seat."""

    def __init__(self, seat: SeatToken) -> None:
        self.seat = seat
        self.frames: list[dict[str, Any]] = []
        self.room: Any = None
        self.seq = 10**9  # never behind: the room sends it only direct answers

    @property
    def player_id(self) -> str:
        return self.seat.player_id

    async def send(self, frame: dict[str, Any]) -> None:
        self.frames.append(frame)


def test_one_table_across_two_replicas_plays_to_the_end(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    first, second = gateway_factory(seed=3), gateway_factory(seed=3)
    assert first.hub.store.shared and first.hub.replica != second.hub.replica

    async def scenario() -> None:
        async with (
            GatewayClient.connect(first.url) as ana,
            GatewayClient.connect(second.url) as bruno,
        ):
            await ana.create("Ana")
            await bruno.join(ana.table["code"], "Bruno")
            await ana.wait_for(lambda f: f["type"] == "table" and len(f["seats"]) == 2)
            await started_table([ana, bruno])
            await play_to_the_end([ana, bruno], bot(3))
            assert ana.view["ending"] == bruno.view["ending"]
            assert ana.view["ending"]["cause"] == "rack_emptied"
            assert ana.log == bruno.log and len(ana.log) == ana.seq

    loop_thread.run(scenario(), timeout=120)


def test_racing_duplicate_actions_on_two_replicas_apply_once(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    first, second = gateway_factory(), gateway_factory()

    async def scenario() -> None:
        async with seated_table(first.url, ["Ana", "Bruno"]) as clients:
            await started_table(clients)
            ana = clients[0]
            assert ana.player is not None
            table_id = ana.table["table_id"]
            rooms = [await hub.room(table_id) for hub in (first.hub, second.hub)]
            seat = SeatToken(table_id, ana.player, "Ana")
            sockets = [SocketRecorder(seat), SocketRecorder(seat)]
            outcomes = await asyncio.gather(
                *(
                    room.act(sock, "same-action", {"pass_turn": {}})  # type: ignore[arg-type,union-attr]
                    for room, sock in zip(rooms, sockets, strict=True)
                )
            )
            assert sorted(outcomes) == ["accepted", "duplicate"]
            assert (
                sockets[0].frames
                == sockets[1].frames
                == [{"type": "ack", "id": "same-action", "seq": 1}]
            )
            record = await first.hub.store.get_table(table_id)
            assert record is not None and (record.seq, record.turn) == (1, 1)
            await clients[1].wait_view(1)
            assert [e["kind"] for e in clients[1].log] == ["pass"]

    loop_thread.run(scenario(), timeout=60)


def test_the_turn_clock_fires_once_with_every_replica_holding_the_table(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """Both replicas run the table's clock; the version check lets one pass apply per turn."""
    first, second = gateway_factory(turn_seconds=1.0), gateway_factory(turn_seconds=1.0)

    async def scenario() -> None:
        async with (
            GatewayClient.connect(first.url) as ana,
            GatewayClient.connect(second.url) as bruno,
        ):
            await ana.create("Ana")
            await bruno.join(ana.table["code"], "Bruno")
            await ana.wait_for(lambda f: f["type"] == "table" and len(f["seats"]) == 2)
            await started_table([ana, bruno])
            await bruno.wait_view(3, timeout=10)
            await asyncio.sleep(0.3)
            passes = [(e["seat"], e["cause"]) for e in bruno.log]
            assert passes[:3] == [(0, "clock"), (1, "clock"), (0, "clock")]
            assert ana.log == bruno.log

    loop_thread.run(scenario(), timeout=60)


def test_redis_restart_mid_game_loses_no_accepted_move(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, redis_server: RedisServer
) -> None:
    gateway = gateway_factory(seed=5)

    async def scenario() -> None:
        async with seated_table(gateway.url, ["Ana", "Bruno"]) as clients:
            await started_table(clients)
            player = bot(5)
            for _ in range(3):
                mover = to_play(clients)
                seq = mover.seq
                await mover.act(player.choose(mover.view))
                for client in clients:
                    await client.wait_view(seq + 1)
            before = [dict(c.view) for c in clients]
            redis_server.stop()  # SIGTERM: Redis writes its AOF and exits
            with pytest.raises(ServerError) as down:
                await to_play(clients).pass_turn()
            assert down.value.code == "unavailable"
            redis_server.start()
            for _ in range(50):  # the gateway reconnects by itself
                try:
                    await to_play(clients).pass_turn()
                    break
                except ServerError as e:
                    assert e.code == "unavailable"
                    await asyncio.sleep(0.1)
            for client, view in zip(clients, before, strict=True):
                await client.wait_view(4)
                assert client.view["scores"] == view["scores"]
                assert [e["kind"] for e in client.log][:3] == ["place", "place", "place"]
                assert len(client.log) == 4

    loop_thread.run(scenario(), timeout=60)
