"""The whole Lexio stack as real processes on 127.0.0.1, for bench/load.py.

lexicon → engine → lobby (Lexio ready through the engine's health) → gateway, each its console
script on free ports with its Prometheus metrics on a port of its own (the gateway serves
/metrics on its HTTP port), its stderr in a log file of the run's directory. With
``backend="redis"`` a ``redis-server`` of its own is started too and ``LEXIO_REDIS_URL`` is
given to the lobby and the gateway (whether they use it is theirs to say: see
:func:`redis_supported`).
"""

from __future__ import annotations

import inspect
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from benchlib import free_port, wait_serving

from lexio_common.procs import RedisServer
from lexio_lobby.server import DEFAULT_GAMES

GAME_TURN_SECONDS = 120


def redis_supported() -> dict[str, bool]:
    """Whether the gateway's and the lobby's code read ``LEXIO_REDIS_URL`` (the Redis backends
    are being written while this harness is): a look at their configuration's source."""
    found = {}
    for service, module in (("gateway", "lexio_gateway"), ("lobby", "lexio_lobby")):
        try:
            package = __import__(module)
            root = Path(inspect.getfile(package)).parent
            found[service] = any(
                "LEXIO_REDIS_URL" in path.read_text(encoding="utf-8") for path in root.glob("*.py")
            )
        except (ImportError, OSError):
            found[service] = False
    return found


@dataclass
class Service:
    name: str
    process: subprocess.Popen[bytes]
    port: int
    metrics_url: str | None
    log_path: Path
    ready_seconds: float = 0.0

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self, timeout: float = 20) -> int | None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def _wait_grpc(service: Service, health_name: str) -> None:
    what = f"{service.name} (log: {service.log_path})"
    wait_serving(service.address, health_name, service.process, what=what)


