"""Helpers for the lobby suites: a fake clock, and a real lobby server driven synchronously.

Not a conftest (a second conftest module breaks mypy): each suite builds its own fixtures from
:class:`LobbyHarness`. The server runs on the session's ``loop_thread`` with a real SQLite file,
or — the suites run on both :data:`BACKENDS` — on a real redis-server of its own (the
``redis_server`` fixture of tests/conftest.py); tests talk to it over gRPC on 127.0.0.1 with
ordinary synchronous stubs.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, TypeVar, cast

import grpc
import pytest
import redis
from lexio_testing import LoopThread, RedisServer
from prometheus_client import CollectorRegistry

from lexio.lobby.v1 import lobby_pb2 as pb
from lexio.lobby.v1 import lobby_pb2_grpc
from lexio_lobby.codes import ALPHABET, new_code
from lexio_lobby.games import GameSpec, parse_games
from lexio_lobby.metrics import LobbyMetrics
from lexio_lobby.model import TableState
from lexio_lobby.redis_store import DEFAULT_PREFIX, RedisTableStore
from lexio_lobby.server import LobbyConfig, RunningLobby, start_lobby
from lexio_lobby.store import SqliteTableStore, TableStore

T = TypeVar("T")

#: A formatted invite code as the lobby hands it out.
CODE_FORMAT = re.compile(f"[{ALPHABET}]{{5}}-[{ALPHABET}]{{5}}")
#: Games most suites use: no readiness check, so always ready.
CARDS = GameSpec(name="cards", min_seats=2, max_seats=4)
PARTY = GameSpec(name="party", min_seats=3, max_seats=6)
#: al-Mishqaq as docs/lobby.md registers it (M1–M3: side, Latin language, two time banks).
MISHQAQ_JSON: Final[dict[str, Any]] = {
    "name": "mishqaq",
    "min_seats": 2,
    "max_seats": 2,
    "health_address": "127.0.0.1:50051",
    "health_service": "lexio.mishqaq.v1.Engine",
    "options": [
        {"name": "host_side", "choices": ["latin", "arabic"], "default": "latin"},
        {"name": "latin", "choices": ["fr", "en"], "default": "fr"},
        {"name": "latin_minutes", "choices": [20, 25, 30, 35, 40], "default": 30},
        {"name": "arabic_minutes", "choices": [20, 25, 30, 35, 40], "default": 30},
    ],
}
#: The same registration without its readiness check (always ready), for the suites.
MISHQAQ = replace(parse_games(json.dumps([MISHQAQ_JSON]))[0], health_address=None)
MISHQAQ_DEFAULTS: Final = {
    "host_side": "latin",
    "latin": "fr",
    "latin_minutes": 30,
    "arabic_minutes": 30,
}
TTL = 3600.0
JOIN_FAILURES = 10
JOIN_WINDOW = 600.0
#: Where tables live: every store-dependent suite runs once on each.
BACKENDS: Final = ("sqlite", "redis")


class FakeClock:
    """Time that moves only when told; serves as both the epoch and the monotonic clock."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def lobby_config(
    db_path: Path, games: tuple[GameSpec, ...] = (CARDS, PARTY), redis_url: str = ""
) -> LobbyConfig:
    return LobbyConfig(
        host="127.0.0.1",
        port=0,
        metrics_port=-1,
        db_path=db_path,
        code_ttl=TTL,
        closed_retention=TTL,
        join_failures=JOIN_FAILURES,
        join_window=JOIN_WINDOW,
        games=games,
        readiness_timeout=0.5,
        readiness_cache=1.0,
        # The sweep runs once at start-up; tests call it explicitly after that.
        sweep_interval=3600.0,
        shutdown_grace=0.0,
        redis_url=redis_url,
        # Health follows the store within a fraction of a second.
        store_check_interval=0.05,
    )


def redis_for(request: pytest.FixtureRequest) -> RedisServer | None:
    """A fresh redis-server when the test runs on the "redis" backend (``request.param``)."""
    if request.param == "redis":
        server: RedisServer = request.getfixturevalue("redis_server")
        return server
    assert request.param == "sqlite"
    return None


def backend_config(request: pytest.FixtureRequest, tmp_path: Path) -> LobbyConfig:
    """The suites' configuration on the backend ``request.param`` names."""
    server = redis_for(request)
    return lobby_config(tmp_path / "lobby.sqlite3", redis_url=server.url if server else "")


async def open_store(db_path: Path, redis_url: str = "") -> TableStore:
    """A bare store: Redis when a URL is given, else SQLite at ``db_path``."""
    if redis_url:
        return await RedisTableStore.open(redis_url)
    return await SqliteTableStore.open(db_path)


