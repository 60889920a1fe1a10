"""Turn latency with the gateway's two stores: SQLite (one process) and Redis (replicas).

Real processes on loopback: lexicon, engine, lobby (SQLite), a redis-server of its own, and
``lexio-gateway`` started once per backend. Two players play whole games with the test bot;
a turn is timed from the moment its ``act`` is sent to the moment the *other* player has the
view that follows it (what a player waits for), the bot's thinking left out.

Run: ``.venv/bin/python bench/backend_bench.py [GAMES]`` (default 4 games per backend).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import aiohttp
from benchlib import (
    ServiceProcess,
    engine_process,
    free_port,
    lexicon_process,
    machine,
    percentiles_us,
)

from lexio_client import GatewayClient
from lexio_client.bot import Bot
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH


def lobby_process(engine_address: str, db: str) -> ServiceProcess:
    games = (
        '[{"name": "lexio", "min_seats": 2, "max_seats": 4, '
        f'"health_address": "{engine_address}", "health_service": "lexio.engine.v1.Engine"}}]'
    )
    return ServiceProcess(
        "lexio-lobby",
        "lexio.lobby.v1.Lobby",
        {
            "PORT_VAR": "LEXIO_LOBBY_PORT",
            "LEXIO_LOBBY_METRICS_PORT": "-1",
            "LEXIO_LOBBY_DB": db,
            "LEXIO_LOBBY_GAMES": games,
        },
    )


def gateway_process(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen(
        [str(Path(sys.executable).with_name("lexio-gateway"))],
        env={**env, "LEXIO_GATEWAY_PORT": str(port), "LEXIO_LOG_LEVEL": "WARNING"},
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=1) as reply:
                if reply.status == 200:
                    return process, url
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("gateway not ready")


async def play_games(url: str, games: int, bot: Bot) -> list[int]:
    samples: list[int] = []
    async with aiohttp.ClientSession() as session:
        for game in range(games):
            ana = GatewayClient(session, url, None)
            bruno = GatewayClient(session, url, None)
            await ana.open()
            await bruno.open()
            await ana.create("Ana")
            await bruno.join(ana.table["code"], "Bruno")
            await ana.wait_for(lambda f: f["type"] == "table" and len(f["seats"]) == 2, since=0)
            await ana.start()
            await bruno.wait_for(lambda f: f["type"] == "snapshot", since=0)
            player = bot.with_seed(game)
            clients = [ana, bruno]
            while not ana.view.get("ending"):
                mover = clients[ana.view["turn"]]
                other = clients[1 - ana.view["turn"]]
                action = player.choose(mover.view)
                seq = mover.seq
                started = time.perf_counter_ns()
                await mover.request({"type": "act", "action": action})
                await other.wait_view(seq + 1)
                samples.append(time.perf_counter_ns() - started)
                await mover.wait_view(seq + 1)
            await ana.close()
            await bruno.close()
    return samples


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    print(f"backend bench: {games} two-player games per backend on {machine()}")
    bot = Bot(DEFAULT_WORDLIST_PATH.read_text(encoding="ascii").split(), 0)
    redis_server = shutil.which("redis-server")
    assert redis_server, "redis-server is missing (make test installs it)"
    with tempfile.TemporaryDirectory() as tmp:
        lexicon = lexicon_process()
        engine = engine_process(lexicon.address)
        lobby = lobby_process(engine.address, f"{tmp}/lobby.sqlite3")
        redis_port = free_port()
        redis = subprocess.Popen(
            [redis_server, "--bind", "127.0.0.1", "--port", str(redis_port), "--dir", tmp,
             "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            base = {
                "LEXIO_ENGINE_ADDRESS": engine.address,
                "LEXIO_LOBBY_ADDRESS": lobby.address,
            }
            env = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
            for backend, extra in (
                ("sqlite", {"LEXIO_GATEWAY_DB": f"{tmp}/gateway.sqlite3"}),
                ("redis", {"LEXIO_REDIS_URL": f"redis://127.0.0.1:{redis_port}/0"}),
            ):
                process, url = gateway_process({**env, **base, **extra})
                try:
                    samples = asyncio.run(play_games(url, games, bot))
                finally:
                    process.terminate()
                    process.wait(timeout=20)
                p50, p95, p99 = percentiles_us(samples, (50, 95, 99))
                print(
                    f"{backend:6}: {len(samples)} turns  p50 {p50 / 1000:6.2f} ms  "
                    f"p95 {p95 / 1000:6.2f} ms  p99 {p99 / 1000:6.2f} ms"
                )
        finally:
            redis.terminate()
            redis.wait(timeout=10)
            for service in (lobby, engine, lexicon):
                service.stop()


if __name__ == "__main__":
    main()
