"""The Redis backend as several replicas use it: two lobby servers on one real redis-server
(two gRPC servers, two Redis clients; test_lobby_process.py races two real processes), racing
joins, a shared join limit, Redis going away and coming back on the same port and directory,
and the checks made at start-up."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import grpc
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from lexio_testing import LoopThread, RedisClusterServer, RedisServer, free_port
from lobby_fixtures import (
    CARDS,
    JOIN_FAILURES,
    JOIN_WINDOW,
    MISHQAQ,
    MISHQAQ_DEFAULTS,
    FakeClock,
    LobbyHarness,
    from_values,
    lobby_config,
    players,
    race_joins,
    redis_tables,
    refusal,
)

from lexio.lobby.v1 import lobby_pb2 as pb
from lexio_common.config import ConfigError
from lexio_common.grpc_service import start_grpc_server
from lexio_lobby.redis_store import (
    CLUSTER_PREFIX,
    DEFAULT_PREFIX,
    RedisTableStore,
    _guard,
    describe_url,
    key_prefix,
)
from lexio_lobby.server import LobbyConfig, _watch_store, start_lobby
from lexio_lobby.store import StoreError, StoreUnavailableError

DOWN = (grpc.StatusCode.UNAVAILABLE, "store_unavailable")
LIMITED = (grpc.StatusCode.RESOURCE_EXHAUSTED, "rate_limited")
UNKNOWN = (grpc.StatusCode.NOT_FOUND, "unknown_code")
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.fixture
def replicas(
    loop_thread: LoopThread, redis_server: RedisServer, tmp_path: Path
) -> Iterator[tuple[LobbyHarness, LobbyHarness]]:
    """Two lobby servers on one Redis and one (fake) clock. They share the session's event
    loop (grpc.aio wants one loop per process) but nothing else: each has its own gRPC
    server, Redis client and connections, so their calls interleave at every round trip."""
    clock = FakeClock()
    started = []
    for n in range(2):
        config = lobby_config(
            tmp_path / f"unused{n}.sqlite3", games=(CARDS, MISHQAQ), redis_url=redis_server.url
        )
        started.append(LobbyHarness(loop_thread, config, clock=clock).start())
    yield started[0], started[1]
    for harness in started:
        harness.stop()


def _health(lobby: LobbyHarness, service: str = "lexio.lobby.v1.Lobby") -> int:
    assert lobby.channel is not None
    reply = health_pb2_grpc.HealthStub(lobby.channel).Check(
        health_pb2.HealthCheckRequest(service=service), timeout=5
    )
    status: int = reply.status
    return status


def _eventually(check: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.02)


# -- two replicas ---------------------------------------------------------------------------


def test_twenty_joins_racing_through_two_replicas_fill_three_seats(
    replicas: tuple[LobbyHarness, LobbyHarness], redis_server: RedisServer
) -> None:
    a, b = replicas
    created = a.create()
    seats, refused = race_joins([a.stub, b.stub], created.invite_code)
    assert sorted(seats) == [1, 2, 3]
    assert refused == ["table_full"] * 17
    for replica in (a, b):
        table = replica.get(created.table.table_id).table
        assert len(table.seats) == 4 and table.version == 4
    assert len(redis_tables(redis_server.url)) == 1


def test_a_table_made_on_one_replica_is_played_on_the_other(
    replicas: tuple[LobbyHarness, LobbyHarness],
) -> None:
    a, b = replicas
    created = a.create()
    table_id, code = created.table.table_id, created.invite_code
    assert b.join(code.lower(), "p1").seat == 1
    assert b.get(table_id, "p1").invite_code == code
    assert players(a.get(table_id).table) == ["p0", "p1"]
    assert a.join(code, "p2").seat == 2
    assert players(b.leave(table_id, "p1")) == ["p0", "p2"]
    assert b.start_table(table_id, "p0").state == pb.TABLE_STATE_STARTED
    assert refusal(a.join, code, "p3") == (grpc.StatusCode.FAILED_PRECONDITION, "game_started")
    assert a.close_table(table_id, "p0").state == pb.TABLE_STATE_CLOSED
    assert b.get(table_id).table.close_reason == pb.CLOSE_REASON_HOST


def test_the_join_limit_is_counted_across_replicas(
    replicas: tuple[LobbyHarness, LobbyHarness],
) -> None:
    a, b = replicas
    _, code = a.seated_table(1)
    for n in range(JOIN_FAILURES):  # alternating replicas, one caller
        guess = f"{n:010d}".replace("0", "2").replace("1", "3")
        assert refusal((a, b)[n % 2].join, guess, "g", caller="guesser") == UNKNOWN
    assert refusal(a.join, code, "p1", caller="guesser") == LIMITED
    try:
        b.join(code, "p1", caller="guesser")
    except grpc.RpcError as e:
        assert (e.code(), e.details()) == LIMITED
        assert dict(e.trailing_metadata())["retry-after"] == str(int(JOIN_WINDOW))
    else:
        raise AssertionError("not limited on the second replica")
    assert b.join(code, "p2", caller="someone-else").seat == 1
    a.clock.advance(JOIN_WINDOW)  # one clock for both, as NTP gives real replicas
    assert b.join(code, "p1", caller="guesser").seat == 2


def test_options_fixed_on_one_replica_are_seen_on_the_other_before_joining(
    replicas: tuple[LobbyHarness, LobbyHarness], redis_server: RedisServer
) -> None:
    a, b = replicas
    created = a.create(game="mishqaq", options={"host_side": "arabic", "latin_minutes": 25})
    expected = {**MISHQAQ_DEFAULTS, "host_side": "arabic", "latin_minutes": 25}
    found = b.lookup(created.invite_code, caller="invitee")
    assert (found.game, from_values(found.options), found.seated) == ("mishqaq", expected, 1)
    assert from_values(b.join(created.invite_code, "p1", caller="invitee").table.options) == (
        expected
    )
    assert from_values(a.get(created.table.table_id).table.options) == expected
    assert b.lookup(created.invite_code).seated == 2
    (stored,) = redis_tables(redis_server.url).values()
    assert stored["options"] == (
        '{"host_side": "arabic", "latin": "fr", "latin_minutes": 25, "arabic_minutes": 30}'
    )


def test_lookups_and_joins_share_one_budget_across_replicas(
    replicas: tuple[LobbyHarness, LobbyHarness],
) -> None:
    a, b = replicas
    _, code = a.seated_table(1)
    for n in range(JOIN_FAILURES):  # lookups on one replica, joins on the other, one caller
        guess = f"{n:010d}".replace("0", "2").replace("1", "3")
        if n % 2:
            assert refusal(b.join, guess, "g", caller="guesser") == UNKNOWN
        else:
            assert refusal(a.lookup, guess, caller="guesser") == UNKNOWN
    for replica in (a, b):
        assert refusal(replica.lookup, code, caller="guesser") == LIMITED
        assert refusal(replica.join, code, "p1", caller="guesser") == LIMITED
    assert b.lookup(code, caller="someone-else").seated == 1
    a.clock.advance(JOIN_WINDOW)
    assert b.lookup(code, caller="guesser").seated == 1


def test_a_burst_of_guesses_through_both_replicas_gets_exactly_the_budget(
    replicas: tuple[LobbyHarness, LobbyHarness],
) -> None:
    a, b = replicas
    futures = [
        (a, b)[i % 2].stub.JoinTable.future(
            pb.JoinTableRequest(
                invite_code="ZZZZZ-ZZZZ" + "23456789AB"[i % 10], player_id="g", display_name="G"
            ),
            metadata=(("x-lexio-caller", "burst"),),
            timeout=10,
        )
        for i in range(30)
    ]
    outcomes = []
    for future in futures:
        with pytest.raises(grpc.RpcError) as e:
            future.result()
        outcomes.append(e.value.details())
    assert sorted(outcomes) == ["rate_limited"] * 20 + ["unknown_code"] * JOIN_FAILURES


def test_key_prefixes_keep_two_lobbies_apart(
    loop_thread: LoopThread, redis_server: RedisServer, tmp_path: Path
) -> None:
    base = lobby_config(tmp_path / "unused.sqlite3", redis_url=redis_server.url)
    one = LobbyHarness(loop_thread, base).start()
    other = LobbyHarness(loop_thread, replace(base, redis_prefix="staging:lobby:")).start()
    try:
        created = one.create()
        assert refusal(other.join, created.invite_code, "p1") == UNKNOWN
        assert refusal(other.get, created.table.table_id)[1] == "unknown_table"
        assert other.create().table.table_id != created.table.table_id
        assert len(redis_tables(redis_server.url)) == 1
        assert len(redis_tables(redis_server.url, "staging:lobby:")) == 1
    finally:
        one.stop()
        other.stop()


# -- Redis going away -------------------------------------------------------------------------


def test_redis_down_fails_calls_cleanly_and_the_lobby_resumes_when_it_returns(
    loop_thread: LoopThread, redis_server: RedisServer, tmp_path: Path
) -> None:
    lobby = LobbyHarness(
        loop_thread, lobby_config(tmp_path / "unused.sqlite3", redis_url=redis_server.url)
    ).start()
    try:
        open_id, open_code = lobby.seated_table(3)
        started_id, started_code = lobby.seated_table(2)
        lobby.start_table(started_id, "p0")
        closed_id, _ = lobby.seated_table(1)
        lobby.close_table(closed_id, "p0")
        before = {t: lobby.get(t, "p0") for t in (open_id, started_id, closed_id)}
        assert _health(lobby) == SERVING

        redis_server.stop()

        assert refusal(lobby.create) == DOWN
        assert refusal(lobby.join, open_code, "p7") == DOWN
        assert refusal(lobby.join, "ZZZZZ-ZZZZZ", "p7", caller="guesser") == DOWN
        assert refusal(lobby.lookup, open_code) == DOWN
        assert refusal(lobby.lookup, "ZZZZZ-ZZZZZ", caller="guesser") == DOWN
        assert refusal(lobby.get, open_id) == DOWN
        assert refusal(lobby.leave, open_id, "p1") == DOWN
        assert refusal(lobby.start_table, open_id, "p0") == DOWN
        assert refusal(lobby.close_table, open_id, "p0") == DOWN
        # What needs no store still answers.
        assert len(lobby.stub.ListGames(pb.ListGamesRequest(), timeout=5).games) == 2
        calls = "lexio_lobby_calls_total"
        assert lobby.sample(calls, method="CreateTable", outcome="store_unavailable") == 1
        assert lobby.sample(calls, method="JoinTable", outcome="store_unavailable") == 2
        # Readiness follows the store; liveness does not (no restart while Redis is away).
        _eventually(lambda: _health(lobby) == NOT_SERVING)
        assert _health(lobby, "") == NOT_SERVING
        assert _health(lobby, "liveness") == SERVING

        redis_server.start()  # same port, same directory: it reloads its append-only file

        # At once, without waiting for health or restarting the lobby:
        joined = lobby.join(open_code, "p7")
        assert (joined.seat, joined.table.version) == (3, before[open_id].table.version + 1)
        for table_id in (started_id, closed_id):
            assert lobby.get(table_id, "p0") == before[table_id]
        assert lobby.join(started_code, "p1").already_seated
        assert lobby.create(player="p9").table.state == pb.TABLE_STATE_OPEN
        _eventually(lambda: _health(lobby) == SERVING)
        # Nothing half-made: the three tables from before and the new one, all consistent;
        # and the guess made while Redis was down was not counted.
        tables = redis_tables(redis_server.url)
        assert set(before) < set(tables) and len(tables) == 4
        with redis.Redis.from_url(redis_server.url) as raw:
            assert not raw.exists(DEFAULT_PREFIX + "joins:caller:guesser")
        lobby.sweep()
        counts = {s: lobby.sample("lexio_lobby_tables", state=s) for s in ("open", "closed")}
        assert counts == {"open": 2, "closed": 1}
    finally:
        lobby.stop()


def test_a_sweep_that_finds_redis_down_is_a_warning_and_the_next_one_runs(
    loop_thread: LoopThread,
    redis_server: RedisServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The periodic sweep (expiries, the tables' gauge) meets Redis away: one warning a
    sweep, no traceback, and the sweeps go on; once Redis is back, the next one counts the
    tables again."""
    config = replace(
        lobby_config(tmp_path / "unused.sqlite3", redis_url=redis_server.url), sweep_interval=0.1
    )
    caplog.set_level(logging.INFO, logger="lexio_lobby")
    lobby = LobbyHarness(loop_thread, config).start()
    try:
        lobby.seated_table(2)

        def swept_once_more_since(start: int, message: str) -> bool:
            return any(r.getMessage() == message for r in caplog.records[start:])

        redis_server.stop()
        down = len(caplog.records)
        _eventually(lambda: swept_once_more_since(down, "sweep failed: store unavailable"))
        failed = [r for r in caplog.records[down:] if r.getMessage().startswith("sweep failed")]
        assert all(r.levelno == logging.WARNING and r.exc_info is None for r in failed), failed

        redis_server.start()
        lobby.seated_table(2)  # a second open table, which only a sweep from now on counts
        _eventually(lambda: lobby.sample("lexio_lobby_tables", state="open") == 2)
    finally:
        lobby.stop()


