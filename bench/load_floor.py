"""The floors a turn is compared with: a bare aiohttp WebSocket echo and a bare grpc.aio unary
call, each a server process of its own on 127.0.0.1 and a client in the calling process:
back to back, and paced (one round trip every 10 ms, as a turn's hops arrive under load).

Run alone: ``.venv/bin/python bench/load_floor.py`` prints both (``--uvloop`` runs servers and
client on uvloop). ``load_floor.py ws-server PORT`` / ``grpc-server PORT`` are the servers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import aiohttp
import grpc
from aiohttp import web
from benchlib import free_port
from load_stats import summary

METHOD = "/lexio.bench.Echo/Echo"
#: About the size of an ``act`` frame with a 4-tile placement.
WS_PAYLOAD = (
    '{"type":"act","id":"r12","action":{"place":{"tiles":['
    + ",".join(['{"row":6,"col":5,"letter":"E","blank":false}'] * 4)
    + "]}}}"
)
#: The pause before each round trip of the paced floors.
PACED_GAP = 0.01
PACED_LABEL = "paced 10 ms"
#: About the size of an ActRequest (a mid-game state) and of a CheckWords request.
GRPC_PAYLOADS = {"1 KiB": b"x" * 1024, "64 B": b"x" * 64}


def use_uvloop() -> bool:
    try:
        import uvloop  # noqa: PLC0415 - optional
    except ImportError:
        return False
    uvloop.install()
    return True


def serve_ws(port: int) -> None:
    async def echo(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=None, compress=False)
        await ws.prepare(request)
        async for message in ws:
            await ws.send_str(message.data)
        return ws

    async def health(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_get("/ws", echo)
    app.router.add_get("/healthz", health)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


def serve_grpc(port: int) -> None:
    async def echo(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return request

    async def main() -> None:
        server = grpc.aio.server()
        handler = grpc.method_handlers_generic_handler(
            "lexio.bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(echo)}
        )
        server.add_generic_rpc_handlers((handler,))
        server.add_insecure_port(f"127.0.0.1:{port}")
        await server.start()
        await server.wait_for_termination()

    asyncio.run(main())


def _spawn(kind: str, port: int, uvloop: bool) -> subprocess.Popen[bytes]:
    args = [sys.executable, str(Path(__file__)), kind, str(port)]
    if uvloop:
        args.append("--uvloop")
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def _ws_round_trips(url: str, count: int, gap: float = 0.0) -> list[float]:
    samples = []
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(url, heartbeat=None, compress=0) as ws,
    ):
        for _ in range(count):
            if gap:
                await asyncio.sleep(gap)
            t0 = time.perf_counter()
            await ws.send_str(WS_PAYLOAD)
            await ws.receive()
            samples.append((time.perf_counter() - t0) * 1000)
    return samples


async def _grpc_round_trips(
    address: str, payload: bytes, count: int, in_flight: int, gap: float = 0.0
) -> tuple[list[float], float]:
    samples: list[float] = []
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.unary_unary(METHOD)
        await call(payload, timeout=5)

        async def worker(n: int) -> None:
            for _ in range(n):
                if gap:
                    await asyncio.sleep(gap)
                t0 = time.perf_counter()
                await call(payload, timeout=5)
                samples.append((time.perf_counter() - t0) * 1000)

        started = time.perf_counter()
        await asyncio.gather(*(worker(count // in_flight) for _ in range(in_flight)))
        return samples, len(samples) / (time.perf_counter() - started)


def measure(count: int = 3000, uvloop: bool = False) -> dict[str, Any]:
    """Both floors, servers in their own processes, after a warm-up of 300 round trips."""
    out: dict[str, Any] = {"uvloop": uvloop}
    ws_port, grpc_port = free_port(), free_port()
    servers = [_spawn("ws-server", ws_port, uvloop), _spawn("grpc-server", grpc_port, uvloop)]
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{ws_port}/healthz", timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=20)

        async def run() -> None:
            url = f"http://127.0.0.1:{ws_port}/ws"
            await _ws_round_trips(url, 300)
            out["ws_echo_ms"] = summary(await _ws_round_trips(url, count))
            address = f"127.0.0.1:{grpc_port}"
            for label, payload in GRPC_PAYLOADS.items():
                await _grpc_round_trips(address, payload, 300, 1)
                samples, _ = await _grpc_round_trips(address, payload, count, 1)
                out[f"grpc_unary_ms {label}"] = summary(samples)
            samples, rate = await _grpc_round_trips(address, GRPC_PAYLOADS["64 B"], count * 2, 16)
            out["grpc_unary_16_in_flight"] = {**summary(samples), "calls_per_s": rate}
            # Back to back, both ends stay awake. A turn's hops come one at a time, ~10 ms
            # apart at 100 actions/s: each then also pays for waking the processes and
            # threads that went idle, which the paced floors include.
            paced = max(100, count // 6)
            out[f"ws_echo_ms {PACED_LABEL}"] = summary(await _ws_round_trips(url, paced, PACED_GAP))
            samples, _ = await _grpc_round_trips(
                address, GRPC_PAYLOADS["1 KiB"], paced, 1, PACED_GAP
            )
            out[f"grpc_unary_ms 1 KiB {PACED_LABEL}"] = summary(samples)

        if uvloop:
            import uvloop as uv  # noqa: PLC0415 - optional

            uv.run(run())
        else:
            asyncio.run(run())
    finally:
        for server in servers:
            server.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(timeout=10)
    return out


def print_floors(floors: dict[str, Any]) -> None:
    loop = "uvloop" if floors["uvloop"] else "asyncio"
    for key, value in floors.items():
        if isinstance(value, dict):
            extra = f"  {value['calls_per_s']:,.0f} calls/s" if "calls_per_s" in value else ""
            print(
                f"  floor {key:26} ({loop}): p50 {value['p50']:.3f} ms  p99 {value['p99']:.3f} ms"
                f"{extra}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "what", nargs="?", default="measure", choices=["measure", "ws-server", "grpc-server"]
    )
    parser.add_argument("port", nargs="?", type=int, default=0)
    parser.add_argument("--uvloop", action="store_true")
    parser.add_argument("--count", type=int, default=3000)
    args = parser.parse_args()
    if args.what == "ws-server":
        if args.uvloop:
            use_uvloop()
        serve_ws(args.port)
    elif args.what == "grpc-server":
        if args.uvloop:
            use_uvloop()
        serve_grpc(args.port)
    else:
        print_floors(measure(args.count, args.uvloop))


if __name__ == "__main__":
    main()
