"""The deploy tool without a cluster: its JSON patches, image retargeting, apply order,
rollout logic and gateway address; its --dry-run; and a whole deployment through the real
kubernetes client against a fake API server on 127.0.0.1 (discovery, server-side apply,
rollout polling)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from aiohttp import web
from lexio_testing import LoopThread, free_port
from ops_deploy import DEPLOY, LEXIO_SERVICES, OVERLAYS, lexio_deploy, rendered
from ops_fake_apiserver import (
    INGRESS_IP,
    LOAD_BALANCER_IP,
    FakeApiServer,
    kubeconfig,
    object_path,
)

Obj = dict[str, Any]


DIGESTS = {name: "sha256:" + f"{i:x}" * 64 for i, name in enumerate(LEXIO_SERVICES, 1)}


def _images(plan: lexio_deploy.Plan) -> dict[str, str]:
    return {
        c["name"]: c["image"]
        for o in plan.objects
        if o["kind"] in ("Deployment", "StatefulSet")
        for c in o["spec"]["template"]["spec"]["containers"]
    }


def test_the_overlays_render_with_kubectl_kustomize() -> None:
    """The tool does not re-implement kustomize: what it applies is kubectl's rendering."""
    kubectl = subprocess.run(
        ["kubectl", "kustomize", str(DEPLOY / "overlays" / "prod")],
        capture_output=True,
        text=True,
        check=True,
    )
    expected = [o for o in yaml.safe_load_all(kubectl.stdout) if o]
    assert lexio_deploy.render(DEPLOY / "overlays" / "prod") == expected
    source = (DEPLOY / "lexio_deploy.py").read_text()
    assert "def json_patch" not in source and "strategic" not in source


def test_prod_images_come_from_a_registry_by_digest() -> None:
    # The overlay names a registry and digests, never a bare lexio/… tag (Docker Hub's).
    for overlay in ("prod", "prod-ingress", "prod-cluster"):
        for name, image in _images(lexio_deploy.plan(overlay, digests=DIGESTS)).items():
            if name in LEXIO_SERVICES:
                assert image == f"registry.example.org/lexio/{name}@{DIGESTS[name]}", image
        with pytest.raises(lexio_deploy.RenderError, match="no real digest"):
            lexio_deploy.plan(overlay)  # the overlay's placeholder digests are refused
    plan = lexio_deploy.plan("prod", "reg.example:5000/lexio/", digests=DIGESTS)
    assert _images(plan) == {
        **{name: f"reg.example:5000/lexio/{name}@{DIGESTS[name]}" for name in LEXIO_SERVICES},
        "redis": "docker.io/library/redis:7.2.12-bookworm",  # not Lexio's: left alone
        "exporter": "docker.io/oliver006/redis_exporter:v1.90.0",
    }
    assert plan.namespace == "lexio"
    # dev: the images make images builds (localhost/…), by tag.
    dev = _images(lexio_deploy.plan("dev", tag="t1"))
    assert {n: dev[n] for n in LEXIO_SERVICES} == {
        n: f"localhost/lexio/{n}:t1" for n in LEXIO_SERVICES
    }


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_objects_are_applied_in_dependency_order(overlay: str) -> None:
    plan = lexio_deploy.plan(overlay, digests=DIGESTS)
    kinds = [o["kind"] for o in plan.objects]
    assert kinds[0] == "Namespace"
    assert set(kinds[1 : kinds.count("NetworkPolicy") + 1]) == {"NetworkPolicy"}
    assert set(kinds) <= set(lexio_deploy._ORDER), "a kind the tool does not order"
    first = {kind: kinds.index(kind) for kind in kinds}
    last = {kind: len(kinds) - 1 - kinds[::-1].index(kind) for kind in kinds}
    before = [
        ("ServiceAccount", "Deployment"),
        ("ConfigMap", "Deployment"),
        ("Service", "Ingress"),
        ("PersistentVolumeClaim", "Deployment"),
        ("StatefulSet", "HorizontalPodAutoscaler"),
        # A Redis Cluster's Job works on the StatefulSet's pods, with its script.
        ("ConfigMap", "Job"),
        ("StatefulSet", "Job"),
    ]
    for earlier, later in before:
        if earlier in kinds and later in kinds:
            assert last[earlier] < first[later], (earlier, later)
    unpinned = rendered(overlay)
    lexio_deploy.retarget_images(unpinned, digests=DIGESTS)
    assert sorted(map(json.dumps, plan.objects)) == sorted(map(json.dumps, unpinned))


