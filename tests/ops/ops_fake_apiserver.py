"""A fake Kubernetes API server on 127.0.0.1, enough for the deploy tool and the kubernetes
client: discovery of the kinds deploy/ uses, server-side apply (PATCH, recorded), reads of
what was applied with a finished rollout, a LoadBalancer address for the gateway, an address
for an Ingress, nodes."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

Obj = dict[str, Any]

#: group/version → [(plural, kind, namespaced)]
RESOURCES: dict[str, list[tuple[str, str, bool]]] = {
    "v1": [
        ("namespaces", "Namespace", False),
        ("nodes", "Node", False),
        ("serviceaccounts", "ServiceAccount", True),
        ("configmaps", "ConfigMap", True),
        ("services", "Service", True),
        ("persistentvolumeclaims", "PersistentVolumeClaim", True),
    ],
    "apps/v1": [("deployments", "Deployment", True), ("statefulsets", "StatefulSet", True)],
    "policy/v1": [("poddisruptionbudgets", "PodDisruptionBudget", True)],
    "autoscaling/v2": [("horizontalpodautoscalers", "HorizontalPodAutoscaler", True)],
    "networking.k8s.io/v1": [
        ("networkpolicies", "NetworkPolicy", True),
        ("ingresses", "Ingress", True),
    ],
}
LOAD_BALANCER_IP = "203.0.113.7"
INGRESS_IP = "203.0.113.8"


@dataclass
class Applied:
    path: str
    content_type: str
    query: dict[str, str]
    body: Obj


@dataclass
class FakeApiServer:
    applied: list[Applied] = field(default_factory=list)
    objects: dict[str, Obj] = field(default_factory=dict)
    #: Reads of a workload before it reports a finished rollout.
    rollout_polls: int = 1
    reads: dict[str, int] = field(default_factory=dict)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self.handle)
        return app

    async def handle(self, request: web.Request) -> web.Response:
        path = request.path
        if request.method == "GET" and path == "/version":
            return web.json_response({"major": "1", "minor": "37", "gitVersion": "v1.37.0"})
        if request.method == "GET" and path == "/api":
            return web.json_response({"kind": "APIVersions", "versions": ["v1"]})
        if request.method == "GET" and path == "/apis":
            groups = []
            for group_version in RESOURCES:
                if "/" not in group_version:
                    continue
                group, version = group_version.split("/")
                entry = {"groupVersion": group_version, "version": version}
                groups.append({"name": group, "versions": [entry], "preferredVersion": entry})
            return web.json_response({"kind": "APIGroupList", "groups": groups})
        for group_version, resources in RESOURCES.items():
            base = "/api/v1" if group_version == "v1" else f"/apis/{group_version}"
            if request.method == "GET" and path == base:
                return web.json_response(
                    {
                        "kind": "APIResourceList",
                        "groupVersion": group_version,
                        "resources": [
                            {
                                "name": plural,
                                "singularName": kind.lower(),
                                "namespaced": namespaced,
                                "kind": kind,
                                "verbs": ["get", "list", "patch", "create"],
                            }
                            for plural, kind, namespaced in resources
                        ],
                    }
                )
        if request.method == "PATCH":
            body = json.loads(await request.text())
            self.applied.append(Applied(path, request.content_type, dict(request.query), body))
            stored = {**body, "metadata": {**body["metadata"], "generation": 1}}
            self.objects[path] = stored
            return web.json_response(stored)
        if request.method == "GET" and path.endswith("/nodes"):
            node = {"metadata": {"name": "n1"}, "status": {"addresses": [
                {"type": "InternalIP", "address": "10.0.0.5"}
            ]}}  # fmt: skip
            return web.json_response({"kind": "NodeList", "apiVersion": "v1", "items": [node]})
        if request.method == "GET" and path in self.objects:
            return web.json_response(self._live(path))
        return web.json_response({"kind": "Status", "code": 404}, status=404)

    def _live(self, path: str) -> Obj:
        obj: Obj = json.loads(json.dumps(self.objects[path]))
        kind = obj["kind"]
        self.reads[path] = self.reads.get(path, 0) + 1
        done = self.reads[path] > self.rollout_polls
        wanted = obj["spec"].get("replicas", 1)
        if kind == "Deployment":
            obj["status"] = {
                "observedGeneration": 1,
                "replicas": wanted,
                "updatedReplicas": wanted if done else 0,
                "availableReplicas": wanted if done else 0,
            }
        elif kind == "StatefulSet":
            obj["status"] = {
                "observedGeneration": 1,
                "readyReplicas": wanted if done else 0,
                "currentRevision": "r1",
                "updateRevision": "r1",
            }
        elif kind == "Service" and obj["spec"].get("type") == "LoadBalancer":
            obj["status"] = {"loadBalancer": {"ingress": [{"ip": LOAD_BALANCER_IP}]}}
        elif kind == "Service" and obj["spec"].get("type") == "NodePort":
            obj["spec"]["ports"][0]["nodePort"] = 30080
        elif kind == "Ingress":
            obj["status"] = {"loadBalancer": {"ingress": [{"ip": INGRESS_IP}]}}
        return obj


def object_path(obj: Obj) -> str:
    """The REST path of an object, as the API server names it."""
    group_version = obj["apiVersion"]
    plural, _, namespaced = next(r for r in RESOURCES[group_version] if r[1] == obj["kind"])
    base = "/api/v1" if group_version == "v1" else f"/apis/{group_version}"
    namespace = f"/namespaces/{obj['metadata']['namespace']}" if namespaced else ""
    return f"{base}{namespace}/{plural}/{obj['metadata']['name']}"


def kubeconfig(port: int) -> str:
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "fake", "cluster": {"server": f"http://127.0.0.1:{port}"}}],
            "users": [{"name": "fake", "user": {"token": "test"}}],
            "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake"}}],
            "current-context": "fake",
        }
    )
