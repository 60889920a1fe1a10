"""The prod-cluster overlay (deploy/overlays/prod-cluster): prod, but the gateways and the
lobbies on a Redis Cluster of 3 masters with a replica each instead of the base's one Redis.
What test_ops_manifests checks of every overlay holds for it too (schemas, the restricted
profile, the network policies, budgets, Redis as a database); here, what is its own:

- it differs from prod exactly where a cluster replaces the one Redis;
- six redis-server nodes with cluster-enabled, each announced by its pod's stable name, its
  identity and data on its volume, made 3 masters + 3 replicas by the Job, whose list is
  every pod of the StatefulSet, and which runs the shipped script;
- the gateway and the lobby use the cluster's Service and wait for a replica (WAIT 1), as
  their own configuration reads the manifest; no overlay on one Redis sets WAIT;
- every client and every node takes the password from the Secret;
- the cluster bus is the nodes' own; a drain takes one node at a time;
- the cluster's alerts ship with the overlay and read what its exporters are scraped as.

The Job's script against real nodes: test_ops_redis_cluster_join.py.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
import yaml
from ops_deploy import (
    CLUSTER_OVERLAYS,
    DEPLOY,
    OVERLAYS,
    config_from_env,
    container,
    env,
    find,
    rendered,
)
from ops_netpol import Endpoint, allowed, pods_of

from lexio_common.redis_client import is_cluster_url
from lexio_gateway.config import GatewayConfig
from lexio_lobby.redis_store import key_prefix
from lexio_lobby.server import LobbyConfig

Obj = dict[str, Any]
OVERLAY = "prod-cluster"
OVERLAY_DIR = DEPLOY / "overlays" / OVERLAY
SCRIPT = "redis-cluster-join.sh"
#: The cluster's alerts (deploy/monitoring/lexio-rules.yml, group lexio.redis-cluster).
CLUSTER_ALERTS = {
    "LexioRedisClusterNodeDown",
    "LexioRedisClusterStateNotOk",
    "LexioRedisClusterSlotsNotOk",
    "LexioRedisClusterMasterWithoutReplica",
    "LexioRedisClusterReplicaLinkDown",
    "LexioRedisClusterReplicaLagging",
    "LexioRedisClusterNodeNotJoined",
}


def _key(obj: Obj) -> tuple[str, str]:
    return (obj["kind"], obj["metadata"]["name"])


def _pod(objects: list[Obj], kind: str, name: str) -> Obj:
    spec: Obj = find(objects, kind, name)["spec"]["template"]["spec"]
    return spec


def _named(items: list[Obj], name: str) -> Obj:
    (item,) = [i for i in items if i["name"] == name]
    return item


def _options(args: list[str]) -> dict[str, str]:
    command, *rest = args
    assert command == "redis-server"
    return dict(zip(rest[::2], rest[1::2], strict=True))


def test_the_overlay_is_listed_with_the_cluster_overlays() -> None:
    assert OVERLAY in OVERLAYS and OVERLAY in CLUSTER_OVERLAYS


def test_prod_cluster_is_prod_on_a_redis_cluster() -> None:
    prod, cluster = rendered("prod"), rendered(OVERLAY)
    before, after = {_key(o): o for o in prod}, {_key(o): o for o in cluster}
    one_redis = {
        ("StatefulSet", "redis"),
        ("Service", "redis"),
        ("ServiceAccount", "redis"),
        ("PodDisruptionBudget", "redis"),
        ("NetworkPolicy", "redis"),
    }
    the_cluster = {
        ("StatefulSet", "redis-cluster"),
        ("Service", "redis-cluster"),
        ("Service", "redis-cluster-headless"),
        ("ServiceAccount", "redis-cluster"),
        ("PodDisruptionBudget", "redis-cluster"),
        ("NetworkPolicy", "redis-cluster"),
        ("Job", "redis-cluster-join"),
        ("ServiceAccount", "redis-cluster-join"),
        ("ConfigMap", "redis-cluster-join"),
        ("NetworkPolicy", "redis-cluster-join"),
    }
    assert set(before) - set(after) == one_redis
    assert set(after) - set(before) == the_cluster
    changed = {k for k in set(before) & set(after) if before[k] != after[k]}
    # The way the gateways and the lobbies reach Redis, and nothing else of prod's.
    assert changed == {
        ("Deployment", "gateway"),
        ("Deployment", "lobby"),
        ("NetworkPolicy", "gateway"),
        ("NetworkPolicy", "lobby"),
    }
    for name in ("gateway", "lobby"):
        old, new = env(container(prod, name)), env(container(cluster, name))
        differ = {k for k in old.keys() | new.keys() if old.get(k) != new.get(k)}
        wanted = {"LEXIO_REDIS_URL", "LEXIO_REDIS_WAIT_REPLICAS", "LEXIO_REDIS_WAIT_TIMEOUT"}
        assert differ == wanted | ({"LEXIO_LOBBY_REDIS_PREFIX"} if name == "lobby" else set())
        # Only the environment: same image, probes, resources, everything else.
        old_container, new_container = container(prod, name), container(cluster, name)
        old_container.pop("env"), new_container.pop("env")
        assert old_container == new_container, name
        policy = yaml.safe_dump(before[("NetworkPolicy", name)])
        assert (
            yaml.safe_load(policy.replace(": redis\n", ": redis-cluster\n"))
            == (after[("NetworkPolicy", name)])
        )


def test_six_nodes_make_three_masters_with_a_replica_each() -> None:
    objects = rendered(OVERLAY)
    statefulset = find(objects, "StatefulSet", "redis-cluster")
    spec, pod = statefulset["spec"], _pod(objects, "StatefulSet", "redis-cluster")
    server = _named(pod["containers"], "redis")
    options = _options(server["args"])
    assert options["--cluster-enabled"] == "yes"
    # The Job makes them 3 masters with a replica each (redis-cli refuses fewer masters).
    job = _pod(objects, "Job", "redis-cluster-join")
    replicas_per_master = int(env(job["containers"][0])["CLUSTER_REPLICAS"])
    assert replicas_per_master == 1
    assert spec["replicas"] == 6 == 3 * (1 + replicas_per_master)
    # All started at once (a node is ready only once the cluster is), rolled one at a time.
    assert spec["podManagementPolicy"] == "Parallel"
    assert spec.get("updateStrategy", {"type": "RollingUpdate"})["type"] == "RollingUpdate"
    # Each node's stable name: the headless Service's, published before the node is ready
    # (the Job reaches nodes that are not in a cluster yet).
    headless = find(objects, "Service", spec["serviceName"])
    assert headless["spec"]["clusterIP"] == "None"
    assert headless["spec"]["publishNotReadyAddresses"] is True
    labels = spec["template"]["metadata"]["labels"]
    assert set(headless["spec"]["selector"].items()) <= set(labels.items())
    ports = {p["name"]: p["containerPort"] for p in server["ports"]}
    assert ports == {"redis": 6379, "bus": 16379}
    assert int(options["--port"]) == ports["redis"] and int(options["--cluster-port"]) == 16379
    assert {p["targetPort"] for p in headless["spec"]["ports"]} == {"redis", "bus"}
    # Announced by that name (clients are sent there, never to an IP that a restart changes).
    fields = {
        e["name"]: e["valueFrom"]["fieldRef"]["fieldPath"]
        for e in server["env"]
        if "fieldRef" in e.get("valueFrom", {})
    }
    assert fields == {"POD_NAME": "metadata.name", "POD_NAMESPACE": "metadata.namespace"}
    assert options["--cluster-announce-hostname"] == (
        f"$(POD_NAME).{headless['metadata']['name']}.$(POD_NAMESPACE).svc"
    )
    assert options["--cluster-preferred-endpoint-type"] == "hostname"
    # Its identity (nodes.conf) and data on its own volume.
    (claim,) = spec["volumeClaimTemplates"]
    (mount,) = server["volumeMounts"]
    assert mount["name"] == claim["metadata"]["name"]
    assert options["--dir"] == mount["mountPath"]
    assert os.path.dirname(options["--cluster-config-file"]) == mount["mountPath"]
    # Ready once its cluster is: the client Service only sends clients to cluster members.
    assert "cluster_state:ok" in " ".join(server["readinessProbe"]["exec"]["command"])
    # The Job's nodes: every pod of the StatefulSet, by its stable name.
    assert job["containers"][0]["args"] == [
        f"redis-cluster-{i}.{headless['metadata']['name']}:{ports['redis']}"
        for i in range(spec["replicas"])
    ]
    # A drain takes one node at a time (a master and its replica never together).
    budget = find(objects, "PodDisruptionBudget", "redis-cluster")["spec"]
    assert budget["maxUnavailable"] == 1
    assert set(budget["selector"]["matchLabels"].items()) <= set(labels.items())


def test_the_job_runs_the_shipped_script_with_redis_cli_of_the_nodes_release() -> None:
    objects = rendered(OVERLAY)
    job = find(objects, "Job", "redis-cluster-join")
    pod = job["spec"]["template"]["spec"]
    (c,) = pod["containers"]
    (mount,) = c["volumeMounts"]
    volume = _named(pod["volumes"], mount["name"])
    assert mount["readOnly"] is True
    script = find(objects, "ConfigMap", volume["configMap"]["name"])
    assert script["data"] == {SCRIPT: (OVERLAY_DIR / SCRIPT).read_text()}
    assert c["command"] == ["sh", f"{mount['mountPath']}/{SCRIPT}"]
    # redis-cli of the nodes' own image (its --cluster commands speak their release).
    server = _named(_pod(objects, "StatefulSet", "redis-cluster")["containers"], "redis")
    assert c["image"] == server["image"] == "docker.io/library/redis:7.2.12-bookworm"
    # Tried again if it fails; gone an hour after it finished, so that a later deploy runs
    # it again (its pod template cannot change while it exists).
    assert pod["restartPolicy"] == "Never"
    assert job["spec"]["backoffLimit"] > 0 and job["spec"]["ttlSecondsAfterFinished"] > 0
    assert job["spec"]["activeDeadlineSeconds"] > 2 * int(env(c)["WAIT_SECONDS"])


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_gateway_and_the_lobby_wait_for_a_replica_on_a_cluster_only(
    overlay: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a cluster every master has a replica: WAIT 1 keeps acknowledged moves through a
    failover. One Redis has none: WAIT there would refuse every move."""
    objects = rendered(overlay)
    gateway_env, lobby_env = env(container(objects, "gateway")), env(container(objects, "lobby"))
    gateway = config_from_env(monkeypatch, gateway_env, GatewayConfig.from_env)
    cluster = overlay in CLUSTER_OVERLAYS
    assert gateway.redis_wait_replicas == (1 if cluster else 0)
    if not cluster:
        assert "LEXIO_REDIS_WAIT_REPLICAS" not in gateway_env | lobby_env
        return
    lobby = config_from_env(monkeypatch, lobby_env, LobbyConfig.from_env)
    assert lobby.redis_wait_replicas == 1
    assert gateway.redis_wait_timeout == lobby.redis_wait_timeout == 0.5
    # Both on the cluster's Service, the lobby's keys under one hash tag.
    url = "redis+cluster://:$(REDIS_PASSWORD)@redis-cluster:6379"
    assert gateway.redis_url == lobby.redis_url == url and is_cluster_url(url)
    assert find(objects, "Service", "redis-cluster")["spec"]["ports"][0]["port"] == 6379
    assert key_prefix(lobby.redis_url, lobby.redis_prefix) == "{lexio:lobby}:"


