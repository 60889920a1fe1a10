"""Deploy Lexio to the cluster of the current kubeconfig.

    python deploy/lexio_deploy.py --overlay prod --registry registry.example.org/lexio
    python deploy/lexio_deploy.py --overlay dev --dry-run      # render only, print YAML

Steps: render the overlay (a kustomization: the subset of kustomize that deploy/ uses, the
same objects as ``kubectl kustomize``; anything else is refused, never ignored), optionally
point the images at a registry and a tag, apply every object with server-side apply (field
manager ``lexio-deploy``, in dependency order: namespace, network policies, accounts, config,
services, ingress, storage, workloads, disruption budgets, autoscalers), wait until every
Deployment and StatefulSet has rolled out, and print the gateway's address (its Ingress's
host when the overlay has one).

Exit status: 0 done, 1 a rollout failed or timed out, 2 bad arguments or manifests.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

import yaml
from kubernetes import config, dynamic

DEPLOY: Final = Path(__file__).resolve().parent
FIELD_MANAGER: Final = "lexio-deploy"

Obj = dict[str, Any]

# --------------------------------------------------------------------------------------------
# Rendering: the kustomize subset used by deploy/


class RenderError(ValueError):
    """A kustomization this renderer cannot render exactly (or a broken one)."""


#: Kinds that live outside namespaces (a kustomization's ``namespace`` leaves them alone).
CLUSTER_SCOPED: Final = frozenset(
    {
        "Namespace",
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "PersistentVolume",
        "StorageClass",
        "PriorityClass",
        "IngressClass",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
    }
)
#: Where a workload kind keeps its pod template(s), for labels' ``includeTemplates``.
_TEMPLATES: Final[dict[str, list[tuple[str, ...]]]] = {
    "Deployment": [("spec", "template")],
    "ReplicaSet": [("spec", "template")],
    "DaemonSet": [("spec", "template")],
    "StatefulSet": [("spec", "template")],
    "Job": [("spec", "template")],
    "CronJob": [("spec", "jobTemplate"), ("spec", "jobTemplate", "spec", "template")],
}
_WORKLOADS: Final = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"})
_KUSTOMIZATION_KEYS: Final = frozenset(
    {
        "apiVersion",
        "kind",
        "namespace",
        "resources",
        "labels",
        "images",
        "replicas",
        "patches",
        "configMapGenerator",
        "generatorOptions",
    }
)


def _load_yaml_documents(path: Path) -> list[Obj]:
    try:
        documents = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
    except yaml.YAMLError as e:
        raise RenderError(f"{path}: {e}") from None
    for document in documents:
        if not isinstance(document, dict) or "kind" not in document:
            raise RenderError(f"{path}: every document must be a Kubernetes object")
    return documents


def _pod_specs(obj: Obj) -> list[Obj]:
    """The pod specs of a workload (empty for other kinds)."""
    specs = []
    for path in _TEMPLATES.get(obj["kind"], []):
        node: Any = obj
        for key in path:
            node = node.get(key, {}) if isinstance(node, dict) else {}
        if path[-1] == "template" and isinstance(node, dict) and "spec" in node:
            specs.append(node["spec"])
    return specs


def _containers(obj: Obj) -> list[Obj]:
    return [
        c
        for spec in _pod_specs(obj)
        for c in [*spec.get("initContainers", []), *spec.get("containers", [])]
    ]


def _set_labels(obj: Obj, pairs: dict[str, str], include_templates: bool) -> None:
    obj.setdefault("metadata", {}).setdefault("labels", {}).update(pairs)
    if not include_templates:
        return
    for path in _TEMPLATES.get(obj["kind"], []):
        node = obj
        for key in path:
            node = node.setdefault(key, {})
        node.setdefault("metadata", {}).setdefault("labels", {}).update(pairs)
    if obj["kind"] == "StatefulSet":
        for claim in obj.get("spec", {}).get("volumeClaimTemplates", []):
            claim.setdefault("metadata", {}).setdefault("labels", {}).update(pairs)


def _image_name(image: str) -> str:
    """``reg:5000/a/b:tag@sha256:…`` → ``reg:5000/a/b``."""
    name = image.split("@", 1)[0]
    slash = name.rfind("/")
    colon = name.rfind(":")
    return name[:colon] if colon > slash else name


def _set_image(container: Obj, rule: Obj) -> None:
    image = container["image"]
    name = _image_name(image)
    if name != rule["name"]:
        return
    rest = image[len(name) :]
    new_name = rule.get("newName", name)
    if "digest" in rule:
        container["image"] = f"{new_name}@{rule['digest']}"
    elif "newTag" in rule:
        container["image"] = f"{new_name}:{rule['newTag']}"
    else:
        container["image"] = new_name + rest


def _pointer(path: str) -> list[str]:
    if not path.startswith("/"):
        raise RenderError(f"JSON pointer {path!r} must start with /")
    return [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")[1:]]


def json_patch(document: Obj, operations: Sequence[Obj]) -> Obj:
    """RFC 6902 (add, remove, replace, test) on a copy of ``document``."""
    result = copy.deepcopy(document)
    for op in operations:
        kind, parts = op.get("op"), _pointer(op.get("path", ""))
        if not parts:
            raise RenderError("a patch cannot replace the whole object")
        parent: Any = result
        for part in parts[:-1]:
            parent = parent[int(part)] if isinstance(parent, list) else parent[part]
        last = parts[-1]
        if kind == "test":
            current = parent[int(last)] if isinstance(parent, list) else parent.get(last)
            if current != op.get("value"):
                raise RenderError(f"patch test failed at {op['path']}")
        elif kind == "remove":
            del parent[int(last) if isinstance(parent, list) else last]
        elif kind in ("add", "replace"):
            value = copy.deepcopy(op.get("value"))
            if isinstance(parent, list):
                if last == "-":
                    parent.append(value)
                elif kind == "add":
                    parent.insert(int(last), value)
                else:
                    parent[int(last)] = value
            else:
                if kind == "replace" and last not in parent:
                    raise RenderError(f"replace of a missing field {op['path']}")
                parent[last] = value
        else:
            raise RenderError(f"unsupported patch operation {kind!r}")
    return result


def _delete_target(path: Path, patch: Obj, document: Obj) -> Obj:
    """The target of a strategic-merge patch that deletes an object (``$patch: delete``): the
    one form of strategic merge the renderer knows; any other is refused."""
    fields = {"$patch", "apiVersion", "kind", "metadata"}
    if document.get("$patch") != "delete" or set(document) - fields:
        raise RenderError(f"{path}: only JSON 6902 patches, or a strategic merge $patch: delete")
    metadata = document.get("metadata") or {}
    if set(metadata) - {"name", "namespace"} or "kind" not in document or "name" not in metadata:
        raise RenderError(f"{path}: a delete patch names one object (kind, metadata.name)")
    group, _, version = str(document.get("apiVersion", "")).rpartition("/")
    own = {"kind": document["kind"], "name": metadata["name"], "group": group, "version": version}
    target: Obj = patch.get("target") or own
    if any(target.get(key, own[key]) != own[key] for key in ("kind", "name")):
        raise RenderError(f"{path}: a delete patch's target must be the object it names")
    return target


def _matches(obj: Obj, target: Obj) -> bool:
    unknown = set(target) - {"kind", "name", "namespace", "group", "version"}
    if unknown:
        raise RenderError(f"unsupported patch target fields {sorted(unknown)}")
    group, _, version = obj["apiVersion"].rpartition("/")
    actual = {
        "kind": obj["kind"],
        "name": obj["metadata"]["name"],
        "namespace": obj["metadata"].get("namespace"),
        "group": group,
        "version": version,
    }
    return all(actual[key] == value for key, value in target.items())


def _generate_config_maps(root: Path, kustomization: Obj) -> list[Obj]:
    options = kustomization.get("generatorOptions", {})
    if set(options) - {"disableNameSuffixHash", "labels", "annotations"}:
        raise RenderError(f"{root}: unsupported generatorOptions {sorted(options)}")
    generators = kustomization.get("configMapGenerator", [])
    if generators and options.get("disableNameSuffixHash") is not True:
        raise RenderError(f"{root}: generated ConfigMaps need disableNameSuffixHash: true")
    made = []
    for generator in generators:
        if set(generator) - {"name", "files", "literals", "options"}:
            raise RenderError(f"{root}: unsupported configMapGenerator fields {sorted(generator)}")
        data: dict[str, str] = {}
        for entry in generator.get("files", []):
            key, _, file = entry.rpartition("=")
            path = (root / file).resolve()
            if root.resolve() not in path.parents:
                raise RenderError(f"{root}: {file} is outside the kustomization")
            data[key or path.name] = path.read_text(encoding="utf-8")
        for literal in generator.get("literals", []):
            key, _, value = literal.partition("=")
            data[key] = value
        metadata: Obj = {"name": generator["name"]}
        own = generator.get("options", {})
        labels = {**options.get("labels", {}), **own.get("labels", {})}
        annotations = {**options.get("annotations", {}), **own.get("annotations", {})}
        if labels:
            metadata["labels"] = labels
        if annotations:
            metadata["annotations"] = annotations
        made.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data})
    return made


def render(directory: Path) -> list[Obj]:
    """The objects a kustomization directory produces (its ``kustomization.yaml``)."""
    directory = Path(directory)
    path = directory / "kustomization.yaml"
    if not path.is_file():
        raise RenderError(f"{directory}: no kustomization.yaml")
    kustomization = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    unknown = set(kustomization) - _KUSTOMIZATION_KEYS
    if unknown:
        raise RenderError(f"{path}: unsupported fields {sorted(unknown)}")
    objects: list[Obj] = []
    for entry in kustomization.get("resources", []):
        target = directory / entry
        objects.extend(render(target) if target.is_dir() else _load_yaml_documents(target))
    objects.extend(_generate_config_maps(directory, kustomization))

    namespace = kustomization.get("namespace")
    if namespace:
        for obj in objects:
            if obj["kind"] not in CLUSTER_SCOPED:
                obj["metadata"]["namespace"] = namespace
    for label in kustomization.get("labels", []):
        if set(label) - {"pairs", "includeSelectors", "includeTemplates"}:
            raise RenderError(f"{path}: unsupported labels fields {sorted(label)}")
        if label.get("includeSelectors"):
            raise RenderError(f"{path}: labels with includeSelectors are not supported")
        for obj in objects:
            _set_labels(obj, label["pairs"], bool(label.get("includeTemplates")))
    for rule in kustomization.get("images", []):
        if set(rule) - {"name", "newName", "newTag", "digest"}:
            raise RenderError(f"{path}: unsupported images fields {sorted(rule)}")
        for obj in objects:
            for container in _containers(obj):
                _set_image(container, rule)
    for rule in kustomization.get("replicas", []):
        for obj in objects:
            if obj["kind"] in _WORKLOADS and obj["metadata"]["name"] == rule["name"]:
                obj["spec"]["replicas"] = rule["count"]
    for patch in kustomization.get("patches", []):
        if set(patch) - {"target", "patch", "path"}:
            raise RenderError(f"{path}: unsupported patch fields {sorted(patch)}")
        text = patch.get("patch")
        if text is None:
            text = (directory / patch["path"]).read_text(encoding="utf-8")
        operations = yaml.safe_load(text)
        if isinstance(operations, dict):
            # Strategic merge: only ``$patch: delete``, which removes the object it names.
            target = _delete_target(path, patch, operations)
            kept = [obj for obj in objects if not _matches(obj, target)]
            if len(kept) == len(objects):
                raise RenderError(f"{path}: a delete patch matches no object: {target}")
            objects = kept
            continue
        if not isinstance(operations, list):
            raise RenderError(f"{path}: only JSON 6902 patches (a list of operations)")
        hits = [i for i, obj in enumerate(objects) if _matches(obj, patch.get("target", {}))]
        if not hits:
            raise RenderError(f"{path}: a patch matches no object: {patch.get('target')}")
        for i in hits:
            objects[i] = json_patch(objects[i], operations)
    return objects


def overlay_dir(name: str) -> Path:
    return DEPLOY / "overlays" / name


def retarget_images(objects: Iterable[Obj], registry: str | None, tag: str | None) -> None:
    """Point Lexio's images (``lexio/<service>``) at ``registry`` and/or ``tag``."""
    for obj in objects:
        for container in _containers(obj):
            name = _image_name(container["image"])
            if not name.startswith("lexio/"):
                continue
            rule: Obj = {"name": name}
            if registry:
                rule["newName"] = f"{registry.rstrip('/')}/{name.removeprefix('lexio/')}"
            if tag:
                rule["newTag"] = tag
            _set_image(container, rule)


