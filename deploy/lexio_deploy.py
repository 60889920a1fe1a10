"""Deploy Lexio to the cluster of the current kubeconfig.

    python deploy/lexio_deploy.py --overlay prod --registry registry.example.org/lexio \
        --digests build/images/digests.json
    python deploy/lexio_deploy.py --overlay prod --diff       # what would change (server dry run)
    python deploy/lexio_deploy.py --overlay dev --dry-run     # render only, print YAML

Steps: render the overlay with ``kubectl kustomize`` (kustomize itself, not a copy of it),
optionally point Lexio's images at a registry and at digests, create the Redis password's
Secret if the namespace has none, apply every object with server-side apply (field manager
``lexio-deploy``; a field another manager owns is a conflict that stops the deploy unless
``--force-conflicts``), in dependency order (namespace, network policies, accounts, config,
services, ingress, storage, workloads, jobs, disruption budgets, autoscalers), wait until every
Deployment and StatefulSet has rolled out, and print the gateway's address (its Ingress's
host when the overlay has one).

This is deliberately thin. Without the Secret, the digests and the address, the same is
``kubectl apply --server-side --field-manager=lexio-deploy -k deploy/overlays/prod`` then
``kubectl rollout status`` for each workload (docs/operations.md, "Deploying").

Exit status: 0 done; 1 a rollout failed or timed out; 2 bad arguments or manifests; 3 the
cluster cannot be reached (no kubeconfig, connection refused, TLS, timeout); 4 the cluster
rejected an object (invalid, forbidden, a conflict with another field manager).
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

import urllib3
import yaml
from kubernetes import config, dynamic
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException
from kubernetes.dynamic.exceptions import DynamicApiError, NotFoundError, ResourceNotFoundError

DEPLOY: Final = Path(__file__).resolve().parent
FIELD_MANAGER: Final = "lexio-deploy"
#: Redis's password: the Secret every Redis client reads (deploy/base/redis.yaml).
REDIS_SECRET: Final = "redis-auth"
#: What the prod overlays hold until the operator gives real digests (--digests).
PLACEHOLDER_DIGEST: Final = "sha256:" + "0" * 64

EXIT_OK: Final = 0
EXIT_ROLLOUT_FAILED: Final = 1
EXIT_BAD_INPUT: Final = 2
EXIT_UNREACHABLE: Final = 3
EXIT_REJECTED: Final = 4

Obj = dict[str, Any]

# --------------------------------------------------------------------------------------------
# Rendering: kubectl kustomize


class RenderError(ValueError):
    """An overlay that does not render (or kubectl missing), or images not fit to deploy."""


def render(directory: Path) -> list[Obj]:
    """The objects a kustomization directory produces, as ``kubectl kustomize`` renders them."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        raise RenderError("kubectl is missing: it renders the overlays (kubectl kustomize)")
    done = subprocess.run(
        [kubectl, "kustomize", str(directory)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    if done.returncode != 0:
        raise RenderError(f"kubectl kustomize {directory}: {done.stderr.strip()}")
    return [d for d in yaml.safe_load_all(done.stdout) if d]


def _containers(obj: Obj) -> list[Obj]:
    spec = (obj.get("spec") or {}).get("template", {}).get("spec") or {}
    return [*spec.get("initContainers", []), *spec.get("containers", [])]


def _image_name(image: str) -> str:
    """``reg:5000/a/b:tag@sha256:…`` → ``reg:5000/a/b``."""
    name = image.split("@", 1)[0]
    slash = name.rfind("/")
    colon = name.rfind(":")
    return name[:colon] if colon > slash else name


_LEXIO_IMAGE: Final = re.compile(r"(?:^|/)lexio/(lexicon|engine|lobby|gateway)$")


def retarget_images(
    objects: Iterable[Obj],
    registry: str | None = None,
    tag: str | None = None,
    digests: Mapping[str, str] | None = None,
) -> None:
    """Point Lexio's images (``…lexio/<service>``) at ``registry`` (``reg.example/lexio``),
    and at a ``tag`` or, per service, a digest (``{"gateway": "sha256:…"}``)."""
    for obj in objects:
        for container in _containers(obj):
            image = container["image"]
            name = _image_name(image)
            found = _LEXIO_IMAGE.search(name)
            if found is None:
                continue
            service = found.group(1)
            if registry:
                name = f"{registry.rstrip('/')}/{service}"
            rest = image[len(_image_name(image)) :]
            if digests and service in digests:
                rest = "@" + digests[service]
            elif tag:
                rest = ":" + tag
            container["image"] = name + rest


def check_images(objects: Iterable[Obj], overlay: str) -> None:
    """RenderError for a prod image with no real digest (the overlay's placeholder)."""
    for obj in objects:
        for container in _containers(obj):
            if container["image"].endswith(PLACEHOLDER_DIGEST):
                raise RenderError(
                    f"overlay {overlay}: {container['image']} has no real digest yet: "
                    "pass --digests (make images writes one) or set the images' digests"
                )


def overlay_dir(name: str) -> Path:
    return DEPLOY / "overlays" / name


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
    # After the pods it works on (prod-cluster's redis-cluster-join: it makes them a cluster).
    "Job",
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


class ClusterUnreachableError(RuntimeError):
    """No kubeconfig, or the API server does not answer (refused, TLS, timeout)."""


class RejectedError(RuntimeError):
    """The API server refused an object: invalid, forbidden, or a field conflict."""


class Reader(Protocol):
    """What waiting for rollouts and finding the address read from a cluster."""

    def get(self, api_version: str, kind: str, name: str, namespace: str | None) -> Obj: ...

    def list_objects(self, api_version: str, kind: str) -> list[Obj]: ...


class Cluster(Reader, Protocol):
    """What the tool needs from a cluster (the kubernetes client, or a fake in tests)."""

    def apply(self, obj: Obj, *, force: bool = False, dry_run: bool = False) -> Obj: ...

    def find(self, api_version: str, kind: str, name: str, namespace: str | None) -> Obj | None:
        """The live object, or None when there is none."""
        ...

    def create(self, obj: Obj) -> Obj: ...


def _what(obj: Obj) -> str:
    return f"{obj['kind']}/{obj['metadata']['name']}"


class KubernetesCluster:
    """The cluster of a kubeconfig context, through the kubernetes client's dynamic API.
    Failures become :class:`ClusterUnreachableError` or :class:`RejectedError`."""

    def __init__(
        self,
        context: str | None = None,
        *,
        config_file: str | None = None,
        discovery_cache: str | None = None,
        timeout: float = 10.0,
    ) -> None:
        self._timeout = timeout
        try:
            # The kubernetes client ships py.typed but leaves these functions unannotated.
            api = config.new_client_from_config(  # type: ignore[no-untyped-call]
                config_file=config_file, context=context
            )
            api.configuration.retries = 1
            with self._errors("discovery"):
                self._client = dynamic.DynamicClient(  # type: ignore[no-untyped-call]
                    api, cache_file=discovery_cache
                )
        except ConfigException as e:
            raise ClusterUnreachableError(f"no usable kubeconfig: {e}") from None

    class _Errors:
        def __init__(self, what: str) -> None:
            self.what = what

        def __enter__(self) -> None:
            return None

        def __exit__(
            self, kind: type[BaseException] | None, e: BaseException | None, _: object
        ) -> None:
            if e is None or isinstance(e, NotFoundError):
                return
            if isinstance(e, ResourceNotFoundError):
                raise RejectedError(f"{self.what}: the cluster does not serve this kind") from None
            if isinstance(e, urllib3.exceptions.HTTPError | OSError):
                raise ClusterUnreachableError(
                    f"{self.what}: cannot reach the API server: {e}"
                ) from None
            if isinstance(e, DynamicApiError | ApiException):
                status = getattr(e, "status", None)
                if status is not None and int(status) >= 500:
                    raise ClusterUnreachableError(
                        f"{self.what}: the API server failed: {e}"
                    ) from None
                raise RejectedError(f"{self.what}: {_reason(e)}") from None

    def _errors(self, what: str) -> KubernetesCluster._Errors:
        return KubernetesCluster._Errors(what)

    def _resource(self, api_version: str, kind: str) -> Any:
        with self._errors(f"{api_version} {kind}"):
            return self._client.resources.get(api_version=api_version, kind=kind)

    def apply(self, obj: Obj, *, force: bool = False, dry_run: bool = False) -> Obj:
        resource = self._resource(obj["apiVersion"], obj["kind"])
        with self._errors(_what(obj)):
            result = self._client.server_side_apply(  # type: ignore[no-untyped-call]
                resource,
                body=obj,
                name=obj["metadata"]["name"],
                namespace=obj["metadata"].get("namespace"),
                field_manager=FIELD_MANAGER,
                force_conflicts=force,
                **({"dry_run": "All"} if dry_run else {}),
                _request_timeout=self._timeout,
            )
        return dict(result.to_dict())

    def get(self, api_version: str, kind: str, name: str, namespace: str | None) -> Obj:
        resource = self._resource(api_version, kind)
        with self._errors(f"{kind}/{name}"):
            live = self._client.get(  # type: ignore[no-untyped-call]
                resource, name=name, namespace=namespace, _request_timeout=self._timeout
            )
        return dict(live.to_dict())

    def find(self, api_version: str, kind: str, name: str, namespace: str | None) -> Obj | None:
        try:
            return self.get(api_version, kind, name, namespace)
        except NotFoundError:
            return None

    def create(self, obj: Obj) -> Obj:
        resource = self._resource(obj["apiVersion"], obj["kind"])
        with self._errors(_what(obj)):
            made = self._client.create(  # type: ignore[no-untyped-call]
                resource,
                body=obj,
                namespace=obj["metadata"].get("namespace"),
                field_manager=FIELD_MANAGER,
                _request_timeout=self._timeout,
            )
        return dict(made.to_dict())

    def list_objects(self, api_version: str, kind: str) -> list[Obj]:
        resource = self._resource(api_version, kind)
        with self._errors(kind):
            items = self._client.get(resource).to_dict().get("items", [])  # type: ignore[no-untyped-call]
        return [dict(item) for item in items]


def _reason(e: BaseException) -> str:
    """The API server's own message (its Status object), else the exception."""
    body = getattr(e, "body", None)
    if isinstance(body, bytes):
        body = body.decode(errors="replace")
    if isinstance(body, str):
        try:
            status = json.loads(body)
            return f"{status.get('reason')} ({status.get('code')}): {status.get('message')}"
        except (ValueError, AttributeError):
            pass
    return str(e).strip()


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
    cluster: Reader,
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


def gateway_address(cluster: Reader, namespace: str, name: str = "gateway") -> str:
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


def ingress_address(cluster: Reader, ingress: Obj) -> str:
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


def plan(
    overlay: str,
    registry: str | None = None,
    tag: str | None = None,
    digests: Mapping[str, str] | None = None,
) -> Plan:
    objects = apply_order(render(overlay_dir(overlay)))
    retarget_images(objects, registry, tag, digests)
    check_images(objects, overlay)
    namespaces = [o["metadata"]["name"] for o in objects if o["kind"] == "Namespace"]
    if len(namespaces) != 1:
        raise RenderError(f"overlay {overlay}: expected one Namespace, found {namespaces}")
    return Plan(objects, namespaces[0])


def redis_secret(namespace: str) -> Obj:
    """The Redis password's Secret, with a fresh random password (hex: URL-safe)."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": REDIS_SECRET,
            "namespace": namespace,
            "labels": {"app.kubernetes.io/part-of": "lexio", "app.kubernetes.io/name": "redis"},
        },
        "type": "Opaque",
        "stringData": {"password": secrets.token_hex(32)},
    }


def ensure_redis_secret(cluster: Cluster, the_plan: Plan, say: Callable[[str], None]) -> None:
    """Create the Redis password's Secret when the overlay does not make one and the cluster
    has none; never change an existing one (its password is in use)."""
    if any(
        o["kind"] == "Secret" and o["metadata"]["name"] == REDIS_SECRET for o in the_plan.objects
    ):
        return
    if cluster.find("v1", "Secret", REDIS_SECRET, the_plan.namespace) is None:
        cluster.create(redis_secret(the_plan.namespace))
        say(f"created Secret/{REDIS_SECRET} with a new random password")


_VOLATILE: Final = ("managedFields", "resourceVersion", "uid", "creationTimestamp", "generation")


def _comparable(obj: Obj | None) -> str:
    if obj is None:
        return ""
    shown = json.loads(json.dumps(obj, default=str))
    shown.pop("status", None)
    for key in _VOLATILE:
        (shown.get("metadata") or {}).pop(key, None)
    if shown.get("kind") == "Secret":
        shown.pop("data", None)
        shown.pop("stringData", None)
    return yaml.safe_dump(shown, sort_keys=True, default_flow_style=False)


def diff(cluster: Cluster, the_plan: Plan, *, force: bool, write: Callable[[str], None]) -> int:
    """What applying would change, object by object, from a server-side dry run (the API
    server's defaults and admission included); the number of objects that would change."""
    changed = 0
    for obj in the_plan.objects:
        meta = obj["metadata"]
        live = cluster.find(obj["apiVersion"], obj["kind"], meta["name"], meta.get("namespace"))
        after = cluster.apply(obj, force=force, dry_run=True)
        before_text, after_text = _comparable(live), _comparable(after)
        if before_text == after_text:
            continue
        changed += 1
        name = f"{obj['kind']}/{meta.get('namespace', '')}/{meta['name']}"
        write(
            "".join(
                difflib.unified_diff(
                    before_text.splitlines(keepends=True),
                    after_text.splitlines(keepends=True),
                    fromfile=f"live {name}" if live is not None else "/dev/null",
                    tofile=f"applied {name}",
                )
            )
        )
    return changed


def deploy(
    cluster: Cluster,
    the_plan: Plan,
    *,
    timeout: float,
    force: bool = False,
    say: Callable[[str], None] = print,
    **wait: Any,
) -> str:
    ensure_redis_secret(cluster, the_plan, say)
    for obj in the_plan.objects:
        cluster.apply(obj, force=force)
        say(f"applied {obj['kind']}/{obj['metadata']['name']}")
    wait_for_rollouts(cluster, the_plan.objects, timeout=timeout, say=say, **wait)
    for obj in the_plan.objects:
        if obj["kind"] == "Ingress":
            return ingress_address(cluster, obj)
    return gateway_address(cluster, the_plan.namespace)


def _digests(path: str | None) -> dict[str, str] | None:
    if path is None:
        return None
    try:
        loaded = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise RenderError(f"--digests {path}: {e}") from None
    if not isinstance(loaded, dict) or not all(
        isinstance(v, str) and re.fullmatch(r"sha256:[0-9a-f]{64}", v) for v in loaded.values()
    ):
        raise RenderError(f'--digests {path}: a JSON object {{"gateway": "sha256:…", …}}')
    return dict(loaded)


def _write(text: str) -> None:
    sys.stdout.write(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lexio_deploy", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--overlay",
        default="dev",
        help="deploy/overlays/NAME (dev, prod, prod-ingress, prod-cluster); default dev",
    )
    parser.add_argument("--registry", help="where the images are, e.g. reg.example/lexio")
    parser.add_argument(
        "--digests", help='JSON file {"gateway": "sha256:…", …} (make images --push writes it)'
    )
    parser.add_argument("--tag", help="image tag to deploy (dev; prod deploys digests)")
    parser.add_argument("--kubeconfig", help="kubeconfig file (default: $KUBECONFIG, ~/.kube)")
    parser.add_argument("--context", help="kubeconfig context (default: the current one)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds for the rollouts")
    parser.add_argument("--dry-run", action="store_true", help="print the manifests, apply nothing")
    parser.add_argument("--json", action="store_true", help="with --dry-run: JSON, not YAML")
    parser.add_argument(
        "--diff", action="store_true", help="show what would change (server dry run), apply nothing"
    )
    parser.add_argument(
        "--force-conflicts",
        action="store_true",
        help="take over fields another field manager owns (kubectl edit, another tool)",
    )
    args = parser.parse_args(argv)
    if not overlay_dir(args.overlay).is_dir():
        parser.error(f"no overlay {args.overlay!r} in {DEPLOY / 'overlays'}")
    try:
        the_plan = plan(args.overlay, args.registry, args.tag, _digests(args.digests))
    except (RenderError, OSError, subprocess.TimeoutExpired) as e:
        print(f"lexio_deploy: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.dry_run:
        if args.json:
            print(json.dumps({"apiVersion": "v1", "kind": "List", "items": the_plan.objects}))
        else:
            sys.stdout.write(to_yaml(the_plan.objects))
        return EXIT_OK
    try:
        cluster = KubernetesCluster(args.context, config_file=args.kubeconfig)
        if args.diff:
            changed = diff(cluster, the_plan, force=args.force_conflicts, write=_write)
            print(f"{changed} of {len(the_plan.objects)} objects would change")
            return EXIT_OK
        address = deploy(cluster, the_plan, timeout=args.timeout, force=args.force_conflicts)
    except ClusterUnreachableError as e:
        print(f"lexio_deploy: {e}", file=sys.stderr)
        return EXIT_UNREACHABLE
    except RejectedError as e:
        hint = " (another field manager owns it: --force-conflicts takes it over)"
        print(f"lexio_deploy: rejected: {e}{hint if 'onflict' in str(e) else ''}", file=sys.stderr)
        return EXIT_REJECTED
    except RolloutError as e:
        print(f"lexio_deploy: {e}", file=sys.stderr)
        return EXIT_ROLLOUT_FAILED
    print(f"Lexio is up in namespace {the_plan.namespace}: {address}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