def test_every_client_and_node_takes_the_password_from_the_secret() -> None:
    objects = rendered(OVERLAY)
    expected = {"name": "redis-auth", "key": "password"}

    def secret_of(c: Obj, name: str) -> Obj:
        ref: Obj = _named(c["env"], name)["valueFrom"]["secretKeyRef"]
        return ref

    pod = _pod(objects, "StatefulSet", "redis-cluster")
    server, exporter = _named(pod["containers"], "redis"), _named(pod["containers"], "exporter")
    options = _options(server["args"])
    # Clients authenticate, and so does a replica to its master.
    assert options["--requirepass"] == options["--masterauth"] == "$(REDIS_PASSWORD)"
    assert "--protected-mode" not in options
    assert secret_of(server, "REDIS_PASSWORD") == expected
    assert secret_of(server, "REDISCLI_AUTH") == expected  # the readiness probe's redis-cli
    assert secret_of(exporter, "REDIS_PASSWORD") == expected
    (join,) = _pod(objects, "Job", "redis-cluster-join")["containers"]
    assert secret_of(join, "REDISCLI_AUTH") == expected  # never on a command line
    for name in ("gateway", "lobby"):
        c = container(objects, name)
        names = [e["name"] for e in c["env"]]
        assert secret_of(c, "REDIS_PASSWORD") == expected
        assert names.index("REDIS_PASSWORD") < names.index("LEXIO_REDIS_URL"), name
    # Made by the deploy tool, as for prod.
    assert not [o for o in objects if o["kind"] == "Secret"]


