"""A real Prometheus (Debian's) on 127.0.0.1 scrapes the four real services, discovered as
Kubernetes would discover the prod pods and relabelled by the shipped configuration, while a
scripted game is played; the turn-latency histograms are then read back through Prometheus's
HTTP API and checked against the services' own counts. A second stack stays idle: every label
set known in advance is there at 0, each server hop has one latency histogram, and every
counting query of the dashboard reads 0."""

from __future__ import annotations

import contextlib
import json
import math
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import grpc
import pytest
import yaml
from google.protobuf.descriptor import FileDescriptor
from lexio_stack import Stack, http_text
from lexio_testing import LoopThread
from ops_deploy import LEXIO_SERVICES, WORKLOADS, container, rendered
from ops_game import bot, pass_to_the_end, play_turns, started_table, to_play
from ops_prometheus import (
    RULES,
    PrometheusServer,
    dashboard,
    dashboard_expressions,
    dashboard_panels,
    discovered_targets,
    filled,
    local_config,
)
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from lexio.game.v1 import game_pb2
from lexio.lexicon.v1 import lexicon_pb2, lexicon_pb2_grpc
from lexio.lobby.v1 import lobby_pb2
from lexio_client import GatewayClient
from lexio_common.streamed_calls import unary_methods
from lexio_engine.games import GAMES as ENGINE_GAMES
from lexio_engine.metrics import OUTCOMES as ENGINE_OUTCOMES
from lexio_gateway.games import METRIC_LABELS
from lexio_gateway.metrics import CALL_OUTCOMES, LATENCY_BUCKETS, TURN_OUTCOMES
from lexio_gateway.protocol import ERROR_CODES
from lexio_lobby.metrics import OUTCOMES as LOBBY_OUTCOMES

HEALTH = "grpc.health.v1.Health"


def _local_ports(stack: Stack) -> dict[int, int]:
    """Each container port of the manifests → the port the local process listens on."""
    objects = rendered("prod")
    mapping = {}
    for name in LEXIO_SERVICES:
        service = stack[name]
        for port in container(objects, name)["ports"]:
            local = service.metrics_port if port["name"] == "metrics" else service.port
            mapping[port["containerPort"]] = local
    return mapping


def _sample_sum(text: str, sample: str, **labels: str) -> float:
    return sum(
        s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == sample and all(s.labels.get(k) == v for k, v in labels.items())
    )


@pytest.fixture
def loop() -> Iterator[LoopThread]:
    thread = LoopThread()
    yield thread
    thread.close()


@dataclass
class Monitored:
    stack: Stack
    prometheus: PrometheusServer


@contextlib.contextmanager
def _monitored(root: Path, *, idle: bool = False) -> Iterator[Monitored]:
    """The four services as processes, scraped every second by a real Prometheus; every
    service exits 0 on SIGTERM at the end. ``idle``: not even a ``ListGames`` at the start."""
    stack = Stack.create(root)
    prometheus: PrometheusServer | None = None
    try:
        stack.start(until_offered=not idle)
        targets = root / "targets.json"
        targets.write_text(json.dumps(discovered_targets(rendered("prod"), _local_ports(stack))))
        config = root / "prometheus.yml"
        config.write_text(yaml.safe_dump(local_config(targets)))
        prometheus = PrometheusServer(config, root)
        prometheus.wait_for("count(up == 1)", 4)
        yield Monitored(stack, prometheus)
    finally:
        if prometheus is not None:
            prometheus.stop()
        statuses = stack.stop()
    assert statuses == dict.fromkeys(("gateway", "lobby", "engine", "lexicon"), 0)


def test_prometheus_scrapes_the_services_while_a_game_is_played(
    tmp_path: Path, loop: LoopThread
) -> None:
    clients: list[GatewayClient] = []
    with _monitored(tmp_path) as monitored:
        stack, prometheus = monitored.stack, monitored.prometheus
        try:
            _play_and_check(stack, prometheus, clients, loop)
        finally:
            if clients:

                async def leave() -> None:
                    for client in clients:
                        await client.close()
                        await client.session.close()

                loop.run(leave(), timeout=30)