def _deployment(**status: Any) -> Obj:
    return {
        "kind": "Deployment",
        "metadata": {"name": "engine", "generation": 2},
        "spec": {"replicas": 2},
        "status": status,
    }


def test_rollout_status_of_a_deployment() -> None:
    status = lexio_deploy.rollout_status
    assert not status(_deployment(observedGeneration=1))[0]
    assert (
        "1 of 2 replicas updated" in status(_deployment(observedGeneration=2, updatedReplicas=1))[1]
    )
    old = _deployment(observedGeneration=2, updatedReplicas=2, replicas=3)
    assert "1 old replicas terminating" in status(old)[1]
    half = _deployment(observedGeneration=2, updatedReplicas=2, replicas=2, availableReplicas=1)
    assert "1 of 2 available" in status(half)[1]
    done = _deployment(observedGeneration=2, updatedReplicas=2, replicas=2, availableReplicas=2)
    assert status(done) == (True, "Deployment/engine: rolled out")
    stuck = _deployment(
        observedGeneration=2,
        conditions=[{"type": "Progressing", "reason": "ProgressDeadlineExceeded"}],
    )
    with pytest.raises(lexio_deploy.RolloutError, match="progress deadline"):
        status(stuck)


def test_rollout_status_of_a_stateful_set() -> None:
    def redis(**status: Any) -> Obj:
        return {
            "kind": "StatefulSet",
            "metadata": {"name": "redis", "generation": 1},
            "spec": {"replicas": 1},
            "status": {"observedGeneration": 1, **status},
        }

    status = lexio_deploy.rollout_status
    assert not status(redis(readyReplicas=0))[0]
    assert not status(redis(readyReplicas=1, currentRevision="a", updateRevision="b"))[0]
    assert status(redis(readyReplicas=1, currentRevision="b", updateRevision="b"))[0]


class _NeverReady:
    def apply(self, obj: Obj) -> Obj:
        return obj

    def get(self, api_version: str, kind: str, name: str, namespace: str | None) -> Obj:
        live = _deployment(observedGeneration=2, updatedReplicas=0)
        live["metadata"]["name"] = name
        return live

    def list_objects(self, api_version: str, kind: str) -> list[Obj]:
        return []


def test_waiting_for_rollouts_times_out() -> None:
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    said: list[str] = []
    objects = [o for o in rendered("dev") if o["kind"] == "Deployment"]
    with pytest.raises(lexio_deploy.RolloutError, match="timed out after 30 s"):
        lexio_deploy.wait_for_rollouts(
            _NeverReady(), objects, timeout=30, clock=lambda: now[0], sleep=sleep, say=said.append
        )
    assert now[0] >= 30
    # Each workload's state is said once, not at every poll.
    names = [o["metadata"]["name"] for o in objects]
    assert said == [f"Deployment/{name}: 0 of 2 replicas updated" for name in names]


class _Services:
    def __init__(self, service: Obj) -> None:
        self.service = service

    def apply(self, obj: Obj) -> Obj:
        return obj

    def get(self, api_version: str, kind: str, name: str, namespace: str | None) -> Obj:
        return self.service

    def list_objects(self, api_version: str, kind: str) -> list[Obj]:
        address = {"type": "ExternalIP", "address": "198.51.100.2"}
        return [{"status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.1"}, address]}}]


def test_the_gateway_address_for_each_service_type() -> None:
    def address(spec: Obj, status: Obj | None = None) -> str:
        service = {"spec": spec, "status": status or {}}
        return lexio_deploy.gateway_address(_Services(service), "lexio")

    lb = {"type": "LoadBalancer", "ports": [{"port": 80}]}
    assert (
        address(lb, {"loadBalancer": {"ingress": [{"ip": "203.0.113.1"}]}}) == "http://203.0.113.1"
    )
    assert (
        address(lb, {"loadBalancer": {"ingress": [{"hostname": "lb.example"}]}})
        == "http://lb.example"
    )
    assert "no address yet" in address(lb)
    node_port = {"type": "NodePort", "ports": [{"port": 80, "nodePort": 30123}]}
    assert address(node_port) == "http://198.51.100.2:30123"
    hint = address({"type": "ClusterIP", "ports": [{"port": 80}]})
    assert "gateway.lexio.svc:80" in hint and "kubectl port-forward -n lexio svc/gateway" in hint


