"""Faults and out-of-range numbers (issue 23): each answers as docs/protocol.md says, changes
nothing, and leaves the table in a state from which play and delivery go on correctly.

1. Coordinates beyond int32 in an action: ``bad_action`` (both games), not ``internal``.
2. Option integers beyond int64 at ``create``: ``invalid_option``, not ``internal``.
   (And a JSON escape of half a character, ``"\\ud800"``, anywhere in a frame: ``bad_json``.)
3. A seat resuming while the engine is down: ``welcome``, ``table``, then ``unavailable``; its
   view follows as soon as the engine is back, without the client asking again.
4. Then every event reaches it once, in order, whatever happens meanwhile.
5. A game that ends while the lobby is down closes in the lobby once it is back, also after
   its gateway stopped meanwhile (another replica on Redis, the next start on SQLite).

Every test runs on both stores (tests/conftest.py). Services are real: the engine and the
lobby these tests stop and start again are their own, on ports of their own.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
from gateway_play import pass_to_the_end, started_game, to_play
from hypothesis import given, settings
from hypothesis import strategies as st
from lexio_testing import (
    SHARED_LOOP_READINESS_TIMEOUT,
    GatewayFactory,
    GatewayHandle,
    LoopThread,
    Restartable,
    eventually,
    restartable_engine,
    site_games,
    until_closed_in_the_lobby,
)
from mishqaq_play import PASS, mishqaq_table, to_move

from lexio_client import GatewayClient, ServerError
from lexio_common.grpc_service import RunningServer
from lexio_engine.server import RunningEngine
from lexio_gateway.games import GameAdapter, GameTable, build_adapter
from lexio_gateway.games.contract import BadActionError
from lexio_gateway.lobby_client import INT64_MAX, INT64_MIN, LobbyError, _options_pb
from lexio_lobby.server import DEFAULT_GAMES as LOBBY_GAMES
from lexio_lobby.server import LobbyConfig, RunningLobby, start_lobby

GAMES = ("lexio", "mishqaq")
#: The protocol's bounds of a cell's ``row`` and ``col`` (docs/protocol.md: 32-bit integers).
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
BEYOND_INT32 = (2**31, -(2**31) - 1, 2**63, 10**31)
BEYOND_INT64 = (2**63, -(2**63) - 1, 2**64, 10**31)


@pytest.fixture
def own_engine(loop_thread: LoopThread, lexicon_server: RunningServer) -> Iterator[Restartable]:
    engine = restartable_engine(loop_thread, f"127.0.0.1:{lexicon_server.port}")
    yield engine
    engine.close()


@pytest.fixture
def own_lobby(
    loop_thread: LoopThread, engine_server: RunningEngine, tmp_path: Path
) -> Iterator[Restartable]:
    def start(port: int) -> Any:
        config = LobbyConfig(
            host="127.0.0.1",
            port=port,
            metrics_port=-1,
            db_path=tmp_path / "own-lobby.sqlite3",
            games=site_games(f"127.0.0.1:{engine_server.port}", names=GAMES),
            readiness_cache=0.0,
            readiness_timeout=SHARED_LOOP_READINESS_TIMEOUT,
        )
        return start_lobby(config)

    lobby = Restartable(loop_thread, start)
    yield lobby
    lobby.close()


@asynccontextmanager
async def _table(game: str, url: str | Sequence[str]) -> AsyncIterator[list[GatewayClient]]:
    if game == "lexio":
        async with started_game(url, ["Ana", "Bruno"]) as clients:
            yield clients
    else:
        async with mishqaq_table(url) as (host, guest):
            yield [host, guest]


def _mover(game: str, clients: Sequence[GatewayClient]) -> GatewayClient:
    return to_play(clients) if game == "lexio" else to_move(clients)


def _waiting(game: str, clients: Sequence[GatewayClient]) -> GatewayClient:
    mover = _mover(game, clients)
    return next(c for c in clients if c is not mover)


async def _pass(game: str, clients: Sequence[GatewayClient]) -> int:
    """The seat to move passes, retried while the engine is still coming back; its ack's seq."""
    mover = _mover(game, clients)
    deadline = time.monotonic() + 20
    while True:
        try:
            ack = await mover.act(PASS)
            return int(ack["seq"])
        except ServerError as e:
            assert e.code == "unavailable", e.frame
            assert time.monotonic() < deadline, "the engine never came back"
            await asyncio.sleep(0.1)