def redis_tables(url: str, prefix: str = DEFAULT_PREFIX) -> dict[str, dict[str, str]]:
    """Every table hash under ``prefix``, after checking that the keys agree with each other:
    each table has all its fields (a table written before options existed: all but
    ``options``), its code key names it, it is indexed under its own state
    only (scored by ``updated_at``); no code, index entry or other key without its table."""
    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        keys = [str(key) for key in client.scan_iter(prefix + "*")]
        tables = {
            key.removeprefix(prefix + "table:"): {
                str(k): str(v) for k, v in client.hgetall(key).items()
            }
            for key in keys
            if key.startswith(prefix + "table:")
        }
        codes = {
            key.removeprefix(prefix + "code:"): str(client.get(key))
            for key in keys
            if key.startswith(prefix + "code:")
        }
        index: dict[TableState, dict[str, float]] = {
            state: dict(
                cast(
                    "list[tuple[str, float]]",
                    client.zrange(f"{prefix}state:{state.value}", 0, -1, withscores=True),
                )
            )
            for state in TableState
        }
        others = {
            key
            for key in keys
            if not key.startswith((prefix + "table:", prefix + "code:", prefix + "joins:"))
        }
    finally:
        client.close()
    fields = {
        "table_id", "code", "game", "min_seats", "max_seats", "state", "seats", "created_at",
        "updated_at", "version", "close_reason", "options",
    }  # fmt: skip
    for table_id, table in tables.items():
        assert set(table) in (fields, fields - {"options"}), table_id
        assert table["table_id"] == table_id
        assert codes.get(table["code"]) == table_id
        for state, entries in index.items():
            if state.value == table["state"]:
                assert entries.get(table_id) == float(table["updated_at"]), table_id
            else:
                assert table_id not in entries, table_id
    assert set(codes.values()) == set(tables)
    assert set().union(*index.values()) == set(tables)
    assert others <= {prefix + "schema", *(f"{prefix}state:{s.value}" for s in TableState)}
    return tables


#: The SQLite schema before table options (version 1), as lobbies before issue 15 made it.
_SCHEMA_V1 = """
CREATE TABLE lobby_tables (
    table_id     TEXT PRIMARY KEY,
    code         TEXT NOT NULL UNIQUE,
    game         TEXT NOT NULL,
    min_seats    INTEGER NOT NULL,
    max_seats    INTEGER NOT NULL,
    state        TEXT NOT NULL,
    seats        TEXT NOT NULL,
    created_at   REAL NOT NULL,
    updated_at   REAL NOT NULL,
    version      INTEGER NOT NULL,
    close_reason TEXT
);
CREATE INDEX lobby_tables_by_state ON lobby_tables (state, updated_at);
PRAGMA user_version = 1;
"""


def _legacy_seats(at: float) -> str:
    return json.dumps([{"player_id": "p0", "name": "Zoé", "at": at}], ensure_ascii=False)