def test_idle_connections_that_redis_closed_are_replaced_before_use(
    loop_thread: LoopThread, redis_server: RedisServer, tmp_path: Path
) -> None:
    """Redis closes idle connections (its ``timeout`` setting, a restart while the lobby is
    quiet, a failover): the next calls must reconnect, not fail with store_unavailable."""
    config = lobby_config(tmp_path / "unused.sqlite3", redis_url=redis_server.url)
    # No health pings, which would otherwise find (and drop) the closed connections first.
    lobby = LobbyHarness(loop_thread, replace(config, store_check_interval=3600.0)).start()
    try:
        table_id, _ = lobby.seated_table(1)
        requests = [pb.GetTableRequest(table_id=table_id) for _ in range(20)]
        for future in [lobby.stub.GetTable.future(r, timeout=5) for r in requests]:
            future.result()  # one or more pooled connections now
        with redis.Redis.from_url(redis_server.url) as raw:
            assert raw.client_kill_filter(_type="normal", skipme=True) >= 1
        time.sleep(0.1)
        for future in [lobby.stub.GetTable.future(r, timeout=5) for r in requests]:
            assert future.result().table.table_id == table_id
    finally:
        lobby.stop()


def test_redis_killed_in_the_middle_of_a_burst_leaves_no_partial_table(
    loop_thread: LoopThread, redis_server: RedisServer, tmp_path: Path
) -> None:
    """SIGKILL while creates and joins are in flight: every call either succeeded or failed
    with store_unavailable, and after the restart every key agrees with every other."""
    lobby = LobbyHarness(
        loop_thread, lobby_config(tmp_path / "unused.sqlite3", redis_url=redis_server.url)
    ).start()
    outcomes: list[str] = []
    stop = threading.Event()

    def play(worker: int) -> None:
        n = 0
        while not stop.is_set():
            n += 1
            try:
                code = lobby.create(player=f"w{worker}-{n}").invite_code
                for seat in range(1, 4):
                    lobby.join(code, f"w{worker}-{n}-{seat}")
                outcomes.append("ok")
            except grpc.RpcError as e:
                outcomes.append(e.details() or "")
                time.sleep(0.01)

    workers = [threading.Thread(target=play, args=(w,)) for w in range(4)]
    try:
        for worker in workers:
            worker.start()
        _eventually(lambda: outcomes.count("ok") >= 20)
        redis_server.stop(kill=True)
        _eventually(lambda: outcomes[-4:] == ["store_unavailable"] * 4)
        stop.set()
        for worker in workers:
            worker.join(timeout=10)
        assert set(outcomes) == {"ok", "store_unavailable"}
        redis_server.start()
        tables = redis_tables(redis_server.url)  # consistent, whatever the kill cut off
        assert tables
        for table_id in tables:
            host, *guests = players(lobby.get(table_id).table)  # readable, seats in order
            assert guests == [f"{host}-{seat}" for seat in range(1, len(guests) + 1)]
        assert lobby.create().table.state == pb.TABLE_STATE_OPEN
    finally:
        stop.set()
        for worker in workers:
            worker.join(timeout=10)
        lobby.stop()