def _play_and_check(
    stack: Stack, prometheus: PrometheusServer, clients: list[GatewayClient], loop: LoopThread
) -> None:
    # Discovery and relabelling as shipped: one target per pod on its metrics port (never
    # the gateway's public port), job = its name; Redis's through its exporter (not run
    # here: tests/ops/test_ops_redis.py scrapes the real one).
    up = prometheus.query("up")
    assert {(s["metric"]["job"], s["metric"]["pod"]) for s in up} - {("redis", "redis-0")} == {
        (WORKLOADS[name], f"{WORKLOADS[name]}-0") for name in LEXIO_SERVICES
    }
    active = prometheus.api("targets")["activeTargets"]
    assert {(t["labels"]["job"], t["scrapeUrl"].rsplit(":", 1)[1]) for t in active} >= {
        ("redis", "9121/metrics")
    }
    assert {s["metric"]["namespace"] for s in up} == {"lexio"}
    dropped = prometheus.api("targets")["droppedTargets"]
    # The gRPC ports of three pods, the gateway's public port, Redis's own port.
    assert len(dropped) == 5
    rules = prometheus.api("rules")["groups"]
    assert {g["name"] for g in rules} == {
        "lexio.turn-latency",
        "lexio.red",
        "lexio.alerts",
        "lexio.redis",
        "lexio.redis-cluster",  # the prod-cluster overlay's alerts: loaded by every Prometheus
    }

    async def seat() -> None:
        for _ in range(2):
            client = GatewayClient(aiohttp.ClientSession(), stack.gateway_url, None)
            clients.append(client)
            await client.open()
        await clients[0].create("Ana")
        await clients[1].join(clients[0].table["code"], "Bruno")
        await started_table(clients)

    def scraped() -> float:
        """Wait until Prometheus has the gateway's own count of turns; that count."""
        text = http_text(stack["gateway"].metrics_url)
        turns = _sample_sum(text, "lexio_gateway_turn_seconds_count")
        prometheus.wait_for("sum(lexio_gateway_turn_seconds_count)", turns)
        return turns

    player = bot(11)
    loop.run(seat(), timeout=60)
    prometheus.wait_for("sum(lexio_gateway_connected_clients)", 2)
    prometheus.wait_for("sum(lexio_gateway_active_tables)", 1)
    # A first move of each kind is scraped before the others, so that rates have an
    # increase to see (series appear with their first observation).
    loop.run(play_turns(clients, player, 1), timeout=30)
    scraped()
    loop.run(play_turns(clients, player, 5), timeout=60)
    loop.run(to_play(clients).pass_turn(), timeout=30)
    scraped()
    loop.run(pass_to_the_end(clients), timeout=60)
    prometheus.wait_for("sum(lexio_gateway_active_tables)", 0)

    # What the services counted themselves, and what Prometheus holds: the same.
    turns = scraped()
    assert turns >= 6 + 4
    buckets = {
        s["metric"]["le"]: float(s["value"][1])
        for s in prometheus.query('sum by (le) (lexio_gateway_turn_seconds_bucket{job="gateway"})')
    }
    assert set(buckets) == {*(str(b) for b in LATENCY_BUCKETS), "+Inf"}
    ordered = [buckets[str(b)] for b in LATENCY_BUCKETS] + [buckets["+Inf"]]
    assert ordered == sorted(ordered) and ordered[-1] == turns
    p99 = prometheus.value(
        "histogram_quantile(0.99, sum by (le) (rate(lexio_gateway_turn_seconds_bucket[1m])))"
    )
    assert p99 is not None and 0 < p99 <= 2.0
    # Every hop of the turn is there: each gateway action made one engine Act, counted
    # by how it ended and timed once, by the gRPC server ...
    acts = 'lexio_engine_calls_total{job="game-engine",game="lexio",rpc="Act"}'
    prometheus.wait_for(f"sum({acts})", turns)
    # Every game's calls are the one contract's (only Lexio is played here).
    engine_act = 'job="game-engine",grpc_service="lexio.game.v1.Engine",grpc_method="Act"'
    prometheus.wait_for(f'sum(grpc_server_handled_total{{{engine_act},grpc_code="OK"}})', turns)
    prometheus.wait_for(f"sum(grpc_server_handling_seconds_count{{{engine_act}}})", turns)
    # ... placements asked the lexicon, the lobby created and joined one table.
    lookups = prometheus.value('sum(lexio_lexicon_lookup_seconds_count{outcome="ok"})')
    assert lookups is not None and lookups >= 1
    for method in ("CreateTable", "JoinTable", "StartTable"):
        expr = f'sum(lexio_lobby_calls_total{{method="{method}",outcome="ok"}})'
        assert prometheus.value(expr) == 1, method
        timed = f'grpc_server_handling_seconds_count{{job="lobby",grpc_method="{method}"}}'
        assert prometheus.value(f"sum({timed})") == 1, method

    builds = prometheus.query("lexio_build_info")
    assert {(s["metric"]["job"], s["metric"]["service"]) for s in builds} == {
        (WORKLOADS[name], name) for name in LEXIO_SERVICES
    }
    with grpc.insecure_channel(stack["lexicon"].address) as channel:
        info = lexicon_pb2_grpc.LexiconStub(channel).Info(lexicon_pb2.InfoRequest(), timeout=5)
    (listed,) = prometheus.query("lexio_lexicon_list_info")
    assert listed["metric"]["sha256"] == info.sha256
    assert prometheus.value("sum(lexio_lexicon_words_loaded)") == info.word_count
    assert prometheus.value('sum(lexio_grpc_serving{job="lexicon"})') == 1

    # Every dashboard query runs; the turn latency panels have data.
    for title, expr in dashboard_expressions():
        result = prometheus.query(expr)
        if title.startswith("Gateway") or title.startswith("Engine: Act"):
            values = [float(s["value"][1]) for s in result]
            assert values and all(math.isfinite(v) for v in values), (title, expr)