def write_v1_file(path: Path, table_id: str, code: str, at: float = 100.0) -> None:
    """A version-1 SQLite file holding one open table of game "cards", made ``at``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        db.executescript(_SCHEMA_V1)
        db.execute(
            "INSERT INTO lobby_tables VALUES (?, ?, 'cards', 2, 4, 'open', ?, ?, ?, 1, NULL)",
            (table_id, code, _legacy_seats(at), at, at),
        )
    db.close()


def write_v1_hash(url: str, table_id: str, code: str, at: float = 100.0) -> None:
    """An open table of game "cards" as a lobby before issue 15 wrote it to Redis."""
    with redis.Redis.from_url(url) as raw:
        raw.set(DEFAULT_PREFIX + "schema", "1", nx=True)
        raw.hset(
            f"{DEFAULT_PREFIX}table:{table_id}",
            mapping={
                "table_id": table_id,
                "code": code,
                "game": "cards",
                "min_seats": "2",
                "max_seats": "4",
                "state": "open",
                "seats": _legacy_seats(at),
                "created_at": repr(at),
                "updated_at": repr(at),
                "version": "1",
                "close_reason": "",
            },
        )
        raw.set(f"{DEFAULT_PREFIX}code:{code}", table_id)
        raw.zadd(f"{DEFAULT_PREFIX}state:open", {table_id: at})


@dataclass
class LobbyHarness:
    """One lobby server (restartable on the same file) and a stub talking to it."""

    loop_thread: LoopThread
    config: LobbyConfig
    clock: FakeClock = field(default_factory=FakeClock)
    #: The metrics' own registry, so tests read exact values (``sample``).
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)
    code_factory: Callable[[], str] = new_code
    running: RunningLobby | None = None
    channel: grpc.Channel | None = None
    metrics: LobbyMetrics = field(init=False)
    stub: lobby_pb2_grpc.LobbyStub = field(init=False)

    def __post_init__(self) -> None:
        self.metrics = LobbyMetrics(self.registry)

    @property
    def port(self) -> int:
        assert self.running is not None
        return self.running.port

    def sample(self, name: str, **labels: str) -> float:
        """A metric sample's value (0 when the series does not exist yet)."""
        return self.registry.get_sample_value(name, labels) or 0.0

    def start(self) -> LobbyHarness:
        self.running = self.loop_thread.run(
            start_lobby(
                self.config,
                clock=self.clock,
                monotonic=self.clock,
                metrics=self.metrics,
                code_factory=self.code_factory,
            )
        )
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        self.stub = lobby_pb2_grpc.LobbyStub(self.channel)
        return self

    def stop(self) -> None:
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        if self.running is not None:
            self.loop_thread.run(self.running.stop(0))
            self.running = None

    def restart(self, **changes: Any) -> None:
        """Stop, then start a new server on the same file (with config changes if any)."""
        self.stop()
        self.config = replace(self.config, **changes)
        self.start()

    def sweep(self) -> None:
        assert self.running is not None
        result = self.loop_thread.run(self.running.lobby.sweep())
        self.metrics.set_table_counts(result.counts)

    # -- calls -----------------------------------------------------------------------------

    def create(
        self,
        player: str = "p0",
        name: str = "Ana",
        game: str = "cards",
        options: Mapping[str, str | int | pb.OptionValue] | None = None,
    ) -> pb.CreateTableResponse:
        request = pb.CreateTableRequest(
            game=game,
            player_id=player,
            display_name=name,
            options={k: to_value(v) for k, v in (options or {}).items()},
        )
        reply: pb.CreateTableResponse = self.stub.CreateTable(request, timeout=10)
        return reply

    def lookup(self, code: str, caller: str = "client-a") -> pb.LookupCodeResponse:
        request = pb.LookupCodeRequest(invite_code=code)
        reply: pb.LookupCodeResponse = self.stub.LookupCode(
            request, metadata=(("x-lexio-caller", caller),), timeout=10
        )
        return reply

    def join(
        self, code: str, player: str, name: str | None = None, caller: str = "client-a"
    ) -> pb.JoinTableResponse:
        request = pb.JoinTableRequest(
            invite_code=code, player_id=player, display_name=player if name is None else name
        )
        reply: pb.JoinTableResponse = self.stub.JoinTable(
            request, metadata=(("x-lexio-caller", caller),), timeout=10
        )
        return reply

    def leave(self, table_id: str, player: str) -> pb.Table:
        request = pb.LeaveTableRequest(table_id=table_id, player_id=player)
        table: pb.Table = self.stub.LeaveTable(request, timeout=10).table
        return table

    def start_table(self, table_id: str, player: str) -> pb.Table:
        request = pb.StartTableRequest(table_id=table_id, player_id=player)
        table: pb.Table = self.stub.StartTable(request, timeout=10).table
        return table

    def close_table(self, table_id: str, player: str) -> pb.Table:
        request = pb.CloseTableRequest(table_id=table_id, player_id=player)
        table: pb.Table = self.stub.CloseTable(request, timeout=10).table
        return table

    def get(self, table_id: str, player: str = "") -> pb.GetTableResponse:
        request = pb.GetTableRequest(table_id=table_id, player_id=player)
        reply: pb.GetTableResponse = self.stub.GetTable(request, timeout=10)
        return reply

    def seated_table(self, players: int, game: str = "cards") -> tuple[str, str]:
        """A table with ``players`` seated (p0 host, then p1, p2, ...): (table id, code)."""
        created = self.create(game=game)
        for i in range(1, players):
            self.join(created.invite_code, f"p{i}")
        return created.table.table_id, created.invite_code


def refusal(call: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[grpc.StatusCode, str]:
    """The status code and reason code of a call that must fail."""
    try:
        call(*args, **kwargs)
    except grpc.RpcError as e:
        return e.code(), e.details()
    raise AssertionError("the call succeeded; a refusal was expected")


def to_value(value: str | int | pb.OptionValue) -> pb.OptionValue:
    """An option value for a request (an OptionValue passes as is: tests send odd ones)."""
    if isinstance(value, pb.OptionValue):
        return value
    return pb.OptionValue(text=value) if isinstance(value, str) else pb.OptionValue(integer=value)


def from_values(values: Mapping[str, pb.OptionValue]) -> dict[str, str | int]:
    """A protobuf options map as plain Python, each value of the type it was sent as."""
    plain: dict[str, str | int] = {}
    for name, value in values.items():
        kind = value.WhichOneof("value")
        assert kind in ("text", "integer"), name
        plain[name] = value.text if kind == "text" else value.integer
    return plain


def names(table: pb.Table) -> list[str]:
    return [seat.display_name for seat in table.seats]


def players(table: pb.Table) -> list[str]:
    return [seat.player_id for seat in table.seats]


def race_joins(
    stubs: Sequence[lobby_pb2_grpc.LobbyStub], invite_code: str, players: int = 20
) -> tuple[list[int], list[str]]:
    """``players`` joins sent at once, round-robin over ``stubs`` (each player its own caller):
    the seats they were given, and the details of the refusals."""
    futures = [
        stubs[i % len(stubs)].JoinTable.future(
            pb.JoinTableRequest(invite_code=invite_code, player_id=f"r{i}", display_name=f"R{i}"),
            metadata=(("x-lexio-caller", f"c{i}"),),
            timeout=10,
        )
        for i in range(players)
    ]
    seats, refused = [], []
    for future in futures:
        try:
            seats.append(future.result().seat)
        except grpc.RpcError as e:
            refused.append(e.details())
    return seats, refused
