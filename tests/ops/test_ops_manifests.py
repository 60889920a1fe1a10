"""The Kubernetes manifests of deploy/, rendered offline for every overlay:

- they are what ``kubectl kustomize`` renders (the deploy tool's renderer is exact);
- every object validates strictly against the Kubernetes schemas (kubernetes-validate);
- every pod meets the restricted security profile, with requests and limits;
- probes, ports, addresses and images agree with the services' own configuration and with
  the Dockerfiles;
- the network policies allow exactly the connections Lexio needs, and nothing else;
- autoscalers, disruption budgets and shutdown budgets make sense.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml
from ops_deploy import (
    CLUSTER_OVERLAYS,
    DEPLOY,
    K8S_VERSIONS,
    LEXIO_SERVICES,
    OVERLAYS,
    ROOT,
    WORKLOADS,
    config_from_env,
    container,
    dockerfile,
    env,
    final_stage,
    find,
    redis_name,
    rendered,
)
from ops_netpol import Endpoint, allowed, pods_of

from lexio_common.grpc_service import LIVENESS_SERVICE, READINESS_SERVICE
from lexio_common.redis_client import is_cluster_url
from lexio_engine.games import GAMES as ENGINE_GAMES
from lexio_engine.server import EngineConfig
from lexio_gateway.config import GatewayConfig
from lexio_gateway.redis_layout import PREFIX as GATEWAY_REDIS_PREFIX
from lexio_lexicon.server import SERVICE_NAME as LEXICON_SERVICE
from lexio_lexicon.server import LexiconConfig
from lexio_lobby.games import site_games
from lexio_lobby.redis_store import key_prefix
from lexio_lobby.server import SERVICE_NAME as LOBBY_SERVICE
from lexio_lobby.server import LobbyConfig

Obj = dict[str, Any]

#: The health name of each service whose readiness probe asks its own gRPC service.
GRPC_NAMES = {"lexicon": LEXICON_SERVICE, "lobby": LOBBY_SERVICE}
#: Each service's own defaults: (serving port, metrics port), and its environment variables.
DEFAULTS = {
    "lexicon": (LexiconConfig().port, LexiconConfig().metrics_port),
    "engine": (EngineConfig().port, EngineConfig().metrics_port),
    "lobby": (LobbyConfig().port, LobbyConfig().metrics_port),
    "gateway": (GatewayConfig().port, GatewayConfig().metrics_port),
}
PORT_VARS = {
    "lexicon": ("LEXIO_LEXICON_PORT", "LEXIO_LEXICON_METRICS_PORT", "LEXIO_LEXICON_HOST"),
    "engine": ("LEXIO_ENGINE_PORT", "LEXIO_ENGINE_METRICS_PORT", "LEXIO_ENGINE_HOST"),
    "lobby": ("LEXIO_LOBBY_PORT", "LEXIO_LOBBY_METRICS_PORT", "LEXIO_LOBBY_HOST"),
    "gateway": ("LEXIO_GATEWAY_PORT", "LEXIO_GATEWAY_METRICS_PORT", "LEXIO_GATEWAY_HOST"),
}


def _workloads(objects: list[Obj]) -> list[Obj]:
    """Whatever runs pods: the services, Redis, and a Redis Cluster's Job."""
    return [o for o in objects if o["kind"] in ("Deployment", "StatefulSet", "Job")]


def _ports(spec: Obj) -> dict[str, int]:
    return {p["name"]: p["containerPort"] for p in spec.get("ports", [])}