def _wait_http(service: Service, path: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if service.process.poll() is not None:
            raise RuntimeError(f"{service.name} exited: see {service.log_path}")
        try:
            urllib.request.urlopen(f"http://{service.address}{path}", timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{service.name} not ready after {timeout} s")


@dataclass
class Stack:
    """The four services (and Redis) of one load run."""

    directory: Path
    backend: str = "sqlite"
    turn_seconds: float = GAME_TURN_SECONDS
    log_level: str = "WARNING"
    pythonpath: str | None = None
    extra_env: dict[str, str] = field(default_factory=dict)
    join_failures: int = 1_000_000
    frames_per_second: float = 1_000_000.0
    book: tuple[int, int] | None = None
    """(first seed, count) of the players' book: the gateway is then bench/load_gateway.py,
    which seeds each game by its table id (load_scripts.script_seed)."""
    services: dict[str, Service] = field(default_factory=dict)
    redis: RedisServer | None = None
    redis_url: str | None = None
    _logs: list[IO[bytes]] = field(default_factory=list)

    def _env(self, **values: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
        if self.pythonpath:
            env["PYTHONPATH"] = self.pythonpath
        env.update(LEXIO_LOG_LEVEL=self.log_level, LEXIO_TURN_SECONDS=str(self.turn_seconds))
        env.update(self.extra_env)
        env.update(values)
        return env

    def _spawn(
        self, name: str, script: str | list[str], port: int, metrics: int | None, **env: str
    ) -> Service:
        """Start ``script`` (a program of the venv, or a whole command line) with ``env``."""
        log_path = self.directory / f"{name}.log"
        log = log_path.open("wb")
        self._logs.append(log)
        process = subprocess.Popen(
            script if isinstance(script, list) else [str(Path(sys.executable).with_name(script))],
            env=self._env(**env),
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        url = f"http://127.0.0.1:{metrics}/metrics" if metrics else None
        service = Service(name, process, port, url, log_path)
        self.services[name] = service
        return service

    def start_redis(self) -> str:
        self.redis = RedisServer(str(self.directory))
        self.redis.start()
        return self.redis.url

    def start(self) -> None:
        started = time.perf_counter()
        redis_env: dict[str, str] = {}
        if self.backend == "redis":
            self.redis_url = self.start_redis()
            redis_env = {"LEXIO_REDIS_URL": self.redis_url}
        lexicon_port, lexicon_metrics = free_port(), free_port()
        lexicon = self._spawn(
            "lexicon", "lexio-lexicon", lexicon_port, lexicon_metrics,
            LEXIO_LEXICON_PORT=str(lexicon_port),
            LEXIO_LEXICON_METRICS_PORT=str(lexicon_metrics),
        )  # fmt: skip
        _wait_grpc(lexicon, "lexio.lexicon.v1.Lexicon")
        engine_port, engine_metrics = free_port(), free_port()
        engine = self._spawn(
            "engine", "lexio-engine", engine_port, engine_metrics,
            LEXIO_ENGINE_PORT=str(engine_port),
            LEXIO_ENGINE_METRICS_PORT=str(engine_metrics),
            LEXIO_LEXICON_ADDRESS=lexicon.address,
        )  # fmt: skip
        _wait_grpc(engine, "lexio.engine.v1.Engine")
        lobby_port, lobby_metrics = free_port(), free_port()
        # The lobby's own registration of both games (al-Mishqaq with its table options), on
        # this stack's engine.
        games = [
            {
                "name": game.name,
                "min_seats": game.min_seats,
                "max_seats": game.max_seats,
                "health_address": engine.address,
                "health_service": game.health_service,
                "options": [
                    {"name": o.name, "choices": list(o.choices), "default": o.default}
                    for o in game.options
                ],
            }
            for game in DEFAULT_GAMES
        ]
        lobby = self._spawn(
            "lobby", "lexio-lobby", lobby_port, lobby_metrics,
            LEXIO_LOBBY_PORT=str(lobby_port),
            LEXIO_LOBBY_METRICS_PORT=str(lobby_metrics),
            LEXIO_LOBBY_DB=str(self.directory / "lobby.sqlite3"),
            LEXIO_LOBBY_GAMES=json.dumps(games),
            # Every simulated player comes from 127.0.0.1, one caller for the lobby's limit on
            # joins (10 by default, and a join in flight counts until it succeeds): lifted.
            LEXIO_LOBBY_JOIN_FAILURES=str(self.join_failures),
            **redis_env,
        )  # fmt: skip
        _wait_grpc(lobby, "lexio.lobby.v1.Lobby")
        gateway_port, gateway_metrics = free_port(), free_port()
        seeded = None
        if self.book is not None:
            bench = Path(__file__).resolve().parent
            seeded = [sys.executable, str(bench / "load_gateway.py"), *map(str, self.book)]
        gateway = self._spawn(
            "gateway", seeded or "lexio-gateway", gateway_port, gateway_metrics,
            LEXIO_GATEWAY_PORT=str(gateway_port),
            # Its /metrics has a port of its own (the public one answers 404).
            LEXIO_GATEWAY_METRICS_PORT=str(gateway_metrics),
            LEXIO_ENGINE_ADDRESS=engine.address,
            LEXIO_LOBBY_ADDRESS=lobby.address,
            LEXIO_GATEWAY_DB=str(self.directory / "gateway.sqlite3"),
            # Without thinking, a seat of a fast table acts ~40 times a second, over a
            # person's limit of 20 frames a second per socket: lifted as well.
            LEXIO_GATEWAY_FRAMES_PER_SECOND=str(self.frames_per_second),
            LEXIO_GATEWAY_FRAME_BURST=str(self.frames_per_second),
            **redis_env,
        )  # fmt: skip
        _wait_http(gateway, "/readyz")
        gateway.ready_seconds = time.perf_counter() - started

    @property
    def gateway_url(self) -> str:
        return f"http://{self.services['gateway'].address}"

    def pids(self) -> dict[str, int]:
        pids = {name: s.pid for name, s in self.services.items()}
        if self.redis is not None and self.redis.process is not None:
            pids["redis"] = self.redis.process.pid
        return pids

    def alive(self) -> dict[str, bool]:
        return {name: s.process.poll() is None for name, s in self.services.items()}

    def stop(self) -> dict[str, int | None]:
        codes: dict[str, int | None] = {}
        for name in ("gateway", "lobby", "engine", "lexicon"):
            if name in self.services:
                codes[name] = self.services[name].stop()
        if self.redis is not None:
            self.redis.stop()
            self.redis = None
        for log in self._logs:
            log.close()
        return codes

    def log_errors(self, limit: int = 5) -> dict[str, list[str]]:
        """ERROR (and worse) log lines of each service, the first ``limit`` of them."""
        out: dict[str, list[str]] = {}
        for name, service in self.services.items():
            lines = []
            for line in service.log_path.read_text(errors="replace").splitlines():
                if '"level": "error"' in line or '"level": "critical"' in line:
                    lines.append(line[:300])
            if lines:
                out[name] = lines[:limit] + (
                    [f"... {len(lines)} in all"] if len(lines) > limit else []
                )
        return out