def _public(view: dict[str, Any]) -> dict[str, Any]:
    """A view without what moves by itself (al-Mishqaq's banks and its server instant)."""
    return {k: v for k, v in view.items() if "bank" not in k and k not in ("now", "flag_at")}


# 1, 2 and the lone surrogate: numbers and text that protobuf cannot hold --------------------


@pytest.mark.parametrize("number", BEYOND_INT32)
def test_coordinates_beyond_int32_are_bad_action_and_change_nothing(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    two_games_lobby: RunningLobby,
    number: int,
) -> None:
    gateway = gateway_factory(lobby_address=f"127.0.0.1:{two_games_lobby.port}")
    mishqaq_actions = [
        {"swap": {"row": number, "col": 1}},
        {"swap": {"row": 1, "col": number, "tile": "R"}},
        {"place": {"tiles": [{"row": number, "col": 1, "tile": "C"}]}},
        {
            "place": {
                "tiles": [
                    {"row": 10, "col": 1, "tile": "C"},
                    {"row": 10, "col": number, "tile": "A"},
                ]
            }
        },
    ]
    lexio_actions = [
        {"place": {"tiles": [{"row": number, "col": 6, "letter": "A"}]}},
        {"place": {"tiles": [{"row": 6, "col": number, "letter": "A", "blank": True}]}},
    ]

    async def scenario() -> None:
        for game, actions in (("mishqaq", mishqaq_actions), ("lexio", lexio_actions)):
            async with _table(game, gateway.url) as clients:
                mover = _mover(game, clients)
                before = _public(mover.view)
                for action in actions:
                    # The exact frame: the number as JSON text, never through a float.
                    text = '{"type":"act","id":"x","action":' + _json(action) + "}"
                    answer = mover._expect(lambda f: f.get("id") == "x")
                    await mover.send_raw(text)
                    reply = await asyncio.wait_for(answer, 10)
                    assert reply == {"type": "error", "id": "x", "code": "bad_action"}, reply
                assert _public(mover.view) == before
                await mover.wait_view(await _pass(game, clients))  # the game goes on

    loop_thread.run(scenario(), timeout=60)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def test_option_integers_beyond_int64_are_invalid_option(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, two_games_lobby: RunningLobby
) -> None:
    gateway = gateway_factory(lobby_address=f"127.0.0.1:{two_games_lobby.port}")

    async def scenario() -> None:
        async with GatewayClient.connect(gateway.url) as ana:
            creates = (
                [("mishqaq", {"latin_minutes": n}) for n in (*BEYOND_INT64, 2**63 - 1)]
                + [("lexio", {"x": n}) for n in BEYOND_INT64]
                + [("mishqaq", {"arabic_minutes": 30, "latin_minutes": -(2**63) - 1})]
            )
            for game, options in creates:
                text = (
                    '{"type":"create","id":"c","name":"Ana","game":"' + game + '","options":'
                    + _json(options) + "}"
                )  # fmt: skip
                answer = ana._expect(lambda f: f.get("id") == "c")
                await ana.send_raw(text)
                reply = await asyncio.wait_for(answer, 10)
                assert reply == {"type": "error", "id": "c", "code": "invalid_option"}, options
            assert ana.token is None  # no table was opened
            await ana.create("Ana", game="mishqaq", options={"latin_minutes": 25})  # still free

    loop_thread.run(scenario(), timeout=60)


