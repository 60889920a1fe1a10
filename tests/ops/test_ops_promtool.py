"""The Prometheus rules, scrape configuration and Grafana dashboard of deploy/monitoring,
checked offline with Debian's promtool and against the metrics the services really define."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import yaml
from ops_deploy import DEPLOY, ROOT, rendered
from ops_prometheus import (
    DASHBOARD,
    RULE_TESTS,
    RULES,
    dashboard_expressions,
    discovered_targets,
    local_config,
    tool,
)
from prometheus_client import REGISTRY, CollectorRegistry

import lexio_common.buildinfo
import lexio_engine.metrics
import lexio_gateway.metrics
import lexio_lexicon.servicer
import lexio_lobby.metrics
from lexio_common.grpc_metrics import CODE_NAMES, default_metrics
from lexio_lexicon.servicer import LexiconMetrics, LexiconServicer
from lexio_lexicon.words import WordList

#: Labels Prometheus (and the shipped relabelling) add to every scraped series.
TARGET_LABELS = {"namespace", "job", "pod", "instance"}
MONITORING = DEPLOY / "monitoring"


def _promtool(*args: str) -> str:
    done = subprocess.run(
        [tool("promtool"), *args], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _rules() -> list[dict[str, object]]:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def test_rules_pass_promtool_check() -> None:
    out = _promtool("check", "rules", str(RULES))
    assert f"SUCCESS: {len(_rules())} rules found" in out


def test_rules_pass_their_unit_tests() -> None:
    assert "SUCCESS" in _promtool("test", "rules", str(RULE_TESTS))


def test_every_alert_is_unit_tested_labelled_and_documented() -> None:
    tests = yaml.safe_load(RULE_TESTS.read_text())["tests"]
    fired = {
        case["alertname"]
        for test in tests
        for case in test.get("alert_rule_test", [])
        if case.get("exp_alerts")
    }
    operations = (ROOT / "docs" / "operations.md").read_text()
    anchors = {
        re.sub(r"[^a-z0-9 -]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        for line in operations.splitlines()
        if line.startswith("#")
    }
    alerts = [rule for rule in _rules() if "alert" in rule]
    assert len(alerts) >= 8
    for rule in alerts:
        name = rule["alert"]
        assert name in fired, f"{name} has no promtool test in which it fires"
        labels, annotations = rule["labels"], rule["annotations"]
        assert isinstance(labels, dict) and isinstance(annotations, dict)
        assert labels["severity"] in ("info", "warning", "critical"), name
        assert {"summary", "description", "runbook_url"} <= set(annotations), name
        assert "runbook" not in annotations, name  # the name Alertmanager and Grafana know
        page, _, anchor = annotations["runbook_url"].partition("#")
        assert page == "https://lexio.example.org/docs/operations.md", (name, page)
        assert anchor in anchors, (name, anchor)


def test_the_shipped_scrape_configuration_passes_promtool(tmp_path: Path) -> None:
    targets = tmp_path / "targets.json"
    targets.write_text(json.dumps(discovered_targets(rendered("prod"), {})))
    config = tmp_path / "prometheus.yml"
    config.write_text(yaml.safe_dump(local_config(targets, interval="15s")))
    out = _promtool("check", "config", str(config))
    assert "SUCCESS" in out and "rule files found" in out


def test_every_dashboard_query_is_valid_promql(tmp_path: Path) -> None:
    expressions = dashboard_expressions()
    assert len(expressions) >= 30
    rules = {
        "groups": [
            {
                "name": "dashboard",
                "rules": [
                    {"record": f"dashboard:query{i}", "expr": expr}
                    for i, (_, expr) in enumerate(expressions)
                ],
            }
        ]
    }
    path = tmp_path / "dashboard-queries.yml"
    path.write_text(yaml.safe_dump(rules))
    assert f"SUCCESS: {len(expressions)} rules found" in _promtool("check", "rules", str(path))


def test_the_dashboard_covers_what_operators_watch() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    everything = json.dumps(dashboard)
    for metric in (
        "lexio_gateway_turn_seconds_bucket",
        "lexio_lexicon_lookup_seconds_bucket",
        "grpc_server_handled_total",
        "grpc_server_handling_seconds_bucket",
        "lexio_gateway_connected_clients",
        "lexio_gateway_active_tables",
        "lexio_gateway_refusals_total",
        "lexio_gateway_errors_total",
        "lexio_build_info",
    ):
        assert metric in everything, metric
    for quantile in ("0.5", "0.95", "0.99"):
        assert f"histogram_quantile({quantile}" in everything
    # Issue 16, then 24: every game has its row (moves, refusals, how games end, their
    # length): one row repeated for each value of the game variable, so that no panel names a
    # game and a game added to the site has its row as it is.
    (variable,) = [v for v in dashboard["templating"]["list"] if v["name"] == "game"]
    assert variable["includeAll"] and variable["multi"]
    assert re.fullmatch(
        r'label_values\(lexio_gateway_\w+\{namespace=~"\$namespace"\}, game\)',
        variable["definition"],
    )
    (row,) = [p for p in dashboard["panels"] if p["type"] == "row" and p.get("repeat") == "game"]
    following = dashboard["panels"][dashboard["panels"].index(row) + 1 :]
    ends = [i for i, p in enumerate(following) if p["type"] == "row"]
    per_game = following[: ends[0] if ends else None]
    assert len(per_game) == 4 and "$game" in row["title"]
    text = json.dumps(per_game)
    for metric in (
        "lexio_gateway_games_ended_total",
        "lexio_gateway_game_events_bucket",
        "lexio_gateway_clock_events_total",
        "lexio_gateway_refusals_total",
        "lexio_gateway_turn_seconds_count",
    ):
        assert metric in text, metric
    for panel in per_game:
        assert panel["title"].startswith("$game: "), panel["title"]
        assert all('game=~"$game"' in target["expr"] for target in panel["targets"]), panel
    assert not re.search(r'game=~?\\?"[a-z]', everything), "a panel names a game"
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))


def test_count_panels_show_zero_and_latency_panels_do_not() -> None:
    """Issue 17: where nothing happened a count is 0 ("No data" would read as a broken
    scrape); a latency of nothing stays unknown, never 0."""
    panels = [p for p in json.loads(DASHBOARD.read_text())["panels"] if p.get("targets")]
    counts = 0
    for panel in panels:
        defaults = panel["fieldConfig"]["defaults"]
        exprs = [target["expr"] for target in panel["targets"]]
        if defaults.get("unit") in ("ops", "reqps", "percentunit"):
            assert defaults.get("noValue") == "0", panel["title"]
            counts += 1
        if all(expr.startswith("histogram_quantile(") for expr in exprs):
            assert defaults.get("noValue") in (None, "-"), panel["title"]
    assert counts >= 10
    # The engine's and the lobby's latency is their gRPC servers', for every game's engine
    # service (lexio.<game>.v1.Engine), none named.
    engine = 'grpc_service=~"lexio[.][a-z0-9_]+[.]v1[.]Engine",grpc_method="Act"'
    assert engine in DASHBOARD.read_text().replace('\\"', '"')
    assert engine in RULES.read_text()


def _defined_metrics() -> dict[str, set[str]]:
    """Every sample name the four services can expose → its label names."""
    for module in (
        lexio_common.buildinfo,
        lexio_engine.metrics,
        lexio_gateway.metrics,
        lexio_lexicon.servicer,
        lexio_lobby.metrics,
    ):
        assert module.__name__  # imported: their collectors are on the default registry
    default_metrics()
    found: dict[str, set[str]] = {}
    for collector, names in REGISTRY._collector_to_names.items():
        labels = set(getattr(collector, "_labelnames", ()))
        for name in names:
            found[name] = labels | ({"le"} if name.endswith("_bucket") else set())
    # An info metric's labels are its value: ask the lexicon for the ones it sets.
    registry = CollectorRegistry()
    LexiconServicer(WordList.from_words(["MOT"]), metrics=LexiconMetrics(registry))
    for metric in registry.collect():
        for sample in metric.samples:
            if sample.name == "lexio_lexicon_list_info":
                found[sample.name] = set(sample.labels)
    return found


def _referenced(expr: str) -> list[tuple[str, str]]:
    """(metric, matchers) of every Lexio or gRPC series an expression selects."""
    pattern = r"(?<![:\w])((?:lexio|grpc_server)_[a-z0-9_]+)(?![:\w])(?:\{([^}]*)\})?"
    return [(m[1], m[2] or "") for m in re.finditer(pattern, expr)]


def test_rules_and_dashboard_use_metrics_and_labels_that_exist() -> None:
    defined = _defined_metrics()
    all_labels = set().union(*defined.values()) | TARGET_LABELS | {"hop", "kind"}
    expressions = [str(rule["expr"]) for rule in _rules()] + [
        expr for _, expr in dashboard_expressions()
    ]
    checked = set()
    for expr in expressions:
        for metric, matchers in _referenced(expr):
            assert metric in defined, f"{metric} is defined by no service ({expr})"
            checked.add(metric)
            for label, _, value in re.findall(r'(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"', matchers):
                assert label in defined[metric] | TARGET_LABELS, (metric, label)
                if label == "grpc_code":
                    assert set(value.split("|")) <= set(CODE_NAMES.values()), value
        for group in re.findall(r"\bby \(([^)]*)\)", expr):
            for label in (g.strip() for g in group.split(",")):
                assert label in all_labels, (label, expr)
    assert len(checked) >= 15


def test_the_operator_resources_carry_the_same_rules_and_scrape_job() -> None:
    operator = MONITORING / "operator"
    rendered_operator = subprocess.run(
        ["kubectl", "kustomize", str(operator)], capture_output=True, text=True, check=True
    ).stdout
    objects = {o["kind"]: o for o in yaml.safe_load_all(rendered_operator) if o}
    assert set(objects) == {"PodMonitor", "PrometheusRule"}
    rules = yaml.safe_load((MONITORING / "lexio-rules.yml").read_text())
    assert objects["PrometheusRule"]["spec"] == rules  # `make monitoring-operator` regenerates
    (endpoint,) = objects["PodMonitor"]["spec"]["podMetricsEndpoints"]
    assert endpoint["port"] == "metrics" and endpoint["path"] == "/metrics"
    targets = {r.get("targetLabel") for r in endpoint["relabelings"]}
    assert {"job", "namespace", "pod"} <= targets
    scrape = yaml.safe_load((MONITORING / "prometheus.yml").read_text())["scrape_configs"][0]
    assert {r.get("target_label") for r in scrape["relabel_configs"]} >= {"job", "namespace", "pod"}
    assert objects["PodMonitor"]["spec"]["selector"] == {
        "matchLabels": {"app.kubernetes.io/part-of": "lexio"}
    }
