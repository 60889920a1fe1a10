"""A finished game's review and record over HTTP (issue 26), through the real gateway on both
stores: what each player gets, what every refusal says (and only that), the records' retention,
the stores' migrations, and hidden information over many random games."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis
from gateway_play import (
    bot,
    pass_to_the_end,
    play_to_the_end,
    server_error,
    started_game,
    to_play,
)
from hidden_info import strings_in
from lexio_testing import GatewayHandle, LoopThread, eventually, free_port, start_gateway
from mishqaq_play import _tiles_outside_the_open_record, mishqaq_table, racer, side, to_move

from lexio.engine.v1 import engine_pb2 as pb
from lexio_client import GatewayClient, ServerError
from lexio_engine.metrics import CALLS as ENGINE_CALLS
from lexio_engine.server import RunningEngine
from lexio_gateway.app import create_app
from lexio_gateway.config import GameEndpoint, GatewayConfig
from lexio_gateway.metrics import REVIEW_OUTCOMES, REVIEW_SECONDS
from lexio_gateway.records import SeatToken, TableStatus
from lexio_gateway.redis_layout import PREFIX, RedisLayout
from lexio_gateway.redis_store import (
    REPLY_TTL_SECONDS,
    SCHEMA_KEY,
    RedisTableStore,
)
from lexio_gateway.room import token_hash
from lexio_gateway.state import HUB
from lexio_gateway.store import SqliteTableStore
from lexio_lobby.server import RunningLobby

DAY = 86400.0
RETENTION_DAYS = 30.0
SITE = RedisLayout(cluster=False).all_indexes[0]
"""The lists of one Redis (a cluster has one per bucket)."""


class Clock:
    """The gateway's clock, which a test moves forward by days."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


@dataclass
class Gateway:
    handle: GatewayHandle
    clock: Clock
    backend: str

    @property
    def url(self) -> str:
        return self.handle.url

    @property
    def hub(self) -> Any:
        return self.handle.runner.app[HUB]


@pytest.fixture
def gateway(
    loop_thread: LoopThread,
    engine_server: RunningEngine,
    two_games_lobby: RunningLobby,
    tmp_path: Path,
    *,
    gateway_backend: str,
    store_url: str,
) -> Iterator[Gateway]:
    """A real gateway serving both games with a clock the test moves (lexio_testing's
    start_gateway takes no clock), on SQLite or on a real Redis."""
    redis_url = store_url
    config = GatewayConfig(
        host="127.0.0.1",
        port=0,
        metrics_port=-1,
        engine_address=f"127.0.0.1:{engine_server.port}",
        lobby_address=f"127.0.0.1:{two_games_lobby.port}",
        games=(GameEndpoint("lexio"), GameEndpoint("mishqaq")),
        db_path=tmp_path / "gateway.sqlite3",
        heartbeat=5.0,
        redis_url=redis_url,
        record_retention_days=RETENTION_DAYS,
    )
    clock = Clock()

    async def start() -> GatewayHandle:
        runner = aiohttp.web.AppRunner(
            create_app(config, clock=clock, seeds=lambda _t: 7), handle_signals=False
        )
        await runner.setup()
        site = aiohttp.web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        host, port = runner.addresses[0][:2]
        return GatewayHandle(runner, f"http://{host}:{port}", config)

    handle = loop_thread.run(start())
    yield Gateway(handle, clock, gateway_backend)
    loop_thread.run(handle.runner.cleanup())


@dataclass
class Answer:
    status: int
    headers: Any
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


async def get(
    url: str, table_id: str, what: str, authorization: str | None, **headers: str
) -> Answer:
    sent = dict(headers)
    if authorization is not None:
        sent["Authorization"] = authorization
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{url}/api/tables/{table_id}/{what}", headers=sent) as reply,
    ):
        return Answer(reply.status, reply.headers, await reply.read())


def bearer(client: GatewayClient) -> str:
    assert client.token
    return f"Bearer {client.token}"


def sync_redis(url: str) -> Any:
    """A plain client for looking into the store (its replies are bytes)."""
    return redis.Redis.from_url(url)


async def settled(gateway: Gateway) -> None:
    """Until the finished tables are closed in the lobby: the gateway's own background work
    after a game's end, which changes the store whatever a request does."""
    deadline = time.monotonic() + 20
    while await gateway.hub.store.lobby_closes_due(float("inf"), 10):
        assert time.monotonic() < deadline, "a finished table is still to close in the lobby"
        await asyncio.sleep(0.05)


