"""The whole Lexio stack as real processes on 127.0.0.1, for bench/load.py.

lexicon → engine → lobby (Lexio ready through the engine's health) → gateway, each its console
script on free ports with its Prometheus metrics on a port of its own (the gateway serves
/metrics on its HTTP port), its stderr in a log file of the run's directory. With
``backend="redis"`` a ``redis-server`` of its own is started too and ``LEXIO_REDIS_URL`` is
given to the lobby and the gateway (whether they use it is theirs to say: see
:func:`redis_supported`).

``topology="prod"`` runs what deploy/overlays/prod runs instead: Redis with AOF everysec and a
password, several lobby replicas (``lobby-a``, ``lobby-b``...) and several gateway replicas
(``gateway-a``, ``gateway-b``...) on it. In k8s each gateway's one gRPC connection to the
lobby's ClusterIP Service lands on one pod and, once that pod is gone, reconnects to another:
here each gateway gets a multi-address target (``ipv4:a,b``) in its own rotation, which gRPC's
pick_first sticks to the first answering address of (checked: a lobby killed with -9, the
calls go on on the next). :meth:`Stack.kill`, :meth:`Stack.restart`, :meth:`Stack.kill_redis`
and :meth:`Stack.restart_redis` are for runs that take a part away under load.
"""

from __future__ import annotations

import inspect
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import yaml
from benchlib import free_port, wait_serving

from lexio_common.procs import RedisServer
from lexio_common.redis_cluster_server import RedisClusterServer
from lexio_lobby.server import DEFAULT_GAMES

GAME_TURN_SECONDS = 120


def _gateway_pod() -> dict[str, Any]:
    """The pod spec of deploy/base/gateway.yaml's Deployment: what a rolling update gives it."""
    path = Path(__file__).resolve().parents[1] / "deploy" / "base" / "gateway.yaml"
    for doc in yaml.safe_load_all(path.read_text()):
        if doc and doc.get("kind") == "Deployment":
            return dict(doc["spec"]["template"]["spec"])
    raise RuntimeError(f"no Deployment in {path}")


_GATEWAY_POD = _gateway_pod()
TERMINATION_GRACE_SECONDS = float(_GATEWAY_POD["terminationGracePeriodSeconds"])
"""How long a service has to exit after SIGTERM before it is killed: the gateway's
terminationGracePeriodSeconds in deploy/base (120 s). Before 2026-12-06 (third session) the
bench used 40 s: every rollout run killed the stopping gateway 40 s into its drain, and the
seats not sent away yet lost their connection all at once."""
GATEWAY_SHUTDOWN_GRACE = next(
    e["value"]
    for c in _GATEWAY_POD["containers"]
    for e in c.get("env", [])
    if e["name"] == "LEXIO_SHUTDOWN_GRACE"
)
"""deploy/base's LEXIO_SHUTDOWN_GRACE for the gateway (90 s): the time it has to drain."""


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


TOPOLOGIES = ("single", "prod")


def replica_names(role: str, count: int) -> list[str]:
    """``gateway-a``, ``gateway-b``... as the prod topology names its replicas."""
    return [f"{role}-{chr(ord('a') + i)}" for i in range(count)]


def role_of(name: str) -> str:
    """``gateway`` for ``gateway`` and ``gateway-b`` alike."""
    return name.split("-", 1)[0]


@dataclass
class Service:
    name: str
    process: subprocess.Popen[bytes]
    port: int
    metrics_url: str | None
    log_path: Path
    ready_seconds: float = 0.0
    command: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    ready: tuple[str, str] = ("", "")
    """How to tell it is up: ("grpc", health service name) or ("http", path)."""
    killed: int = 0
    """Times :meth:`Stack.kill` took it away."""

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