# An idle stack ---------------------------------------------------------------------------

#: The dashboard's panels of counts and rates of events (their unit says so): on a stack where
#: nothing happened, each reads 0.
COUNT_UNITS = frozenset({"ops", "reqps", "percentunit"})
#: Counting queries whose label values only appear with the first event, for a game whose
#: engine sends its refusal reasons as a string (its adapter declares none: al-Mishqaq's): the
#: panel's noValue shows 0 for them.
NO_SERIES_UNTIL_SEEN = frozenset({"$game: refusals by reason"})


def _no_series_until_seen(title: str, game: str, expr: str) -> bool:
    if "lexio_gateway_clock_events_total" in expr:
        # A game whose table never acts by itself (the example game: no clock) has no series.
        return not METRIC_LABELS[game].clock_actions
    return title in NO_SERIES_UNTIL_SEEN and not METRIC_LABELS[game].refusal_reasons


def _dashboard_games(prometheus: PrometheusServer) -> list[str]:
    """The values of the dashboard's game variable, as Grafana's ``label_values`` finds them."""
    (variable,) = [v for v in dashboard()["templating"]["list"] if v["name"] == "game"]
    found = re.fullmatch(r"label_values\((.+), game\)", variable["definition"])
    assert found is not None, variable["definition"]
    selector = filled(found[1])
    return sorted({s["metric"]["game"] for s in prometheus.query(f"group by (game) ({selector})")})


@pytest.fixture(scope="module")
def idle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Monitored]:
    """A stack nobody plays on (probes and the services' own health watches aside), scraped
    often enough that every rate has its two samples."""
    with _monitored(tmp_path_factory.mktemp("idle"), idle=True) as monitored:
        scrapes = 'min(count_over_time(up{job=~"lexicon|engine|lobby|gateway"}[1m]))'
        deadline = time.monotonic() + 30
        while (monitored.prometheus.value(scrapes) or 0) < 4:
            assert time.monotonic() < deadline, "Prometheus does not scrape every target"
            time.sleep(0.2)
        yield monitored


def _samples(monitored: Monitored, service: str) -> list[Sample]:
    text = http_text(monitored.stack[service].metrics_url)
    return [s for family in text_string_to_metric_families(text) for s in family.samples]


def _series(samples: list[Sample], name: str, *labels: str) -> dict[tuple[str, ...], float]:
    """``name``'s samples by the values of ``labels``."""
    return {tuple(s.labels[k] for k in labels): s.value for s in samples if s.name == name}


def _methods(descriptor: FileDescriptor, service: str) -> list[str]:
    return list(descriptor.services_by_name[service].methods_by_name)


