"""The example game end to end through the real processes (issue 24): a lobby configured to
offer it, the gateway and the engine as operators run them, two players over the protocol.
Nothing outside the game's own folders and the per-tier lists was touched to get here
(test_noughts_stays_in_its_folders.py), and the site's default lobby does not offer it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from lexio_stack import Stack
from lexio_testing import LoopThread, until_closed_in_the_lobby

from lexio_client import GatewayClient, ServerError
from lexio_gateway.games import noughts
from lexio_lobby.games import SITE_GAMES_FILE

NOUGHTS = {
    "name": "noughts",
    "min_seats": 2,
    "max_seats": 2,
    "health_service": "lexio.game.v1.Engine/noughts",
}
LEXIO = {
    "name": "lexio",
    "min_seats": 2,
    "max_seats": 4,
    "health_service": "lexio.engine.v1.Engine",
}


@pytest.fixture
def loop() -> Iterator[LoopThread]:
    thread = LoopThread()
    yield thread
    thread.close()


def _mark(row: int, col: int) -> dict[str, object]:
    return {"mark": {"row": row, "col": col}}


def test_two_players_play_noughts_to_a_win_through_the_real_services(
    tmp_path: Path, loop: LoopThread
) -> None:
    stack = Stack.create(tmp_path, lobby_games=[LEXIO, NOUGHTS])
    try:
        stack.start()

        async def scenario() -> None:
            async with (
                GatewayClient.connect(stack.gateway_url) as ana,
                GatewayClient.connect(stack.gateway_url) as bruno,
            ):
                assert ana.games == {"lexio": True, "noughts": True}
                await ana.create("Ana", game="noughts")
                assert ana.table["game"] == "noughts" and ana.table["options"] == {}
                code = ana.table["code"]
                invitation = await bruno.lookup(code)
                assert invitation["game"] == "noughts" and invitation["max_seats"] == 2
                await bruno.join(code, "Bruno")
                await ana.wait_for(lambda f: f["type"] == "table" and len(f["seats"]) == 2)
                await ana.start()
                await bruno.wait_for(lambda f: f["type"] == "snapshot", since=0)
                assert (ana.view["mark"], bruno.view["mark"]) == ("X", "O")

                # X takes the top row; O answers in the middle row; one refusal on the way.
                moves = [(ana, 0, 0), (bruno, 1, 0), (ana, 0, 1), (bruno, 1, 1)]
                for player, row, col in moves:
                    ack = await player.act(_mark(row, col))
                    for client in (ana, bruno):
                        await client.wait_view(ack["seq"])
                frames_before = len(bruno.frames)
                with pytest.raises(ServerError) as refused:
                    await ana.act(_mark(1, 1))  # O's cell
                assert refused.value.code == "occupied"
                # Ana's refusal was hers alone: nothing of it reached Bruno.
                await bruno.sync()  # a ping's round trip: all sent him before it has come
                assert not [f for f in bruno.frames[frames_before:] if f["type"] == "refused"]
                ack = await ana.act(_mark(0, 2))
                for client in (ana, bruno):
                    await client.wait_view(ack["seq"])
                    ending = client.view["ending"]
                    assert ending["winner"] == 0 and ending["cause"] == "line"
                    assert ending["line"] == [{"row": 0, "col": c} for c in range(3)]
                    assert client.view["board"][:3] == ["X", "X", "X"]
                assert ana.log == bruno.log and len(ana.log) == ack["seq"]
                # Nor later: the frames about the next move came after anything about it.
                assert not [f for f in bruno.frames if f["type"] == "refused"]

                # The finished table closes in the lobby (its code is no longer an invitation).
                await until_closed_in_the_lobby(bruno, code)

        loop.run(scenario(), timeout=60)
    finally:
        statuses = stack.stop()
    assert statuses == dict.fromkeys(("gateway", "lobby", "engine", "lexicon"), 0)


def test_the_site_offers_it_only_where_the_lobby_is_configured_to() -> None:
    """Its engine and adapter ship with every build; the lobby's default games (what
    `make run` and the manifests offer) do not list it."""
    shipped = {game["name"] for game in json.loads(SITE_GAMES_FILE.read_text(encoding="utf-8"))}
    assert "noughts" not in shipped
    assert noughts.GAME.name == "noughts"