@pytest.mark.parametrize(
    "text",
    [
        r'{"type":"lookup","id":"\ud800","code":"K7QF3-XMP9R"}',
        r'{"type":"create","id":"c","name":"Ana\udfff"}',
        r'{"type":"create","id":"c","name":"Ana","game":"mishqaq","options":{"\ud83d":1}}',
        r'{"type":"act","id":"a","action":{"place":{"tiles":[{"row":10,"col":1,"tile":"\udc00"}]}}}',
        r'{"type":"act","id":"a","action":{"swap":{"row":10,"col":1,"tile":"\ud800"}}}',
    ],
)
def test_an_escaped_half_character_is_bad_json_and_the_connection_goes_on(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    two_games_lobby: RunningLobby,
    text: str,
) -> None:
    gateway = gateway_factory(lobby_address=f"127.0.0.1:{two_games_lobby.port}")

    async def scenario() -> None:
        async with mishqaq_table(gateway.url) as (host, guest):
            mover = to_move([host, guest])
            before = _public(mover.view)
            answer = mover._expect(lambda f: f["type"] == "error")
            await mover.send_raw(text)
            reply = await asyncio.wait_for(answer, 10)
            assert reply == {"type": "error", "code": "bad_json", "reason": "text"}, reply
            assert _public(mover.view) == before
            assert not mover.closed.is_set()
            await mover.wait_view(await _pass("mishqaq", [host, guest]))

    loop_thread.run(scenario(), timeout=60)


EDGES = sorted(
    {
        edge + delta
        for edge in (0, 2**31, -(2**31), 2**32, 2**63, -(2**63), 2**64)
        for delta in (-1, 0, 1)
    }
)
"""The integers at and beyond the int32, uint32, int64 and uint64 edges."""
INTEGERS = st.sampled_from(EDGES) | st.integers(min_value=-(10**31), max_value=10**31)


def _numeric_fields(n: int) -> list[tuple[str, dict[str, Any]]]:
    """Every numeric field of every action of both games, holding ``n``. A placement's second
    tile is on the next row, so that no ``n`` puts two tiles on one cell (an action the engine
    cannot state either, whatever its numbers)."""
    place = {"row": 10, "col": 1, "tile": "C"}
    letter = {"row": 6, "col": 6, "letter": "A"}
    return [
        ("mishqaq", {"swap": {"row": n, "col": 1}}),
        ("mishqaq", {"swap": {"row": 1, "col": n, "tile": "R"}}),
        ("mishqaq", {"place": {"tiles": [{**place, "row": n}]}}),
        ("mishqaq", {"place": {"tiles": [place, {**place, "row": 11, "col": n}]}}),
        ("lexio", {"place": {"tiles": [{**letter, "row": n}]}}),
        ("lexio", {"place": {"tiles": [letter, {**letter, "row": 7, "col": n, "blank": True}]}}),
    ]


_NOW = 1_000_000.0
"""The instant of every call of the adapters' tables below: no clock falls due."""


@pytest.fixture(scope="module")
def adapters(
    loop_thread: LoopThread, engine_server: RunningEngine
) -> Iterator[Mapping[str, tuple[GameAdapter, GameTable]]]:
    """Each game's adapter, as the gateway builds it, on the real engine, with a new table."""

    async def built(channel: grpc.aio.Channel) -> dict[str, tuple[GameAdapter, GameTable]]:
        tables: dict[str, tuple[GameAdapter, GameTable]] = {}
        for game in GAMES:
            adapter = build_adapter(game, channel, 5.0, {})
            step = await adapter.start(2, {}, seed=1, now=_NOW)
            tables[game] = (adapter, GameTable(step.state, clock=step.clock))
        return tables

    channel = loop_thread.run(_channel(f"127.0.0.1:{engine_server.port}"))
    try:
        yield loop_thread.run(built(channel), timeout=30)
    finally:
        loop_thread.run(channel.close())


async def _channel(address: str) -> grpc.aio.Channel:
    return grpc.aio.insecure_channel(address)  # on the loop that uses it