def test_each_server_hop_has_one_latency_histogram(idle: Monitored) -> None:
    """Issue 17: the engine's and the lobby's calls are timed once, by the gRPC server; their
    own metrics count what a status code cannot say. The engine serves every game through one
    service, so the server's histogram is all games' together: its own
    ``lexio_engine_call_seconds`` times each game's calls (by game and RPC), and that is the
    only other one."""
    own = {"engine": {"lexio_engine_call_seconds"}, "lobby": set()}
    for service in ("engine", "lobby"):
        text = http_text(idle.stack[service].metrics_url)
        per_call = {
            family.name
            for family in text_string_to_metric_families(text)
            if family.type == "histogram"
            and any({"rpc", "method", "grpc_method"} & set(s.labels) for s in family.samples)
        }
        assert per_call == {"grpc_server_handling_seconds", *own[service]}, service
    engine = _series(
        _samples(idle, "engine"), "lexio_engine_calls_total", "game", "rpc", "action", "outcome"
    )
    assert engine[("lexio", "Act", "place", "accepted")] == 0
    assert engine[("mishqaq", "Act", "swap", "refused")] == 0
    lobby = _series(_samples(idle, "lobby"), "lexio_lobby_calls_total", "method", "outcome")
    assert lobby[("JoinTable", "ok")] == lobby[("JoinTable", "table_full")] == 0
    # The hop rules read those histograms, so each hop has its quantile from the start (NaN
    # while no call was made: a quantile of nothing), not only after its first call.
    rules = [
        rule
        for group in yaml.safe_load(RULES.read_text())["groups"]
        for rule in group["rules"]
        if rule.get("record") == "lexio:turn_latency_seconds:p99_5m"
    ]
    assert {rule["labels"]["hop"] for rule in rules} == {"gateway", "engine", "lexicon", "lobby"}
    for rule in rules:
        (sample,) = idle.prometheus.query(rule["expr"])
        assert sample["value"][1] == "NaN", rule["labels"]["hop"]


