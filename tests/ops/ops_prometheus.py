"""Debian's Prometheus and promtool for the ops tests, and the shipped scrape configuration
made runnable here.

Debian builds Prometheus without Kubernetes service discovery, so the shipped configuration's
``kubernetes_sd_configs`` becomes a ``file_sd_configs`` that lists what Kubernetes would
discover for the rendered pods — one target per declared container port, with the same
``__meta_kubernetes_*`` labels — pointing at the local processes. Everything else of the
configuration (relabelling, rule files) is used as shipped.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import yaml
from lexio_stack import free_port, http_status, http_text
from lexio_testing import eventually_sync
from ops_deploy import DEPLOY

Obj = dict[str, Any]
SHIPPED_CONFIG = DEPLOY / "monitoring" / "prometheus.yml"
RULES = DEPLOY / "monitoring" / "lexio-rules.yml"
RULE_TESTS = DEPLOY / "monitoring" / "lexio-rules.test.yml"
DASHBOARD = DEPLOY / "monitoring" / "lexio-dashboard.json"


def tool(name: str) -> str:
    """A Prometheus binary; its absence fails the test (CI must install Debian's package)."""
    path = shutil.which(name)
    assert path, f"{name} is missing: `make prometheus` installs Debian's prometheus package"
    return path


def _meta(name: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_]", "_", name)


def discovered_targets(objects: list[Obj], local_ports: dict[int, int]) -> list[Obj]:
    """What Kubernetes pod discovery yields for the workloads of ``objects`` (one group per
    declared container port), with each container port mapped to ``local_ports[port]`` on
    127.0.0.1 (ports without a local process are left as they are)."""
    groups = []
    for workload in objects:
        if workload["kind"] not in ("Deployment", "StatefulSet"):
            continue
        template = workload["spec"]["template"]
        pod_labels: dict[str, str] = {
            "__meta_kubernetes_namespace": workload["metadata"]["namespace"],
            "__meta_kubernetes_pod_name": f"{workload['metadata']['name']}-0",
        }
        for key, value in template["metadata"].get("labels", {}).items():
            pod_labels[f"__meta_kubernetes_pod_label_{_meta(key)}"] = value
        for key, value in template["metadata"].get("annotations", {}).items():
            mapped = (
                str(local_ports.get(int(value), int(value))) if key.endswith("/port") else value
            )
            pod_labels[f"__meta_kubernetes_pod_annotation_{_meta(key)}"] = mapped
        for c in template["spec"]["containers"]:
            for port in c.get("ports", []):
                number = local_ports.get(port["containerPort"], port["containerPort"])
                labels = {
                    **pod_labels,
                    "__meta_kubernetes_pod_container_name": c["name"],
                    "__meta_kubernetes_pod_container_port_name": port.get("name", ""),
                    "__meta_kubernetes_pod_container_port_number": str(number),
                }
                groups.append({"targets": [f"127.0.0.1:{number}"], "labels": labels})
    return groups


def local_config(targets_file: Path, interval: str = "1s") -> Obj:
    """The shipped configuration, discovering from ``targets_file``, scraping every
    ``interval``, with the shipped rules."""
    config: Obj = yaml.safe_load(SHIPPED_CONFIG.read_text())
    config["global"]["scrape_interval"] = interval
    config["global"]["evaluation_interval"] = interval
    config["rule_files"] = [str(RULES)]
    (job,) = config["scrape_configs"]
    assert list(job["kubernetes_sd_configs"]) == [{"role": "pod"}]
    del job["kubernetes_sd_configs"]
    job["file_sd_configs"] = [{"files": [str(targets_file)], "refresh_interval": "1s"}]
    return config


class PrometheusServer:
    """A real Prometheus on 127.0.0.1 with its own data directory, stopped by :meth:`stop`."""

    def __init__(self, config_path: Path, workdir: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = workdir / "prometheus.log"
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [
                    tool("prometheus"),
                    f"--config.file={config_path}",
                    f"--storage.tsdb.path={workdir / 'tsdb'}",
                    f"--web.listen-address=127.0.0.1:{self.port}",
                    "--log.level=warn",
                ],
                stdout=log,
                stderr=log,
                stdin=subprocess.DEVNULL,
            )
        deadline = time.monotonic() + 30
        while True:
            assert self.process.poll() is None, self.log()
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=1) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                pass
            assert time.monotonic() < deadline, f"Prometheus did not start\n{self.log()}"
            time.sleep(0.1)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-3000:]

    def api(self, path: str, **params: str) -> Any:
        query = urllib.parse.urlencode(params)
        with urllib.request.urlopen(f"{self.url}/api/v1/{path}?{query}", timeout=10) as reply:
            body = json.loads(reply.read())
        assert body["status"] == "success", body
        return body["data"]

    def query(self, expr: str) -> list[Obj]:
        """An instant query's vector result."""
        data = self.api("query", query=expr)
        assert data["resultType"] == "vector", data
        return list(data["result"])

    def value(self, expr: str) -> float | None:
        """The single value of an instant query, or None when it has no result."""
        result = self.query(expr)
        assert len(result) <= 1, result
        return float(result[0]["value"][1]) if result else None

    def wait_for(self, expr: str, wanted: float, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        got = None
        while time.monotonic() < deadline:
            got = self.value(expr)
            if got == wanted:
                return
            time.sleep(0.2)
        raise AssertionError(f"{expr} = {got}, not {wanted}, after {timeout} s")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


def filled(expr: str, game: str = ".*") -> str:
    """A dashboard query with Grafana's variables filled in (``$game``: every game, or the
    one of a repeated row)."""
    return expr.replace("$__rate_interval", "1m").replace("$namespace", ".*").replace("$game", game)


def dashboard() -> Obj:
    """The dashboard's JSON model."""
    model: Obj = json.loads(DASHBOARD.read_text())
    return model


def dashboard_panels() -> list[Obj]:
    return list(dashboard()["panels"])


def dashboard_expressions() -> list[tuple[str, str]]:
    """(panel title, PromQL) of every dashboard query, Grafana's variables filled in."""
    return [
        (panel["title"], filled(target["expr"]))
        for panel in dashboard_panels()
        for target in panel.get("targets", [])
    ]


def redis_exporter_text(redis_port: int, password: str) -> str:
    """What Debian's prometheus-redis-exporter serves for the Redis on ``redis_port``, run as
    deploy/'s sidecar runs it (REDIS_ADDR, REDIS_PASSWORD): one scrape, the exporter stopped
    after it."""
    program = shutil.which("prometheus-redis-exporter")
    assert program, "prometheus-redis-exporter is missing (make test installs it)"
    port = free_port()
    process = subprocess.Popen(
        [program, f"-web.listen-address=127.0.0.1:{port}"],
        env={"REDIS_ADDR": f"redis://127.0.0.1:{redis_port}", "REDIS_PASSWORD": password},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}/metrics"
        eventually_sync(
            lambda: process.poll() is None and http_status(url) == 200, "the exporter up"
        )
        return http_text(url)
    finally:
        process.terminate()
        process.wait(timeout=10)