@settings(max_examples=300, deadline=None)
@given(INTEGERS)
def test_every_numeric_field_of_every_action_takes_any_integer_or_refuses_it(
    loop_thread: LoopThread, adapters: Mapping[str, tuple[GameAdapter, GameTable]], n: int
) -> None:
    """An integer an ``int32`` holds reaches the engine (the rules refuse a cell off the
    board, ``off_board``); any other is ``bad_action``: never an exception of protobuf's.
    Through each game's adapter to the real engine, which reads the actions now."""

    async def act(game: str, action: dict[str, Any]) -> None:
        adapter, table = adapters[game]
        await adapter.act(table, 0, action, _NOW)

    for game, action in _numeric_fields(n):
        if INT32_MIN <= n <= INT32_MAX:
            loop_thread.run(act(game, action))
        else:
            with pytest.raises(BadActionError):
                loop_thread.run(act(game, action))


@settings(max_examples=300, deadline=None)
@given(INTEGERS)
def test_every_option_takes_any_integer_or_is_invalid_option(n: int) -> None:
    """Every option of both games (and a name no game has) with any integer: the lobby's
    message, or ``invalid_option`` when int64 cannot hold it (the lobby judges the rest)."""
    names = [option.name for game in LOBBY_GAMES for option in game.options] + ["x"]
    for name in names:
        if INT64_MIN <= n <= INT64_MAX:
            assert _options_pb({name: n})[name].integer == n
        else:
            with pytest.raises(LobbyError) as refused:
                _options_pb({name: n})
            assert refused.value.code == "invalid_option"


# 3 and 4: a seat that comes back while the engine is away ---------------------------------


def _catch_ups_postponed(records: Sequence[logging.LogRecord], table_id: str) -> int:
    """How many of ``records`` say a catch-up of the table waits for its engine or store."""
    return sum(
        1
        for r in records
        if r.getMessage() == "catch-up postponed" and getattr(r, "table_id", None) == table_id
    )


def _caught_up_once(frames: Sequence[dict[str, Any]], known: int, final: int) -> None:
    """``frames`` (what a seat got after resuming from ``known``) bring it to ``final``: each
    event once and in order, a view only of what it has, and a view or snapshot last."""
    delivered = [f for f in frames if f["type"] in ("event", "view", "snapshot")]
    trace = [(f["type"], f["seq"]) for f in delivered]
    for frame in delivered:
        if frame["type"] == "event":
            assert frame["seq"] == known + 1, trace
            known = frame["seq"]
        elif frame["type"] == "snapshot":
            assert frame["seq"] >= known, trace
            known = frame["seq"]
        else:
            assert frame["seq"] == known, trace
    assert known == final, trace
    assert delivered and delivered[-1]["type"] in ("view", "snapshot"), trace


@pytest.mark.parametrize(
    "case",
    [
        (game, resume_with_last_seq, then)
        for game in GAMES
        for resume_with_last_seq, then in (
            (True, "nobody_moves"),
            (True, "the_other_passes"),
            (False, "the_other_passes"),
        )
    ],
    ids=lambda case: "-".join(map(str, case)),
)
def test_a_seat_resuming_while_the_engine_is_down_gets_unavailable_then_each_event_once(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    two_games_lobby: RunningLobby,
    own_engine: Restartable,
    case: tuple[str, bool, str],
    *,
    caplog: pytest.LogCaptureFixture,
) -> None:
    game, resume_with_last_seq, then = case
    gateway = gateway_factory(
        lobby_address=f"127.0.0.1:{two_games_lobby.port}", engine_address=own_engine.address
    )
    caplog.set_level(logging.DEBUG, logger="lexio_gateway.room")

    async def scenario() -> None:
        async with _table(game, gateway.url) as clients:
            table_id = clients[0].table["table_id"]
            await _pass(game, clients)
            seat = _waiting(game, clients)  # the other moves next
            for client in clients:
                await client.wait_view(1)
            await seat.drop()
            last_seq = seat.seq
            if not resume_with_last_seq:
                seat.seq = -1  # a client that lost everything: hello with the token only
            await own_engine.stop()
            first, logged = seat.received, len(caplog.records)
            await seat.open()  # lexio_client returns once the catch-up or an error came
            # The room tries again by itself (0.25 s later at first). Once a try has failed
            # too, the engine still away, whatever the tries sent the seat was sent (a try is
            # all or nothing: nothing, here), and the seat's pong comes after it.
            await eventually(
                lambda: _catch_ups_postponed(caplog.records[logged:], table_id) >= 2,
                "the seat's catch-up postponed at its resume, then again at the room's next try",
            )
            await seat.sync()
            resumed = seat.frames[first:]
            kinds = [f["type"] for f in resumed]
            assert kinds[:2] == ["welcome", "table"], kinds
            assert {"type": "error", "code": "unavailable"} in resumed, resumed
            assert not {"event", "view", "snapshot"} & set(kinds), kinds

            await own_engine.start()
            final = last_seq
            if then == "the_other_passes":
                final = await _pass(game, clients)
            # Without asking again, the seat is caught up as soon as the engine answers.
            await seat.wait_for(
                lambda f: f["type"] in ("view", "snapshot") and f["seq"] == final, timeout=20
            )
            mover = _mover(game, clients)
            assert seat.log == mover.log
            assert seat.seq == mover.seq == final
            assert seat.view["board"] == mover.view["board"]
            assert seat.view["turn"] == mover.view["turn"]
            # What could send the seat something twice: the room's tries, which end once no
            # seat is behind, and the commits' telling, both under the table's lock. Once the
            # tries are over, the next pass's event and view come after all of it.
            room = gateway.hub.rooms[table_id]
            await eventually(
                lambda: not room.catching_up,
                "the room's tries to catch seats up over, no seat behind",
            )
            # Play goes on, and the seat hears it as every seat does.
            after = await _pass(game, clients)
            for client in clients:
                await client.wait_view(after)
            _caught_up_once(seat.frames[first:], last_seq if resume_with_last_seq else -1, after)
            assert clients[0].log == clients[1].log

    loop_thread.run(scenario(), timeout=90)