# -- start-up ----------------------------------------------------------------------------------


def test_an_unreachable_redis_stops_start_up(loop_thread: LoopThread, tmp_path: Path) -> None:
    url = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
    config = lobby_config(tmp_path / "unused.sqlite3", redis_url=url)
    with pytest.raises(StoreError, match=r"cannot reach Redis at redis://127\.0\.0\.1:\d+/0:") as e:
        loop_thread.run(start_lobby(config))
    assert "hunter2" not in str(e.value)
    assert "hunter2" not in config.store_description


def test_a_foreign_schema_version_stops_start_up(
    loop_thread: LoopThread, redis_server: RedisServer
) -> None:
    with redis.Redis.from_url(redis_server.url) as raw:
        raw.set(DEFAULT_PREFIX + "schema", "2")
    with pytest.raises(StoreError, match="schema version 2, this lobby knows 1"):
        loop_thread.run(RedisTableStore.open(redis_server.url))
    # Another prefix is another lobby: it starts (and writes its own version).
    store = loop_thread.run(RedisTableStore.open(redis_server.url, prefix="other:"))
    loop_thread.run(store.close())


def test_start_up_warns_about_a_redis_that_could_lose_tables(
    loop_thread: LoopThread, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    store = loop_thread.run(RedisTableStore.open(redis_server.url))
    try:
        assert loop_thread.run(store.durability_problems()) == []  # AOF everysec, noeviction
    finally:
        loop_thread.run(store.close())
    with redis.Redis.from_url(redis_server.url) as raw:
        raw.config_set("appendonly", "no")
        raw.config_set("maxmemory-policy", "allkeys-lru")
    caplog.set_level(logging.WARNING)
    store = loop_thread.run(RedisTableStore.open(redis_server.url))
    loop_thread.run(store.close())
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert "appendonly is not 'yes'" in warned
    assert "maxmemory-policy is 'allkeys-lru'" in warned


def test_redis_urls_are_logged_without_secrets() -> None:
    assert describe_url("redis://user:pw@10.0.0.5:6380/2") == "redis://10.0.0.5:6380/2"
    assert describe_url("rediss://:pw@cache.internal/0?password=pw") == "rediss://cache.internal/0"
    assert describe_url("redis://[::1]:6379/0") == "redis://[::1]:6379/0"
    assert describe_url("unix:///run/redis.sock?db=1") == "unix:///run/redis.sock"


def test_a_bad_redis_url_is_refused(loop_thread: LoopThread) -> None:
    with pytest.raises(StoreError, match="bad Redis URL"):
        loop_thread.run(RedisTableStore.open("http://:pw@127.0.0.1:1/0"))


def test_config_from_env_reads_the_redis_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    assert LobbyConfig().redis_url == ""  # SQLite unless told otherwise
    monkeypatch.setenv("LEXIO_REDIS_URL", "redis://:pw@10.0.0.5:6380/2")
    monkeypatch.setenv("LEXIO_LOBBY_REDIS_PREFIX", "prod:lobby:")
    monkeypatch.setenv("LEXIO_LOBBY_REDIS_TIMEOUT", "0.5")
    monkeypatch.setenv("LEXIO_LOBBY_STORE_CHECK_INTERVAL", "2")
    monkeypatch.setenv("LEXIO_REDIS_WAIT_REPLICAS", "1")
    config = LobbyConfig.from_env()
    assert (config.redis_wait_replicas, config.redis_wait_timeout) == (1, 0.5)
    # Every write of the lobby is a seat or its table: seats waited for, moves not, it waits.
    monkeypatch.setenv("LEXIO_REDIS_WAIT_REPLICAS", "0")
    monkeypatch.setenv("LEXIO_REDIS_SEAT_WAIT_REPLICAS", "1")
    assert LobbyConfig.from_env().redis_wait_replicas == 1
    assert (config.redis_url, config.redis_prefix) == ("redis://:pw@10.0.0.5:6380/2", "prod:lobby:")
    assert (config.redis_timeout, config.store_check_interval) == (0.5, 2.0)
    assert config.store_description == "redis://10.0.0.5:6380/2"
    monkeypatch.setenv("LEXIO_LOBBY_REDIS_TIMEOUT", "0")
    with pytest.raises(ConfigError, match="LEXIO_LOBBY_REDIS_TIMEOUT"):
        LobbyConfig.from_env()


def test_the_key_layout(loop_thread: LoopThread, redis_server: RedisServer, tmp_path: Path) -> None:
    """What docs/lobby.md promises an operator will find in Redis."""
    lobby = LobbyHarness(
        loop_thread, lobby_config(tmp_path / "unused.sqlite3", redis_url=redis_server.url)
    ).start()
    try:
        created = lobby.create()
        table_id, code = created.table.table_id, created.invite_code.replace("-", "")
        lobby.join(created.invite_code, "p1", caller="joiner")
        refusal(lobby.join, "ZZZZZ-ZZZZZ", "p2", caller="guesser")
        p = DEFAULT_PREFIX
        with redis.Redis.from_url(redis_server.url, decode_responses=True) as raw:
            assert set(raw.keys("*")) == {
                f"{p}schema",
                f"{p}table:{table_id}",
                f"{p}code:{code}",
                f"{p}state:open",
                f"{p}joins:caller:guesser",
            }
            assert raw.get(f"{p}schema") == "1"
            assert raw.get(f"{p}code:{code}") == table_id
            assert raw.hget(f"{p}table:{table_id}", "version") == "2"
            assert raw.hget(f"{p}table:{table_id}", "options") == "{}"  # "cards" has none
            assert raw.zrange(f"{p}state:open", 0, -1) == [table_id]
            assert 0 < raw.pttl(f"{p}joins:caller:guesser") <= JOIN_WINDOW * 1000
            lobby.close_table(table_id, "p0")
            assert raw.zrange(f"{p}state:closed", 0, -1) == [table_id]
            lobby.clock.advance(lobby.config.closed_retention + 1)
            lobby.sweep()  # purges the table, its code and its index entry together
            assert set(raw.keys(f"{p}*")) == {f"{p}schema", f"{p}joins:caller:guesser"}
    finally:
        lobby.stop()


def test_with_wait_replicas_a_table_and_a_seat_are_on_a_replica_before_they_are_answered(
    loop_thread: LoopThread, redis_server: RedisServer, redis_replica: RedisServer, tmp_path: Path
) -> None:
    """Issue 40: LEXIO_REDIS_WAIT_REPLICAS=1 (the gateway's setting, read by the lobby too):
    a new table and a seat are on Redis's replica when the lobby answers; with the replica
    gone, create and join answer UNAVAILABLE (store_unavailable) instead of promising what a
    failover to the replica would take back."""
    config = replace(
        lobby_config(tmp_path / "unused.sqlite3", redis_url=redis_server.url),
        redis_wait_replicas=1,
        redis_wait_timeout=5.0,  # patient while the replica answers (a loaded machine)
    )
    lobby = LobbyHarness(loop_thread, config).start()
    try:
        deadline = time.monotonic() + 10
        while b"state=online" not in redis_server.command("INFO"):
            assert time.monotonic() < deadline, "the replica never came online"
            time.sleep(0.05)
        created = lobby.create()
        key = f"{DEFAULT_PREFIX}table:{created.table.table_id}"
        with redis.Redis.from_url(redis_replica.url, decode_responses=True) as on_replica:
            assert on_replica.hget(key, "version") == "1", "answered before the replica had it"
            lobby.join(created.invite_code, "p1", caller="joiner")
            assert on_replica.hget(key, "version") == "2"
        redis_replica.stop(kill=True)
        lobby.restart(redis_wait_timeout=0.3)  # quick once it is gone
        assert refusal(lobby.create) == DOWN
        assert refusal(lobby.join, created.invite_code, "p2", caller="joiner") == DOWN
    finally:
        lobby.stop()


# -- cancellation -----------------------------------------------------------------------------


def test_a_cancelled_redis_call_stays_cancelled(loop_thread: LoopThread) -> None:
    """redis-py may report a call cancelled mid-flight as a ConnectionError; the lobby must
    still see a cancellation (else a stopping lobby's loops run on, thinking Redis is down)."""

    async def fails(cancel_first: bool) -> None:
        if cancel_first:
            current = asyncio.current_task()
            assert current is not None
            current.cancel()
        raise redis.ConnectionError("Connection closed by server.")

    async def outcome(cancel_first: bool) -> str:
        try:
            await asyncio.create_task(_guard(fails(cancel_first)))
        except asyncio.CancelledError:
            return "cancelled"
        except StoreUnavailableError:
            return "unavailable"
        return "returned"

    assert loop_thread.run(outcome(cancel_first=False)) == "unavailable"
    assert loop_thread.run(outcome(cancel_first=True)) == "cancelled"


class _DeafStore:
    """A store whose ping ignores cancellation (as a library might) and says "down"."""

    async def ping(self) -> bool:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0.01)
        return False


