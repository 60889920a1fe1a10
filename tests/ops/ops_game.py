"""A scripted game through the real protocol client: seats, a start, a bot's moves."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from lexio_testing import answered_despite_unavailable

from lexio_client import GatewayClient, ServerError
from lexio_client.bot import Bot
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH


@functools.cache
def _bot() -> Bot:
    return Bot(tuple(DEFAULT_WORDLIST_PATH.read_text(encoding="ascii").split()), 0)


def bot(seed: int) -> Bot:
    return _bot().with_seed(seed)


async def started_table(clients: Sequence[GatewayClient]) -> None:
    """The host starts the game (asked again while the gateway answers ``unavailable``: an
    engine or store call of the start timed out on a loaded machine, nothing changed); returns
    once every seat has its first snapshot."""
    await answered_despite_unavailable(clients[0].start)
    for client in clients[1:]:
        await client.wait_for(lambda f: f["type"] == "snapshot")


def to_play(clients: Sequence[GatewayClient]) -> GatewayClient:
    turn = clients[0].view["turn"]
    return next(c for c in clients if c.table["you"] == turn)


async def play_turns(clients: Sequence[GatewayClient], player: Bot, turns: int) -> None:
    """``turns`` turns, each by the seat to play, each seen by every seat. The bot's move
    may be refused (the bag's seed is the gateway's own, random): the seat then passes."""
    for _ in range(turns):
        mover = to_play(clients)
        seq = mover.seq
        try:
            await mover.act(player.choose(mover.view))
        except ServerError as e:
            if e.frame.get("type") != "refused":
                raise
            await mover.pass_turn()
        for other in clients:
            await other.wait_view(seq + 1)


async def pass_to_the_end(clients: Sequence[GatewayClient]) -> None:
    """Every seat passes until the game ends (R31: two rounds without a placement)."""
    for _ in range(2 * len(clients) + 1):
        if clients[0].view.get("ending"):
            return
        mover = to_play(clients)
        seq = mover.seq
        await mover.pass_turn()
        for other in clients:
            await other.wait_view(seq + 1)
    assert clients[0].view.get("ending"), "no end after two rounds of passes"