#: Apply order: what others depend on first.
_ORDER: Final = [
    "Namespace",
    # Policies before pods: no pod of Lexio's ever runs unisolated, even for a moment.
    "NetworkPolicy",
    "ServiceAccount",
    "ConfigMap",
    "Secret",
    "Service",
    "Ingress",
    "PersistentVolumeClaim",
    "Deployment",
    "StatefulSet",
    "PodDisruptionBudget",
    "HorizontalPodAutoscaler",
]


def apply_order(objects: Iterable[Obj]) -> list[Obj]:
    def key(obj: Obj) -> tuple[int, str, str]:
        kind = obj["kind"]
        rank = _ORDER.index(kind) if kind in _ORDER else len(_ORDER)
        return (rank, kind, obj["metadata"]["name"])

    return sorted(objects, key=key)


def to_yaml(objects: Iterable[Obj]) -> str:
    return yaml.safe_dump_all(list(objects), sort_keys=False, default_flow_style=False)


# --------------------------------------------------------------------------------------------
# The cluster


class Cluster(Protocol):
    """What the tool needs from a cluster (the kubernetes client, or a fake in tests)."""

    def apply(self, obj: Obj) -> Obj: ...

    def get(self, api_version: str, kind: str, name: str, namespace: str | None) -> Obj: ...

    def list_objects(self, api_version: str, kind: str) -> list[Obj]: ...