def test_the_cluster_bus_is_the_nodes_own() -> None:
    objects = rendered(OVERLAY)
    policies = [o for o in objects if o["kind"] == "NetworkPolicy"]
    pods = {p.name: p for p in pods_of(objects)}
    node = pods["redis-cluster"]
    other_node = Endpoint("redis-cluster-1", node.namespace, node.labels, node.ports)
    # Node to node: the replication stream (6379) and the bus (16379), both ways.
    for port in (6379, 16379):
        assert allowed(policies, node, other_node, port)
        assert allowed(policies, other_node, node, port)
    prometheus = Endpoint(
        "prometheus", "monitoring", {"app.kubernetes.io/name": "prometheus"}, {"web": 9090}
    )
    for source in [p for p in pods.values() if p.name != "redis-cluster"] + [prometheus]:
        assert not allowed(policies, source, node, 16379), source.name
    # The clients and the Job on Redis's port.
    for name in ("gateway", "lobby", "redis-cluster-join"):
        assert allowed(policies, pods[name], node, 6379), name
    # The Job reaches the nodes' Redis port and nothing else; nothing reaches it.
    job = pods["redis-cluster-join"]
    for dest in pods.values():
        for port in dest.ports.values():
            if (dest.name, port) != ("redis-cluster", 6379):
                assert not allowed(policies, job, dest, port), (dest.name, port)
    assert not [s for s in [*pods.values(), prometheus] if allowed(policies, s, job, 6379)]


