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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import grpc
import pytest
from lexio_stack import Service, Stack, http_text
from lexio_testing import LoopThread, answered_despite_unavailable, until_closed_in_the_lobby
from ops_game import bot, pass_to_the_end, started_table, to_play
from prometheus_client.parser import text_string_to_metric_families

from lexio.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from lexio_client import GatewayClient, ServerError

OUTAGE_SECONDS = 2.0
"""How long a killed back end stays away at least, from its kill to its restart: the scenario
itself (a crashed pod is away until it is rescheduled). Meanwhile its callers retry against a
dead address: their channels' reconnection, backing off from 0.1 s to its 1 s cap
(lexio_common.grpc_channel) in about 1.6 s, and the engine's watch of the lexicon's health
(again 0.2, 0.4, 0.8 s after it breaks). No log line at info or above and no metric shows those
tries, so only the outage's length makes them happen; none of them may log an error. What the
callers do show of the outage is waited for besides (_until_the_outage_is_seen)."""


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


def _logged_since(service: Service, offset: int) -> list[dict[str, Any]]:
    """The JSON lines ``service`` logged from byte ``offset`` of its log on (a line still being
    written is left for the next look)."""
    with service.log_path.open("rb") as log:
        log.seek(offset)
        text = log.read().decode(errors="replace")
    entries = []
    for line in text.splitlines():
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return entries


def _log_line(service: Service, offset: int, **fields: object) -> Callable[[], tuple[bool, str]]:
    """A sign of the outage: ``service`` logged a line with these ``fields`` since ``offset``."""

    def seen() -> tuple[bool, str]:
        entries = _logged_since(service, offset)
        found = any(all(e.get(k) == v for k, v in fields.items()) for e in entries)
        alike = [e for e in entries if e.get("msg") == fields.get("msg")]
        return found, f"{service.name} logged {len(entries)} lines since, these alike: {alike}"

    return seen


def _lexio_offered(lobby: Service, offered: bool) -> Callable[[], tuple[bool, str]]:
    """A sign: the lobby, asked now (``ListGames``: it asks the engine's health, which follows
    the lexicon's), says whether Lexio can be offered. What a newcomer's home page shows."""

    def seen() -> tuple[bool, str]:
        with grpc.insecure_channel(lobby.address) as channel:
            reply = lobby_pb2_grpc.LobbyStub(channel).ListGames(
                lobby_pb2.ListGamesRequest(), timeout=5
            )
        games = {game.name: game.available for game in reply.games}
        return games.get("lexio") is offered, f"the lobby offers {games}"

    return seen


def _lobby_closes_refused(gateway: Service) -> float:
    """The gateway's CloseTable calls to the lobby answered ``unavailable`` so far."""
    return sum(
        sample.value
        for family in text_string_to_metric_families(http_text(gateway.metrics_url))
        for sample in family.samples
        if sample.name == "lexio_gateway_lobby_call_seconds_count"
        and sample.labels == {"rpc": "CloseTable", "outcome": "unavailable"}
    )


def _until_the_outage_is_seen(
    signs: dict[str, Callable[[], tuple[bool, str]]], killed: float, timeout: float = 20.0
) -> None:
    """Until every caller of the killed service shows that it saw it go (each of ``signs``),
    then until the outage has lasted OUTAGE_SECONDS."""
    deadline = time.monotonic() + timeout
    while True:
        looked = {what: sign() for what, sign in signs.items()}
        missing = {what: shown for what, (ok, shown) in looked.items() if not ok}
        if not missing:
            break
        assert time.monotonic() < deadline, f"not seen {timeout} s after the kill: {missing}"
        time.sleep(0.05)
    # The rest of the outage is its length, the scenario's (see OUTAGE_SECONDS), not a wait
    # for something to happen: that was waited for above.
    time.sleep(max(0.0, killed + OUTAGE_SECONDS - time.monotonic()))


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
                await answered_despite_unavailable(lambda: clients[0].create("Ana"))  # noqa: B023
                code = clients[0].table["code"]
                await answered_despite_unavailable(
                    lambda: clients[1].join(code, "Bruno")  # noqa: B023
                )
                await started_table(clients)

        loop.run(seated(), timeout=120)
        gateway, engine, lobby = stack["gateway"], stack["engine"], stack["lobby"]
        for victim in ("engine", "lexicon"):
            offsets = {name: s.log_path.stat().st_size for name, s in stack.services.items()}
            killed = 0.0

            async def killed_under_moves(victim: str) -> None:
                """Every table moves at once and the victim dies under them: each move is
                answered (it was done in time) or refused ``unavailable`` with nothing
                changed."""
                nonlocal killed
                befores = [dict(to_play(t).view) for t in tables]
                moves = [asyncio.create_task(_try_a_move(t, seed)) for seed, t in enumerate(tables)]
                await asyncio.sleep(0.01)
                stack[victim].kill()
                killed = time.monotonic()
                for table, before, answered in zip(
                    tables, befores, await asyncio.gather(*moves), strict=True
                ):
                    if not answered:
                        assert to_play(table).view == before

            loop.run(killed_under_moves(victim), timeout=60)
            # Its callers saw it go: the stream to it broke (one warning, as docs/operations.md
            # says), the engine's health followed the lexicon's, and the lobby no longer
            # offers the game.
            if victim == "engine":
                broke = _log_line(
                    gateway, offsets["gateway"], msg="stream ended", stream="lexio-Act"
                )
                signs = {"the gateway's engine stream broke": broke}
            else:
                lexicon_away = _log_line(
                    engine,
                    offsets["engine"],
                    msg="lexicon readiness changed",
                    lexicon_serving=False,
                )
                signs = {"the engine saw the lexicon away": lexicon_away}
            signs["the lobby no longer offers Lexio"] = _lexio_offered(lobby, False)
            _until_the_outage_is_seen(signs, killed)
            stack.start((victim,))
            for seed, table in enumerate(tables):
                loop.run(
                    answered_despite_unavailable(functools.partial(_a_move, table, seed)),
                    timeout=60,
                )

        offset = gateway.log_path.stat().st_size
        refused = _lobby_closes_refused(gateway)
        lobby.kill()
        killed = time.monotonic()
        clients = tables[0]
        loop.run(pass_to_the_end(clients), timeout=60)
        # The gateway saw the lobby go: its check of the lobby's health says so, and the
        # finished table's close was refused, then refused again after its backoff (1 s): the
        # to-do outlives a failed try.
        _until_the_outage_is_seen(
            {
                "the gateway's lobby check": _log_line(
                    gateway, offset, msg="lobby readiness changed", ready=False
                ),
                "the gateway's warning": _log_line(
                    gateway, offset, msg="lobby away: finished tables will close later"
                ),
                "the close tried twice": lambda: (
                    (tried := _lobby_closes_refused(gateway) - refused) >= 2,
                    f"{tried} CloseTable calls refused as unavailable",
                ),
            },
            killed,
        )
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