class KubernetesCluster:
    """The cluster of a kubeconfig context, through the kubernetes client's dynamic API."""

    def __init__(
        self,
        context: str | None = None,
        *,
        config_file: str | None = None,
        discovery_cache: str | None = None,
    ) -> None:
        # The kubernetes client ships py.typed but leaves these functions unannotated.
        api = config.new_client_from_config(  # type: ignore[no-untyped-call]
            config_file=config_file, context=context
        )
        self._client = dynamic.DynamicClient(  # type: ignore[no-untyped-call]
            api, cache_file=discovery_cache
        )

    def _resource(self, api_version: str, kind: str) -> Any:
        return self._client.resources.get(api_version=api_version, kind=kind)

    def apply(self, obj: Obj) -> Obj:
        resource = self._resource(obj["apiVersion"], obj["kind"])
        result = self._client.server_side_apply(  # type: ignore[no-untyped-call]
            resource,
            body=obj,
            name=obj["metadata"]["name"],
            namespace=obj["metadata"].get("namespace"),
            field_manager=FIELD_MANAGER,
            force_conflicts=True,
        )
        return dict(result.to_dict())

    def get(self, api_version: str, kind: str, name: str, namespace: str | None) -> Obj:
        resource = self._resource(api_version, kind)
        live = self._client.get(resource, name=name, namespace=namespace)  # type: ignore[no-untyped-call]
        return dict(live.to_dict())

    def list_objects(self, api_version: str, kind: str) -> list[Obj]:
        resource = self._resource(api_version, kind)
        items = self._client.get(resource).to_dict().get("items", [])  # type: ignore[no-untyped-call]
        return [dict(item) for item in items]