def test_the_cluster_alerts_ship_with_the_overlay_and_read_its_exporters() -> None:
    objects = rendered(OVERLAY)
    rules = yaml.safe_load(
        find(objects, "ConfigMap", "lexio-prometheus-rules")["data"]["lexio-rules.yml"]
    )
    (group,) = [g for g in rules["groups"] if g["name"] == "lexio.redis-cluster"]
    assert {rule["alert"] for rule in group["rules"]} == CLUSTER_ALERTS
    # Each reads the cluster's exporters only: job = their pods' app.kubernetes.io/name, as
    # the shipped scrape configuration and PodMonitor set it, on their metrics port.
    template = find(objects, "StatefulSet", "redis-cluster")["spec"]["template"]
    job = template["metadata"]["labels"]["app.kubernetes.io/name"]
    for rule in group["rules"]:
        assert f'job="{job}"' in rule["expr"], rule["alert"]
    annotations = template["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    exporter = _named(template["spec"]["containers"], "exporter")
    assert {p["name"]: p["containerPort"] for p in exporter["ports"]} == {
        "metrics": int(annotations["prometheus.io/port"])
    }
    assert template["metadata"]["labels"]["app.kubernetes.io/part-of"] == "lexio"
    # The single Redis's "down" alert stays quiet on a cluster (no job "redis" here).
    (redis_down,) = [
        r for g in rules["groups"] for r in g["rules"] if r.get("alert") == "LexioRedisDown"
    ]
    assert re.search(r'unless on \(\) count\(redis_up\{job="redis-cluster"\}\)', redis_down["expr"])
