"""The deploy tool (deploy/lexio_deploy.py) and the rendered overlays, for the ops tests."""

from __future__ import annotations

import copy
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
if str(DEPLOY) not in sys.path:  # the tool is a script beside the manifests, not a package
    sys.path.insert(0, str(DEPLOY))

import lexio_deploy  # noqa: E402

__all__ = [
    "CLUSTER_OVERLAYS",
    "DEPLOY",
    "K8S_VERSIONS",
    "LEXIO_SERVICES",
    "OVERLAYS",
    "ROOT",
    "WORKLOADS",
    "config_from_env",
    "container",
    "dockerfile",
    "env",
    "final_stage",
    "find",
    "image_env",
    "lexio_deploy",
    "redis_name",
    "rendered",
]

#: dev: SQLite lobby, one pod each. prod: the lobby on Redis, a LoadBalancer. prod-ingress:
#: prod behind ingress-nginx. prod-cluster: prod on a Redis Cluster instead of one Redis.
OVERLAYS = ("dev", "prod", "prod-ingress", "prod-cluster")
#: The overlays whose gateways and lobbies are on a Redis Cluster: the StatefulSet
#: ``redis-cluster`` (its Services, pods, budget, policy and exporters' job so named), made a
#: cluster by the Job ``redis-cluster-join``, in place of the base's one Redis, ``redis``.
CLUSTER_OVERLAYS = ("prod-cluster",)
#: The Kubernetes versions the manifests must validate against: the oldest supported by
#: deploy/ (native gRPC probes are GA since 1.27) and the newest kubernetes-validate knows.
K8S_VERSIONS = ("1.29.0", "1.37.0")
LEXIO_SERVICES = ("lexicon", "engine", "lobby", "gateway")
WORKLOADS = {"lexicon": "lexicon", "engine": "game-engine", "lobby": "lobby", "gateway": "gateway"}
"""Each service's Deployment, Service, account and pod label (``app.kubernetes.io/name``):
its name, but for the engine's, game-engine since the one engine contract, so that an update
runs it beside the previous releases' ``engine`` (docs/operations.md)."""
_SERVICE_OF = {workload: service for service, workload in WORKLOADS.items()}

Obj = dict[str, Any]
T = TypeVar("T")


def config_from_env(
    monkeypatch: pytest.MonkeyPatch, variables: dict[str, str], read: Callable[[], T]
) -> T:
    """A service's configuration as it reads a manifest's environment (``variables``) and
    nothing else: ``read`` is its ``Config.from_env``."""
    for name in [n for n in os.environ if n.startswith("LEXIO_")]:
        monkeypatch.delenv(name)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    return read()


def redis_name(overlay: str) -> str:
    """The overlay's Redis: the name of its StatefulSet, client Service, disruption budget,
    network policy and pod label (``app.kubernetes.io/name``, so the exporters' job)."""
    return "redis-cluster" if overlay in CLUSTER_OVERLAYS else "redis"


@functools.cache
def _rendered(overlay: str) -> tuple[Obj, ...]:
    return tuple(lexio_deploy.render(lexio_deploy.overlay_dir(overlay)))


def rendered(overlay: str) -> list[Obj]:
    """The overlay's objects (a fresh deep copy each time, callers may change them)."""
    return copy.deepcopy(list(_rendered(overlay)))


def find(objects: list[Obj], kind: str, name: str) -> Obj:
    for obj in objects:
        if obj["kind"] == kind and obj["metadata"]["name"] == name:
            return obj
    raise AssertionError(f"no {kind}/{name}")


def container(objects: list[Obj], name: str) -> Obj:
    """The container of service ``name`` (or of the workload so named)."""
    workload_name = WORKLOADS.get(name, name)
    workload = next(
        o
        for o in objects
        if o["kind"] in ("Deployment", "StatefulSet") and o["metadata"]["name"] == workload_name
    )
    spec = workload["spec"]["template"]["spec"]
    return next(c for c in spec["containers"] if c["name"] == _SERVICE_OF.get(name, name))


def env(container_spec: Obj) -> dict[str, str]:
    """Plain values (those from a Secret are left out: see their valueFrom)."""
    return {e["name"]: e["value"] for e in container_spec.get("env", []) if "value" in e}


def dockerfile(name: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of deploy/docker/NAME.Dockerfile, continuation lines joined."""
    text = (DEPLOY / "docker" / f"{name}.Dockerfile").read_text()
    logical, pending = [], ""
    for raw in text.splitlines():
        if raw.lstrip().startswith("#") and not pending:
            continue
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        line, pending = pending + raw, ""
        if line.strip():
            instruction, _, rest = line.strip().partition(" ")
            logical.append((instruction.upper(), rest.strip()))
    return logical


def final_stage(name: str) -> list[tuple[str, str]]:
    steps = dockerfile(name)
    last = max(i for i, (instruction, _) in enumerate(steps) if instruction == "FROM")
    return steps[last:]


def image_env(name: str) -> dict[str, str]:
    """The ENV of the image's final stage (unexpanded)."""
    found: dict[str, str] = {}
    for instruction, rest in final_stage(name):
        if instruction == "ENV":
            for pair in rest.split():
                key, _, value = pair.partition("=")
                found[key] = value
    return found
