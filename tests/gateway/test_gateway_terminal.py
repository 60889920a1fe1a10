"""``lexio play``: a person at a terminal plays through the protocol."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import aiohttp
from lexio_testing import GatewayFactory, LoopThread

from lexio_client import GatewayClient

LEXIO = Path(sys.executable).with_name("lexio")


def test_lexio_play_opens_a_table_plays_and_prints_the_game(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory()
    ana = subprocess.Popen(
        [str(LEXIO), "play", gateway.url, "--name", "Ana"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert ana.stdin is not None and ana.stdout is not None
    first = ana.stdout.readline()
    assert first.startswith("table open · code ") and "Ana (host)" in first
    code = first.split("code ")[1].split(" ")[0]

    async def bruno_joins() -> GatewayClient:
        bruno = GatewayClient(aiohttp.ClientSession(), gateway.url, None)
        await bruno.open()
        await bruno.join(code, "Bruno")
        return bruno

    bruno = loop_thread.run(bruno_joins())
    ana.stdin.write("start\npass\n")
    ana.stdin.flush()

    async def bruno_sees_the_pass() -> None:
        await bruno.wait_for(lambda f: f["type"] == "snapshot", since=0)
        await bruno.wait_view(1)
        assert bruno.log[0]["kind"] == "pass" and bruno.log[0]["seat"] == 0
        await bruno.close()
        await bruno.session.close()

    loop_thread.run(bruno_sees_the_pass())
    ana.stdin.write("quit\n")
    ana.stdin.flush()
    out, _ = ana.communicate(timeout=20)
    assert "#1 seat 0: pass (player)" in out
    assert "your rack: " in out and " 6   .  .  .  .  .  .  .  .  .  .  .  .  ." in out
    assert ana.returncode == 0
