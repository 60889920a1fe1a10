"""Helpers for al-Mishqaq through the gateway: a table with its options, the side to move,
players racing to a try, and what no frame may hold before the end (M12)."""

from __future__ import annotations

import functools
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from lexio_client import GatewayClient
from lexio_client.mishqaq_bot import MishqaqBot
from lexio_lexicon.catalog import open_list
from lexio_lexicon.words import WordList

Frame = dict[str, Any]
PASS: Frame = {"pass_turn": {}}


@functools.cache
def word_list(list_id: str) -> WordList:
    return open_list(list_id)


def racer(list_id: str, seed: int) -> MishqaqBot:
    """A player of one side, with the very list the lexicon service holds for that side."""
    return MishqaqBot(word_list(list_id), seed)


@asynccontextmanager
async def mishqaq_table(
    urls: str | Sequence[str],
    *,
    options: Mapping[str, str | int] | None = None,
    names: tuple[str, str] = ("Ana", "Bruno"),
) -> AsyncIterator[tuple[GatewayClient, GatewayClient]]:
    """The host creates an al-Mishqaq table with ``options``, the guest looks the code up (the
    game and its options before joining), joins, and the host starts."""
    urls = [urls] if isinstance(urls, str) else list(urls)
    async with AsyncExitStack() as stack:
        host = await stack.enter_async_context(GatewayClient.connect(urls[0]))
        guest = await stack.enter_async_context(GatewayClient.connect(urls[-1]))
        await host.create(names[0], game="mishqaq", options=options)
        code = host.table["code"]
        invitation = await guest.lookup(code)
        assert invitation["game"] == "mishqaq" and invitation["seated"] == 1
        assert invitation["options"] == host.table["options"]
        await guest.join(code, names[1])
        await host.wait_for(lambda f: f["type"] == "table" and len(f["seats"]) == 2)
        await host.start()
        await guest.wait_for(lambda f: f["type"] == "snapshot", since=0)
        yield host, guest


def side(client: GatewayClient) -> str:
    return str(client.view["side"])


def to_move(clients: Sequence[GatewayClient]) -> GatewayClient:
    turn = clients[0].view["turn"]
    return next(c for c in clients if side(c) == turn)


def not_to_move(clients: Sequence[GatewayClient]) -> GatewayClient:
    turn = clients[0].view["turn"]
    return next(c for c in clients if side(c) != turn)


async def play_turn(
    clients: Sequence[GatewayClient], players: Mapping[str, MishqaqBot | None]
) -> None:
    """The side to move places what its player finds (or passes); every seat sees it."""
    mover = to_move(clients)
    player = players.get(side(mover))
    action = player.choose(mover.view) if player is not None else None
    ack = await mover.act(action or PASS)
    for client in clients:
        await client.wait_view(ack["seq"])


async def play_to_the_end(
    clients: Sequence[GatewayClient],
    players: Mapping[str, MishqaqBot | None],
    max_turns: int = 120,
) -> None:
    for _ in range(max_turns):
        if clients[0].view.get("ending"):
            return
        await play_turn(clients, players)
    raise AssertionError(f"no end after {max_turns} turns")


def _tiles_outside_the_open_record(value: Any, path: str = "") -> list[str]:
    """Where a frame holds tiles (objects with an ``owner``) other than the public ones: the
    board's placed tiles and swaps in the log (``tiles``), the opening draw (``draws``), and the
    racks revealed once the game is over (``ending``). Used to check M12 on every frame."""
    found: list[str] = []
    if isinstance(value, dict):
        if "owner" in value and "code" in value:
            return [path]
        for key, inner in value.items():
            if key in ("tiles", "draws", "ending"):
                continue
            found.extend(_tiles_outside_the_open_record(inner, f"{path}.{key}"))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            found.extend(_tiles_outside_the_open_record(inner, f"{path}[{i}]"))
    return found


def check_m12(client: GatewayClient) -> None:
    """Every frame this seat received holds no tile of a rack but its own, and nothing of a
    bag, before the end reveals both racks."""
    own = side(client)
    for frame in client.frames:
        assert '"bags"' not in json.dumps(frame), frame  # nothing of the state's core
        view = frame.get("view")
        if isinstance(view, dict):
            assert view["side"] == own, frame
            assert all(t["owner"] == own for t in view["rack"]), frame
            copy = {k: v for k, v in view.items() if k != "rack"}
            assert _tiles_outside_the_open_record(copy) == [], frame
        else:
            assert _tiles_outside_the_open_record(frame) == [], frame