def store_contents(gateway: Gateway) -> Any:
    """Everything the store holds, to tell that a request changed nothing."""
    if gateway.backend == "sqlite":
        db = sqlite3.connect(gateway.handle.config.db_path)
        try:
            return {
                table: db.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
                for table in ("tables", "events", "tokens", "replies", "lobby_closes")
            }
        finally:
            db.close()
    client = sync_redis(gateway.handle.config.redis_url)
    try:
        contents = {}
        for key in sorted(client.keys(f"{PREFIX}*")):
            kind = client.type(key).decode()
            readers = {
                "string": client.get,
                "hash": lambda k: sorted(client.hgetall(k).items()),
                "list": lambda k: client.lrange(k, 0, -1),
                "set": lambda k: sorted(client.smembers(k)),
                "zset": lambda k: client.zrange(k, 0, -1, withscores=True),
            }
            contents[key] = readers[kind](key)
        return contents
    finally:
        client.close()


def replay(record: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    """``lexio replay`` on the downloaded file, as a player would run it."""
    path = tmp_path / f"record-{time.monotonic_ns()}.json"
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    lexio = Path(sys.executable).with_name("lexio")
    done = subprocess.run(
        [str(lexio), "replay", str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert isinstance(result, dict)
    return result


FILENAME = re.compile(r"(lexio|mishqaq)-\d{4}-\d{2}-\d{2}-[A-Z0-9-]+-[1-4]\.json")


async def check_review_and_record(
    gateway: Gateway, client: GatewayClient, game: str, tmp_path: Path
) -> dict[str, Any]:
    """One player's review and record, as the protocol documents them; the review back."""
    table_id = client.table["table_id"]
    seat = client.table["you"]
    answer = await get(gateway.url, table_id, "review", bearer(client))
    assert answer.status == 200, answer.body
    assert answer.headers["Cache-Control"] == "no-store"
    assert "Authorization" in answer.headers["Vary"]
    assert answer.headers["Content-Encoding"] == "gzip"  # aiohttp's client accepts it
    review = answer.json()
    assert set(review) == {
        "game", "table_id", "seat", "players", "ended_at", "expires_at", "record_format",
        "filename", "record", "entries", "steps",
    }  # fmt: skip
    assert (review["game"], review["table_id"], review["seat"]) == (game, table_id, seat)
    assert review["players"] == [s["name"] for s in client.table["seats"]]
    assert abs(review["ended_at"] - gateway.clock()) < 120
    assert review["expires_at"] == review["ended_at"] + RETENTION_DAYS * DAY
    assert review["record_format"] == review["record"]["format"] == f"{game}-record/1"
    assert FILENAME.fullmatch(review["filename"]), review["filename"]
    assert review["filename"].endswith(f"-{seat + 1}.json")
    # The entries are the log every seat received, one event frame each.
    assert review["entries"] == client.log
    assert len(review["steps"]) == len(review["entries"]) + 1
    last = review["steps"][-1]
    assert last["ending"] == client.view["ending"]
    assert last["rack"] == client.view["rack"]

    download = await get(gateway.url, table_id, "record", bearer(client))
    assert download.status == 200
    assert download.headers["Content-Type"].startswith("application/json")
    assert download.headers["Content-Disposition"] == (
        f'attachment; filename="{review["filename"]}"'
    )
    assert download.headers["Cache-Control"] == "no-store"
    assert download.json() == review["record"]
    plain = await get(
        gateway.url, table_id, "record", bearer(client), **{"Accept-Encoding": "identity"}
    )
    assert "Content-Encoding" not in plain.headers and plain.json() == review["record"]
    assert isinstance(review, dict)
    return review


# What each player gets ------------------------------------------------------------------


def test_each_player_reviews_and_downloads_a_finished_lexio_game_that_replays_to_its_scores(
    loop_thread: LoopThread, gateway: Gateway, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno", "Chloé"]) as clients:
            await play_to_the_end(clients, bot(3))
            await settled(gateway)
            before = store_contents(gateway)
            for client in clients:
                review = await check_review_and_record(gateway, client, "lexio", tmp_path)
                ending = client.view["ending"]
                replayed = replay(review["record"], tmp_path)
                assert replayed["ended"] is True
                assert replayed["final_scores"] == ending["final_scores"]
                assert replayed["winners"] == ending["winners"]
                # Each step is that seat's view: its own rack, the scores as they stood.
                assert all(step["seat"] == client.table["you"] for step in review["steps"])
            assert store_contents(gateway) == before

    loop_thread.run(scenario(), timeout=240)


def test_each_side_reviews_and_downloads_a_finished_mishqaq_game_that_replays_to_its_end(
    loop_thread: LoopThread, gateway: Gateway, tmp_path: Path
) -> None:
    players = {"latin": racer("fr", 1), "arabic": racer("ar", 2)}

    async def scenario() -> None:
        async with mishqaq_table(gateway.url) as clients:
            for _ in range(8):
                mover = to_move(clients)
                action = players[side(mover)].choose(mover.view) or {"pass_turn": {}}
                ack = await mover.act(action)
                for client in clients:
                    await client.wait_view(ack["seq"])
            ack = await clients[1].act({"resign": {}})
            for client in clients:
                await client.wait_view(ack["seq"])
            await settled(gateway)
            before = store_contents(gateway)
            for client in clients:
                review = await check_review_and_record(gateway, client, "mishqaq", tmp_path)
                ending = client.view["ending"]
                replayed = replay(review["record"], tmp_path)
                assert replayed["result"] == {"winner": ending["winner"], "cause": "resign"}
                assert all(step["side"] == side(client) for step in review["steps"])
            assert store_contents(gateway) == before

    loop_thread.run(scenario(), timeout=240)


# Refusals ---------------------------------------------------------------------------------


def test_each_refusal_says_its_code_and_nothing_else_and_changes_nothing(
    loop_thread: LoopThread, gateway: Gateway
) -> None:
    async def scenario() -> None:
        async with (
            started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno),
            started_game(gateway.url, ["Chloé", "Dani"]) as (chloe, dani),
        ):
            await pass_to_the_end([ana, bruno])  # Ana's table is over, Chloé's in play
            url, over, playing = gateway.url, ana.table["table_id"], chloe.table["table_id"]
            assert ana.token and chloe.token
            refusals = [
                (over, None, 401, "missing_token"),
                (over, "", 401, "missing_token"),
                (over, "Bearer", 401, "missing_token"),
                (over, "Bearer ", 401, "missing_token"),
                (over, f"Basic {ana.token}", 401, "missing_token"),
                (over, f"Bearer {ana.token} extra", 401, "missing_token"),
                (over, f"Bearer {'A' * 129}", 401, "missing_token"),
                (over, "Bearer not-a-token-this-gateway-gave", 403, "bad_token"),
                (over, bearer(chloe), 403, "bad_token"),  # a token of another table
                (playing, bearer(ana), 403, "bad_token"),  # the same, the other way round
                ("t_nothing", bearer(ana), 403, "bad_token"),
                (playing, bearer(chloe), 409, "game_not_over"),
                (playing, bearer(dani), 409, "game_not_over"),
            ]
            await settled(gateway)
            before = store_contents(gateway)
            for table_id, authorization, status, code in refusals:
                for what in ("review", "record"):
                    answer = await get(url, table_id, what, authorization)
                    assert (answer.status, answer.body) == (
                        status,
                        json.dumps({"error": code}).encode(),
                    ), (table_id, authorization, what)
                    assert answer.headers["Cache-Control"] == "no-store"
                    assert "Content-Disposition" not in answer.headers
            # Not over yet: an open table too (its host seated, nobody started).
            async with GatewayClient.connect(url) as eve:
                await eve.create("Eve")
                answer = await get(url, eve.table["table_id"], "review", bearer(eve))
                assert (answer.status, answer.json()) == (409, {"error": "game_not_over"})
                await settled(gateway)
                before = store_contents(gateway)
                # Past the retention, before any sweep: expired all the same.
                gateway.clock.offset = RETENTION_DAYS * DAY + 1
                for client in (ana, bruno):
                    for what in ("review", "record"):
                        answer = await get(url, over, what, bearer(client))
                        assert (answer.status, answer.json()) == (410, {"error": "record_expired"})
                assert store_contents(gateway) == before

    loop_thread.run(scenario(), timeout=120)


def test_a_lexio_game_stored_before_exchanges_were_kept_has_no_review(
    loop_thread: LoopThread, gateway: Gateway
) -> None:
    """A finished game whose state has exchanges but not the letters they gave back (stored
    before GameState.exchanged) cannot be replayed: 404 review_unavailable, not a wrong
    record."""

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            mover = to_play([ana, bruno])
            seq = mover.seq
            await mover.exchange(mover.view["rack"][:2])
            for client in (ana, bruno):
                await client.wait_view(seq + 1)
            await pass_to_the_end([ana, bruno])
            table_id = ana.table["table_id"]
            store = gateway.hub.store
            record = await store.get_table(table_id)
            assert record is not None and record.status is TableStatus.OVER
            state = pb.GameState.FromString(record.state)
            assert len(state.exchanged) == 1
            del state.exchanged[:]
            old = dataclasses.replace(
                record, version=record.version + 1, state=state.SerializeToString()
            )
            await store.save_table(old, record.version)
            await settled(gateway)
            before = store_contents(gateway)
            for what in ("review", "record"):
                answer = await get(gateway.url, table_id, what, bearer(bruno))
                assert (answer.status, answer.json()) == (404, {"error": "review_unavailable"})
            assert store_contents(gateway) == before

    loop_thread.run(scenario(), timeout=60)


@pytest.mark.parametrize("gateway_backend", ["redis"])
def test_without_its_engine_the_review_is_unavailable(
    loop_thread: LoopThread, gateway: Gateway
) -> None:
    """A second replica on the same Redis whose engine does not answer: 503 unavailable, and
    the first replica serves the same review."""
    config = dataclasses.replace(
        gateway.handle.config, engine_address=f"127.0.0.1:{free_port()}", rpc_timeout=1.0
    )
    blind = loop_thread.run(start_gateway(config))
    try:

        async def scenario() -> None:
            async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
                await pass_to_the_end([ana, bruno])
                table_id = ana.table["table_id"]
                answer = await get(blind.url, table_id, "review", bearer(ana))
                assert (answer.status, answer.json()) == (503, {"error": "unavailable"})
                assert (await get(gateway.url, table_id, "review", bearer(ana))).status == 200

        loop_thread.run(scenario(), timeout=60)
    finally:
        loop_thread.run(blind.runner.cleanup())


# The records' retention ---------------------------------------------------------------------


def test_records_expire_after_the_retention_and_are_forgotten_after_twice_that(
    loop_thread: LoopThread, gateway: Gateway
) -> None:
    hub = gateway.hub
    retention = RETENTION_DAYS * DAY

    async def scenario() -> None:
        async with (
            started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno),
            started_game(gateway.url, ["Chloé", "Dani"]) as (chloe, _dani),
        ):
            await pass_to_the_end([ana, bruno])
            table_id, other = ana.table["table_id"], chloe.table["table_id"]
            assert (await get(gateway.url, table_id, "review", bearer(ana))).status == 200
            stored = await hub.store.get_table(table_id)
            assert stored is not None
            assert stored.status is TableStatus.OVER and stored.ended_at is not None

            # Just before the retention's end: nothing expires.
            gateway.clock.offset = stored.ended_at + retention - 5 - time.time()
            assert (await hub.expire_finished_records(retention)).expired == []
            assert (await get(gateway.url, table_id, "review", bearer(bruno))).status == 200

            gateway.clock.offset = stored.ended_at + retention + 1 - time.time()
            done = await hub.expire_finished_records(retention)
            assert done.expired == [table_id] and done.purged == []
            assert table_id not in hub.rooms or not hub.rooms[table_id].connections
            tomb = await hub.store.get_table(table_id)
            assert tomb.status is TableStatus.EXPIRED and tomb.ended_at == stored.ended_at
            assert (tomb.state, tomb.players, tomb.code, tomb.seq) == (b"", [], "", 0)
            assert await hub.store.events_after(table_id, 0, 100) == []
            assert_tombstone_only(gateway, table_id)
            for client in (ana, bruno):
                for what in ("review", "record"):
                    answer = await get(gateway.url, table_id, what, bearer(client))
                    assert (answer.status, answer.json()) == (410, {"error": "record_expired"})
            # The WebSocket's resume: the seat is simply gone.
            with server_error("bad_token"):
                async with GatewayClient.connect(gateway.url, token=bruno.token):
                    pass
            assert table_id not in hub.rooms
            # The table in play is untouched.
            in_play = await hub.store.get_table(other)
            assert in_play is not None and in_play.status is TableStatus.STARTED

            gateway.clock.offset = stored.ended_at + 2 * retention + 1 - time.time()
            done = await hub.expire_finished_records(retention)
            assert done.expired == [] and done.purged == [table_id]
            assert await hub.store.get_table(table_id) is None
            assert await hub.store.find_token(token_hash(ana.token or "")) is None
            assert_nothing_left(gateway, table_id)
            answer = await get(gateway.url, table_id, "review", bearer(ana))
            assert (answer.status, answer.json()) == (403, {"error": "bad_token"})

    loop_thread.run(scenario(), timeout=120)


def assert_tombstone_only(gateway: Gateway, table_id: str) -> None:
    """In the store itself: no state, no event, no reply, no name of the expired table."""
    if gateway.backend == "sqlite":
        db = sqlite3.connect(gateway.handle.config.db_path)
        try:
            row = db.execute(
                "SELECT status, state, players, code FROM tables WHERE table_id = ?", (table_id,)
            ).fetchone()
            assert row == ("expired", b"", "[]", "")
            for table in ("events", "replies", "lobby_closes"):
                count = db.execute(f"SELECT count(*) FROM {table} WHERE table_id = ?", (table_id,))
                assert count.fetchone() == (0,), table
            names = db.execute("SELECT name FROM tokens WHERE table_id = ?", (table_id,))
            assert [n for (n,) in names] == ["", ""]
        finally:
            db.close()
        return
    client = sync_redis(gateway.handle.config.redis_url)
    try:
        assert not client.exists(f"{PREFIX}ev:{table_id}")
        # The actions' replies are not listed per table: they go by themselves, within
        # REPLY_TTL_SECONDS (7 days) of the action, before any retention of a week or more.
        for key in client.keys(f"{PREFIX}r:{table_id}:*"):
            assert 0 < client.ttl(key) <= REPLY_TTL_SECONDS
        fields = client.hgetall(f"{PREFIX}t:{table_id}")
        assert fields[b"state"] == b""
        meta = json.loads(fields[b"meta"])
        assert (meta["status"], meta["players"], meta["code"]) == ("expired", [], "")
        digests = client.smembers(f"{PREFIX}tk:{table_id}")
        assert len(digests) == 2
        for digest in digests:
            token = json.loads(client.get(f"{PREFIX}k:{digest.decode()}"))
            assert token[0] == table_id and token[2] == ""
            assert client.ttl(f"{PREFIX}k:{digest.decode()}") == -1  # the retention's to end
    finally:
        client.close()


def assert_nothing_left(gateway: Gateway, table_id: str) -> None:
    if gateway.backend == "sqlite":
        db = sqlite3.connect(gateway.handle.config.db_path)
        try:
            for table in ("tables", "events", "tokens", "replies", "lobby_closes"):
                count = db.execute(f"SELECT count(*) FROM {table} WHERE table_id = ?", (table_id,))
                assert count.fetchone() == (0,), table
        finally:
            db.close()
        return
    client = sync_redis(gateway.handle.config.redis_url)
    try:
        replies = f"{PREFIX}r:{table_id}:".encode()
        left = [
            k
            for k in client.keys(f"{PREFIX}*")
            if table_id.encode() in k and not k.startswith(replies)  # going: see above
        ]
        assert left == []
        for key in client.keys(f"{PREFIX}k:*"):
            assert json.loads(client.get(key))[0] != table_id
        for zset in (SITE.ended, SITE.expired, SITE.lobby_closes):
            assert client.zscore(zset, table_id) is None
    finally:
        client.close()


@pytest.mark.parametrize("gateway_backend", ["redis"])
def test_a_finished_games_tokens_outlive_their_ttl_on_redis_until_the_retention_ends(
    loop_thread: LoopThread, gateway: Gateway
) -> None:
    """Redis gives a seat token 30 days from when it was given; once the finished game's
    table is closed in the lobby (at once, by the replica whose commit ended it) its tokens
    are permanent, so a game that lasted long, or a retention longer than 30 days, still has
    its players' tokens until the retention deletes them."""

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            client = sync_redis(gateway.handle.config.redis_url)
            try:
                keys = [f"{PREFIX}k:{token_hash(c.token or '')}" for c in (ana, bruno)]
                assert all(client.ttl(k) > 0 for k in keys)
                await pass_to_the_end([ana, bruno])
                await eventually(lambda: [client.ttl(k) for k in keys] == [-1, -1], "kept", 10)
            finally:
                client.close()

    loop_thread.run(scenario(), timeout=60)


OLD_SQLITE_SCHEMA = """
CREATE TABLE tables (
    table_id TEXT PRIMARY KEY, game TEXT NOT NULL, code TEXT NOT NULL, status TEXT NOT NULL,
    version INTEGER NOT NULL, seq INTEGER NOT NULL, players TEXT NOT NULL, state BLOB NOT NULL,
    turn INTEGER NOT NULL DEFAULT -1, deadline REAL NOT NULL DEFAULT 0,
    turn_since REAL NOT NULL DEFAULT 0, rematch_code TEXT NOT NULL,
    rematch_table_id TEXT NOT NULL, clock TEXT, seats TEXT, options TEXT
);
CREATE INDEX tables_by_status ON tables (status);
CREATE TABLE events (
    table_id TEXT NOT NULL, seq INTEGER NOT NULL, entry TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE TABLE tokens (
    token_hash TEXT PRIMARY KEY, table_id TEXT NOT NULL, player_id TEXT NOT NULL,
    name TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE lobby_closes (table_id TEXT PRIMARY KEY, due REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE replies (
    table_id TEXT NOT NULL, player_id TEXT NOT NULL, action_id TEXT NOT NULL,
    reply TEXT NOT NULL, PRIMARY KEY (table_id, player_id, action_id)
) WITHOUT ROWID;
"""
"""The gateway's SQLite schema before tables stored when their game ended."""


def test_an_sqlite_file_from_before_end_instants_opens_and_its_finished_games_expire_later(
    loop_thread: LoopThread, tmp_path: Path
) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(OLD_SQLITE_SCHEMA)
    players = json.dumps([["p1", "Ana"], ["p2", "Bruno"]])
    for table_id, status in (("t_over", "over"), ("t_playing", "started")):
        db.execute(
            "INSERT INTO tables (table_id, game, code, status, version, seq, players, state, "
            "rematch_code, rematch_table_id, clock, seats, options) "
            "VALUES (?, 'lexio', 'ABCDE-FGHIJ', ?, 3, 1, ?, x'0102', '', '', 'null', '[2, 4]', "
            "'{}')",
            (table_id, status, players),
        )
        db.execute('INSERT INTO events VALUES (?, 1, \'{"kind": "pass"}\')', (table_id,))
        db.execute("INSERT INTO tokens VALUES (?, ?, 'p1', 'Ana')", (f"h_{table_id}", table_id))
    db.commit()
    db.close()
    upgraded = 1_000_000.0
    store = SqliteTableStore(path, clock=lambda: upgraded)

    async def scenario() -> None:
        over = await store.get_table("t_over")
        assert over is not None and over.ended_at == upgraded  # counted from the upgrade
        assert over.players[0].name == "Ana" and over.state == b"\x01\x02"
        playing = await store.get_table("t_playing")
        assert playing is not None and playing.ended_at is None
        nothing = await store.expire_finished(upgraded - 1, upgraded - 2, 10)
        assert (nothing.expired, nothing.purged) == ([], [])
        done = await store.expire_finished(upgraded + 1, upgraded - 2, 10)
        assert done.expired == ["t_over"]
        assert await store.events_after("t_over", 0, 10) == []
        assert await store.find_token("h_t_over") == SeatToken("t_over", "p1", "")
        assert len(await store.events_after("t_playing", 0, 10)) == 1
        done = await store.expire_finished(upgraded + 1, upgraded + 1, 10)
        assert done.purged == ["t_over"]
        assert await store.find_token("h_t_over") is None
        assert await store.get_table("t_playing") is not None

    loop_thread.run(scenario())
    loop_thread.run(store.close())
    # Opened again, nothing migrates twice: the end instant stays the upgrade's.
    again = SqliteTableStore(path, clock=lambda: upgraded + 99)
    playing = loop_thread.run(again.get_table("t_playing"))
    assert playing is not None and playing.ended_at is None
    loop_thread.run(again.close())


def test_redis_records_from_before_end_instants_migrate_once(
    loop_thread: LoopThread, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue("redis_server").url
    raw = sync_redis(url)
    meta = {
        "game": "lexio",
        "code": "ABCDE-FGHIJ",
        "seq": 1,
        "players": [["p1", "Ana"], ["p2", "Bruno"]],
        "clock": None,
        "seats": [2, 4],
        "options": {},
        "rematch_code": "",
        "rematch_table_id": "",
    }
    for table_id, status in (("t_over", "over"), ("t_playing", "started")):
        raw.hset(
            f"{PREFIX}t:{table_id}",
            mapping={"version": 3, "meta": json.dumps({**meta, "status": status}), "state": "s"},
        )
        raw.set(f"{PREFIX}k:h_{table_id}", json.dumps([table_id, "p1", "Ana"]), ex=3600)
    upgraded = 1_000_000.0

    async def scenario() -> None:
        store = RedisTableStore.from_url(url, clock=lambda: upgraded)
        try:
            assert (await store.expire_finished(upgraded - 1, upgraded - 2, 10)).expired == []
            over = await store.get_table("t_over")
            assert over is not None and over.ended_at == upgraded
            assert (await store.get_table("t_playing")).ended_at is None  # type: ignore[union-attr]
            assert raw.get(SCHEMA_KEY) == b"2"
            assert raw.zrange(SITE.ended, 0, -1, withscores=True) == [(b"t_over", upgraded)]
            assert raw.smembers(f"{PREFIX}tk:t_over") == {b"h_t_over"}
            assert raw.ttl(f"{PREFIX}k:h_t_over") == -1  # a finished game's: the retention's
            assert raw.ttl(f"{PREFIX}k:h_t_playing") > 0
            done = await store.expire_finished(upgraded + 1, upgraded - 2, 10)
            assert done.expired == ["t_over"]
            assert await store.find_token("h_t_over") == SeatToken("t_over", "p1", "")
            done = await store.expire_finished(upgraded + 1, upgraded + 1, 10)
            assert done.purged == ["t_over"]
            assert await store.find_token("h_t_over") is None
            assert not raw.exists(f"{PREFIX}t:t_over")
        finally:
            await store.close()

    loop_thread.run(scenario())
    raw.close()


# Hidden information over many games ------------------------------------------------------------


async def _lexio_turn(clients: list[GatewayClient], rng: random.Random, seed: int) -> None:
    """The seat to play exchanges now and then (while the bag allows it), else plays the bot's
    choice."""
    client = to_play(clients)
    seq = client.seq
    view = client.view
    action = bot(seed + seq).choose(view)
    if view["bag_count"] >= 7 and rng.random() < 0.3:
        action = {"exchange": {"tiles": "".join(rng.sample(view["rack"], rng.randint(1, 4)))}}
    try:
        await client.act(action)
    except ServerError:
        await client.act({"pass_turn": {}})
    for other in clients:
        await other.wait_view(seq + 1)


@pytest.mark.parametrize("gateway_backend", ["sqlite"])
@pytest.mark.parametrize(
    ("players", "seed"), [(2, 41), (3, 42), (4, 43), (2, 44), (3, 45), (4, 46)]
)
def test_no_lexio_review_or_record_holds_another_seats_rack_or_exchanged_letters(
    loop_thread: LoopThread, gateway: Gateway, players: int, seed: int
) -> None:
    names = ["Ana", "Bruno", "Chloé", "Dani"][:players]
    rng = random.Random(seed)

    async def scenario() -> None:
        async with started_game(gateway.url, names) as clients:
            table_id = clients[0].table["table_id"]
            racks_of: list[set[str]] = [set() for _ in clients]

            def remember() -> None:
                truth = pb.GameState.FromString(gateway.hub.rooms[table_id].record.state)
                for seat, rack in enumerate(truth.racks):
                    racks_of[seat].add(rack)

            remember()
            for _ in range(rng.randint(6, 14)):
                await _lexio_turn(list(clients), rng, seed)
                remember()
            await pass_to_the_end(clients)
            truth = pb.GameState.FromString(gateway.hub.rooms[table_id].record.state)
            exchanges = [e for e in truth.log if e.kind == pb.ENTRY_KIND_EXCHANGE]
            assert exchanges, "no exchange: the game checks nothing of R27"
            assert len(truth.exchanged) == len(exchanges)
            exchanged_by = [
                (e.seat, letters) for e, letters in zip(exchanges, truth.exchanged, strict=True)
            ]
            for client in clients:
                me = client.table["you"]
                answer = await get(gateway.url, table_id, "review", bearer(client))
                assert answer.status == 200, answer.body
                review = answer.json()
                check_lexio_review(review, me, racks_of, exchanged_by, truth)

    loop_thread.run(scenario(), timeout=300)


def check_lexio_review(
    review: dict[str, Any],
    me: int,
    racks_of: list[set[str]],
    exchanged_by: list[tuple[int, str]],
    truth: pb.GameState,
) -> None:
    others = {
        rack
        for seat, racks in enumerate(racks_of)
        if seat != me
        for rack in racks
        if len(rack) >= 4 and rack not in racks_of[me]
    }
    steps, record = review["steps"], review["record"]
    for step in steps:
        assert step["rack"] in racks_of[me] or step["ending"] is not None
    before_the_reveal = {**review, "steps": steps[:-1], "record": {**record}}
    before_the_reveal["record"].pop("final_racks", None)
    final = steps[-1]
    assert final["ending"]["racks"] == list(truth.racks)  # R32: the reveal, at the end only
    final_without_reveal = {k: v for k, v in final.items() if k != "ending"}
    values = set(strings_in(before_the_reveal)) | set(strings_in(final_without_reveal))
    assert not others.intersection(values)
    for move in record["moves"]:
        if move["player"] != me:
            assert "rack" not in move, move
            if "exchange" in move:
                assert isinstance(move["exchange"], int), move  # R27: a count
        elif "exchange" in move:
            assert isinstance(move["exchange"], str)
    for entry in review["entries"]:
        if entry["kind"] == "exchange":
            assert entry["tiles"] == [] and entry["words"] == []
    # Another seat's exchanged letters appear nowhere as such (short ones would be words).
    for seat, letters in exchanged_by:
        if seat != me and len(letters) >= 3 and letters not in racks_of[me]:
            assert letters not in values, (seat, letters)


@pytest.mark.parametrize("gateway_backend", ["sqlite"])
@pytest.mark.parametrize("seed", [51, 52, 53, 54])
def test_no_mishqaq_review_or_record_holds_the_other_sides_rack(
    loop_thread: LoopThread, gateway: Gateway, seed: int
) -> None:
    rng = random.Random(seed)
    players = {"latin": racer("fr", seed), "arabic": racer("ar", seed + 100)}

    async def scenario() -> None:
        async with mishqaq_table(gateway.url) as clients:
            table_id = clients[0].table["table_id"]
            for _ in range(rng.randint(4, 12)):
                mover = to_move(clients)
                action = players[side(mover)].choose(mover.view) or {"pass_turn": {}}
                ack = await mover.act(action)
                for client in clients:
                    await client.wait_view(ack["seq"])
            ack = await clients[rng.randint(0, 1)].act({"resign": {}})
            for client in clients:
                await client.wait_view(ack["seq"])
            for client in clients:
                answer = await get(gateway.url, table_id, "review", bearer(client))
                assert answer.status == 200, answer.body
                check_mishqaq_review(answer.json(), side(client))

    loop_thread.run(scenario(), timeout=240)


def check_mishqaq_review(review: dict[str, Any], own: str) -> None:
    """M12: every step's rack is this side's; no tile of a rack anywhere else but on the
    board, in the log's placed tiles and draws, and in the ending's reveal; the record writes
    this side's racks only."""
    for step in review["steps"]:
        assert step["side"] == own
        assert all(t["owner"] == own for t in step["rack"]), step["rack"]
        rest = {k: v for k, v in step.items() if k != "rack"}
        assert _tiles_outside_the_open_record(rest) == []
    assert _tiles_outside_the_open_record(review["entries"]) == []
    assert '"bags"' not in json.dumps(review)
    for move in review["record"]["moves"]:
        if "rack" in move:
            assert move["side"] == own, move


# Metrics --------------------------------------------------------------------------------------


def _count(game: str, outcome: str) -> float | None:
    """The series' count of observations; None if the series does not exist."""
    for metric in REVIEW_SECONDS.collect():
        for sample in metric.samples:
            if sample.name.endswith("_count") and sample.labels == {
                "game": game,
                "outcome": outcome,
            }:
                return sample.value
    return None


@pytest.mark.parametrize("gateway_backend", ["sqlite"])
def test_the_review_histogram_has_its_series_from_the_start_and_counts_each_answer(
    loop_thread: LoopThread, gateway: Gateway
) -> None:
    for game in ("lexio", "mishqaq"):
        for outcome in REVIEW_OUTCOMES:
            assert _count(game, outcome) is not None, (game, outcome)
    for outcome in ("missing_token", "bad_token", "unavailable"):
        assert _count("unknown", outcome) is not None, outcome
    before_ok = _count("lexio", "ok") or 0.0
    before_missing = _count("unknown", "missing_token") or 0.0

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            await pass_to_the_end([ana, bruno])
            table_id = ana.table["table_id"]
            for _ in range(5):
                assert (await get(gateway.url, table_id, "review", bearer(ana))).status == 200
            assert (await get(gateway.url, table_id, "review", None)).status == 401

    loop_thread.run(scenario(), timeout=60)
    assert _count("lexio", "ok") == before_ok + 5
    assert _count("unknown", "missing_token") == before_missing + 1


def _engine_reviews(game: str) -> float:
    """How many Review calls the (in-process) engine answered for ``game``."""
    return sum(
        sample.value
        for metric in ENGINE_CALLS.collect()
        for sample in metric.samples
        if sample.name.endswith("_total")
        and sample.labels["game"] == game
        and sample.labels["rpc"] == "Review"
    )


@pytest.mark.parametrize("gateway_backend", ["sqlite"])
def test_asking_again_for_a_review_does_not_replay_the_game_again(
    loop_thread: LoopThread, gateway: Gateway
) -> None:
    """A finished game never changes: the gateway keeps its last reviews, so that a player
    asking in a loop costs no replay in the engine."""

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            await pass_to_the_end([ana, bruno])
            table_id = ana.table["table_id"]
            before = _engine_reviews("lexio")
            bodies = []
            for client in (ana, bruno, ana, bruno, ana):
                reply = await get(gateway.url, table_id, "review", bearer(client))
                assert reply.status == 200
                bodies.append(reply.body)
            assert _engine_reviews("lexio") == before + 2  # one replay per seat
            assert bodies[0] == bodies[2] == bodies[4] and bodies[1] == bodies[3]

    loop_thread.run(scenario(), timeout=60)


def test_the_retention_is_configured_in_days(monkeypatch: pytest.MonkeyPatch) -> None:
    from lexio_common.config import ConfigError  # noqa: PLC0415

    monkeypatch.setenv("LEXIO_RECORD_RETENTION_DAYS", "0.5")
    monkeypatch.setenv("LEXIO_GATEWAY_RECORD_SWEEP_SECONDS", "60")
    config = GatewayConfig.from_env()
    assert config.record_retention_seconds == 43200.0 and config.record_sweep_seconds == 60.0
    monkeypatch.delenv("LEXIO_RECORD_RETENTION_DAYS")
    assert GatewayConfig.from_env().record_retention_days == 30.0
    for bad in ("0", "-1", "nan", "soon"):
        monkeypatch.setenv("LEXIO_RECORD_RETENTION_DAYS", bad)
        with pytest.raises(ConfigError):
            GatewayConfig.from_env()
