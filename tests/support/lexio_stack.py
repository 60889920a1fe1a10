"""The four services of the site as real processes (their console scripts), as operators run
them.

Each listens on 127.0.0.1 on free ports, with its metrics port; logs go to files in the test's
temporary directory (shown when a service fails to come up).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2

from lexio.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from lexio_common.procs import free_port, grpc_status, http_status

__all__ = [
    "GRPC_SERVICES",
    "Service",
    "Stack",
    "clean_env",
    "free_port",
    "grpc_status",
    "http_status",
    "http_text",
]

BIN = Path(sys.executable).parent

#: The health name each gRPC service is waited for by. The engine serves every game through
#: one service (lexio.game.v1.Engine); what is waited for is Lexio's health name, SERVING once
#: the engine's lexicon is, which is also what the lobby asks before offering Lexio.
GRPC_SERVICES = {
    "lexicon": "lexio.lexicon.v1.Lexicon",
    "engine": "lexio.engine.v1.Engine",
    "lobby": "lexio.lobby.v1.Lobby",
}


def clean_env() -> dict[str, str]:
    """The test's environment without any LEXIO_ variable (so nothing leaks in)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}


def http_text(url: str, timeout: float = 5.0) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as reply:
        return str(reply.read().decode())


@dataclass
class Service:
    name: str
    env: dict[str, str]
    port: int
    metrics_port: int
    log_path: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def metrics_url(self) -> str:
        return f"http://127.0.0.1:{self.metrics_port}/metrics"

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [str(BIN / f"lexio-{self.name}")],
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )

    def ready(self) -> bool:
        if self.name == "gateway":
            return http_status(f"http://127.0.0.1:{self.port}/readyz") == 200
        serving = health_pb2.HealthCheckResponse.SERVING
        return bool(grpc_status(self.address, GRPC_SERVICES[self.name]) == serving)

    def kill(self) -> None:
        """kill -9: no goodbye and no flush, as a crash or an out-of-memory kill does."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=10)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def terminate(self, timeout: float = 20.0) -> int:
        """SIGTERM, then wait; returns the exit status (SIGKILL after ``timeout``)."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
            raise AssertionError(f"{self.name} ignored SIGTERM for {timeout} s") from None


@dataclass
class Stack:
    """lexicon, engine, lobby and gateway wired together on loopback."""

    root: Path
    services: dict[str, Service] = field(default_factory=dict)

    @classmethod
    def create(
        cls, root: Path, *, lobby_games: Sequence[Mapping[str, Any]] = (), **extra_env: str
    ) -> Stack:
        """The four services' settings (started by :meth:`start`). The lobby offers Lexio,
        or ``lobby_games`` (entries of ``LEXIO_LOBBY_GAMES``, docs/lobby.md), each ready
        through this stack's engine."""
        ports = {name: (free_port(), free_port()) for name in (*GRPC_SERVICES, "gateway")}
        gateway_port = ports["gateway"][0]
        base = clean_env() | {"LEXIO_LOG_LEVEL": "INFO", **extra_env}
        engine_address = f"127.0.0.1:{ports['engine'][0]}"
        lobby_games = lobby_games or [
            {
                "name": "lexio",
                "min_seats": 2,
                "max_seats": 4,
                "health_service": GRPC_SERVICES["engine"],
            }
        ]
        games = [{**game, "health_address": engine_address} for game in lobby_games]
        envs = {
            "lexicon": {
                "LEXIO_LEXICON_PORT": str(ports["lexicon"][0]),
                "LEXIO_LEXICON_METRICS_PORT": str(ports["lexicon"][1]),
            },
            "engine": {
                "LEXIO_ENGINE_PORT": str(ports["engine"][0]),
                "LEXIO_ENGINE_METRICS_PORT": str(ports["engine"][1]),
                "LEXIO_LEXICON_ADDRESS": f"127.0.0.1:{ports['lexicon'][0]}",
            },
            "lobby": {
                "LEXIO_LOBBY_PORT": str(ports["lobby"][0]),
                "LEXIO_LOBBY_METRICS_PORT": str(ports["lobby"][1]),
                "LEXIO_LOBBY_DB": str(root / "lobby.sqlite3"),
                "LEXIO_LOBBY_GAMES": json.dumps(games),
                "LEXIO_LOBBY_READINESS_CACHE": "0",
            },
            "gateway": {
                "LEXIO_GATEWAY_PORT": str(gateway_port),
                "LEXIO_GATEWAY_METRICS_PORT": str(ports["gateway"][1]),
                "LEXIO_ENGINE_ADDRESS": engine_address,
                "LEXIO_LOBBY_ADDRESS": f"127.0.0.1:{ports['lobby'][0]}",
                "LEXIO_GATEWAY_DB": str(root / "gateway.sqlite3"),
            },
        }
        stack = cls(root)
        for name, env in envs.items():
            port, metrics_port = ports[name]
            stack.services[name] = Service(
                name, base | env, port, metrics_port, root / f"{name}.log"
            )
        return stack

    def __getitem__(self, name: str) -> Service:
        return self.services[name]

    @property
    def gateway_url(self) -> str:
        return f"http://127.0.0.1:{self['gateway'].port}"

    def start(
        self,
        names: tuple[str, ...] = ("lexicon", "engine", "lobby", "gateway"),
        *,
        until_offered: bool = True,
    ) -> None:
        """Start the services (all at once) and wait until each reports ready and, with
        ``until_offered``, until the lobby offers every game (a ``ListGames`` call: a test of
        an untouched stack's metrics passes False)."""
        for name in names:
            self[name].start()
        deadline = time.monotonic() + 30
        waiting = list(names)
        while waiting:
            service = self[waiting[0]]
            assert service.process is not None
            if service.process.poll() is not None:
                raise AssertionError(f"{service.name} exited:\n{service.log()}")
            if service.ready():
                waiting.pop(0)
                continue
            if time.monotonic() > deadline:
                raise AssertionError(f"{service.name} did not become ready:\n{service.log()}")
            time.sleep(0.05)
        if until_offered and "lobby" in names and "engine" in names:
            self._wait_games_offered(deadline)

    def _wait_games_offered(self, deadline: float) -> None:
        """Until the lobby offers every game it registered (``ListGames``, which asks each
        game's health): the engine answering its own health is not enough, the lobby's first
        check of it may have come before it was up, and a ``create`` then would be
        ``game_unavailable``."""
        lobby = self["lobby"]
        with grpc.insecure_channel(lobby.address) as channel:
            stub = lobby_pb2_grpc.LobbyStub(channel)
            offered: dict[str, bool] = {}
            while not offered or not all(offered.values()):
                if time.monotonic() > deadline:
                    raise AssertionError(f"the lobby offers {offered}:\n{lobby.log()}")
                try:
                    reply = stub.ListGames(lobby_pb2.ListGamesRequest(), timeout=2)
                    offered = {g.name: g.available for g in reply.games}
                except grpc.RpcError:
                    offered = {}
                if not offered or not all(offered.values()):
                    time.sleep(0.05)

    def stop(self) -> dict[str, int]:
        """SIGTERM every running service, the gateway first; their exit statuses."""
        statuses = {}
        for name in ("gateway", "lobby", "engine", "lexicon"):
            service = self.services[name]
            if service.process is not None:
                statuses[name] = service.terminate()
        return statuses
