"""Load, soak and capacity harness for the whole Lexio stack (issue 8).

Starts the real services (lexicon, engine, lobby, gateway; Redis too with ``--backend redis``)
as processes on 127.0.0.1 — or, with ``--topology prod``, production's: two lobby and two
gateway replicas (``--lobbies``, ``--gateways``) on one Redis with AOF and a password, the
players' seats spread over the gateways —, measures the floors (a bare aiohttp WebSocket echo
and a bare grpc.aio unary call) in the same run, then runs simulated players
(bench/load_players.py) in ``--workers`` processes of their own, and prints:

- client-side turn latency p50/p95/p99/max (act sent → own view received), by action kind,
  and the fan-out (→ last seat's view), refusals, seating and reconnection times;
- the services' own histograms, read from their /metrics before and after the measured
  window (quantiles from bucket counts): gateway turn, gateway→engine and →lobby calls,
  engine→lexicon call, lexicon look-up, every gRPC server's handling time (a streamed
  question counted as its unary call); CPU per action by service and of the generator;
- actions/s, errors (must be 0), games started/completed, the table's clock passes;
- CPU (cores) and RSS (MiB) of each service and of the generator's processes, from /proc;
- the ratio p50 turn / (one WS round trip + the turn's gRPC hops);
- per replica (``--topology prod``): each gateway's and lobby's CPU per action and Redis's,
  each gateway's own turn latency and its bus notice delay (a commit of another replica → its
  notice handled here), and the hop table's rows of each replica besides their total.

Phases: the tables start evenly over ``--ramp`` seconds; the window measured runs from
``--warmup`` seconds after the ramp to ``--duration`` seconds later; then the games in play are
finished (``--finish play|pass|none``) within ``--drain`` seconds. Everything stops by itself.

Examples::

    .venv/bin/python bench/load.py run --tables 500 --think 10 --duration 120
    .venv/bin/python bench/load.py run --tables 750 --think 10 --ramp 300 --warmup 300 \
        --duration 120                                      # steady state: make load
    .venv/bin/python bench/load.py run --topology prod --tables 2000 ...       # make load-prod
    .venv/bin/python bench/load.py run --tables 60 --think 0 --duration 60     # the ceiling
    .venv/bin/python bench/load.py idle --connections 20000                    # idle sockets
    .venv/bin/python bench/load.py soak --minutes 30 --tables 1750             # make soak

``--check`` makes the exit status say whether the run was clean (no error, every game
completed, RSS growth within ``--max-growth-mib`` per service for ``soak``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import multiprocessing.connection
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
from benchlib import machine
from load_faults import Fault, FaultRunner
from load_floor import PACED_LABEL, print_floors
from load_floor import measure as measure_floors
from load_players import Plan, Policy, build_book, load_bot, run_tables
from load_services import TOPOLOGIES, Stack, redis_supported, role_of
from load_stats import (
    HistogramDelta,
    ProcWatch,
    Scrape,
    histogram_delta,
    label_values,
    scrape,
    summary,
    tagged,
)

BOOKS = Path(__file__).resolve().parent.parent / "var" / "load-scripts"
"""Where books of games found ahead of time are cached (load_scripts)."""

# (service, metric, labels to match, what it is)
HOPS: tuple[tuple[str, str, dict[str, str], str], ...] = (
    ("gateway", "lexio_gateway_turn_seconds", {}, "gateway: act received → last frame sent"),
    ("gateway", "lexio_gateway_engine_call_seconds", {"rpc": "Act"}, "gateway → engine Act"),
    ("gateway", "lexio_gateway_lobby_call_seconds", {}, "gateway → lobby (any call)"),
    ("engine", "lexio_engine_lexicon_call_seconds", {}, "engine → lexicon CheckWords"),
    ("engine", "grpc_server_handling_seconds", {"grpc_method": "Act"},
     "engine gRPC Act (server, both games)"),
    ("lexicon", "lexio_lexicon_lookup_seconds", {}, "lexicon: look-up"),
    ("lexicon", "grpc_server_handling_seconds", {"grpc_method": "CheckWords"},
     "lexicon gRPC CheckWords (server)"),
    ("lobby", "grpc_server_handling_seconds", {"grpc_service": "lexio.lobby.v1.Lobby"},
     "lobby: any RPC"),
)  # fmt: skip


def raise_nofile(wanted: int) -> int:
    """Raise RLIMIT_NOFILE (children inherit it: the services need it as much as the clients).
    As root the hard limit may be raised too."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if wanted > hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, wanted))
            return wanted
        except (ValueError, OSError):
            wanted = hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    return max(soft, wanted)


def _worker(plan_fields: dict[str, Any], client_uvloop: bool, conn: Any) -> None:
    """One generator process: build the bot, say ready, wait for the plan's times, play."""
    try:
        bot = load_bot()
        conn.send("ready")
        times = conn.recv()
        plan = Plan(**{**plan_fields, **times})
        if client_uvloop:
            import uvloop  # noqa: PLC0415 - optional

            results = uvloop.run(run_tables(plan, bot))
        else:
            results = asyncio.run(run_tables(plan, bot))
        conn.send(results.as_dict())
    except BaseException as e:
        conn.send({"crash": f"{type(e).__name__}: {e}"})
        raise