def _wait_ready(service: Service) -> None:
    kind, what = service.ready
    if kind == "grpc":
        _wait_grpc(service, what)
    elif kind == "http":
        _wait_http(service, what)


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
    """The four services (and Redis) of one load run; with ``topology="prod"``, several
    lobby and gateway replicas on one Redis with a password."""

    directory: Path
    backend: str = "sqlite"
    topology: str = "single"
    gateways: int = 2
    """Gateway replicas of the prod topology (the single one has one)."""
    lobbies: int = 2
    """Lobby replicas of the prod topology."""
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
    redis_cluster: bool = False
    """A Redis Cluster of 3 masters with a replica each instead of one Redis (issue 28)."""
    cluster: RedisClusterServer | None = None
    redis_url: str | None = None
    ready_seconds: float = 0.0
    """From the start to the last gateway ready."""
    _logs: list[IO[bytes]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.topology not in TOPOLOGIES:
            raise ValueError(f"topology {self.topology!r}: one of {TOPOLOGIES}")
        if self.topology == "prod":
            self.backend = "redis"

    def _env(self, **values: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
        if self.pythonpath:
            env["PYTHONPATH"] = self.pythonpath
        env.update(LEXIO_LOG_LEVEL=self.log_level, LEXIO_TURN_SECONDS=str(self.turn_seconds))
        env.update(self.extra_env)
        env.update(values)
        return env

    def _spawn(
        self,
        name: str,
        script: str | list[str],
        port: int,
        metrics: int | None,
        ready: tuple[str, str],
        **env: str,
    ) -> Service:
        """Start ``script`` (a program of the venv, or a whole command line) with ``env``."""
        command = (
            script if isinstance(script, list) else [str(Path(sys.executable).with_name(script))]
        )
        url = f"http://127.0.0.1:{metrics}/metrics" if metrics else None
        log_path = self.directory / f"{name}.log"
        service = Service(
            name, self._popen(command, env, log_path), port, url, log_path,
            command=command, env=env, ready=ready,
        )  # fmt: skip
        self.services[name] = service
        return service

    def _popen(
        self, command: list[str], env: dict[str, str], log_path: Path
    ) -> subprocess.Popen[bytes]:
        # Appended to: a restarted service's log follows its earlier life's.
        log = log_path.open("ab")
        self._logs.append(log)
        return subprocess.Popen(
            command, env=self._env(**env), stdout=subprocess.DEVNULL, stderr=log
        )

    def start_redis(self) -> str:
        # Prod's Redis: AOF everysec (RedisServer's always) and the default user's password.
        password = secrets.token_hex(8) if self.topology == "prod" else ""
        if self.redis_cluster:
            directory = self.directory / "redis-cluster"
            self.cluster = RedisClusterServer(str(directory), password=password)
            self.cluster.start()
            return self.cluster.url
        self.redis = RedisServer(str(self.directory), password=password)
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
            ("grpc", "lexio.lexicon.v1.Lexicon"),
            LEXIO_LEXICON_PORT=str(lexicon_port),
            LEXIO_LEXICON_METRICS_PORT=str(lexicon_metrics),
        )  # fmt: skip
        _wait_ready(lexicon)
        engine_port, engine_metrics = free_port(), free_port()
        # Every game is served through lexio.game.v1.Engine; ready once Lexio's health name
        # (the lobby's for it) serves, as it does once the engine sees its lexicon.
        engine = self._spawn(
            "engine", "lexio-engine", engine_port, engine_metrics,
            ("grpc", "lexio.engine.v1.Engine"),
            LEXIO_ENGINE_PORT=str(engine_port),
            LEXIO_ENGINE_METRICS_PORT=str(engine_metrics),
            LEXIO_LEXICON_ADDRESS=lexicon.address,
        )  # fmt: skip
        _wait_ready(engine)
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
        lobby_names, gateway_names = ["lobby"], ["gateway"]
        if self.topology == "prod":
            lobby_names = replica_names("lobby", self.lobbies)
            gateway_names = replica_names("gateway", self.gateways)
        # Started side by side, then waited for: the replicas of one role are alike.
        lobbies = [self._start_lobby(name, games, redis_env) for name in lobby_names]
        for lobby in lobbies:
            _wait_ready(lobby)
        addresses = [lobby.address for lobby in lobbies]
        gateways = []
        for i, name in enumerate(gateway_names):
            if len(addresses) == 1:
                lobby_address = addresses[0]
            else:
                # Gateway i prefers lobby i (mod their number), then the next ones, as a
                # Service's connection lands on one pod and moves on when that pod is gone.
                turn = i % len(addresses)
                rotation = addresses[turn:] + addresses[:turn]
                lobby_address = "ipv4:" + ",".join(rotation)
            gateways.append(self._start_gateway(name, engine.address, lobby_address, redis_env))
        for gateway in gateways:
            _wait_ready(gateway)
            gateway.ready_seconds = time.perf_counter() - started
        self.ready_seconds = time.perf_counter() - started

    def _start_lobby(
        self, name: str, games: list[dict[str, object]], redis_env: dict[str, str]
    ) -> Service:
        lobby_port, lobby_metrics = free_port(), free_port()
        return self._spawn(
            name, "lexio-lobby", lobby_port, lobby_metrics, ("grpc", "lexio.lobby.v1.Lobby"),
            LEXIO_LOBBY_PORT=str(lobby_port),
            LEXIO_LOBBY_METRICS_PORT=str(lobby_metrics),
            LEXIO_LOBBY_DB=str(self.directory / f"{name}.sqlite3"),
            LEXIO_LOBBY_GAMES=json.dumps(games),
            # Every simulated player comes from 127.0.0.1, one caller for the lobby's limit on
            # joins (10 by default, and a join in flight counts until it succeeds): lifted.
            LEXIO_LOBBY_JOIN_FAILURES=str(self.join_failures),
            **redis_env,
        )  # fmt: skip

    def _start_gateway(
        self, name: str, engine_address: str, lobby_address: str, redis_env: dict[str, str]
    ) -> Service:
        gateway_port, gateway_metrics = free_port(), free_port()
        seeded = None
        if self.book is not None:
            bench = Path(__file__).resolve().parent
            seeded = [sys.executable, str(bench / "load_gateway.py"), *map(str, self.book)]
        return self._spawn(
            name, seeded or "lexio-gateway", gateway_port, gateway_metrics, ("http", "/readyz"),
            LEXIO_GATEWAY_PORT=str(gateway_port),
            # Its /metrics has a port of its own (the public one answers 404).
            LEXIO_GATEWAY_METRICS_PORT=str(gateway_metrics),
            LEXIO_ENGINE_ADDRESS=engine_address,
            LEXIO_LOBBY_ADDRESS=lobby_address,
            LEXIO_GATEWAY_DB=str(self.directory / f"{name}.sqlite3"),
            # Without thinking, a seat of a fast table acts ~40 times a second, over a
            # person's limit of 20 frames a second per socket: lifted as well.
            LEXIO_GATEWAY_FRAMES_PER_SECOND=str(self.frames_per_second),
            LEXIO_GATEWAY_FRAME_BURST=str(self.frames_per_second),
            # As deploy/base/gateway.yaml: the time a rolling update's SIGTERM gives it to
            # send its players away (the --fault TARGET@AT~ of load_faults.py).
            LEXIO_SHUTDOWN_GRACE=GATEWAY_SHUTDOWN_GRACE,
            **redis_env,
        )  # fmt: skip

    def names(self, role: str) -> list[str]:
        """The services of one role (``gateway``, ``lobby``...), in their order."""
        return [name for name in self.services if role_of(name) == role]

    @property
    def gateway_urls(self) -> list[str]:
        return [f"http://{self.services[name].address}" for name in self.names("gateway")]

    @property
    def gateway_url(self) -> str:
        return self.gateway_urls[0]

    # Taking parts away under load -------------------------------------------------------

    def kill(self, name: str) -> None:
        """SIGKILL one service; its entry stays (the report says it was there, and
        :meth:`restart` starts it again)."""
        service = self.services[name]
        if service.process.poll() is None:
            service.process.kill()
            service.process.wait()
        service.killed += 1

    def terminate(self, name: str, grace: float = TERMINATION_GRACE_SECONDS) -> int | None:
        """SIGTERM one service, as the kubelet does in a rolling update, and wait for it to
        exit (its shutdown grace: a gateway sends its players away meanwhile); SIGKILL past
        ``grace``, as the kubelet does. Returns its exit code (-9: killed). Its entry stays,
        for :meth:`restart`."""
        service = self.services[name]
        if service.process.poll() is None:
            service.process.terminate()
            try:
                service.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                service.process.kill()
                service.process.wait()
        service.killed += 1
        return service.process.returncode

    def restart(self, name: str) -> None:
        """Start a stopped (killed) service again, with the same environment and ports; return
        once it is ready (its ``ready_seconds`` says how long that took). Its pid changes:
        :meth:`pids` says the new one."""
        service = self.services[name]
        if service.process.poll() is None:
            raise RuntimeError(f"{name} is still running")
        started = time.perf_counter()
        service.process = self._popen(service.command, service.env, service.log_path)
        _wait_ready(service)
        service.ready_seconds = time.perf_counter() - started

    def kill_redis(self) -> None:
        """kill -9 Redis (what the AOF holds is what everysec had written)."""
        if self.redis is None:
            raise RuntimeError("no Redis in this stack")
        self.redis.stop(kill=True)

    def restart_redis(self) -> None:
        """Start Redis again on the same port and directory; return once it has reloaded its
        AOF and answers PING."""
        if self.redis is None:
            raise RuntimeError("no Redis in this stack")
        self.redis.start()

    def pids(self) -> dict[str, int]:
        pids = {name: s.pid for name, s in self.services.items()}
        if self.redis is not None and self.redis.process is not None:
            pids["redis"] = self.redis.process.pid
        if self.cluster is not None:
            for number, node in enumerate(self.cluster.nodes, 1):
                if node.process is not None:
                    pids[f"redis-{number}"] = node.process.pid
        return pids

    def alive(self) -> dict[str, bool]:
        return {name: s.process.poll() is None for name, s in self.services.items()}

    def stop(self) -> dict[str, int | None]:
        codes: dict[str, int | None] = {}
        for role in ("gateway", "lobby", "engine", "lexicon"):
            for name in self.names(role):
                codes[name] = self.services[name].stop()
        if self.redis is not None:
            self.redis.stop()
            self.redis = None
        if self.cluster is not None:
            self.cluster.stop()
            self.cluster = None
        for log in self._logs:
            log.close()
        return codes

    def log_errors(self, limit: int = 5) -> dict[str, list[str]]:
        """ERROR (and worse) log lines of each service, the first ``limit`` of them: the
        message and, for a traceback, its last line (what was raised), which a cut line loses."""
        out: dict[str, list[str]] = {}
        for name, service in self.services.items():
            lines = []
            for line in service.log_path.read_text(errors="replace").splitlines():
                if '"level": "error"' in line or '"level": "critical"' in line:
                    lines.append(_error_line(line))
            if lines:
                out[name] = lines[:limit] + (
                    [f"... {len(lines)} in all"] if len(lines) > limit else []
                )
        return out


def _error_line(line: str) -> str:
    r"""One error log line as the report gives it: its time, logger and message, and the
    raised exception (a traceback's last line); a line that is not JSON, cut to 300 characters.

    >>> _error_line('{"ts": "T", "logger": "aiohttp.server", "msg": "request failed", '
    ...             '"exc": "Traceback (most recent call last):\\n  File x\\nKeyError: 1"}')
    'T aiohttp.server: request failed — KeyError: 1'
    """
    try:
        record = json.loads(line)
    except ValueError:
        return line[:300]
    text = f"{record.get('ts', '')} {record.get('logger', '')}: {record.get('msg', '')}"
    raised = [part for part in str(record.get("exc", "")).splitlines() if part.strip()]
    return f"{text} — {raised[-1].strip()}" if raised else text