def test_the_health_watcher_stops_even_if_its_store_swallows_the_cancel(
    loop_thread: LoopThread,
) -> None:
    async def scenario() -> None:
        server = await start_grpc_server(
            host="127.0.0.1", port=0, register=lambda _: None, service_names=["x"]
        )
        stopping = asyncio.Event()
        watcher = asyncio.create_task(
            _watch_store(server, _DeafStore(), 0.001, stopping)  # type: ignore[arg-type]
        )
        await asyncio.sleep(0.05)
        stopping.set()
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(watcher, 2)
        await server.stop(0)

    loop_thread.run(scenario())


# -- a Redis Cluster ------------------------------------------------------------------------


def test_two_replicas_on_a_redis_cluster_race_joins_and_keep_the_lobby_in_one_slot(
    loop_thread: LoopThread, redis_cluster: RedisClusterServer, tmp_path: Path
) -> None:
    """On a cluster (``redis+cluster://``) the lobby's keys carry one hash tag, so that its
    scripts (a table with its code and index) run in one slot: two replicas race twenty joins
    for three seats as on one Redis, and every key of the lobby is on one master."""
    clock = FakeClock()
    harnesses = [
        LobbyHarness(
            loop_thread,
            lobby_config(tmp_path / f"unused{n}.sqlite3", redis_url=redis_cluster.url),
            clock=clock,
        ).start()
        for n in range(2)
    ]
    try:
        a, b = harnesses
        created = a.create()
        seats, refused = race_joins([a.stub, b.stub], created.invite_code)
        assert sorted(seats) == [1, 2, 3] and refused == ["table_full"] * 17
        for replica in (a, b):
            assert len(replica.get(created.table.table_id).table.seats) == 4
        keys = redis_cluster.command_for_key(CLUSTER_PREFIX, "KEYS", f"{CLUSTER_PREFIX}*")
        assert isinstance(keys, list)
        assert f"{CLUSTER_PREFIX}table:{created.table.table_id}" in keys
        assert f"{CLUSTER_PREFIX}code:{created.invite_code.replace('-', '')}" in keys
    finally:
        for harness in harnesses:
            harness.stop()
    with pytest.raises(StoreError, match="hash tag"):
        key_prefix(redis_cluster.url, "lexio:other:")
