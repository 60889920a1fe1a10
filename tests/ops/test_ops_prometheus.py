"""A real Prometheus (Debian's) on 127.0.0.1 scrapes the four real services, discovered as
Kubernetes would discover the prod pods and relabelled by the shipped configuration, while a
scripted game is played; the turn-latency histograms are then read back through Prometheus's
HTTP API and checked against the services' own counts."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import grpc
import pytest
import yaml
from lexio_testing import LoopThread
from ops_deploy import LEXIO_SERVICES, container, rendered
from ops_game import bot, pass_to_the_end, play_turns, started_table, to_play
from ops_prometheus import (
    PrometheusServer,
    dashboard_expressions,
    discovered_targets,
    local_config,
)
from ops_stack import Stack, http_text
from prometheus_client.parser import text_string_to_metric_families

from lexio.lexicon.v1 import lexicon_pb2, lexicon_pb2_grpc
from lexio_client import GatewayClient
from lexio_gateway.metrics import LATENCY_BUCKETS


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


def test_prometheus_scrapes_the_services_while_a_game_is_played(
    tmp_path: Path, loop: LoopThread
) -> None:
    stack = Stack.create(tmp_path)
    prometheus: PrometheusServer | None = None
    clients: list[GatewayClient] = []
    try:
        stack.start()
        targets = tmp_path / "targets.json"
        targets.write_text(json.dumps(discovered_targets(rendered("prod"), _local_ports(stack))))
        config = tmp_path / "prometheus.yml"
        config.write_text(yaml.safe_dump(local_config(targets)))
        prometheus = PrometheusServer(config, tmp_path)

        # Discovery and relabelling as shipped: one target per pod on its metrics port (never
        # the gateway's public port), job = its name; Redis's through its exporter (not run
        # here: tests/ops/test_ops_redis.py scrapes the real one).
        prometheus.wait_for("count(up == 1)", 4)
        up = prometheus.query("up")
        assert {(s["metric"]["job"], s["metric"]["pod"]) for s in up} - {("redis", "redis-0")} == {
            (name, f"{name}-0") for name in LEXIO_SERVICES
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
            for s in prometheus.query(
                'sum by (le) (lexio_gateway_turn_seconds_bucket{job="gateway"})'
            )
        }
        assert set(buckets) == {*(str(b) for b in LATENCY_BUCKETS), "+Inf"}
        ordered = [buckets[str(b)] for b in LATENCY_BUCKETS] + [buckets["+Inf"]]
        assert ordered == sorted(ordered) and ordered[-1] == turns
        p99 = prometheus.value(
            "histogram_quantile(0.99, sum by (le) (rate(lexio_gateway_turn_seconds_bucket[1m])))"
        )
        assert p99 is not None and 0 < p99 <= 2.0
        # Every hop of the turn is there: each gateway action made one engine Act ...
        acts = 'lexio_engine_evaluation_seconds_count{job="engine",rpc="Act"}'
        prometheus.wait_for(f"sum({acts})", turns)
        handled = (
            'grpc_server_handled_total{job="engine",grpc_service="lexio.engine.v1.Engine",'
            'grpc_method="Act",grpc_code="OK"}'
        )
        prometheus.wait_for(f"sum({handled})", turns)
        # ... placements asked the lexicon, the lobby created and joined one table.
        lookups = prometheus.value('sum(lexio_lexicon_lookup_seconds_count{outcome="ok"})')
        assert lookups is not None and lookups >= 1
        for method in ("CreateTable", "JoinTable", "StartTable"):
            expr = f'sum(lexio_lobby_rpc_seconds_count{{method="{method}",outcome="ok"}})'
            assert prometheus.value(expr) == 1, method

        builds = prometheus.query("lexio_build_info")
        assert {(s["metric"]["job"], s["metric"]["service"]) for s in builds} == {
            (name, name) for name in LEXIO_SERVICES
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
    finally:
        if clients:

            async def leave() -> None:
                for client in clients:
                    await client.close()
                    await client.session.close()

            loop.run(leave(), timeout=30)
        if prometheus is not None:
            prometheus.stop()
        statuses = stack.stop()
    assert statuses == dict.fromkeys(("gateway", "lobby", "engine", "lexicon"), 0)