def merge(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    total: dict[str, Any] = {}
    for part in parts:
        for key, value in part.items():
            if isinstance(value, list):
                total.setdefault(key, []).extend(value)
            elif isinstance(value, dict):
                into = total.setdefault(key, {})
                for k, v in value.items():
                    if isinstance(v, list):
                        into.setdefault(k, []).extend(v)
                    else:
                        into[k] = into.get(k, 0) + v
            else:
                total[key] = total.get(key, 0) + value
    return total


def _fmt(s: dict[str, float]) -> str:
    if not s["count"]:
        return "(none)"
    return (
        f"p50 {s['p50']:7.2f}  p95 {s['p95']:7.2f}  p99 {s['p99']:7.2f}  max {s['max']:8.2f} ms"
        f"  (n={s['count']:,})"
    )


def _hop(delta: HistogramDelta) -> dict[str, float]:
    return {
        "count": delta.count,
        "mean": delta.total / delta.count * 1000,
        "p50": delta.quantile(0.5) * 1000,
        "p95": delta.quantile(0.95) * 1000,
        "p99": delta.quantile(0.99) * 1000,
    }


def _by_role(after: dict[str, Scrape]) -> dict[str, list[str]]:
    """The scraped services by role: {"gateway": ["gateway-a", "gateway-b"], ...}."""
    roles: dict[str, list[str]] = {}
    for name in after:
        roles.setdefault(role_of(name), []).append(name)
    return roles


def hop_table(before: dict[str, Scrape], after: dict[str, Scrape]) -> dict[str, dict[str, float]]:
    """Each hop over every replica of its service (the label as ever), then, with several
    replicas, each one's row (the label and ``@ replica``)."""
    out: dict[str, dict[str, float]] = {}
    roles = _by_role(after)
    for service, metric, match, label in HOPS:
        names = roles.get(service, [])
        if not names:
            continue
        was, now = tagged(before, names), tagged(after, names)
        delta = histogram_delta(was, now, metric, match)
        if delta.count <= 0:
            continue
        out[label] = _hop(delta)
        if len(names) > 1:
            for name in names:
                one = histogram_delta(was, now, metric, {**match, "replica": name})
                if one.count > 0:
                    out[f"{label} @ {name}"] = _hop(one)
    # The gateway's turn histogram by action kind and outcome, over every replica.
    gateways = roles.get("gateway", [])
    if gateways:
        name = "lexio_gateway_turn_seconds"
        was, now = tagged(before, gateways), tagged(after, gateways)
        for action in label_values(now, name, "action"):
            for outcome in label_values(now, name, "outcome"):
                d = histogram_delta(was, now, name, {"action": action, "outcome": outcome})
                if d.count > 0:
                    out[f"gateway turn {action}/{outcome}"] = _hop(d)
    return out


BUS_DELAY = "lexio_gateway_bus_notice_delay_seconds"
BUS_NOTICES = "lexio_gateway_bus_notices"  # a counter's family name, without _total


def replica_table(
    before: dict[str, Scrape], after: dict[str, Scrape]
) -> dict[str, dict[str, dict[str, float]]]:
    """Each gateway replica's own turn latency and bus notice delay (another replica's commit,
    and its own come back), from its own /metrics over the window; each lobby's handling."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    roles = _by_role(after)
    if len(roles.get("gateway", [])) + len(roles.get("lobby", [])) <= 2:
        return out  # the single topology: the hop table says it all
    for name in roles.get("gateway", []):
        was, now = before.get(name, {}), after.get(name, {})
        row: dict[str, dict[str, float]] = {}
        for key, metric, match in (
            ("turn", "lexio_gateway_turn_seconds", {}),
            ("bus_other", BUS_DELAY, {"source": "other"}),
            ("bus_own", BUS_DELAY, {"source": "own"}),
        ):
            delta = histogram_delta(was, now, metric, match)
            if delta.count > 0:
                row[key] = _hop(delta)
        # What the per-table bus (issue 28) cuts: the notices this replica had to read.
        row["bus_notices"] = {"count": histogram_delta(was, now, BUS_NOTICES).count}
        out[name] = row
    for name in roles.get("lobby", []):
        delta = histogram_delta(
            before.get(name, {}), after.get(name, {}), "grpc_server_handling_seconds",
            {"grpc_service": "lexio.lobby.v1.Lobby"},
        )  # fmt: skip
        out[name] = {"rpc": _hop(delta)} if delta.count > 0 else {}
    return out


def scrape_all(stack: Stack) -> dict[str, Scrape]:
    out = {}
    for name, service in stack.services.items():
        if service.metrics_url:
            try:
                out[name] = scrape(service.metrics_url)
            except OSError:
                out[name] = {}
    return out


def start_profile(pid: int, seconds: float, path: Path, rate: int) -> subprocess.Popen[bytes]:
    """py-spy on a service for ``seconds`` (without stopping it: --nonblocking)."""
    spy = Path(sys.executable).with_name("py-spy")
    return subprocess.Popen(
        [str(spy), "record", "--pid", str(pid), "--duration", str(int(seconds)),
         "--rate", str(rate), "--format", "raw", "--nonblocking", "--output", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip


def profile_top(path: Path, top: int = 20) -> dict[str, list[tuple[str, float]]]:
    """From py-spy's collapsed stacks: the functions with the most samples on top of the stack
    (self) and anywhere in it (inclusive), as shares of all samples."""
    own: dict[str, int] = {}
    inclusive: dict[str, int] = {}
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        total += count
        frames = [f.strip() for f in stack.split(";") if f.strip()]
        if not frames:
            continue
        own[frames[-1]] = own.get(frames[-1], 0) + count
        for frame in set(frames):
            inclusive[frame] = inclusive.get(frame, 0) + count
    total = max(1, total)
    best_own = sorted(own.items(), key=lambda kv: -kv[1])[:top]
    best_incl = sorted(inclusive.items(), key=lambda kv: -kv[1])[: top * 2]
    return {
        "self": [(f, c / total) for f, c in best_own],
        "inclusive": [(f, c / total) for f, c in best_incl],
        "samples": [("total", float(total))],
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    sockets = args.tables * args.players
    limit = raise_nofile(max(4 * sockets + 4096, 8192))
    started_at = datetime.now(UTC)
    report: dict[str, Any] = {
        "command": " ".join(sys.argv),
        "date": started_at.strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "nofile": limit,
        "params": {k: v for k, v in vars(args).items() if k != "func"},
    }
    backend = "redis" if args.topology == "prod" else args.backend
    if backend == "redis":
        support = redis_supported()
        report["redis_support"] = support
        if not all(support.values()):
            print(
                f"!! --backend redis: the services do not read LEXIO_REDIS_URL yet ({support}); "
                "redis-server runs but this run measures their SQLite stores"
            )
            report["backend_measured"] = "sqlite (redis not supported by the services yet)"
        else:
            report["backend_measured"] = "redis"
    else:
        report["backend_measured"] = "sqlite"
    if args.nice:
        # Children inherit it: services, generator processes and floor servers alike.
        os.setpriority(os.PRIO_PROCESS, 0, args.nice)
    report["load_average_before"] = Path("/proc/loadavg").read_text().split()[:3]
    print(
        f"load run on {machine()}; RLIMIT_NOFILE {limit}; nice {args.nice}; "
        f"load average before {' '.join(report['load_average_before'])}"
    )
    if args.floors:
        floors = measure_floors(args.floor_count, uvloop=args.uvloop_floors)
        report["floors"] = floors
        print_floors(floors)

    with tempfile.TemporaryDirectory(prefix="lexio-load-") as tmp:
        directory = Path(args.keep_dir) if args.keep_dir else Path(tmp)
        directory.mkdir(parents=True, exist_ok=True)
        extra_env: dict[str, str] = {}
        for item in args.service_env:
            key, _, value = item.partition("=")
            extra_env[key] = value
        book = None
        if args.book:
            book = prepare_book(args)
            report["book"] = {"games": args.book, "path": str(book)}
        stack = Stack(
            directory,
            backend=backend,
            topology=args.topology,
            gateways=args.gateways,
            lobbies=args.lobbies,
            turn_seconds=args.turn_seconds,
            pythonpath=args.service_pythonpath,
            extra_env=extra_env,
            book=(book_base(args), args.book) if book else None,
            redis_cluster=args.redis_cluster,
        )
        try:
            stack.start()
            print(f"services up in {stack.ready_seconds:.1f} s: {stack.pids()}")
            report["topology"] = {
                "name": args.topology,
                "gateways": stack.names("gateway"),
                "lobbies": stack.names("lobby"),
                "lobby_addresses": {
                    name: stack.services[name].env["LEXIO_LOBBY_ADDRESS"]
                    for name in stack.names("gateway")
                },
                "redis_password": bool(stack.redis and stack.redis.password),
            }
            report.update(_drive(args, stack, directory, book))
        finally:
            report["exit_codes"] = stack.stop()
            report["service_errors"] = stack.log_errors()
    return report


def book_base(args: argparse.Namespace) -> int:
    """The book's first seed: the run's seed decides which games are played."""
    return int(args.seed) * 1_000_000


def prepare_book(args: argparse.Namespace) -> Path:
    started = time.perf_counter()
    policy = Policy(args.pass_rate, args.exchange_rate, args.refuse_rate)
    path = build_book(
        args.book_dir, count=args.book, base=book_base(args), players=args.players, policy=policy
    )
    print(f"book of {args.book} games: {path} ({time.perf_counter() - started:.1f} s)")
    return path


def _drive(
    args: argparse.Namespace, stack: Stack, directory: Path, book: Path | None = None
) -> dict[str, Any]:
    ctx = multiprocessing.get_context("spawn")
    tables = list(range(args.tables))
    workers = max(1, min(args.workers, args.tables))
    shares = [tables[i::workers] for i in range(workers)]
    plan_fields: dict[str, Any] = {
        "url": stack.gateway_url,
        "total_tables": args.tables,
        "players": args.players,
        "think": args.think,
        "finish": args.finish,
        "finish_think": args.think / 4 if args.finish_think is None else args.finish_think,
        "rematch": not args.no_rematch,
        "refuse_rate": args.refuse_rate,
        "exchange_rate": args.exchange_rate,
        "pass_rate": args.pass_rate,
        "reconnect_rate": args.reconnect_rate,
        "seed": args.seed,
        "turn_timeout": args.turn_seconds * args.players + 60,
        "mishqaq_share": args.mishqaq_share,
        "book": str(book) if book else None,
    }
    if "urls" in {f.name for f in fields(Plan)}:
        # Seat i of table n on urls[(n + i) % len(urls)]: a balancer without stickiness
        # (--spread table: every seat of table n on urls[n % len(urls)]).
        plan_fields["urls"] = stack.gateway_urls
        plan_fields["spread"] = args.spread
    pipes = []
    processes = []
    for share in shares:
        parent, child = ctx.Pipe()
        process = ctx.Process(
            target=_worker,
            args=({**plan_fields, "tables": share}, args.uvloop_clients, child),
            daemon=True,
        )
        process.start()
        pipes.append(parent)
        processes.append(process)
    for pipe in pipes:
        if not pipe.poll(120) or pipe.recv() != "ready":
            raise RuntimeError("a generator process did not start")
    now = time.monotonic()
    start_at = now + 1.0
    measure_from = start_at + args.ramp + args.warmup
    stop_at = measure_from + args.duration
    hard_stop = stop_at + args.drain
    times = {
        "start_at": start_at,
        "ramp": args.ramp,
        "measure_from": measure_from,
        "stop_at": stop_at,
        "hard_stop": hard_stop,
    }
    for pipe in pipes:
        pipe.send(times)
    pids = stack.pids()
    for i, process in enumerate(processes):
        assert process.pid is not None
        pids[f"generator{i}"] = process.pid
    watch = ProcWatch(pids)
    faults = FaultRunner(args.fault, stack, measure_from) if args.fault else None
    scrapes: dict[str, dict[str, Scrape]] = {}
    profile: subprocess.Popen[bytes] | None = None
    profile_path = directory / f"profile-{args.profile}.txt"
    results: list[dict[str, Any]] = [{} for _ in pipes]
    pending = set(range(len(pipes)))
    rss_series: list[tuple[float, dict[str, float]]] = []
    last_print = 0.0
    while pending and time.monotonic() < hard_stop + 30:
        now = time.monotonic()
        watch.sample()
        if "before" not in scrapes and now >= measure_from:
            scrapes["before"] = scrape_all(stack)
            if args.profile:
                seconds = min(args.profile_seconds, args.duration)
                # With replicas, the first of the role (gateway-a, lobby-a).
                profiled = pids.get(args.profile) or pids[stack.names(args.profile)[0]]
                profile = start_profile(profiled, seconds, profile_path, args.profile_rate)
        if faults is not None:
            faults.tick(now)
            # A service started again is a new process: watched under a name of its own.
            for name, pid in stack.pids().items():
                if watch.pids.get(name, pid) != pid:
                    watch.pids[f"{name} (restarted)"] = pid
        if "after" not in scrapes and now >= stop_at:
            scrapes["after"] = scrape_all(stack)
        if now - last_print >= args.print_every:
            last_print = now
            rss = {n: s[-1].rss for n, s in watch.samples.items() if s}
            rss_series.append((now - start_at, rss))
            phase = (
                "ramp" if now < start_at + args.ramp
                else "warm-up" if now < measure_from
                else "measuring" if now < stop_at
                else "finishing"
            )  # fmt: skip
            print(
                f"  t={now - start_at:6.0f} s {phase:9} RSS "
                + " ".join(f"{n}={v:.0f}" for n, v in sorted(rss.items()))
                + " MiB",
                flush=True,
            )
        marks = [
            m for m, key in ((measure_from, "before"), (stop_at, "after")) if key not in scrapes
        ]
        due = faults.next_due() if faults is not None else None
        marks += [due] if due is not None else []
        wait = min([args.sample_every, *(m - time.monotonic() for m in marks)])
        ready = multiprocessing.connection.wait([pipes[i] for i in pending], timeout=max(0.0, wait))
        for index in [i for i in pending if pipes[i] in ready]:
            results[index] = pipes[index].recv()
            pending.discard(index)
    watch.sample()
    scrapes.setdefault("before", {})
    scrapes.setdefault("after", scrape_all(stack))
    for process in processes:
        process.join(timeout=10)
        if process.is_alive():
            process.kill()
    out: dict[str, Any] = {"times": {k: v - start_at for k, v in times.items()}}
    crashes = [r["crash"] for r in results if "crash" in r]
    merged = merge([r for r in results if "crash" not in r])
    if pending:
        crashes.append(f"{len(pending)} generator processes did not report")
    merged.setdefault("errors", []).extend(crashes)
    merged["error_count"] = merged.get("error_count", 0) + len(crashes)
    out["clients"] = merged
    out["hops"] = hop_table(scrapes["before"], scrapes["after"])
    out["replicas"] = replica_table(scrapes["before"], scrapes["after"])
    out["processes"] = watch.window(measure_from, stop_at)
    out["window_seconds"] = stop_at - measure_from
    out["processes_whole_run"] = watch.window(start_at, time.monotonic())
    out["rss_series"] = rss_series
    out["alive_at_end"] = stack.alive()
    if faults is not None:
        out["faults"] = fault_report(faults, merged, start_at)
    if profile is not None:
        profile.wait(timeout=args.profile_seconds + 60)
        if profile_path.exists():
            out["profile"] = profile_top(profile_path)
            out["profile"]["file"] = [(str(profile_path), 0.0)]
    return out


def fault_report(
    faults: FaultRunner, clients: dict[str, Any], origin: float
) -> list[dict[str, Any]]:
    """Each fault with what the players saw from its kill to the next fault's: their lost
    connections and the time to resume (loss seen → resumed and caught up)."""
    out = faults.report(origin)
    losses = list(
        zip(clients.get("loss_at", []), clients.get("loss_reconnect_ms", []), strict=True)
    )
    for index, entry in enumerate(out):
        span = faults.window_of(index, origin)
        if span is None:
            continue
        inside = [(at - origin, ms) for at, ms in losses if span[0] <= at - origin < span[1]]
        entry["connection_losses"] = len(inside)
        entry["reconnect_ms"] = summary([ms for _, ms in inside]) if inside else {}
        entry["reconnect_timeline"] = reconnect_timeline(inside, span[0])
    return out


TIMELINE_SECONDS = 5.0


def reconnect_timeline(losses: list[tuple[float, float]], start: float) -> list[dict[str, Any]]:
    """The seats' loss → resumed times by when their connection was lost, in steps of
    TIMELINE_SECONDS from the fault: which part of a drain or a storm was slow.

    >>> reconnect_timeline([(10.5, 700.0), (11.0, 900.0), (16.0, 5000.0)], 10.0)[1]["max"]
    5000.0
    """
    steps: dict[int, list[float]] = {}
    for at, ms in losses:
        steps.setdefault(int((at - start) // TIMELINE_SECONDS), []).append(ms)
    return [
        {"from_s": step * TIMELINE_SECONDS, **summary(times)}
        for step, times in sorted(steps.items())
    ]


def report_run(report: dict[str, Any], args: argparse.Namespace) -> bool:
    """Print the figures; True if the run was clean."""
    clients = report.get("clients", {})
    duration = args.duration
    topology = report.get("topology", {})
    replicas = (
        f", {len(topology['gateways'])} gateways + {len(topology['lobbies'])} lobbies on "
        f"Redis{' with a password' if topology.get('redis_password') else ''}"
        if topology.get("name") == "prod"
        else ""
    )
    print(f"\n== {args.tables} tables × {args.players} players, think {args.think} s, "
          f"measured {duration} s, backend {report['backend_measured']}{replicas} ==")  # fmt: skip
    latency = clients.get("latency_ms", {})
    all_turns = [x for samples in latency.values() for x in samples]
    turn = summary(all_turns)
    print(f"turn latency (act → own view), all kinds: {_fmt(turn)}")
    for kind, samples in sorted(latency.items()):
        print(f"  {kind:10}: {_fmt(summary(samples))}")
    print(f"fan-out (act → last seat's view):  {_fmt(summary(clients.get('fanout_ms', [])))}")
    print(f"refused on purpose (act → refused):{_fmt(summary(clients.get('refusal_ms', [])))}")
    print(f"reconnect (hello → table):         {_fmt(summary(clients.get('reconnect_ms', [])))}")
    for kind, samples in sorted(clients.get("seating_ms", {}).items()):
        print(f"seating {kind:8}:                  {_fmt(summary(samples))}")
    in_window = clients.get("actions_in_window", 0)
    rate = in_window / duration if duration else 0.0
    print(f"actions in the window: {in_window:,} = {rate:,.1f} actions/s; "
          f"all actions: {clients.get('actions', {})}")  # fmt: skip
    print(
        f"refusals on purpose: {clients.get('refusals', {})}; "
        f"reconnects: {clients.get('reconnects', 0)}; "
        f"table passes: {clients.get('table_passes', {})}"
    )
    started = clients.get("games_started", 0)
    completed = clients.get("games_completed", 0)
    print(
        f"games: started {started}, completed {completed} {clients.get('games_by_game', {})}, "
        f"abandoned {clients.get('games_abandoned', 0)}, endings {clients.get('end_causes', {})}"
    )
    print(
        f"lost connections: {clients.get('connection_losses', 0)}, resumed in "
        f"{_fmt(summary(clients.get('loss_reconnect_ms', [])))}; acts resent "
        f"{clients.get('resent_acts', 0)}; "
        f"'unavailable' retried {clients.get('unavailable_retries', 0)}; "
        f"seating retried {clients.get('seating_retries', 0)}; must be 0: acked moves lost "
        f"{clients.get('acked_lost', 0)}, applied twice {clients.get('applied_twice', 0)}, "
        f"seqs or clock passes doubled {clients.get('duplicate_seqs', 0)}"
    )
    for line in clients.get("broken", []):
        print(f"  BROKEN GUARANTEE: {line}")
    print_faults(report.get("faults", []))
    errors = clients.get("error_count", 0)
    print(f"ERRORS: {errors}")
    for line in clients.get("errors", [])[:10]:
        print(f"  {line}")
    if report.get("service_errors"):
        print(f"service error log lines: {report['service_errors']}")
    lag = summary(clients.get("loop_lag_ms", []))
    print(f"generator event-loop lag: p50 {lag['p50']:.1f} ms, p99 {lag['p99']:.1f} ms, "
          f"max {lag['max']:.1f} ms; bot CPU {clients.get('bot_seconds', 0):.1f} s")  # fmt: skip
    print("per hop, from /metrics over the window (ms, quantiles from buckets):")
    hops = report.get("hops", {})
    width = max([44, *map(len, hops)])
    for label, h in hops.items():
        print(f"  {label:{width}} n={h['count']:>8,.0f} mean {h['mean']:7.2f} "
              f"p50 {h['p50']:7.2f} p95 {h['p95']:7.2f} p99 {h['p99']:7.2f}")  # fmt: skip
    print("processes over the window (CPU in cores; RSS MiB start → end, max):")
    generator_cpu = 0.0
    for name, p in sorted(report.get("processes", {}).items()):
        if name == "machine":
            continue
        if name.startswith("generator"):
            generator_cpu += p["cpu_cores"]
        print(f"  {name:11} CPU {p['cpu_cores']:5.2f}  RSS {p['rss_start_mib']:7.1f} → "
              f"{p['rss_end_mib']:7.1f}  (max {p['rss_max_mib']:7.1f})")  # fmt: skip
    whole = report.get("processes", {}).get("machine", {})
    busy = whole.get("busy_share", float("nan"))
    other = whole.get("other_cores", float("nan"))
    irq = whole.get("irq_cores", float("nan"))
    cores = os.cpu_count() or 1
    print(
        f"  machine busy {busy * 100:.0f} % of {cores} cores; generator "
        f"{generator_cpu:.2f} cores = {generator_cpu / cores * 100:.0f} % of the machine; "
        f"kernel softirq (loopback) {irq:.2f} cores; other processes {other:.2f} cores"
    )
    if rate > 0:
        per_action = {
            name: p["cpu_cores"] / rate * 1000
            for name, p in report.get("processes", {}).items()
            if name != "machine" and "cpu_cores" in p
        }
        services = sum(v for k, v in per_action.items() if not k.startswith("generator"))
        generator = sum(v for k, v in per_action.items() if k.startswith("generator"))
        report["cpu_ms_per_action"] = {**per_action, "services": services, "generator": generator}
        print(
            f"CPU per action: services {services:.2f} ms ("
            + ", ".join(
                f"{k} {v:.2f}" for k, v in sorted(per_action.items()) if not k.startswith("gen")
            )
            + f"), generator {generator:.2f} ms; script steps "
            f"{clients.get('script_steps', 0):,}, misses {clients.get('script_misses', 0)}"
        )
    print_replicas(report)
    floors = report.get("floors")
    if floors and all_turns:
        ws = floors["ws_echo_ms"]["p50"]
        grpc_1k = floors["grpc_unary_ms 1 KiB"]["p50"]
        grpc_small = floors["grpc_unary_ms 64 B"]["p50"]
        place = summary(latency.get("place", []))["p50"]
        other = summary(latency.get("pass_turn", []) + latency.get("exchange", []))["p50"]
        floor_place = ws + grpc_1k + grpc_small
        floor_other = ws + grpc_1k
        ratios = {
            "place": place / floor_place,
            "pass/exchange": other / floor_other,
        }
        report["ratios"] = ratios
        print(f"ratio p50 turn / floor: place {place:.2f} / ({ws:.3f} WS + {grpc_1k:.3f} Act + "
              f"{grpc_small:.3f} CheckWords) = {ratios['place']:.1f}×; pass/exchange "
              f"{other:.2f} / {floor_other:.3f} = {ratios['pass/exchange']:.1f}×")  # fmt: skip
        paced_ws = floors.get(f"ws_echo_ms {PACED_LABEL}", {}).get("p50")
        paced_grpc = floors.get(f"grpc_unary_ms 1 KiB {PACED_LABEL}", {}).get("p50")
        if paced_ws and paced_grpc:
            paced_place = paced_ws + 2 * paced_grpc
            paced_other = paced_ws + paced_grpc
            ratios["place paced"] = place / paced_place
            ratios["pass/exchange paced"] = other / paced_other
            paced_ratios = (ratios["place paced"], ratios["pass/exchange paced"])
            print(f"ratio to the paced floor: place {place:.2f} / ({paced_ws:.3f} WS + 2 × "
                  f"{paced_grpc:.3f} gRPC) = {paced_ratios[0]:.1f}×; pass/exchange "
                  f"{other:.2f} / {paced_other:.3f} = {paced_ratios[1]:.1f}×")  # fmt: skip
    profile = report.get("profile")
    if profile:
        print(f"profile of {args.profile} ({profile['samples'][0][1]:.0f} samples):")
        print("  self:")
        for frame, share in profile["self"][:15]:
            print(f"    {share * 100:5.1f} %  {frame}")
        print("  inclusive:")
        for frame, share in profile["inclusive"][:25]:
            print(f"    {share * 100:5.1f} %  {frame}")
    clean = (
        errors == 0
        and not report.get("service_errors")
        and all(report.get("alive_at_end", {}).values())
        # A replaced replica that had to be killed did not drain: its seats were dropped.
        and all(f.get("exit_code") in (None, 0) for f in report.get("faults", []))
    )
    if args.finish != "none":
        clean = clean and completed == started and started > 0
    return clean


def print_faults(faults: list[dict[str, Any]]) -> None:
    for fault in faults:
        back = fault["restart_seconds"]
        how = "replaced (SIGTERM, then started)" if fault.get("rolling") else "killed (-9)"
        if fault.get("rolling") and fault.get("killed_at") is not None:
            drained = (fault["restarted_at"] or 0) - fault["killed_at"] - (back or 0)
            how += f"; exited {fault.get('exit_code')} after {drained:.1f} s"
        print(
            f"fault {fault['target']} {how} at t={fault['killed_at'] or 0:.0f} s"
            + (f", back after {back:.1f} s of starting" if back is not None else ", not restarted")
            + (f" — FAILED: {fault['error']}" if fault.get("error") else "")
        )
        print(
            f"  seats that lost their connection: {fault.get('connection_losses', 0)}; "
            f"loss → resumed: {_fmt(fault.get('reconnect_ms') or summary([]))}"
        )
        if fault.get("reconnect_timeline"):
            steps = " ".join(
                f"{row['count']}:{row['p99'] / 1000:.1f}" for row in fault["reconnect_timeline"]
            )
            print(f"  by {TIMELINE_SECONDS:.0f} s from it, seats:p99 s: {steps}")
        for name, row in fault["survivors_minute_after"].items():
            print(
                f"  {name} in the minute after: turn p50 {row['p50']:.2f} ms, "
                f"p99 {row['p99']:.2f} ms (n={row['turns']:,.0f})"
            )


def print_replicas(report: dict[str, Any]) -> None:
    """The per-replica rows (prod topology): CPU per action, turn and bus notice delay."""
    replicas = report.get("replicas") or {}
    if not replicas:
        return
    per_action = report.get("cpu_ms_per_action", {})
    processes = report.get("processes", {})

    def quantiles(h: dict[str, float] | None) -> str:
        if not h:
            return f"{'(none)':>32}"
        return f"p50 {h['p50']:6.2f} p99 {h['p99']:7.2f} n={h['count']:>7,.0f}"

    print("per replica over the window (CPU per action: its CPU / every action of the window):")
    for name in [*replicas, "redis"]:
        if name not in processes:
            continue
        cpu = (
            f"CPU {per_action[name]:5.2f} ms/action ({processes[name]['cpu_cores']:4.2f} cores)"
            if name in per_action
            else f"CPU {processes[name]['cpu_cores']:4.2f} cores"
        )
        row = replicas.get(name, {})
        if role_of(name) == "gateway":
            print(f"  {name:10} {cpu}  turn {quantiles(row.get('turn'))}")
            print(f"  {'':10} bus notice delay: other {quantiles(row.get('bus_other'))}; "
                  f"own {quantiles(row.get('bus_own'))}")  # fmt: skip
            heard = row.get("bus_notices", {}).get("count", 0.0)
            window = report.get("window_seconds") or float("nan")
            print(f"  {'':10} bus notices heard {heard:,.0f} ({heard / window:,.1f}/s)")
        elif role_of(name) == "lobby":
            print(f"  {name:10} {cpu}  RPC  {quantiles(row.get('rpc'))}")
        else:
            print(f"  {name:10} {cpu}")
    print(f"  {'lobby target':10} " + "; ".join(
        f"{g}: {a}" for g, a in report.get("topology", {}).get("lobby_addresses", {}).items()
    ))  # fmt: skip


def add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--players", type=int, default=4, choices=[2, 3, 4])
    parser.add_argument("--think", type=float, default=10.0, help="mean think time, s (±50 %%)")
    parser.add_argument("--duration", type=float, default=60.0, help="measured window, s")
    parser.add_argument("--ramp", type=float, default=None, help="tables start over this, s")
    parser.add_argument("--warmup", type=float, default=None, help="s after the ramp")
    parser.add_argument("--drain", type=float, default=None, help="s to finish the games")
    parser.add_argument("--finish", choices=["play", "pass", "none"], default="pass")
    parser.add_argument(
        "--finish-think", type=float, default=None, help="think while finishing (think / 4)"
    )
    parser.add_argument(
        "--nice",
        type=int,
        default=0,
        help="scheduling priority of the whole run (negative: ahead of other work; root only)",
    )
    parser.add_argument("--no-rematch", action="store_true")
    parser.add_argument("--backend", choices=["sqlite", "redis"], default="sqlite")
    parser.add_argument(
        "--topology",
        choices=TOPOLOGIES,
        default="single",
        help="single: one gateway and one lobby (--backend); prod: --gateways gateway and "
        "--lobbies lobby replicas on one Redis with AOF everysec and a password",
    )
    parser.add_argument(
        "--redis-cluster",
        action="store_true",
        help="prod: a Redis Cluster of 3 masters with a replica each instead of one Redis",
    )
    parser.add_argument("--gateways", type=int, default=2, help="gateway replicas (prod)")
    parser.add_argument("--lobbies", type=int, default=2, help="lobby replicas (prod)")
    parser.add_argument(
        "--spread",
        choices=["seat", "table"],
        default="seat",
        help="prod: each seat of a table on the next gateway (seat), or a table's seats on one",
    )
    parser.add_argument("--workers", type=int, default=2, help="generator processes")
    parser.add_argument("--refuse-rate", type=float, default=0.03)
    parser.add_argument("--exchange-rate", type=float, default=0.03)
    parser.add_argument("--pass-rate", type=float, default=0.02)
    parser.add_argument("--reconnect-rate", type=float, default=0.01)
    parser.add_argument("--turn-seconds", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--book",
        type=int,
        default=0,
        metavar="GAMES",
        help="Lexio players replay this many games found ahead of time (cached in "
        "var/load-scripts) instead of searching each move; 0: search",
    )
    parser.add_argument("--book-dir", type=Path, default=BOOKS, help="where books are cached")
    parser.add_argument(
        "--mishqaq-share",
        type=float,
        default=0.0,
        help="share of the tables that play al-Mishqaq (two seats each): 0 to 1",
    )
    parser.add_argument("--no-floors", dest="floors", action="store_false")
    parser.add_argument("--floor-count", type=int, default=3000)
    parser.add_argument("--uvloop-floors", action="store_true")
    parser.add_argument("--uvloop-clients", action="store_true")
    parser.add_argument("--profile", choices=["gateway", "engine", "lexicon", "lobby"])
    parser.add_argument("--profile-seconds", type=float, default=30.0)
    parser.add_argument("--profile-rate", type=int, default=200)
    parser.add_argument("--service-pythonpath", help="PYTHONPATH for the services (A/B a copy)")
    parser.add_argument("--service-env", action="append", default=[], metavar="K=V")
    parser.add_argument("--sample-every", type=float, default=1.0)
    parser.add_argument("--print-every", type=float, default=10.0)
    parser.add_argument("--keep-dir", help="keep logs and databases here")
    parser.add_argument("--json", help="write the whole report here")
    parser.add_argument("--check", action="store_true", help="exit 1 unless the run was clean")
    parser.add_argument(
        "--fault",
        type=Fault.parse,
        action="append",
        default=[],
        metavar="TARGET@S[+BACK]",
        help="kill -9 TARGET (gateway-b, lobby-a, redis…) S seconds into the measured window, "
        "started again BACK seconds later (Redis: at once); repeatable (bench/load_faults.py)",
    )


def _defaults(args: argparse.Namespace) -> None:
    cycle = args.think * args.players
    if args.ramp is None:
        args.ramp = min(60.0, max(2.0, cycle, args.tables / 100))
    if args.warmup is None:
        args.warmup = min(30.0, max(1.0, args.think * 2))
    if args.drain is None:
        args.drain = 120.0 if args.finish == "play" else max(60.0, 2 * args.players * 2 + 30)


def write_json(report: dict[str, Any], path: str | None) -> None:
    if not path:
        return
    slim = dict(report)
    clients = dict(slim.get("clients", {}))
    for key in ("latency_ms", "seating_ms"):
        if key in clients:
            clients[key] = {k: summary(v) for k, v in clients[key].items()}
    for key in ("fanout_ms", "refusal_ms", "reconnect_ms", "loop_lag_ms"):
        if key in clients:
            clients[key] = summary(clients[key])
    slim["clients"] = clients
    Path(path).write_text(json.dumps(slim, indent=1, default=str))


# Idle capacity ---------------------------------------------------------------------------


async def _idle(args: argparse.Namespace, stack: Stack) -> dict[str, Any]:
    url = stack.gateway_url
    gateway = stack.services["gateway"]
    from load_stats import rss_mib  # noqa: PLC0415

    sockets: list[aiohttp.ClientWebSocketResponse] = []
    sessions: list[aiohttp.ClientSession] = []
    steps: list[dict[str, float]] = []
    base = rss_mib(gateway.pid)
    print(f"gateway RSS before: {base:.1f} MiB")
    hello = json.dumps({"type": "hello", "protocol": 1})
    failures = 0
    deadline = time.monotonic() + args.max_seconds

    async def one(session: aiohttp.ClientSession) -> aiohttp.ClientWebSocketResponse:
        ws = await session.ws_connect(f"{url}/ws", heartbeat=None, compress=0, autoping=True)
        await ws.send_str(hello)
        welcome = json.loads((await ws.receive(timeout=30)).data)
        if welcome.get("type") != "welcome":
            raise RuntimeError(str(welcome))
        return ws

    async def ping_sample(n: int) -> dict[str, float]:
        samples = []
        open_sockets = [ws for ws in sockets if not ws.closed]
        for ws in open_sockets[:: max(1, len(open_sockets) // n)][:n]:
            t0 = time.perf_counter()
            try:
                await ws.send_str('{"type":"ping"}')
                reply = await ws.receive(timeout=10)
            except (aiohttp.ClientError, TimeoutError):
                continue
            if reply.type == aiohttp.WSMsgType.TEXT and json.loads(reply.data)["type"] == "pong":
                samples.append((time.perf_counter() - t0) * 1000)
        return summary(samples)

    try:
        target = 0
        while target < args.connections and time.monotonic() < deadline:
            target = min(args.connections, target + args.step)
            while len(sockets) < target:
                # A source address per 20,000 sockets: one address has ~28,000 ephemeral ports.
                source = f"127.0.0.{2 + len(sockets) // 20_000}"
                if not sessions or sessions[-1].connector is None or len(sockets) % 20_000 == 0:
                    connector = aiohttp.TCPConnector(limit=0, local_addr=(source, 0))
                    sessions.append(aiohttp.ClientSession(connector=connector))
                batch = min(args.batch, target - len(sockets))
                opened = await asyncio.gather(
                    *(one(sessions[-1]) for _ in range(batch)), return_exceptions=True
                )
                for ws in opened:
                    if isinstance(ws, BaseException):
                        failures += 1
                    else:
                        sockets.append(ws)
                if failures > args.max_failures:
                    break
            await asyncio.sleep(2.0)
            rss = rss_mib(gateway.pid)
            pings = await ping_sample(50)
            per = (rss - base) * 1024 / max(1, len(sockets))
            step = {
                "connections": len(sockets),
                "rss_mib": rss,
                "kib_per_connection": per,
                "ping_p50_ms": pings["p50"],
                "ping_p99_ms": pings["p99"],
                "failures": failures,
            }
            steps.append(step)
            print(f"  {len(sockets):7,} sockets: gateway RSS {rss:7.1f} MiB, {per:5.1f} KiB each, "
                  f"ping p50 {pings['p50']:.2f} ms p99 {pings['p99']:.2f} ms, failures {failures}",
                  flush=True)  # fmt: skip
            if failures > args.max_failures or rss > args.rss_limit_mib:
                break
        # Hold them across server heartbeats: a dead-peer check must not drop live sockets.
        held_from = time.monotonic()
        await asyncio.sleep(args.hold)
        closed = sum(1 for ws in sockets if ws.closed)
        pings = await ping_sample(200)
        hold = {
            "held_seconds": time.monotonic() - held_from,
            "closed_meanwhile": closed,
            "rss_mib": rss_mib(gateway.pid),
            "ping_p50_ms": pings["p50"],
            "ping_p99_ms": pings["p99"],
        }
        print(
            f"  held {hold['held_seconds']:.0f} s: {closed} closed, "
            f"RSS {hold['rss_mib']:.1f} MiB, "
            f"ping p50 {pings['p50']:.2f} ms p99 {pings['p99']:.2f} ms"
        )
    finally:
        for ws in sockets:
            await ws.close()
        for session in sessions:
            await session.close()
    return {"base_rss_mib": base, "steps": steps, "hold": hold, "failures": failures}


def idle(args: argparse.Namespace) -> dict[str, Any]:
    limit = raise_nofile(2 * args.connections + 4096)
    if args.connections > limit - 500:
        # Client and gateway each hold one descriptor per socket, under the same limit.
        print(f"!! RLIMIT_NOFILE {limit}: at most {limit - 500} sockets per process here")
        args.connections = limit - 500
    report: dict[str, Any] = {
        "command": " ".join(sys.argv),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "nofile": limit,
    }
    print(f"idle connections on {machine()}; RLIMIT_NOFILE {limit}")
    with tempfile.TemporaryDirectory(prefix="lexio-idle-") as tmp:
        stack = Stack(Path(tmp), extra_env={"LEXIO_GATEWAY_HEARTBEAT": str(args.heartbeat)})
        try:
            stack.start()
            cpu_before = _cpu(stack)
            started = time.monotonic()
            report.update(asyncio.run(_idle(args, stack)))
            report["gateway_cpu_cores"] = (_cpu(stack) - cpu_before) / (time.monotonic() - started)
        finally:
            report["exit_codes"] = stack.stop()
    return report


def _cpu(stack: Stack) -> float:
    from load_stats import cpu_seconds  # noqa: PLC0415

    return cpu_seconds(stack.services["gateway"].pid)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run_parser = sub.add_parser("run", help="a load run")
    add_run_options(run_parser)
    soak_parser = sub.add_parser("soak", help="a long run at a steady load; --check by default")
    add_run_options(soak_parser)
    soak_parser.add_argument("--minutes", type=float, default=30.0)
    soak_parser.add_argument("--max-growth-mib", type=float, default=64.0,
                             help="allowed RSS growth per service after the warm-up")  # fmt: skip
    idle_parser = sub.add_parser("idle", help="idle connections one gateway process holds")
    idle_parser.add_argument("--connections", type=int, default=20_000)
    idle_parser.add_argument("--step", type=int, default=5_000)
    idle_parser.add_argument("--batch", type=int, default=200)
    idle_parser.add_argument("--rss-limit-mib", type=float, default=1024.0)
    idle_parser.add_argument("--max-failures", type=int, default=100)
    idle_parser.add_argument("--max-seconds", type=float, default=600.0)
    idle_parser.add_argument("--hold", type=float, default=45.0)
    idle_parser.add_argument("--heartbeat", type=float, default=20.0)
    idle_parser.add_argument("--json")
    floors_parser = sub.add_parser("floors", help="the WS echo and gRPC unary floors alone")
    floors_parser.add_argument("--count", type=int, default=3000)
    floors_parser.add_argument("--uvloop", action="store_true")
    args = parser.parse_args(argv)

    if args.command == "floors":
        print_floors(measure_floors(args.count, args.uvloop))
        return 0
    if args.command == "idle":
        report = idle(args)
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=1, default=str))
        return 0
    if args.command == "soak":
        args.duration = args.minutes * 60
        args.check = True
    _defaults(args)
    report = run(args)
    clean = report_run(report, args)
    if args.command == "soak":
        clean = _soak_verdict(report, args) and clean
    write_json(report, args.json)
    print("CLEAN" if clean else "NOT CLEAN")
    return 0 if clean or not args.check else 1


def _soak_verdict(report: dict[str, Any], args: argparse.Namespace) -> bool:
    """Memory growth per service from the end of the warm-up to the end of the window."""
    ok = True
    print(f"RSS growth over the measured window (bound {args.max_growth_mib} MiB per service):")
    for name, p in sorted(report.get("processes", {}).items()):
        if name == "machine" or name.startswith("generator"):
            continue
        growth = p["rss_end_mib"] - p["rss_start_mib"]
        within = growth <= args.max_growth_mib
        ok = ok and within
        print(f"  {name:8} {p['rss_start_mib']:7.1f} → {p['rss_end_mib']:7.1f} MiB: "
              f"{growth:+6.1f} MiB {'ok' if within else 'TOO MUCH'}")  # fmt: skip
    return ok


if __name__ == "__main__":
    sys.exit(main())
