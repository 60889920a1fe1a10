"""Test support shared by every suite: an event loop in a thread and a gateway starter.

Kept apart from conftest.py so that test modules import it by a stable name.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import web

from lexio_gateway.app import create_app
from lexio_gateway.config import GatewayConfig
from lexio_gateway.hub import TableHub
from lexio_gateway.state import HUB

T = TypeVar("T")


class LoopThread:
    """An asyncio loop running in a daemon thread, hosting the servers under test."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()


@dataclass
class GatewayHandle:
    runner: web.AppRunner
    url: str
    config: GatewayConfig

    @property
    def hub(self) -> TableHub:
        return self.runner.app[HUB]


async def start_gateway(
    config: GatewayConfig, seeds: Callable[[], int] | None = None
) -> GatewayHandle:
    runner = web.AppRunner(create_app(config, seeds=seeds), handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", config.port)
    await site.start()
    host, port = runner.addresses[0][:2]
    return GatewayHandle(runner, f"http://{host}:{port}", config)


GatewayFactory = Callable[..., GatewayHandle]


class RedisServer:
    """A real redis-server on a free loopback port, with AOF (appendfsync everysec) in ``dir``.

    ``extra_args`` are added at the next :meth:`start` (e.g. ``--key-load-delay``, Redis's own
    setting for slowing its load down, as its own test suite does)."""

    def __init__(self, directory: str, port: int) -> None:
        self.directory = directory
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None
        self.extra_args: list[str] = []

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, *, wait_loaded: bool = True) -> None:
        """Start Redis; return once it answers PING, or (``wait_loaded`` false) as soon as
        its port answers at all, maybe with LOADING while it reads its AOF."""
        executable = shutil.which("redis-server")
        if executable is None:
            raise RuntimeError("redis-server is missing: `make test` installs it (apt, as root)")
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
                *self.extra_args,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    answer = s.recv(16)
                    if answer.startswith(b"+PONG") or (answer and not wait_loaded):
                        return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("redis-server did not start")

    def command(self, *args: str) -> bytes:
        """One command, its raw RESP reply (the port may answer before the data is loaded)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
            s.sendall(_resp(args))
            return s.recv(65536)

    def loaded(self) -> bool:
        try:
            return self.command("GET", "lexio:none").startswith(b"$-1")
        except OSError:
            return False

    def fill(self, keys: int, value_bytes: int = 64) -> None:
        """Write ``keys`` filler keys (one pipeline), so the AOF has that much to load."""
        value = "x" * value_bytes
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            s.sendall(b"".join(_resp(("SET", f"filler:{i}", value)) for i in range(keys)))
            s.sendall(_resp(("PING",)))
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


def _resp(args: tuple[str, ...]) -> bytes:
    parts = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = arg.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class GatewayProcess:
    """The real ``lexio-gateway`` program, as an operator runs it, ready on ``url``."""

    def __init__(self, env: dict[str, str], port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"
        executable = Path(sys.executable).with_name("lexio-gateway")
        self.process = subprocess.Popen(
            [str(executable)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.process.poll() is None, (
                self.process.stderr.read() if self.process.stderr else ""
            )
            try:
                with urllib.request.urlopen(f"{self.url}/readyz", timeout=1) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("the gateway did not become ready")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=20)


def environment_without_lexio(**settings: str) -> dict[str, str]:
    """This process's environment without any LEXIO_ setting, plus ``settings``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
    env.update(settings)
    return env
