"""Gateway memory per idle WebSocket, with and without permessage-deflate.

Starts the real ``lexio-gateway`` process (no lobby or engine needed: connections only say
hello), opens N sockets from this process, lets each receive its first frame (the welcome,
which is when a compressor allocates its buffers), and reads the gateway's RSS.

Run: ``.venv/bin/python bench/ws_memory_bench.py [N]`` (default 2000 sockets).
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import aiohttp
from benchlib import free_port, machine


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise KeyError("VmRSS")


async def _open_sockets(
    session: aiohttp.ClientSession, url: str, count: int, compress: bool
) -> list[aiohttp.ClientWebSocketResponse]:

    async def one() -> aiohttp.ClientWebSocketResponse:
        ws = await session.ws_connect(f"{url}/ws", compress=15 if compress else 0, heartbeat=None)
        await ws.send_str(json.dumps({"type": "hello", "protocol": 1}))
        welcome = json.loads((await ws.receive()).data)
        assert welcome["type"] == "welcome"
        return ws

    sockets = []
    for start in range(0, count, 100):
        sockets += await asyncio.gather(*(one() for _ in range(min(100, count - start))))
    return sockets


def measure(count: int, compress: bool) -> tuple[float, float]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
    with tempfile.TemporaryDirectory() as tmp:
        env.update(
            LEXIO_GATEWAY_PORT=str(port),
            LEXIO_GATEWAY_DB=f"{tmp}/gw.sqlite3",
            LEXIO_GATEWAY_WS_COMPRESS="1" if compress else "",
            LEXIO_LOBBY_ADDRESS="127.0.0.1:1",
            LEXIO_LOG_LEVEL="WARNING",
        )
        process = subprocess.Popen([str(Path(sys.executable).with_name("lexio-gateway"))], env=env)
        try:
            url = f"http://127.0.0.1:{port}"
            for _ in range(200):
                try:
                    urllib.request.urlopen(f"{url}/healthz", timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.05)
            before = _rss_kib(process.pid)

            async def run() -> float:
                async with aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(limit=0)
                ) as session:
                    sockets = await _open_sockets(session, url, count, compress)
                    await asyncio.sleep(1.0)
                    after = _rss_kib(process.pid)
                    for ws in sockets:
                        await ws.close()
                return after

            after = asyncio.run(run())
        finally:
            process.terminate()
            process.wait(timeout=20)
    return before / 1024, after / 1024


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * count + 100)), hard))
    print(f"gateway memory per idle WebSocket, {count} sockets, on {machine()}")
    for compress in (False, True):
        before, after = measure(count, compress)
        per = (after - before) * 1024 / count
        label = "permessage-deflate" if compress else "no compression"
        print(f"{label:20}: RSS {before:6.1f} MiB → {after:6.1f} MiB, {per:5.1f} KiB per socket")


if __name__ == "__main__":
    main()