def rollout_status(obj: Obj) -> tuple[bool, str]:
    """(done, why not) for a Deployment or StatefulSet as the API returns it, after
    ``kubectl rollout status``: a rollout is done once the controller has seen the latest
    spec and every replica runs it and is available."""
    meta, spec, status = obj["metadata"], obj.get("spec", {}), obj.get("status") or {}
    name = f"{obj['kind']}/{meta['name']}"
    if status.get("observedGeneration", 0) < meta.get("generation", 1):
        return False, f"{name}: waiting for the controller to see the new spec"
    wanted = spec.get("replicas", 1)
    if obj["kind"] == "Deployment":
        for condition in status.get("conditions") or []:
            if condition.get("reason") == "ProgressDeadlineExceeded":
                raise RolloutError(f"{name}: progress deadline exceeded")
        updated = status.get("updatedReplicas", 0)
        if updated < wanted:
            return False, f"{name}: {updated} of {wanted} replicas updated"
        if status.get("replicas", 0) > updated:
            return False, f"{name}: {status['replicas'] - updated} old replicas terminating"
        if status.get("availableReplicas", 0) < updated:
            return False, f"{name}: {status.get('availableReplicas', 0)} of {updated} available"
        return True, f"{name}: rolled out"
    if obj["kind"] == "StatefulSet":
        ready = status.get("readyReplicas", 0)
        if ready < wanted:
            return False, f"{name}: {ready} of {wanted} replicas ready"
        if status.get("updateRevision") != status.get("currentRevision"):
            return False, f"{name}: pods not all on revision {status.get('updateRevision')}"
        return True, f"{name}: rolled out"
    return True, f"{name}: nothing to wait for"