# 5: a game that ends while the lobby is away -----------------------------------------------


async def _end(game: str, clients: Sequence[GatewayClient]) -> None:
    if game == "lexio":
        await pass_to_the_end(clients)
    else:
        host = clients[0]
        ack = await host.act({"resign": {}})
        for client in clients:
            await client.wait_view(ack["seq"])
    assert all(c.view.get("ending") for c in clients)


@pytest.mark.parametrize(
    "case",
    [(game, its_gateway) for game in GAMES for its_gateway in ("stays", "stops")],
    ids="-".join,
)
def test_a_game_that_ends_while_the_lobby_is_down_closes_there_once_it_is_back(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    own_lobby: Restartable,
    gateway_backend: str,
    case: tuple[str, str],
    *,
    caplog: pytest.LogCaptureFixture,
) -> None:
    game, its_gateway = case
    gateways: list[GatewayHandle] = [gateway_factory(lobby_address=own_lobby.address)]
    if its_gateway == "stops" and gateway_backend == "redis":
        # Another replica, up before the first stops: it must take over the closing.
        gateways.append(gateway_factory(lobby_address=own_lobby.address))
    caplog.set_level(logging.WARNING, logger="lexio_gateway.hub")

    def tried_and_failed() -> bool:
        # What a gateway logs when the lobby does not answer its close (the first time while
        # the lobby stays away); this test's store holds no other finished table.
        return any(
            r.getMessage() == "lobby away: finished tables will close later" for r in caplog.records
        )

    async def end_the_game() -> str:
        async with _table(game, gateways[0].url) as clients:
            await own_lobby.stop()
            await _end(game, clients)
            # A game's end wakes its gateway's closing at once: it tries, and fails.
            await eventually(
                tried_and_failed, "a try to close the finished table in the stopped lobby"
            )
            return str(clients[0].table["code"])

    async def closed_once_the_lobby_is_back(code: str) -> None:
        await own_lobby.start()
        async with GatewayClient.connect(gateways[-1].url) as someone:
            await until_closed_in_the_lobby(someone, code)

    code = loop_thread.run(end_the_game(), timeout=60)
    if its_gateway == "stops":
        loop_thread.run(gateways[0].runner.cleanup())
        if gateway_backend == "sqlite":  # the next start, on the same file
            gateways.append(gateway_factory(lobby_address=own_lobby.address))
    loop_thread.run(closed_once_the_lobby_is_back(code), timeout=60)