def test_an_idle_stack_exports_its_label_sets_at_zero(idle: Monitored) -> None:
    """Issue 17: every label set known in advance is there before the first event, at 0."""
    grpc_services = {
        "lexicon": {"lexio.lexicon.v1.Lexicon": _methods(lexicon_pb2.DESCRIPTOR, "Lexicon")},
        # One service for every game (the games' own services are gone).
        "engine": {"lexio.game.v1.Engine": _methods(game_pb2.DESCRIPTOR, "Engine")},
        "lobby": {"lexio.lobby.v1.Lobby": _methods(lobby_pb2.DESCRIPTOR, "Lobby")},
    }
    labels = ("grpc_service", "grpc_method", "grpc_code")
    for service, methods in grpc_services.items():
        samples = _samples(idle, service)
        handled = _series(samples, "grpc_server_handled_total", *labels)
        timed = _series(samples, "grpc_server_handling_seconds_count", *labels)
        for name, names in methods.items():
            for method in names:
                assert handled[(name, method, "OK")] == timed[(name, method, "OK")] == 0
        # The health service is registered too (probes have called it: not 0).
        assert (HEALTH, "Check", "OK") in handled and (HEALTH, "Watch", "OK") in handled
        assert {name for name, _, _ in handled} == {*methods, HEALTH}, service

    engine = _samples(idle, "engine")
    calls = _series(engine, "lexio_engine_calls_total", "game", "rpc", "action", "outcome")
    timed_calls = _series(engine, "lexio_engine_call_seconds_count", "game", "rpc")
    # A question carried by ActStream is counted as the Act it is: no series of its own.
    rpcs = unary_methods(_methods(game_pb2.DESCRIPTOR, "Engine"))
    assert rpcs == ("Start", "Act", "View", "Preview", "Review")
    for game, actions in (
        ("lexio", ("none", "place", "exchange", "pass")),
        ("mishqaq", ("none", "place", "swap", "resign", "timeout")),
        # Every other registered game too, by its registration (the example game among them).
        *((g.name, ("none", *g.action_kinds)) for g in ENGINE_GAMES),
    ):
        for rpc in rpcs:
            for action in actions:
                for outcome in ENGINE_OUTCOMES:
                    assert calls[(game, rpc, action, outcome)] == 0
            assert timed_calls[(game, rpc)] == 0
    assert not any(rpc.endswith("Stream") for _, rpc, _, _ in calls)
    assert not any(rpc.endswith("Stream") for _, rpc in timed_calls)
    lexicon_calls = _series(engine, "lexio_engine_lexicon_call_seconds_count", "lexicon", "outcome")
    assert lexicon_calls == {
        (lexicon, o): 0 for lexicon in ("fr", "en", "ar") for o in ("ok", "error")
    }

    lobby = _samples(idle, "lobby")
    lobby_calls = _series(lobby, "lexio_lobby_calls_total", "method", "outcome")
    assert lobby_calls == {
        (method, outcome): 0
        for method in _methods(lobby_pb2.DESCRIPTOR, "Lobby")
        for outcome in LOBBY_OUTCOMES
    }
    # Checked at start-up: 1 or 0 depending on whether the engine was ready by then.
    assert set(_series(lobby, "lexio_lobby_game_ready", "game")) == {("lexio",)}

    lexicon = _samples(idle, "lexicon")
    lookups = _series(lexicon, "lexio_lexicon_lookup_seconds_count", "lexicon", "outcome")
    assert lookups[("fr", "ok")] == lookups[("ar", "invalid")] == 0

    gateway = _samples(idle, "gateway")
    turns = _series(gateway, "lexio_gateway_turn_seconds_count", "game", "action", "outcome")
    engine_calls = _series(
        gateway, "lexio_gateway_engine_call_seconds_count", "game", "rpc", "outcome"
    )
    refusals = _series(gateway, "lexio_gateway_refusals_total", "game", "reason")
    clock = _series(gateway, "lexio_gateway_clock_events_total", "game", "action")
    ended = _series(gateway, "lexio_gateway_games_ended_total", "game", "cause")
    for game, spec in METRIC_LABELS.items():
        for action in spec.actions:
            for outcome in TURN_OUTCOMES:
                assert turns[(game, action, outcome)] == 0
        for rpc in spec.engine_rpcs:
            for outcome in CALL_OUTCOMES:
                assert engine_calls[(game, rpc, outcome)] == 0
        assert all(refusals[(game, reason)] == 0 for reason in spec.refusal_reasons)
        assert all(clock[(game, action)] == 0 for action in spec.clock_actions)
        assert all(ended[(game, cause)] == 0 for cause in spec.end_causes)
    assert ("lexio", "reserve_empty") in refusals and ("mishqaq", "flag") in ended
    assert _series(gateway, "lexio_gateway_errors_total", "code") == {(c,): 0 for c in ERROR_CODES}
    frames = _series(gateway, "lexio_gateway_frames_total", "direction")
    assert frames == {("in",): 0, ("out",): 0}
    reconnects = _series(gateway, "lexio_gateway_reconnects_total", "mode")
    assert reconnects == {("replay",): 0, ("snapshot",): 0}
    lobby_timeouts = _series(gateway, "lexio_gateway_lobby_call_seconds_count", "rpc", "outcome")
    assert lobby_timeouts[("JoinTable", "deadline_exceeded")] == 0


def test_every_dashboard_count_reads_zero_on_an_idle_stack(idle: Monitored) -> None:
    """Issue 17: a panel of counts shows 0 where nothing happened, not "No data" (nor NaN)."""
    checked = 0
    # The repeated row's panels, once for each game the game variable finds: every game the
    # gateway serves (all the games the build ships, by default).
    games = _dashboard_games(idle.prometheus)
    assert games == sorted(METRIC_LABELS)
    for panel in dashboard_panels():
        defaults = panel.get("fieldConfig", {}).get("defaults", {})
        if defaults.get("unit") not in COUNT_UNITS:
            continue
        assert defaults.get("noValue") == "0", panel["title"]
        per_game = any("$game" in target["expr"] for target in panel["targets"])
        for game in games if per_game else [".*"]:
            for target in panel["targets"]:
                expr = filled(target["expr"], game)
                # The idle stack's only calls: probes, and services watching each other's health.
                result = [
                    s
                    for s in idle.prometheus.query(expr)
                    if s["metric"].get("grpc_service") != HEALTH
                ]
                values = [float(s["value"][1]) for s in result]
                if per_game and _no_series_until_seen(panel["title"], game, expr):
                    assert values in ([], [0.0]), (panel["title"], game, expr, values)
                else:
                    assert values and all(v == 0 for v in values), (panel["title"], expr, result)
                checked += 1
    assert checked >= 15