def test_the_address_behind_an_ingress() -> None:
    (ingress,) = [o for o in rendered("prod-ingress") if o["kind"] == "Ingress"]

    def address(spec: Obj, status: Obj | None = None) -> str:
        live = {**ingress, "spec": spec, "status": status or {}}
        return lexio_deploy.ingress_address(_Services(live), ingress)

    published = {"loadBalancer": {"ingress": [{"ip": "203.0.113.9"}]}}
    assert address(ingress["spec"], published).startswith("https://lexio.example.org/ (")
    assert "203.0.113.9" in address(ingress["spec"], published)
    assert "no address for the ingress yet" in address(ingress["spec"])
    plain = {"rules": [{"host": "lexio.test"}]}
    assert address(plain, published).startswith("http://lexio.test/ (")
    assert address({"rules": [{}]}, published) == "http://203.0.113.9/"


def _tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(DEPLOY / "lexio_deploy.py"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_dry_run_prints_the_manifests_and_applies_nothing(tmp_path: Path) -> None:
    digests = tmp_path / "digests.json"
    digests.write_text(json.dumps(DIGESTS))
    done = _tool(
        "--overlay",
        "prod",
        "--dry-run",
        "--registry",
        "reg.example/lexio",
        "--digests",
        str(digests),
    )
    assert done.returncode == 0, done.stderr
    printed = [o for o in yaml.safe_load_all(done.stdout) if o]
    assert printed == lexio_deploy.plan("prod", "reg.example/lexio", digests=DIGESTS).objects
    undigested = _tool("--overlay", "prod", "--dry-run")
    assert undigested.returncode == 2 and "--digests" in undigested.stderr
    as_json = json.loads(_tool("--overlay", "dev", "--dry-run", "--json").stdout)
    assert as_json["kind"] == "List" and as_json["items"] == lexio_deploy.plan("dev").objects
    bad = _tool("--overlay", "staging", "--dry-run")
    assert bad.returncode == 2 and "no overlay 'staging'" in bad.stderr


@pytest.fixture
def apiserver(tmp_path: Path) -> Iterator[tuple[FakeApiServer, Path]]:
    loop = LoopThread()
    fake = FakeApiServer()
    runner = web.AppRunner(fake.app())

    async def start() -> int:
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        return int(runner.addresses[0][1])

    port = loop.run(start())
    config = tmp_path / "kubeconfig"
    config.write_text(kubeconfig(port))
    yield fake, config
    loop.run(runner.cleanup())
    loop.close()


@pytest.mark.parametrize(
    ("overlay", "expected"),
    [
        ("prod", f"http://{LOAD_BALANCER_IP}"),
        ("prod-ingress", f"https://lexio.example.org/ (the ingress controller is at {INGRESS_IP}"),
    ],
)
def test_deploy_applies_everything_server_side_and_waits_for_the_rollouts(
    apiserver: tuple[FakeApiServer, Path], tmp_path: Path, overlay: str, expected: str
) -> None:
    fake, config = apiserver
    cluster = lexio_deploy.KubernetesCluster(
        config_file=str(config), discovery_cache=str(tmp_path / "discovery.json")
    )
    plan = lexio_deploy.plan(overlay, "reg.example/lexio", digests=DIGESTS)
    said: list[str] = []
    address = lexio_deploy.deploy(cluster, plan, timeout=30, interval=0.01, say=said.append)
    assert address.startswith(expected), address
    # The Redis password: a Secret made once, with a random password, before anything else.
    (secret,) = fake.created
    assert secret["metadata"]["name"] == "redis-auth" and said[0].startswith("created Secret")
    assert len(secret["stringData"]["password"]) == 64
    assert [a.path for a in fake.applied] == [object_path(o) for o in plan.objects]
    for applied, obj in zip(fake.applied, plan.objects, strict=True):
        assert applied.content_type == "application/apply-patch+yaml"
        # Server-side apply that never forces a conflict unless asked.
        assert applied.query == {"fieldManager": "lexio-deploy", "force": "false"}
        assert applied.body == obj
    workloads = [o for o in plan.objects if o["kind"] in ("Deployment", "StatefulSet")]
    for workload in workloads:
        # Polled until done: once not rolled out, once rolled out.
        assert fake.reads[object_path(workload)] == 2
        assert f"{workload['kind']}/{workload['metadata']['name']}: rolled out" in said


def test_the_command_deploys_the_dev_overlay(
    apiserver: tuple[FakeApiServer, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake, config = apiserver
    fake.rollout_polls = 0
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the client's discovery cache
    status = lexio_deploy.main(["--overlay", "dev", "--kubeconfig", str(config)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.splitlines()[-1] == "Lexio is up in namespace lexio-dev: http://10.0.0.5:30080"
    assert len(fake.applied) == len(rendered("dev"))


def _cluster(config: Path, tmp_path: Path) -> lexio_deploy.KubernetesCluster:
    return lexio_deploy.KubernetesCluster(
        config_file=str(config), discovery_cache=str(tmp_path / "discovery.json")
    )


def test_an_unreachable_cluster_is_exit_status_3_without_a_traceback(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    closed.write_text(kubeconfig(free_port()))  # nothing listens there
    done = _tool("--overlay", "dev", "--kubeconfig", str(closed), "--timeout", "5")
    assert done.returncode == 3, done.stderr
    assert "cannot reach the API server" in done.stderr and "Traceback" not in done.stderr
    missing = _tool("--overlay", "dev", "--kubeconfig", str(tmp_path / "absent"))
    assert missing.returncode == 3 and "kubeconfig" in missing.stderr, missing.stderr
    assert "Traceback" not in missing.stderr


def test_a_rejected_object_is_exit_status_4(
    apiserver: tuple[FakeApiServer, Path], tmp_path: Path
) -> None:
    fake, config = apiserver
    plan = lexio_deploy.plan("dev")
    gateway = next(
        o for o in plan.objects if o["kind"] == "Deployment" and o["metadata"]["name"] == "gateway"
    )
    fake.invalid.add(object_path(gateway))
    with pytest.raises(lexio_deploy.RejectedError, match="Invalid \\(422\\)"):
        lexio_deploy.deploy(_cluster(config, tmp_path), plan, timeout=5, say=lambda _: None)
    done = _tool("--overlay", "dev", "--kubeconfig", str(config))
    assert done.returncode == 4 and "Traceback" not in done.stderr, done.stderr


def test_a_conflict_stops_the_deploy_unless_forced(
    apiserver: tuple[FakeApiServer, Path], tmp_path: Path
) -> None:
    fake, config = apiserver
    fake.rollout_polls = 0
    plan = lexio_deploy.plan("dev")
    hpa = next(o for o in plan.objects if o["kind"] == "HorizontalPodAutoscaler")
    fake.conflicts.add(object_path(hpa))
    done = _tool("--overlay", "dev", "--kubeconfig", str(config))
    assert done.returncode == 4, done.stderr
    assert "kubectl-edit" in done.stderr and "--force-conflicts" in done.stderr
    assert object_path(hpa) not in fake.objects
    forced = _tool("--overlay", "dev", "--kubeconfig", str(config), "--force-conflicts")
    assert forced.returncode == 0, forced.stderr
    assert fake.applied[-1].query["force"] == "true"
    assert "Lexio is up in namespace lexio-dev" in forced.stdout


def test_diff_shows_what_would_change_from_a_server_dry_run_and_applies_nothing(
    apiserver: tuple[FakeApiServer, Path], tmp_path: Path
) -> None:
    fake, config = apiserver
    fake.rollout_polls = 0
    first = _tool("--overlay", "dev", "--kubeconfig", str(config), "--diff")
    assert first.returncode == 0, first.stderr
    objects = len(lexio_deploy.plan("dev").objects)
    assert f"{objects} of {objects} objects would change" in first.stdout
    assert "+++ applied Deployment/lexio-dev/gateway" in first.stdout
    assert fake.applied == [] and fake.created == []
    assert _tool("--overlay", "dev", "--kubeconfig", str(config)).returncode == 0
    again = _tool("--overlay", "dev", "--kubeconfig", str(config), "--diff", "--tag", "t2")
    assert again.returncode == 0, again.stderr
    assert "4 of" in again.stdout  # the four Deployments' images, nothing else
    assert "-        image: localhost/lexio/gateway:dev" in again.stdout
    assert "+        image: localhost/lexio/gateway:t2" in again.stdout
