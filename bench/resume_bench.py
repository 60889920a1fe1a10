"""What a dead gateway replica's seats cost the survivor when they all come back at once.

Production's topology (bench/load_services.py, ``topology="prod"``: two gateway replicas and
two lobby replicas on one Redis with AOF everysec and a password), ``--tables`` games of four
seats started with seat i of table n on gateway (n + i) mod 2, as a load balancer without
stickiness places them, then left idle. gateway-b is killed with -9, and each of its seats
comes back through :meth:`lexio_client.GatewayClient.reconnect` (the clients' own backoff,
full jitter) to gateway-a, the one replica a balancer still sends to. Printed:

- loss → resumed (caught up: events and a view, or a snapshot) p50/p95/p99/max, and the tries;
- the survivor's CPU over the storm, per resume, and how long the storm lasted;
- the error frames the survivor sent meanwhile, by code, and the SYNs the kernel dropped.

Nothing else is played meanwhile: this is the storm alone, for an A/B of what a resume costs.
The same storm under load is ``make load-kill`` (bench/load.py, ``--fault gateway-b@...``).

Run: ``.venv/bin/python bench/resume_bench.py --tables 1000`` (``--service-pythonpath`` runs
the services from another tree, for a before/after pair).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import aiohttp
import uvloop
from benchlib import machine
from load import profile_top, start_profile
from load_services import Stack
from load_stats import cpu_seconds, summary
from prometheus_client.parser import text_string_to_metric_families

from lexio_client import Backoff, GatewayClient, ServerError

SEATS = 4


async def _seat_table(
    session: aiohttp.ClientSession, urls: list[str], n: int
) -> list[GatewayClient]:
    clients = [
        GatewayClient(session, urls[(n + i) % len(urls)], None, keep_frames=16)
        for i in range(SEATS)
    ]
    for client in clients:
        await client.open()
    host, *guests = clients
    await host.create(f"host{n}")
    code = host.table["code"]
    for i, guest in enumerate(guests):
        await guest.join(code, f"guest{n}-{i}")
    await host.start()
    for client in clients:
        await client.wait_view(0, timeout=60)
    return clients


async def _seat_all(
    session: aiohttp.ClientSession, urls: list[str], tables: int, parallel: int
) -> list[GatewayClient]:
    seated: list[GatewayClient] = []
    gate = asyncio.Semaphore(parallel)

    async def one(n: int) -> None:
        async with gate:
            seated.extend(await _seat_table(session, urls, n))

    await asyncio.gather(*(one(n) for n in range(tables)))
    return seated


def _listen_drops() -> int:
    """Connections the kernel dropped because a listening socket's backlog was full (the
    machine's whole count, /proc/net/netstat ``TcpExt: ListenDrops``): each dropped SYN is
    tried again by the client's kernel 1, 3, 7, 15, 31 s later, whatever its own backoff."""
    lines = Path("/proc/net/netstat").read_text().splitlines()
    for names, values in zip(lines[::2], lines[1::2], strict=True):
        if names.startswith("TcpExt:"):
            return int(dict(zip(names.split(), values.split(), strict=True))["ListenDrops"])
    return 0


def _metric(url: str, name: str) -> dict[str, float]:
    """Each series of the counter sample ``name`` (by its labels), from ``/metrics``."""
    with urllib.request.urlopen(url, timeout=5) as answer:
        text = answer.read().decode()
    return {
        json.dumps(sample.labels, sort_keys=True): float(sample.value)
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name
    }


def _grown(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    grown = {k: v - before.get(k, 0.0) for k, v in after.items()}
    return {k: v for k, v in grown.items() if v}


async def _storm(
    stack: Stack, clients: list[GatewayClient], args: argparse.Namespace
) -> dict[str, object]:
    survivor_url, dead_url = stack.gateway_urls
    survivor = stack.services["gateway-a"]
    lost = [c for c in clients if c.base_url == dead_url]
    rng = random.Random(args.seed)
    give_up = args.give_up
    cpu_before = cpu_seconds(survivor.pid)
    metrics_url = survivor.metrics_url or ""
    errors_before = _metric(metrics_url, "lexio_gateway_errors_total")
    profile_path = stack.directory / "profile-gateway-a.txt"
    spy = start_profile(survivor.pid, args.profile, profile_path, 200) if args.profile else None
    drops_before = _listen_drops()
    killed = time.perf_counter()
    stack.kill("gateway-b")
    times: list[float] = []
    tries: list[int] = []
    failures: dict[str, int] = {}

    async def back(client: GatewayClient) -> None:
        await client.closed.wait()
        try:
            attempts = await client.reconnect(
                [survivor_url], backoff=Backoff(rng=random.Random(rng.random())),
                give_up_after=give_up,
            )  # fmt: skip
        except (ServerError, OSError, aiohttp.ClientError, TimeoutError) as e:
            key = getattr(e, "code", None) or type(e).__name__
            failures[key] = failures.get(key, 0) + 1
            return
        times.append(time.perf_counter() - killed)
        tries.append(attempts)

    await asyncio.gather(*(back(c) for c in lost))
    storm = time.perf_counter() - killed
    cpu = cpu_seconds(survivor.pid) - cpu_before
    errors = _grown(errors_before, _metric(metrics_url, "lexio_gateway_errors_total"))
    profile = {}
    if spy is not None:
        await asyncio.to_thread(spy.wait)
        if profile_path.exists():
            top = profile_top(profile_path, top=25)
            profile = {
                kind: [f"{share:6.1%} {frame}" for frame, share in top[kind]]
                for kind in ("self", "inclusive")
            }
    return {
        "seats_lost": len(lost),
        "resumed": len(times),
        "failures": failures,
        "resumed_s": {k: round(v, 2) for k, v in summary(times).items()},
        "tries": summary(float(t) for t in tries),
        "storm_s": round(storm, 2),
        "survivor_cpu_s": round(cpu, 2),
        "survivor_ms_per_resume": round(1000 * cpu / max(1, len(times)), 2),
        "survivor_error_frames": errors,
        "listen_drops": _listen_drops() - drops_before,
        "profile": profile,
    }


async def _run(args: argparse.Namespace, stack: Stack) -> dict[str, object]:
    urls = stack.gateway_urls
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        started = time.perf_counter()
        clients = await _seat_all(session, urls, args.tables, args.parallel)
        seated_s = time.perf_counter() - started
        await asyncio.sleep(args.settle)
        result = await _storm(stack, clients, args)
        result["seated_s"] = round(seated_s, 1)
        for client in clients:
            await client.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--parallel", type=int, default=40, help="tables seated at once")
    parser.add_argument("--settle", type=float, default=5.0, help="idle seconds before the kill")
    parser.add_argument("--give-up", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--service-pythonpath", default=None)
    parser.add_argument(
        "--profile", type=float, default=0.0, help="seconds of py-spy on the survivor from the kill"
    )
    parser.add_argument(
        "--env", action="append", default=[], metavar="NAME=VALUE",
        help="an environment variable for every service (e.g. LEXIO_GATEWAY_RESUMES_IN_FLIGHT=64)",
    )  # fmt: skip
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        extra_env = dict(item.split("=", 1) for item in args.env)
        stack = Stack(
            Path(tmp), topology="prod", pythonpath=args.service_pythonpath, extra_env=extra_env
        )
        stack.start()
        try:
            result = uvloop.run(_run(args, stack))
        finally:
            stack.stop()
            errors = stack.log_errors()
    result.update(machine=machine(), tables=args.tables, env=args.env, log_errors=errors)
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    sys.exit(0 if result["resumed"] == result["seats_lost"] else 1)


if __name__ == "__main__":
    main()
