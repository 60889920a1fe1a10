"""The example game has no record format, so a finished game of it has no review (issue 26):
the gateway answers 404 review_unavailable to its players, and nothing changes."""

from __future__ import annotations

import json
import time

import aiohttp
from lexio_testing import GatewayFactory, LoopThread

from lexio_gateway.config import GameEndpoint
from lexio_gateway.records import Player, SeatToken, TableRecord, TableStatus
from lexio_gateway.room import token_hash


def test_a_finished_noughts_game_has_no_review_and_its_players_are_told_so(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory(games=(GameEndpoint("lexio"), GameEndpoint("noughts")))
    store = gateway.hub.store
    over = TableRecord(
        "t_noughts",
        "noughts",
        "ABCDE-FGHIJ",
        TableStatus.OVER,
        version=5,
        seq=5,
        players=[Player("p1", "Ana"), Player("p2", "Bruno")],
        state=b"\x01",
        ended_at=time.time(),
    )

    async def scenario() -> None:
        await store.create_table(over)
        await store.add_token(token_hash("secret-of-ana"), SeatToken(over.table_id, "p1", "Ana"))
        async with aiohttp.ClientSession() as session:
            for what in ("review", "record"):
                async with session.get(
                    f"{gateway.url}/api/tables/{over.table_id}/{what}",
                    headers={"Authorization": "Bearer secret-of-ana"},
                ) as reply:
                    assert reply.status == 404
                    assert (
                        await reply.read() == json.dumps({"error": "review_unavailable"}).encode()
                    )
        assert await store.get_table(over.table_id) == over

    loop_thread.run(scenario())
