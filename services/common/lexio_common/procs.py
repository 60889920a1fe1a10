"""Process and port helpers shared by the tests, the benchmarks and ``make run``.

One copy of each: a free loopback port, waiting for a process to serve (gRPC health or an
HTTP ``/readyz``), stopping it (SIGTERM, then SIGKILL), and a real ``redis-server`` on a
loopback port of its own (optionally with a password, as prod runs it).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

__all__ = [
    "RedisServer",
    "free_port",
    "grpc_serving",
    "http_status",
    "stop_process",
    "wait_grpc_serving",
    "wait_http_ready",
]


# Ports handed out by free_port in this process: never twice.
_handed_out: set[int] = set()
_handing_out = threading.Lock()
# Where free_port looks: below the kernel's ephemeral range, which is where bind(0) and every
# outgoing connection's local port come from.
_LOWEST_PORT = 20000
_EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")


def _ephemeral_low() -> int:
    try:
        return int(_EPHEMERAL_RANGE.read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


def _bindable(host: str, port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


PORT_SLICE_VARIABLE: Final = "LEXIO_FREE_PORT_SLICE"
"""``k/n``: :func:`free_port` hands out ports from the k-th (0-based) of n equal slices of its
range only. Parallel test workers each set their own (tests/conftest.py), so that two
processes can never hand out the same port, which "never twice" alone promises within one."""


def _port_range(low: int, chosen: str) -> tuple[int, int]:
    """The part of [_LOWEST_PORT, low) a process whose slice is ``chosen`` (the value of
    :data:`PORT_SLICE_VARIABLE`, "" for none) hands out from.

    >>> _port_range(32768, "1/4")
    (23192, 26384)
    >>> _port_range(32768, "")
    (20000, 32768)
    """
    if not chosen:
        return _LOWEST_PORT, low
    index, count = (int(n) for n in chosen.split("/"))
    size = (low - _LOWEST_PORT) // count
    start = _LOWEST_PORT + index * size
    return start, start + size


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on now, for a process about to be started on it.

    Free until someone binds it, so it is chosen where nobody else is likely to: never one
    this process has handed out before (the kernel's own pick can give the same port twice
    in a row), from this process's slice when it has one (:data:`PORT_SLICE_VARIABLE`), and
    below the kernel's ephemeral range, so that no outgoing connection takes it as its local
    port in the meantime (a gateway once failed to start with "Address already in use" so).
    The kernel's pick when that range leaves no room below it.
    """
    low = _ephemeral_low()
    with _handing_out:
        if low - _LOWEST_PORT >= 1000:
            start, end = _port_range(low, os.environ.get(PORT_SLICE_VARIABLE, ""))
            for _ in range(200):
                port = random.randrange(start, end)
                if port not in _handed_out and _bindable(host, port):
                    _handed_out.add(port)
                    return port
        while True:
            with socket.socket() as s:
                s.bind((host, 0))
                port = int(s.getsockname()[1])
            if port not in _handed_out:
                _handed_out.add(port)
                return port


def grpc_status(address: str, service: str, timeout: float = 1.0) -> int | None:
    """grpc.health.v1 Check: the status, or None when the server does not answer."""
    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=timeout
            )
        except grpc.RpcError:
            return None
    return int(reply.status)


def grpc_serving(address: str, service: str, timeout: float = 1.0) -> bool | None:
    """grpc.health.v1 Check: True SERVING, False another status, None no answer."""
    status = grpc_status(address, service, timeout)
    return None if status is None else status == health_pb2.HealthCheckResponse.SERVING


