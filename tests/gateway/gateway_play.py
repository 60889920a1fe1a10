"""Helpers for the gateway suites: seated clients, a bot that plays from its own view, whole
turns seen by every seat, and the server's refusals."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager

from lexio_testing import answered_despite_unavailable

from lexio_client import GatewayClient, ServerError
from lexio_client.bot import Bot
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH

log = logging.getLogger(__name__)


@functools.cache
def french_words() -> tuple[str, ...]:
    return tuple(DEFAULT_WORDLIST_PATH.read_text(encoding="ascii").split())


@functools.cache
def _bot() -> Bot:
    return Bot(french_words(), 0)


def bot(seed: int = 0) -> Bot:
    """A fresh player with its own random choices (the word index is built once)."""
    return _bot().with_seed(seed)


@asynccontextmanager
async def seated_table(
    url: str | Sequence[str], names: Sequence[str]
) -> AsyncIterator[list[GatewayClient]]:
    """The first name creates a table, the others join it by its code; nobody has started.
    Several URLs (gateway replicas): each player connects to the next one in turn."""
    urls = [url] if isinstance(url, str) else list(url)
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(GatewayClient.connect(urls[i % len(urls)]))
            for i in range(len(names))
        ]
        await answered_despite_unavailable(lambda: clients[0].create(names[0]))
        code = clients[0].table["code"]
        for client, name in zip(clients[1:], names[1:], strict=True):
            await answered_despite_unavailable(lambda: client.join(code, name))  # noqa: B023
        for client in clients:
            await client.wait_for(lambda f: f["type"] == "table" and len(f["seats"]) == len(names))
        yield clients


async def started_table(clients: Sequence[GatewayClient]) -> None:
    await clients[0].start()
    for client in clients[1:]:
        await client.wait_for(lambda f: f["type"] == "snapshot", since=0)


@asynccontextmanager
async def started_game(
    url: str | Sequence[str], names: Sequence[str]
) -> AsyncIterator[list[GatewayClient]]:
    """A seated table (see :func:`seated_table`) whose host has started the game."""
    async with seated_table(url, names) as clients:
        await started_table(clients)
        yield clients


def to_play(clients: Sequence[GatewayClient]) -> GatewayClient:
    turn = clients[0].view["turn"]
    return next(c for c in clients if c.table["you"] == turn)


async def play_one_turn(clients: Sequence[GatewayClient], player: Bot) -> None:
    """The seat to play plays the bot's choice; every seat then waits for the view after it."""
    client = to_play(clients)
    seq = client.seq
    await client.act(player.choose(client.view))
    for other in clients:
        await other.wait_view(seq + 1)


async def pass_one_turn(clients: Sequence[GatewayClient]) -> None:
    """The seat to play passes; every seat then waits for the view after it."""
    client = to_play(clients)
    seq = client.seq
    await client.pass_turn()
    for other in clients:
        await other.wait_view(seq + 1)


async def play_to_the_end(
    clients: Sequence[GatewayClient], player: Bot, max_turns: int = 400
) -> None:
    """Every seat plays the bot's choice on its turn until the game ends."""
    for _ in range(max_turns):
        if clients[0].view.get("ending"):
            return
        await play_one_turn(clients, player)
    raise AssertionError(f"no end after {max_turns} turns")


async def pass_to_the_end(clients: Sequence[GatewayClient]) -> None:
    """Every seat passes until the game ends (R31: two rounds without a placement)."""
    for _ in range(2 * len(clients) + 1):
        if clients[0].view.get("ending"):
            return
        await pass_one_turn(clients)
    assert clients[0].view.get("ending"), "no end after two rounds of passes"


@contextmanager
def server_error(*codes: str, what: object = None) -> Iterator[None]:
    """The block must fail with a :class:`ServerError` whose code is one of ``codes``;
    ``what`` says what was tried, for the failure message."""
    try:
        yield
    except ServerError as e:
        assert e.code in codes, (e.code, what)
    else:
        raise AssertionError(f"no {' or '.join(codes)} error: {what}")


async def reconnect(client: GatewayClient, timeout: float = 10.0) -> None:
    """What a browser does when its gateway went away: retry with backoff until it answers."""
    deadline = time.monotonic() + timeout
    delay = 0.05
    while True:
        try:
            await client.open()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(delay)
            delay = min(1.0, delay * 2)
