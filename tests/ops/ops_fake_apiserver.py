"""A fake Kubernetes API server on 127.0.0.1, enough for the deploy tool and the kubernetes
client: discovery of the kinds deploy/ uses, server-side apply (PATCH, recorded; with
``dryRun=All`` answered and not stored), creation (POST), reads of what was applied with a
finished rollout, a LoadBalancer address for the gateway, an address for an Ingress, nodes.

What a real API server would refuse, on demand: ``conflicts`` (paths owned by another field
manager: 409 unless ``force=true``) and ``invalid`` (paths answered 422).

Why a fake: no Kubernetes control plane can run here — Debian bookworm ships no
kube-apiserver (only kubectl 1.20 and etcd), PyPI and npm none, and kind, k3s and minikube
need a container runtime or downloads this machine cannot make."""

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
        ("secrets", "Secret", True),
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
    conflicts: set[str] = field(default_factory=set)
    invalid: set[str] = field(default_factory=set)
    created: list[Obj] = field(default_factory=list)

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
            query = dict(request.query)
            if path in self.invalid:
                return _status(422, "Invalid", f"{body['kind']} is invalid: spec: Required value")
            if path in self.conflicts and query.get("force") != "true":
                return _status(
                    409,
                    "Conflict",
                    'Apply failed with 1 conflict: conflict with "kubectl-edit": .spec.replicas',
                )
            stored = {**body, "metadata": {**body["metadata"], "generation": 1}}
            if query.get("dryRun") == "All":
                return web.json_response(self._served(stored, done=True))
            self.applied.append(Applied(path, request.content_type, query, body))
            self.objects[path] = stored
            return web.json_response(stored)
        if request.method == "POST":
            body = json.loads(await request.text())
            self.created.append(body)
            self.objects[f"{path}/{body['metadata']['name']}"] = body
            return web.json_response(body, status=201)
        if request.method == "GET" and path.endswith("/nodes"):
            node = {"metadata": {"name": "n1"}, "status": {"addresses": [
                {"type": "InternalIP", "address": "10.0.0.5"}
            ]}}  # fmt: skip
            return web.json_response({"kind": "NodeList", "apiVersion": "v1", "items": [node]})
        if request.method == "GET" and path in self.objects:
            return web.json_response(self._live(path))
        return web.json_response({"kind": "Status", "code": 404}, status=404)

    def _live(self, path: str) -> Obj:
        self.reads[path] = self.reads.get(path, 0) + 1
        return self._served(self.objects[path], self.reads[path] > self.rollout_polls)

    @staticmethod
    def _served(stored: Obj, done: bool) -> Obj:
        """An object as the server returns it: with its status and assigned fields."""
        obj: Obj = json.loads(json.dumps(stored))
        kind = obj["kind"]
        wanted = (obj.get("spec") or {}).get("replicas", 1)
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


def _status(code: int, reason: str, message: str) -> web.Response:
    body = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code}
    return web.json_response({**body, "reason": reason, "message": message}, status=code)


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