def http_status(url: str, timeout: float = 1.0) -> int | None:
    """The status of a GET (errors included); None when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as e:
        return int(e.code)
    except OSError:
        return None


def _alive(process: subprocess.Popen[bytes] | subprocess.Popen[str] | None, what: str) -> None:
    if process is not None and process.poll() is not None:
        raise RuntimeError(f"{what} exited with status {process.returncode}")


def wait_grpc_serving(
    address: str,
    service: str,
    process: subprocess.Popen[bytes] | subprocess.Popen[str] | None = None,
    *,
    what: str = "",
    timeout: float = 60.0,
) -> None:
    """Until ``service`` at ``address`` reports SERVING; RuntimeError naming ``what`` if
    ``process`` exits first or ``timeout`` passes."""
    what = what or service
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            _alive(process, what)
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.05)
    raise RuntimeError(f"{what} not serving after {timeout:.0f} s")


def wait_http_ready(
    url: str,
    process: subprocess.Popen[bytes] | subprocess.Popen[str] | None = None,
    *,
    what: str = "",
    timeout: float = 60.0,
) -> None:
    """Until ``url`` answers 200; RuntimeError if ``process`` exits first or time runs out."""
    what = what or url
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _alive(process, what)
        if http_status(url) == 200:
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} not ready after {timeout:.0f} s")


def stop_process(
    process: subprocess.Popen[bytes] | subprocess.Popen[str], grace: float = 15.0
) -> int | None:
    """SIGTERM, wait ``grace`` s, then SIGKILL; the exit status (None if it had to be killed)."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
        return None


class RedisServer:
    """A real redis-server on a loopback port, with AOF (appendfsync everysec) in ``directory``.

    ``password``: the ``default`` user's password (``--requirepass``), as prod runs it.
    ``extra_args`` are added at the next :meth:`start` (e.g. ``--key-load-delay``, Redis's own
    setting for slowing its load down, as its own test suite does)."""

    def __init__(self, directory: str, port: int | None = None, *, password: str = "") -> None:
        self.directory = directory
        self.port = port or free_port()
        self.password = password
        self.process: subprocess.Popen[bytes] | None = None
        self.extra_args: list[str] = []

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self, *, wait_loaded: bool = True) -> None:
        """Start Redis; return once it answers PING, or (``wait_loaded`` false) as soon as
        its port answers at all, maybe with LOADING while it reads its AOF."""
        executable = shutil.which("redis-server")
        if executable is None:
            raise RuntimeError("redis-server is missing: `make test` installs it (apt, as root)")
        auth = ["--requirepass", self.password] if self.password else []
        self.process = subprocess.Popen(
            [
                executable,
                "--bind", "127.0.0.1",
                "--port", str(self.port),
                "--dir", self.directory,
                "--appendonly", "yes",
                "--appendfsync", "everysec",
                "--save", "",
                "--protected-mode", "yes",
                *auth,
                *self.extra_args,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                answer = self._raw(("PING",), timeout=0.2)
                if answer.startswith(b"+PONG") or (answer and not wait_loaded):
                    return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("redis-server did not start")

    def _raw(self, args: Sequence[str], timeout: float = 2.0) -> bytes:
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
            if self.password:
                s.sendall(resp(("AUTH", self.password)))
                if not s.recv(64).startswith(b"+OK"):
                    raise OSError("redis refused the password")
            s.sendall(resp(args))
            return s.recv(65536)

    def command(self, *args: str) -> bytes:
        """One command, its raw RESP reply (the port may answer before the data is loaded)."""
        return self._raw(args)

    def loaded(self) -> bool:
        try:
            return self.command("GET", "lexio:none").startswith(b"$-1")
        except OSError:
            return False

    def fill(self, keys: int, value_bytes: int = 64) -> None:
        """Write ``keys`` filler keys (one pipeline), so the AOF has that much to load."""
        value = "x" * value_bytes
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            if self.password:
                s.sendall(resp(("AUTH", self.password)))
                s.recv(64)
            s.sendall(b"".join(resp(("SET", f"filler:{i}", value)) for i in range(keys)))
            s.sendall(resp(("PING",)))
            received = b""
            while not received.endswith(b"+PONG\r\n"):
                chunk = s.recv(1 << 16)
                if not chunk:
                    raise RuntimeError("redis closed the connection while filling")
                received = received[-16:] + chunk

    def stop(self, kill: bool = False) -> None:
        if self.process is None:
            return
        if kill:
            self.process.kill()
        else:
            self.process.terminate()
        self.process.wait(timeout=10)
        self.process = None


def resp(args: Sequence[str]) -> bytes:
    """A command in Redis's wire format."""
    parts = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = arg.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)
