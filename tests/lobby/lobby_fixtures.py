"""Helpers for the lobby suites: a fake clock, and a real lobby server driven synchronously.

Not a conftest (a second conftest module breaks mypy): each suite builds its own fixtures from
:class:`LobbyHarness`. The server runs on the session's ``loop_thread`` with a real SQLite file;
tests talk to it over gRPC on 127.0.0.1 with ordinary synchronous stubs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import grpc
from lexio_testing import LoopThread
from prometheus_client import CollectorRegistry

from lexio.lobby.v1 import lobby_pb2 as pb
from lexio.lobby.v1 import lobby_pb2_grpc
from lexio_lobby.codes import ALPHABET, new_code
from lexio_lobby.games import GameSpec
from lexio_lobby.metrics import LobbyMetrics
from lexio_lobby.server import LobbyConfig, RunningLobby, start_lobby

T = TypeVar("T")

#: A formatted invite code as the lobby hands it out.
CODE_FORMAT = re.compile(f"[{ALPHABET}]{{5}}-[{ALPHABET}]{{5}}")
#: Games most suites use: no readiness check, so always ready.
CARDS = GameSpec(name="cards", min_seats=2, max_seats=4)
PARTY = GameSpec(name="party", min_seats=3, max_seats=6)
TTL = 3600.0
JOIN_FAILURES = 10
JOIN_WINDOW = 600.0


class FakeClock:
    """Time that moves only when told; serves as both the epoch and the monotonic clock."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def lobby_config(db_path: Path, games: tuple[GameSpec, ...] = (CARDS, PARTY)) -> LobbyConfig:
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
    )


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
        self, player: str = "p0", name: str = "Ana", game: str = "cards"
    ) -> pb.CreateTableResponse:
        request = pb.CreateTableRequest(game=game, player_id=player, display_name=name)
        reply: pb.CreateTableResponse = self.stub.CreateTable(request, timeout=10)
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


def names(table: pb.Table) -> list[str]:
    return [seat.display_name for seat in table.seats]


def players(table: pb.Table) -> list[str]:
    return [seat.player_id for seat in table.seats]
