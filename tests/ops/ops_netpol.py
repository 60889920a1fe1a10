"""NetworkPolicy semantics, offline: who may open a connection to whom on which port.

The rules of networking.k8s.io/v1, as a CNI enforces them: a pod selected by a policy whose
policyTypes include Ingress (Egress) is isolated in that direction, and then only what some
rule of some such policy allows gets through; a connection needs both the source's egress and
the destination's ingress. Peers: podSelector (same namespace as the policy), namespaceSelector
(pods of matching namespaces), both (pods matching both), ipBlock (addresses outside the
cluster), an absent ``from``/``to`` (everything). Ports: number or named container port,
protocol TCP unless said.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Obj = dict[str, Any]


@dataclass(frozen=True)
class Endpoint:
    """A pod (namespace, labels, named ports), or something outside the cluster (pod=False)."""

    name: str
    namespace: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)
    pod: bool = True

    def __hash__(self) -> int:
        return hash(self.name)


def selects(selector: Obj | None, labels: dict[str, str]) -> bool:
    if selector is None:
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or []:
        key, op, values = expression["key"], expression["operator"], expression.get("values", [])
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and labels.get(key) in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def _namespace_labels(namespace: str) -> dict[str, str]:
    return {"kubernetes.io/metadata.name": namespace}


def _peer_matches(peer: Obj, other: Endpoint, policy_namespace: str) -> bool:
    if "ipBlock" in peer:
        return not other.pod  # cluster pods are never matched by our ipBlocks
    if not other.pod:
        return False
    pods, namespaces = peer.get("podSelector"), peer.get("namespaceSelector")
    if namespaces is None:
        return other.namespace == policy_namespace and selects(pods, other.labels)
    if not selects(namespaces, _namespace_labels(other.namespace)):
        return False
    return pods is None or selects(pods, other.labels)


def _port_matches(rule_ports: list[Obj] | None, port: int, protocol: str, dest: Endpoint) -> bool:
    if not rule_ports:
        return True
    for entry in rule_ports:
        if entry.get("protocol", "TCP") != protocol:
            continue
        wanted = entry.get("port")
        if wanted is None:
            return True
        first = dest.ports.get(wanted) if isinstance(wanted, str) else int(wanted)
        if first is not None and first <= port <= int(entry.get("endPort", first)):
            return True
    return False


def _direction_allows(
    policies: list[Obj],
    *,
    subject: Endpoint,
    other: Endpoint,
    port: int,
    protocol: str,
    dest: Endpoint,
    direction: str,
) -> bool:
    if not subject.pod:
        return True  # nothing outside the cluster is isolated by these policies
    kind, peers_key = ("Ingress", "from") if direction == "ingress" else ("Egress", "to")
    governing = [
        p
        for p in policies
        if p["metadata"]["namespace"] == subject.namespace
        and selects(p["spec"]["podSelector"], subject.labels)
        and kind in p["spec"].get("policyTypes", ["Ingress"])
    ]
    if not governing:
        return True
    for policy in governing:
        for rule in policy["spec"].get(direction) or []:
            peers = rule.get(peers_key)
            peer_ok = not peers or any(
                _peer_matches(peer, other, policy["metadata"]["namespace"]) for peer in peers
            )
            if peer_ok and _port_matches(rule.get("ports"), port, protocol, dest):
                return True
    return False


def allowed(
    policies: list[Obj], source: Endpoint, dest: Endpoint, port: int, protocol: str = "TCP"
) -> bool:
    """May ``source`` open a connection to ``dest`` on ``port``?"""
    return _direction_allows(
        policies,
        subject=source,
        other=dest,
        port=port,
        protocol=protocol,
        dest=dest,
        direction="egress",
    ) and _direction_allows(
        policies,
        subject=dest,
        other=source,
        port=port,
        protocol=protocol,
        dest=dest,
        direction="ingress",
    )


def pods_of(objects: list[Obj]) -> list[Endpoint]:
    """One endpoint per workload of the rendered manifests, Jobs included (labels of its pod
    template)."""
    endpoints = []
    for obj in objects:
        if obj["kind"] not in ("Deployment", "StatefulSet", "Job"):
            continue
        template = obj["spec"]["template"]
        ports = {
            p["name"]: p["containerPort"]
            for c in template["spec"]["containers"]
            for p in c.get("ports", [])
            if "name" in p
        }
        endpoints.append(
            Endpoint(
                obj["metadata"]["name"],
                obj["metadata"]["namespace"],
                dict(template["metadata"]["labels"]),
                ports,
            )
        )
    return endpoints