# Rendering ----------------------------------------------------------------------------------


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_renderer_gives_what_kubectl_kustomize_gives(overlay: str) -> None:
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is missing: its kustomize is the reference for deploy/ (install it)"
    reference = subprocess.run(
        [kubectl, "kustomize", str(DEPLOY / "overlays" / overlay)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout

    def key(obj: Obj) -> tuple[str, str, str]:
        return (obj["kind"], obj["metadata"].get("namespace", ""), obj["metadata"]["name"])

    ours = {key(o): o for o in rendered(overlay)}
    theirs = {key(o): o for o in yaml.safe_load_all(reference) if o}
    assert set(ours) == set(theirs)
    for name, obj in ours.items():
        assert obj == theirs[name], name


def _key(obj: Obj) -> tuple[str, str]:
    return (obj["kind"], obj["metadata"]["name"])


def test_overlays_differ_where_they_should() -> None:
    dev, prod, ingress = rendered("dev"), rendered("prod"), rendered("prod-ingress")
    for objects, namespace in ((dev, "lexio-dev"), (prod, "lexio"), (ingress, "lexio")):
        assert {o["metadata"].get("namespace") for o in objects if o["kind"] != "Namespace"} == {
            namespace
        }
    assert find(dev, "Service", "gateway")["spec"]["type"] == "NodePort"
    assert find(prod, "Service", "gateway")["spec"]["type"] == "LoadBalancer"
    assert find(dev, "HorizontalPodAutoscaler", WORKLOADS["engine"])["spec"]["minReplicas"] == 1
    assert find(prod, "HorizontalPodAutoscaler", WORKLOADS["engine"])["spec"]["minReplicas"] == 2
    # The lobby: SQLite on a volume in dev, on the gateways' Redis in prod.
    assert "LEXIO_REDIS_URL" not in env(container(dev, "lobby"))
    assert find(dev, "PersistentVolumeClaim", "lobby-data")
    assert "LEXIO_REDIS_URL" in env(container(prod, "lobby"))
    assert not [o for o in prod if o["kind"] == "PersistentVolumeClaim"]
    # prod-ingress is prod but for the way in: an Ingress, an internal Service, and the
    # gateway told to trust the controller's X-Forwarded-For.
    assert not [o for o in dev + prod if o["kind"] == "Ingress"]
    changed = {_key(o) for o in ingress if o not in prod} | {
        _key(o) for o in prod if o not in ingress
    }
    assert changed == {
        ("Ingress", "gateway"),
        ("Service", "gateway"),
        ("Deployment", "gateway"),
    }
    extra = set(env(container(ingress, "gateway")).items()) - set(
        env(container(prod, "gateway")).items()
    )
    assert {name for name, _ in extra} == {
        "LEXIO_GATEWAY_TRUST_FORWARDED_FOR",
        "LEXIO_GATEWAY_ORIGINS",
    }


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_object_says_it_is_part_of_lexio(overlay: str) -> None:
    for obj in rendered(overlay):
        if obj["kind"] != "Namespace":
            assert obj["metadata"]["labels"]["app.kubernetes.io/part-of"] == "lexio", _key(obj)


# Schemas ------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", K8S_VERSIONS)
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_object_validates_strictly(overlay: str, version: str) -> None:
    objects = rendered(overlay)
    assert len(objects) > 20
    for obj in objects:
        kubernetes_validate.validate(obj, version, strict=True)


def test_strict_validation_catches_a_misspelt_field() -> None:
    deployment = find(rendered("prod"), "Deployment", WORKLOADS["engine"])
    deployment["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, K8S_VERSIONS[-1], strict=True)


# Security -----------------------------------------------------------------------------------


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_pod_meets_the_restricted_profile(overlay: str) -> None:
    objects = rendered(overlay)
    namespace = next(o for o in objects if o["kind"] == "Namespace")
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    workloads = _workloads(objects)
    jobs = {"redis-cluster-join"} if overlay in CLUSTER_OVERLAYS else set()
    names = {*WORKLOADS.values(), redis_name(overlay), *jobs}
    assert {w["metadata"]["name"] for w in workloads} == names
    for workload in workloads:
        name = workload["metadata"]["name"]
        pod = workload["spec"]["template"]["spec"]
        assert pod["automountServiceAccountToken"] is False, name
        assert pod["serviceAccountName"] == name
        account = find(objects, "ServiceAccount", name)
        assert account["automountServiceAccountToken"] is False
        security = pod["securityContext"]
        assert security["runAsNonRoot"] is True, name
        assert security["runAsUser"] > 0 and security["runAsGroup"] > 0, name
        assert security["seccompProfile"] == {"type": "RuntimeDefault"}, name
        for key in ("hostNetwork", "hostPID", "hostIPC"):
            assert not pod.get(key), (name, key)
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        claims = {c["metadata"]["name"] for c in workload["spec"].get("volumeClaimTemplates", [])}
        # Data (an emptyDir, a claim); a Job may also read files (a ConfigMap: its script).
        kinds = {"emptyDir", "persistentVolumeClaim"}
        kinds |= {"configMap"} if workload["kind"] == "Job" else set()
        for volume in volumes.values():
            assert set(volume) & kinds, (name, volume)
        for c in pod["containers"]:
            context = c["securityContext"]
            assert context["allowPrivilegeEscalation"] is False, name
            assert context["readOnlyRootFilesystem"] is True, name
            assert context["capabilities"] == {"drop": ["ALL"]}, name
            assert not context.get("privileged"), name
            for kind in ("requests", "limits"):
                assert set(c["resources"][kind]) == {"cpu", "memory"}, (name, kind)
            # What the read-only root leaves writable: /tmp and the data volumes, no more.
            for mount in c.get("volumeMounts", []):
                assert mount["name"] in volumes or mount["name"] in claims, (name, mount)
                if "configMap" in volumes.get(mount["name"], {}):
                    assert mount.get("readOnly") is True, (name, mount)
            mounts = {
                m["mountPath"]
                for m in c.get("volumeMounts", [])
                if "configMap" not in volumes.get(m["name"], {})  # read-only, checked above
            }
            assert mounts <= {"/tmp", "/var/lib/lexio", "/data"}, (name, mounts)


# Ports, probes, addresses -------------------------------------------------------------------


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_probes_and_ports_agree_with_the_services_configuration(overlay: str) -> None:
    objects = rendered(overlay)
    for name in LEXIO_SERVICES:
        c = container(objects, name)
        ports, variables = _ports(c), env(c)
        serving, metrics = DEFAULTS[name]
        port_var, metrics_var, host_var = PORT_VARS[name]
        # The container listens where its environment tells it, on every interface.
        assert variables[host_var] == "0.0.0.0"
        main_port = ports["http" if name == "gateway" else "grpc"]
        assert int(variables[port_var]) == main_port == serving, name
        assert int(variables[metrics_var]) == ports["metrics"] == metrics != main_port, name
        template = find(objects, "Deployment", WORKLOADS[name])["spec"]["template"]
        annotations = template["metadata"]["annotations"]
        assert annotations["prometheus.io/scrape"] == "true"
        assert int(annotations["prometheus.io/port"]) == metrics
        assert annotations["prometheus.io/path"] == "/metrics"
        readiness, liveness = c["readinessProbe"], c["livenessProbe"]
        if name == "gateway":
            assert readiness["httpGet"] == {"path": "/readyz", "port": "http"}
            assert liveness["httpGet"] == {"path": "/healthz", "port": "http"}
        elif name == "engine":
            # The process's readiness, not the lexicon's (its games' names mirror that).
            assert readiness["grpc"] == {"port": main_port, "service": READINESS_SERVICE}
        else:
            assert readiness["grpc"] == {"port": main_port, "service": GRPC_NAMES[name]}
            assert liveness["grpc"] == {"port": main_port, "service": LIVENESS_SERVICE}
        # The Service exposes the container's named ports.
        service = find(objects, "Service", WORKLOADS[name])
        assert set(service["spec"]["selector"].items()) <= set(
            template["metadata"]["labels"].items()
        )
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in ports, (name, port)
    # What players reach (the gateway's Service: a load balancer in prod) has no metrics port.
    public = find(objects, "Service", "gateway")["spec"]["ports"]
    assert [p["targetPort"] for p in public] == ["http"]


def _service_port(objects: list[Obj], address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    service = find(objects, "Service", host)
    numbers = {p["port"] for p in service["spec"]["ports"]}
    assert int(port) in numbers, address
    return host, int(port)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_addresses_point_at_services_that_exist(
    overlay: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    objects = rendered(overlay)
    engine, gateway, lobby = (env(container(objects, n)) for n in ("engine", "gateway", "lobby"))
    assert _service_port(objects, engine["LEXIO_LEXICON_ADDRESS"]) == ("lexicon", 50052)
    assert _service_port(objects, gateway["LEXIO_ENGINE_ADDRESS"]) == (WORKLOADS["engine"], 50051)
    assert _service_port(objects, gateway["LEXIO_LOBBY_ADDRESS"]) == ("lobby", 50053)
    # One Redis (a database number), or a Redis Cluster (any node: the Service of them all).
    url = gateway["LEXIO_REDIS_URL"]
    cluster = overlay in CLUSTER_OVERLAYS
    assert is_cluster_url(url) == cluster, url
    if cluster:
        redis = re.fullmatch(r"redis\+cluster://:\$\(REDIS_PASSWORD\)@([a-z-]+):(\d+)", url)
    else:
        redis = re.fullmatch(r"redis://:\$\(REDIS_PASSWORD\)@([a-z-]+):(\d+)/\d+", url)
    assert redis is not None, url
    assert _service_port(objects, f"{redis[1]}:{redis[2]}") == (redis_name(overlay), 6379)
    # The lobby registers the site's games (lexio_lobby/site_games.json) as it reads the
    # manifest's environment: each one an engine game, ready while the engine Service's pods
    # serve that game's health name.
    games = config_from_env(monkeypatch, lobby, LobbyConfig.from_env).games
    assert games == site_games(f"{WORKLOADS['engine']}:50051")
    assert [game.name for game in games] == ["lexio", "mishqaq"]  # what the site offers
    health_names = {game.name: game.health_name for game in ENGINE_GAMES}
    assert games and all(game.health_service == health_names[game.name] for game in games)
    for game in games:
        assert game.health_address is not None
        assert _service_port(objects, game.health_address) == (WORKLOADS["engine"], 50051)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_lobby_store_fits_its_replicas(overlay: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite: one writer on a volume. Redis: the gateways' Redis, a key prefix of the
    lobby's own, no volume: the replicas share nothing else."""
    objects = rendered(overlay)
    variables = env(container(objects, "lobby"))
    config = config_from_env(monkeypatch, variables, LobbyConfig.from_env)
    pod = find(objects, "Deployment", "lobby")["spec"]["template"]["spec"]
    claims = {
        v["name"]: v["persistentVolumeClaim"]["claimName"]
        for v in pod.get("volumes", [])
        if "persistentVolumeClaim" in v
    }
    lobby_claims = [
        o["metadata"]["name"]
        for o in objects
        if o["kind"] == "PersistentVolumeClaim"
        and o["metadata"]["labels"]["app.kubernetes.io/name"] == "lobby"
    ]
    if config.redis_url:
        gateway = env(container(objects, "gateway"))
        assert config.redis_url == gateway["LEXIO_REDIS_URL"]
        # Its keys and the gateways' never meet, whichever prefix is the longer. The prefix
        # is the one the lobby uses, on a cluster too (one without a hash tag would keep the
        # lobby from starting there).
        prefix = variables["LEXIO_LOBBY_REDIS_PREFIX"]
        assert config.redis_prefix == prefix == key_prefix(config.redis_url, prefix)
        assert not prefix.startswith(GATEWAY_REDIS_PREFIX)
        assert not GATEWAY_REDIS_PREFIX.startswith(prefix)
        assert "LEXIO_LOBBY_DB" not in variables
        assert claims == {} and lobby_claims == []
    else:
        # Data where the volume is, on a claim that exists.
        (mount,) = [m for m in container(objects, "lobby")["volumeMounts"] if m["name"] in claims]
        assert str(config.db_path).startswith(mount["mountPath"] + "/")
        assert list(claims.values()) == lobby_claims == ["lobby-data"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_shutdown_fits_in_the_termination_grace_period(overlay: str) -> None:
    objects = rendered(overlay)
    for name in LEXIO_SERVICES:
        workload = find(objects, "Deployment", WORKLOADS[name])
        pod = workload["spec"]["template"]["spec"]
        c = container(objects, name)
        command = c["lifecycle"]["preStop"]["exec"]["command"]
        assert command[0] == "sleep"
        grace = float(env(c).get("LEXIO_SHUTDOWN_GRACE", "5"))
        # preStop, then the service's own grace, then a margin to close sockets and exit.
        assert float(command[1]) + grace + 5 <= pod["terminationGracePeriodSeconds"], name


# Images -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", LEXIO_SERVICES)
def test_each_service_has_a_multi_stage_non_root_pinned_dockerfile(name: str) -> None:
    steps = dockerfile(name)
    args = {
        k: v
        for k, _, v in (rest.partition("=") for instruction, rest in steps if instruction == "ARG")
    }
    froms = [rest for instruction, rest in steps if instruction == "FROM"]
    assert len(froms) >= 2, "multi-stage"
    base = args["PYTHON_IMAGE"]
    assert re.fullmatch(r"python:3\.11\.\d+-slim-bookworm(@sha256:[0-9a-f]{64})?", base), base
    assert all(f.split()[0] == "${PYTHON_IMAGE}" for f in froms), froms
    (user,) = [rest for instruction, rest in steps if instruction == "USER"]
    uid, _, gid = user.partition(":")
    assert int(uid) > 0 and int(gid) > 0
    (entrypoint,) = [json.loads(rest) for instruction, rest in steps if instruction == "ENTRYPOINT"]
    assert entrypoint == [f"lexio-{name}"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert f"lexio-{name}" in scripts
    (exposed,) = [rest for instruction, rest in steps if instruction == "EXPOSE"]
    for overlay in OVERLAYS:
        objects = rendered(overlay)
        c = container(objects, name)
        assert sorted(int(p) for p in exposed.split()) == sorted(_ports(c).values())
        pod = find(objects, "Deployment", WORKLOADS[name])["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsUser"] == int(uid)
        assert pod["securityContext"]["runAsGroup"] == int(gid)
    # Only the final stage runs; the build tools stay in the first.
    final = final_stage(name)
    copies = [rest for instruction, rest in final if instruction == "COPY"]
    assert any(c.startswith("--from=build /opt/lexio") for c in copies)
    assert not any("grpc_tools" in rest for instruction, rest in final if instruction == "RUN")


def test_image_names_and_tags_agree_with_the_project() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    for overlay in OVERLAYS:
        objects = rendered(overlay)
        for name in LEXIO_SERVICES:
            image = container(objects, name)["image"]
            if overlay == "dev":
                assert image == f"localhost/lexio/{name}:dev"
            else:  # by digest from a registry (placeholders until --digests)
                assert re.fullmatch(rf"registry\.example\.org/lexio/{name}@sha256:0{{64}}", image)
            assert not image.startswith("lexio/"), image  # would resolve to a public hub
    for name in LEXIO_SERVICES:
        text = (DEPLOY / "docker" / f"{name}.Dockerfile").read_text()
        assert f"-t lexio/{name}:{version} ." in text
        assert f'org.opencontainers.image.version="{version}"' in text


def _third_party_imports(paths: list[Path], own: set[str]) -> set[str]:
    distributions = metadata.packages_distributions()
    needed: set[str] = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for module in names:
                top = module.split(".")[0]
                if top in sys.stdlib_module_names or top in own:
                    continue
                for dist in distributions.get(top, []):
                    needed.add(dist.lower().replace("_", "-"))
    return needed


def _common_modules(paths: list[Path]) -> list[Path]:
    """The lexio_common modules that ``paths`` import, and theirs, transitively."""
    common = ROOT / "services" / "common" / "lexio_common"
    found: set[Path] = set()
    queue = list(paths)
    while queue:
        for node in ast.walk(ast.parse(queue.pop().read_text())):
            modules = []
            if isinstance(node, ast.ImportFrom) and node.module == "lexio_common":
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "lexio_common."
            ):
                modules = [str(node.module).split(".")[1]]
            for module in modules:
                path = common / f"{module}.py"
                if path.is_file() and path not in found:
                    found.add(path)
                    queue.append(path)
    return sorted(found)


def _locked(path: Path) -> set[str]:
    return {
        line.split("==")[0].lower().replace("_", "-")
        for line in path.read_text().splitlines()
        if re.match(r"^[A-Za-z0-9_.-]+==", line)
    }


def test_each_images_lock_covers_every_import_of_its_service() -> None:
    """Each image installs its own service's lock only (requirements/<service>.txt, hashes
    required): it must hold every third-party distribution that service imports, and the
    services' locks agree with the work tree's (requirements.txt) version for version."""
    own = {p.name for p in (ROOT / "services").glob("*/*") if (p / "__init__.py").exists()}
    own.add("lexio")
    tree = (ROOT / "requirements.txt").read_text()
    for name in LEXIO_SERVICES:
        steps = dockerfile(name)
        runs = " ".join(rest for instruction, rest in steps if instruction == "RUN")
        runs = " ".join(runs.split())
        assert f"--require-hashes --no-deps -r requirements/{name}.txt" in runs, name
        assert "--require-hashes --no-deps -r requirements/build.txt" in runs, name
        lock = ROOT / "requirements" / f"{name}.txt"
        code = [p for p in (ROOT / "services" / name).glob("*/**/*.py") if "tools" not in p.parts]
        needed = _third_party_imports([*code, *_common_modules(code)], own)
        assert needed, name
        assert needed <= _locked(lock), (name, needed - _locked(lock))
        for line in lock.read_text().splitlines():
            if re.match(r"^[A-Za-z0-9_.-]+==\S+", line):
                pin = line.split()[0]
                assert re.search(rf"^{re.escape(pin)} ", tree, re.M | re.I), (name, pin)
        assert "--hash=sha256:" in lock.read_text()


# Network policies ---------------------------------------------------------------------------


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_network_policies_allow_exactly_what_lexio_needs(overlay: str) -> None:
    objects = rendered(overlay)
    namespace = find(objects, "Service", "gateway")["metadata"]["namespace"]
    policies = [o for o in objects if o["kind"] == "NetworkPolicy"]
    pods = {p.name: p for p in pods_of(objects)}
    prometheus = Endpoint(
        "prometheus", "monitoring", {"app.kubernetes.io/name": "prometheus"}, {"web": 9090}
    )
    intruder = Endpoint("intruder", namespace, {"app.kubernetes.io/name": "debug"})
    neighbour = Endpoint("neighbour", "other", {"app.kubernetes.io/name": "engine"})
    internet = Endpoint("internet", pod=False)
    dns = Endpoint("dns", "kube-system", {"k8s-app": "kube-dns"}, {"dns": 53})
    sources = [*pods.values(), prometheus, intruder, neighbour, internet]

    got = {
        (source.name, dest.name, port)
        for source in sources
        for dest in pods.values()
        for port in dest.ports.values()
        if source is not dest and allowed(policies, source, dest, port)
    }
    # The one Redis, or a Redis Cluster's nodes (and the Job that makes them one).
    redis, cluster = redis_name(overlay), overlay in CLUSTER_OVERLAYS
    metrics = {("prometheus", n, p) for n, p in [("lexicon", 9102), ("game-engine", 9101)]} | {
        ("prometheus", "lobby", 9103),
        ("prometheus", "gateway", 9104),
        ("prometheus", redis, 9121),  # its exporter
    }
    expected = {
        # Players come from anywhere (through the load balancer); Lexio's own pods never
        # call the gateway (their egress is closed).
        # (A stray pod of Lexio's namespace cannot: default deny closes its egress.)
        ("internet", "gateway", 8080),
        ("neighbour", "gateway", 8080),
        ("prometheus", "gateway", 8080),  # the public port is everyone's
        ("gateway", "lobby", 50053),
        ("gateway", "game-engine", 50051),
        ("gateway", redis, 6379),
        ("lobby", "game-engine", 50051),
        # The lobby's table store in prod; allowed in dev too, where it stays unused.
        ("lobby", redis, 6379),
        ("game-engine", "lexicon", 50052),
        *metrics,
        *([("redis-cluster-join", redis, 6379)] if cluster else []),
    }
    assert got == expected, {"unexpected": got - expected, "missing": expected - got}
    # Pods of one workload reach each other only where a cluster's nodes must: the replication
    # stream (Redis's port) and the cluster bus, which nothing else reaches (above).
    peers = {
        (pod.name, port)
        for pod in pods.values()
        for port in pod.ports.values()
        if allowed(policies, pod, pod, port)
    }
    assert peers == ({(redis, 6379), (redis, 16379)} if cluster else set())
    # Metrics ports: the monitoring namespace's Prometheus only (the gateway's included).
    metrics_ports = {9101, 9102, 9103, 9104, 9121}
    assert {s for s, _, p in got if p in metrics_ports} == {"prometheus"}
    # Who reaches the lexicon at all: the engine (gRPC) and Prometheus (metrics). Nobody else.
    assert {(s, p) for s, d, p in got if d == "lexicon"} == {
        ("game-engine", 50052),
        ("prometheus", 9102),
    }
    # Redis holds every table and invite code: the gateways and the lobbies, nobody else
    # (and Prometheus, on its exporter's port only; a cluster's Job too, and its nodes).
    clients = {"gateway", "lobby"} | ({"redis-cluster-join"} if cluster else set())
    assert {s for s, d, p in got if d == redis and p == 6379} == clients
    # Every pod resolves names; nothing of Lexio's reaches outside the cluster.
    for pod in pods.values():
        assert allowed(policies, pod, dns, 53, "UDP"), pod.name
        assert not allowed(policies, pod, Endpoint("web", pod=False), 443), pod.name


# Autoscaling and disruption -----------------------------------------------------------------


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_autoscalers_and_disruption_budgets_fit_their_workloads(overlay: str) -> None:
    objects = rendered(overlay)
    scaled = set()
    for hpa in (o for o in objects if o["kind"] == "HorizontalPodAutoscaler"):
        target = hpa["spec"]["scaleTargetRef"]
        workload = find(objects, target["kind"], target["name"])
        # The autoscaler owns replicas: the manifest must not fight it on every apply.
        assert "replicas" not in workload["spec"], target["name"]
        assert 1 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
        if overlay != "dev":
            assert hpa["spec"]["minReplicas"] >= 2, target["name"]  # one pod may go at a time
        requests = container(objects, target["name"])["resources"]["requests"]
        assert "cpu" in requests  # utilisation is measured against the request
        scaled.add(target["name"])
    # The lobby scales once it keeps its tables in Redis (prod), not on SQLite (dev).
    expected = {"lexicon", WORKLOADS["engine"], "gateway"} | (
        {"lobby"} if overlay != "dev" else set()
    )
    assert scaled == expected
    budgets = {o["metadata"]["name"]: o for o in objects if o["kind"] == "PodDisruptionBudget"}
    # A budget for a single stateless pod would only block drains; Redis's one pod has one on
    # purpose (a drain must not take every game away unannounced: minAvailable 1). A Redis
    # Cluster's nodes go one at a time (a master and its replica never together).
    redis = budgets.pop(redis_name(overlay))["spec"]
    if overlay in CLUSTER_OVERLAYS:
        assert redis["maxUnavailable"] == 1 and "minAvailable" not in redis
    else:
        assert redis["minAvailable"] == 1
    template = find(objects, "StatefulSet", redis_name(overlay))["spec"]["template"]
    assert set(redis["selector"]["matchLabels"].items()) <= set(
        template["metadata"]["labels"].items()
    )
    assert set(budgets) == scaled
    for name, budget in budgets.items():
        labels = find(objects, "Deployment", name)["spec"]["template"]["metadata"]["labels"]
        assert set(budget["spec"]["selector"]["matchLabels"].items()) <= set(labels.items())
        assert budget["spec"]["maxUnavailable"] == 1, name
    for name in (WORKLOADS[service] for service in LEXIO_SERVICES):
        workload = find(objects, "Deployment", name)
        pod = workload["spec"]["template"]["spec"]
        if any("persistentVolumeClaim" in v for v in pod.get("volumes", [])):
            # One writer on a ReadWriteOnce volume: never two at once.
            assert name not in scaled, name
            assert workload["spec"]["replicas"] == 1, name
            assert workload["spec"]["strategy"] == {"type": "Recreate"}, name
        else:
            # Stateless pods: rolled one at a time, never below the wanted number, spread.
            assert name in scaled, name
            assert workload["spec"]["strategy"] == {
                "type": "RollingUpdate",
                "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0},
            }, name
            (spread,) = pod["topologySpreadConstraints"]
            assert spread["labelSelector"]["matchLabels"] == {"app.kubernetes.io/name": name}


# Redis and the Ingress -------------------------------------------------------------------------


def _bytes(quantity: str) -> int:
    """A Kubernetes memory quantity (``512Mi``) or a Redis one (``384mb``), in bytes."""
    units = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "kb": 2**10, "mb": 2**20, "gb": 2**30}
    units |= {"ki": 2**10, "mi": 2**20, "gi": 2**30}
    match = re.fullmatch(r"(\d+)([a-zA-Z]*)", quantity)
    assert match, quantity
    return int(match[1]) * units[match[2].lower()]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_redis_runs_as_a_database_not_a_cache(overlay: str) -> None:
    """What docs/operations.md and the stores require: the append-only file, fsync every
    second (or always), never evict, and a memory cap below the container's limit so that a
    full Redis refuses writes instead of being OOM-killed."""
    objects = rendered(overlay)
    statefulset = find(objects, "StatefulSet", redis_name(overlay))
    (redis,) = [
        c for c in statefulset["spec"]["template"]["spec"]["containers"] if c["name"] == "redis"
    ]
    command, *args = redis["args"]
    assert command == "redis-server"
    options = dict(zip(args[::2], args[1::2], strict=True))
    assert all(name.startswith("--") for name in options), args
    assert options["--appendonly"] == "yes"
    assert options["--appendfsync"] in ("everysec", "always")
    assert options["--maxmemory-policy"] == "noeviction"
    limit = _bytes(redis["resources"]["limits"]["memory"])
    assert 0 < _bytes(options["--maxmemory"]) <= 0.8 * limit
    # The append-only file is on the StatefulSet's volume, and so is a cluster node's identity
    # (nodes.conf: a node that comes back is the same node, with its data).
    mounts = {m["name"]: m["mountPath"] for m in redis["volumeMounts"]}
    claims = statefulset["spec"]["volumeClaimTemplates"]
    assert options["--dir"] == mounts[claims[0]["metadata"]["name"]]
    assert ("--cluster-enabled" in options) == (overlay in CLUSTER_OVERLAYS)
    if "--cluster-enabled" in options:
        assert options["--cluster-config-file"].startswith(options["--dir"] + "/")


def test_the_ingress_keeps_websockets_open_and_is_the_only_way_in() -> None:
    objects = rendered("prod-ingress")
    (ingress,) = [o for o in objects if o["kind"] == "Ingress"]
    annotations = ingress["metadata"]["annotations"]
    nginx = "nginx.ingress.kubernetes.io/"
    # An idle WebSocket lives between the gateway's heartbeats; an hour, not nginx's 60 s.
    for timeout in ("proxy-read-timeout", "proxy-send-timeout"):
        assert int(annotations[nginx + timeout]) >= 3600 > GatewayConfig().heartbeat
    assert annotations[nginx + "proxy-buffering"] == "off"
    # No sticky sessions (docs/replicas.md): any replica serves any table.
    assert not [a for a in annotations if "affinity" in a or "session-cookie" in a]
    spec = ingress["spec"]
    assert spec["ingressClassName"] == "nginx"
    (rule,) = spec["rules"]
    (path,) = rule["http"]["paths"]
    assert (path["path"], path["pathType"]) == ("/", "Prefix")
    backend = path["backend"]["service"]
    service = find(objects, "Service", backend["name"])
    assert backend["port"]["name"] in {p["name"] for p in service["spec"]["ports"]}
    assert backend["name"] == "gateway"
    # The gateway is reached through the controller only, and reads the players' addresses
    # from it; the web client's origin is the Ingress's host.
    assert service["spec"]["type"] == "ClusterIP"
    assert "externalTrafficPolicy" not in service["spec"]
    assert not [
        s["metadata"]["name"]
        for s in objects
        if s["kind"] == "Service" and s["spec"].get("type", "ClusterIP") != "ClusterIP"
    ]
    gateway = env(container(objects, "gateway"))
    assert gateway["LEXIO_GATEWAY_TRUST_FORWARDED_FOR"] == "1"
    tls_hosts = {h for entry in spec["tls"] for h in entry["hosts"]}
    assert rule["host"] in tls_hosts
    assert gateway["LEXIO_GATEWAY_ORIGINS"] == f"https://{rule['host']}"


# Monitoring ---------------------------------------------------------------------------------


def test_dashboard_and_rules_ship_as_config_maps() -> None:
    objects = rendered("prod")
    dashboard = find(objects, "ConfigMap", "lexio-grafana-dashboard")
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    text = (DEPLOY / "monitoring" / "lexio-dashboard.json").read_text()
    assert dashboard["data"] == {"lexio-dashboard.json": text}
    assert json.loads(text)["uid"] == "lexio-overview"
    rules = find(objects, "ConfigMap", "lexio-prometheus-rules")
    assert (
        rules["data"]["lexio-rules.yml"] == (DEPLOY / "monitoring" / "lexio-rules.yml").read_text()
    )
    config = yaml.safe_load(
        find(objects, "ConfigMap", "lexio-prometheus-config")["data"]["prometheus.yml"]
    )
    assert config["rule_files"] == ["lexio-rules.yml"]
    # job = the pod's app.kubernetes.io/name, which the rules and the dashboard rely on.
    relabel = config["scrape_configs"][0]["relabel_configs"]
    assert {
        "source_labels": ["__meta_kubernetes_pod_label_app_kubernetes_io_name"],
        "target_label": "job",
    } in relabel