class RolloutError(RuntimeError):
    """A rollout failed (progress deadline exceeded) or did not finish in time."""


def wait_for_rollouts(
    cluster: Cluster,
    objects: Iterable[Obj],
    *,
    timeout: float,
    interval: float = 2.0,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    say: Callable[[str], None] = print,
) -> None:
    pending = [o for o in objects if o["kind"] in ("Deployment", "StatefulSet")]
    deadline = clock() + timeout
    last: dict[str, str] = {}
    while pending:
        still = []
        for obj in pending:
            meta = obj["metadata"]
            live = cluster.get(obj["apiVersion"], obj["kind"], meta["name"], meta.get("namespace"))
            done, message = rollout_status(live)
            if last.get(meta["name"]) != message:
                say(message)
                last[meta["name"]] = message
            if not done:
                still.append(obj)
        pending = still
        if pending:
            if clock() >= deadline:
                names = ", ".join(f"{o['kind']}/{o['metadata']['name']}" for o in pending)
                raise RolloutError(f"timed out after {timeout:.0f} s waiting for {names}")
            sleep(interval)


def gateway_address(cluster: Cluster, namespace: str, name: str = "gateway") -> str:
    """Where players go: the load balancer's address, a node's port, or (ClusterIP) how to
    reach the Service from this machine."""
    service = cluster.get("v1", "Service", name, namespace)
    spec, status = service["spec"], service.get("status") or {}
    port = spec["ports"][0]
    if spec.get("type") == "LoadBalancer":
        for ingress in (status.get("loadBalancer") or {}).get("ingress") or []:
            host = ingress.get("hostname") or ingress.get("ip")
            if host:
                return f"http://{host}" + ("" if port["port"] == 80 else f":{port['port']}")
        return (
            f"(load balancer {namespace}/{name} has no address yet: kubectl get svc -n {namespace})"
        )
    if spec.get("type") == "NodePort":
        addresses: dict[str, str] = {}
        for node in cluster.list_objects("v1", "Node"):
            for address in (node.get("status") or {}).get("addresses") or []:
                addresses.setdefault(address["type"], address["address"])
        host = addresses.get("ExternalIP") or addresses.get("InternalIP") or "NODE"
        return f"http://{host}:{port['nodePort']}"
    return (
        f"http://{name}.{namespace}.svc:{port['port']} inside the cluster; from here: "
        f"kubectl port-forward -n {namespace} svc/{name} 8080:{port['port']}, "
        "then http://127.0.0.1:8080/"
    )


