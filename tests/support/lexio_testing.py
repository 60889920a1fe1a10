"""Test support shared by every suite: an event loop in a thread and a gateway starter.
``free_port`` and ``RedisServer`` are :mod:`lexio_common.procs`'s (one copy for the tests,
the benchmarks and ``make run``), re-exported here for the suites, as is
``RedisClusterServer`` (:mod:`lexio_common.redis_cluster_server`), a real Redis Cluster.

Kept apart from conftest.py so that test modules import it by a stable name.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol, TypeVar

from aiohttp import web

from lexio_client import GatewayClient, ServerError
from lexio_common.procs import RedisServer, free_port
from lexio_common.redis_cluster_server import RedisClusterServer
from lexio_engine.server import EngineConfig, start_engine
from lexio_gateway.app import create_app
from lexio_gateway.config import GatewayConfig
from lexio_gateway.http_layer import GatewayRunner
from lexio_gateway.hub import TableHub
from lexio_gateway.state import HUB
from lexio_lobby.games import GameSpec
from lexio_lobby.games import site_games as lobby_site_games

T = TypeVar("T")

log = logging.getLogger(__name__)

__all__ = [
    "GatewayFactory",
    "GatewayHandle",
    "GatewayProcess",
    "LoopThread",
    "RedisClusterServer",
    "RedisServer",
    "Restartable",
    "environment_without_lexio",
    "eventually",
    "free_port",
    "restartable_engine",
    "site_games",
    "start_gateway",
    "until_closed_in_the_lobby",
]


class LoopThread:
    """An asyncio loop running in a daemon thread, hosting the servers under test."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        """Run ``coro`` on the loop; past ``timeout``, raise a TimeoutError that carries the
        stack of every task still on the loop (a hung stop is otherwise a bare TimeoutError
        in CI, with nothing to say which task never ended)."""
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            raise TimeoutError(
                f"not done after {timeout} s; the loop's tasks:\n{self.tasks()}"
            ) from None

    def tasks(self) -> str:
        """Every task on the loop with its stack, read on the loop's own thread."""

        async def dump() -> str:
            lines = []
            for task in asyncio.all_tasks():
                if task is asyncio.current_task():
                    continue
                lines.append(f"{task.get_name()} {task.get_coro()!r}")
                # Not print_stack: it shows a suspended task's outermost frame only, and
                # fails on frames of compiled code (grpc's) that have no line number.
                awaited: Any = task.get_coro()
                while awaited is not None:
                    frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
                    if frame is not None:
                        code = frame.f_code
                        lines.append(f"  {code.co_filename}:{frame.f_lineno} in {code.co_name}")
                    awaited = getattr(awaited, "cr_await", None) or getattr(
                        awaited, "gi_yieldfrom", None
                    )
            return "\n".join(lines)

        try:
            return asyncio.run_coroutine_threadsafe(dump(), self.loop).result(timeout=5)
        except concurrent.futures.TimeoutError:
            return "(the loop itself is blocked)"

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
    config: GatewayConfig, seeds: Callable[[str], int] | None = None
) -> GatewayHandle:
    runner = GatewayRunner(create_app(config, seeds=seeds), handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", config.port)
    await site.start()
    host, port = runner.addresses[0][:2]
    return GatewayHandle(runner, f"http://{host}:{port}", config)


GatewayFactory = Callable[..., GatewayHandle]


class GatewayProcess:
    """The real ``lexio-gateway`` program, as an operator runs it, ready on ``url``."""

    def __init__(self, env: dict[str, str], port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"
        # /metrics has a port of its own: one per process, so that several run side by side.
        env = {"LEXIO_GATEWAY_METRICS_PORT": str(free_port()), **env}
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


@contextlib.contextmanager
def doomed_and_survivor(env: dict[str, str]) -> Iterator[tuple[GatewayProcess, GatewayProcess]]:
    """Two gateway processes on one shared store, for a test that kills the first: both
    stopped at the end, and the survivor must exit cleanly (SIGTERM, status 0)."""
    ports = [free_port(), free_port()]
    doomed = GatewayProcess({**env, "LEXIO_GATEWAY_PORT": str(ports[0])}, ports[0])
    try:
        survivor = GatewayProcess({**env, "LEXIO_GATEWAY_PORT": str(ports[1])}, ports[1])
    except BaseException:
        doomed.stop()
        raise
    try:
        yield doomed, survivor
    finally:
        doomed.stop()
        assert survivor.stop() == 0


def environment_without_lexio(**settings: str) -> dict[str, str]:
    """This process's environment without any LEXIO_ setting, plus ``settings``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
    env.update(settings)
    return env


def replica_environment(
    engine_port: int, lobby_port: int, redis_url: str, *, turn_seconds: int
) -> dict[str, str]:
    """A gateway replica process's environment: the test's engine, lobby and Redis."""
    return environment_without_lexio(
        LEXIO_ENGINE_ADDRESS=f"127.0.0.1:{engine_port}",
        LEXIO_LOBBY_ADDRESS=f"127.0.0.1:{lobby_port}",
        LEXIO_REDIS_URL=redis_url,
        LEXIO_TURN_SECONDS=str(turn_seconds),
        LEXIO_DISCONNECT_GRACE="30",
    )


SHARED_LOOP_READINESS_TIMEOUT: Final = 5.0
"""The deadline of an in-process lobby's engine check (its ``readiness_timeout``) when the lobby,
the engine, the gateway and the test's clients share one event loop (:class:`LoopThread`): the
lobby's 0.5 s default then measures that loop's backlog on a busy machine, not the engine (a
create was refused ``game_unavailable`` once, under ``make test`` beside a busy loop). The
lobby's own tests keep 0.5 s for the check itself (tests/lobby)."""


def site_games(engine_address: str, *, names: tuple[str, ...] = ("lexio",)) -> tuple[GameSpec, ...]:
    """The lobby's own registrations of the site's games (lexio_lobby/site_games.json, what
    it registers without LEXIO_LOBBY_GAMES), ready through the engine at ``engine_address``."""
    return tuple(game for game in lobby_site_games(engine_address) if game.name in names)


class Stoppable(Protocol):
    async def stop(self, grace: float) -> None: ...


class Restartable:
    """A service of the test's own on a fixed port, stopped and started again at will (from
    the test's coroutine, on the loop the service runs on): what a kill and a restart of that
    service look like to its callers."""

    def __init__(
        self, loop_thread: LoopThread, start: Callable[[int], Awaitable[Stoppable]]
    ) -> None:
        self._loop_thread = loop_thread
        self._start = start
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self._running: Stoppable | None = None
        loop_thread.run(self.start(), timeout=60)

    async def start(self) -> None:
        assert self._running is None
        self._running = await self._start(self.port)

    async def stop(self) -> None:
        if self._running is not None:
            running, self._running = self._running, None
            await running.stop(0)

    def close(self) -> None:
        self._loop_thread.run(self.stop())


def restartable_engine(loop_thread: LoopThread, lexicon_address: str) -> Restartable:
    """A real engine of the test's own (the session's stays up), on ``lexicon_address``."""

    def start(port: int) -> Awaitable[Stoppable]:
        config = EngineConfig(
            host="127.0.0.1", port=port, metrics_port=-1, lexicon_address=lexicon_address
        )
        return start_engine(config)

    return Restartable(loop_thread, start)


async def eventually(
    condition: Callable[[], object],
    what: str | Callable[[], str],
    timeout: float = 10.0,
    every: float = 0.02,
) -> None:
    """Poll ``condition`` until it holds; fail saying ``what`` did not come true (a callable
    ``what`` is asked then: it can say what was seen instead)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not so after {timeout} s: {_said(what)}")
        await asyncio.sleep(every)


def eventually_sync(
    condition: Callable[[], object],
    what: str | Callable[[], str],
    timeout: float = 10.0,
    every: float = 0.02,
) -> None:
    """:func:`eventually` for a test's own thread (a browser's page, a blocking gRPC stub)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not so after {timeout} s: {_said(what)}")
        time.sleep(every)


def _said(what: str | Callable[[], str]) -> str:
    return what if isinstance(what, str) else what()


async def answered_despite_unavailable(
    request: Callable[[], Awaitable[T]], timeout: float = 30.0
) -> T:
    """``request`` sent again while the gateway answers ``unavailable``, as the protocol asks
    of every client ("nothing changed, try again"): a service still coming back, or a store
    or engine call that timed out on a loaded machine. Each retry is logged; any other
    refusal is raised at once; past ``timeout``, fails with the tries and the last answer."""
    deadline = time.monotonic() + timeout
    tries = 0
    while True:
        try:
            return await request()
        except ServerError as e:
            if e.code != "unavailable":
                raise
            tries += 1
            assert time.monotonic() < deadline, (
                f"still unavailable after {timeout} s ({tries} tries), the last: {e.frame}"
            )
            log.warning("answered unavailable: asked again", extra={"frame": e.frame})
            await asyncio.sleep(0.2)


async def until_closed_in_the_lobby(client: GatewayClient, code: str, timeout: float = 30) -> None:
    """Look ``code`` up until the lobby says its table is closed (a finished game's table is
    closed there by the gateway, maybe only once the lobby is back)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            state = (await client.lookup(code))["state"]
        except ServerError as e:
            state = e.code
        if state == "table_closed":
            return
        assert time.monotonic() < deadline, f"lookup still says {state!r}"
        await asyncio.sleep(0.25)