def ingress_address(cluster: Cluster, ingress: Obj) -> str:
    """Where players go when an Ingress fronts the gateway: its host (https when the Ingress
    terminates TLS for it), and whether the ingress controller has published an address."""
    meta = ingress["metadata"]
    live = cluster.get(ingress["apiVersion"], "Ingress", meta["name"], meta.get("namespace"))
    spec, status = live["spec"], live.get("status") or {}
    host = next((rule["host"] for rule in spec.get("rules", []) if rule.get("host")), None)
    published = [
        entry.get("hostname") or entry.get("ip")
        for entry in (status.get("loadBalancer") or {}).get("ingress") or []
    ]
    where = ", ".join(a for a in published if a)
    if host is None:
        return f"http://{where}/" if where else f"(ingress {meta['name']} has no host)"
    tls = {h for entry in spec.get("tls", []) for h in entry.get("hosts", [])}
    address = f"{'https' if host in tls else 'http'}://{host}/"
    if not where:
        namespace = meta.get("namespace")
        return f"{address} (no address for the ingress yet: kubectl get ingress -n {namespace})"
    return f"{address} (the ingress controller is at {where}: {host} must resolve there)"


# --------------------------------------------------------------------------------------------
# The command


@dataclass(frozen=True)
class Plan:
    objects: list[Obj]
    namespace: str


def plan(overlay: str, registry: str | None = None, tag: str | None = None) -> Plan:
    objects = apply_order(render(overlay_dir(overlay)))
    retarget_images(objects, registry, tag)
    namespaces = [o["metadata"]["name"] for o in objects if o["kind"] == "Namespace"]
    if len(namespaces) != 1:
        raise RenderError(f"overlay {overlay}: expected one Namespace, found {namespaces}")
    return Plan(objects, namespaces[0])


def deploy(
    cluster: Cluster,
    the_plan: Plan,
    *,
    timeout: float,
    say: Callable[[str], None] = print,
    **wait: Any,
) -> str:
    for obj in the_plan.objects:
        cluster.apply(obj)
        say(f"applied {obj['kind']}/{obj['metadata']['name']}")
    wait_for_rollouts(cluster, the_plan.objects, timeout=timeout, say=say, **wait)
    for obj in the_plan.objects:
        if obj["kind"] == "Ingress":
            return ingress_address(cluster, obj)
    return gateway_address(cluster, the_plan.namespace)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lexio_deploy", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--overlay",
        default="dev",
        help="deploy/overlays/NAME (dev, prod, prod-ingress); default dev",
    )
    parser.add_argument("--registry", help="push location of the images, e.g. reg.example/lexio")
    parser.add_argument("--tag", help="image tag to deploy (default: the overlay's)")
    parser.add_argument("--kubeconfig", help="kubeconfig file (default: $KUBECONFIG, ~/.kube)")
    parser.add_argument("--context", help="kubeconfig context (default: the current one)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds for the rollouts")
    parser.add_argument("--dry-run", action="store_true", help="print the manifests, apply nothing")
    parser.add_argument("--json", action="store_true", help="with --dry-run: JSON, not YAML")
    args = parser.parse_args(argv)
    if not overlay_dir(args.overlay).is_dir():
        parser.error(f"no overlay {args.overlay!r} in {DEPLOY / 'overlays'}")
    try:
        the_plan = plan(args.overlay, args.registry, args.tag)
    except (RenderError, OSError) as e:
        print(f"lexio_deploy: {e}", file=sys.stderr)
        return 2
    if args.dry_run:
        if args.json:
            print(json.dumps({"apiVersion": "v1", "kind": "List", "items": the_plan.objects}))
        else:
            sys.stdout.write(to_yaml(the_plan.objects))
        return 0
    try:
        cluster = KubernetesCluster(args.context, config_file=args.kubeconfig)
        address = deploy(cluster, the_plan, timeout=args.timeout)
    except RolloutError as e:
        print(f"lexio_deploy: {e}", file=sys.stderr)
        return 1
    print(f"Lexio is up in namespace {the_plan.namespace}: {address}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
