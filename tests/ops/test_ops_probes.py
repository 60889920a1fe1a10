"""The prod overlay's pods, run for real without a cluster: in a private network namespace
(so the manifests' own ports and 0.0.0.0 are this test's alone, and nothing listens on the
machine's network), each container starts as the kubelet would start it — the Dockerfile's
entrypoint and ENV, then exactly the manifest's env and args, the data volumes mapped to
temporary directories — with the Services' names resolving to the namespace's loopback.

Then every readiness and liveness probe of the manifests is run as the kubelet runs it, every
``prometheus.io/port`` is scraped, and every pod is sent SIGTERM: the probes point at ports
the services really listen on, with the health names they really report, and each process
stops cleanly.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from ops_deploy import LEXIO_SERVICES, image_env, rendered

Obj = dict[str, Any]
BIN = Path(sys.executable).parent
HARNESS = Path(__file__).with_name("ops_netns_harness.py")


#: The Secret's value the test gives Redis's password (the deploy tool makes a random one).
SECRETS = {("redis-auth", "password"): "0123456789abcdef" * 4}
#: Images that are not Lexio's → the Debian program standing for their entry point.
PROGRAMS = {"redis": "redis-server", "redis_exporter": "prometheus-redis-exporter"}


def _expand(value: str, environ: dict[str, str]) -> str:
    """The kubelet's $(VAR) expansion of env values and args."""
    return re.sub(r"\$\((\w+)\)", lambda m: environ.get(m[1], m[0]), value)


def _containers(objects: list[Obj], workdir: Path) -> list[Obj]:
    """What the harness starts: one entry per container of the manifests' workloads."""
    specs = []
    for workload in objects:
        if workload["kind"] not in ("Deployment", "StatefulSet"):
            continue
        name = workload["metadata"]["name"]
        template = workload["spec"]["template"]
        annotations = template["metadata"].get("annotations", {})
        for c in template["spec"]["containers"]:
            # Volumes other than /tmp become directories of this test.
            mounts = {}
            for mount in c.get("volumeMounts", []):
                if mount["mountPath"] != "/tmp":
                    target = workdir / f"{name}-{mount['name']}"
                    target.mkdir(exist_ok=True)
                    mounts[mount["mountPath"]] = str(target)

            def remap(value: str, mounts: dict[str, str] = mounts) -> str:
                for path, target in mounts.items():
                    if value == path or value.startswith(path + "/"):
                        return target + value[len(path) :]
                return value

            environ = {"PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp"}
            lexio = c["name"] in LEXIO_SERVICES
            # A Lexio container is named after its service (its image, its console script),
            # whatever its workload's name (the engine's is game-engine: ops_deploy.WORKLOADS).
            service = c["name"] if lexio else name
            if lexio:
                for key, value in image_env(service).items():
                    environ[key] = (
                        value.replace("$PATH", environ["PATH"])
                        .replace("/opt/lexio/bin", str(BIN))
                        .replace("$REVISION", "probe-test")
                    )
                argv = [str(BIN / f"lexio-{service}")]
            else:
                image = c["image"].rsplit("/", 1)[-1].split(":")[0].split("@")[0]
                executable = shutil.which(PROGRAMS[image])
                assert executable, f"{PROGRAMS[image]} is missing (make test installs it)"
                argv = [executable]
            for e in c.get("env", []):
                if "valueFrom" in e:
                    ref = e["valueFrom"]["secretKeyRef"]
                    environ[e["name"]] = SECRETS[(ref["name"], ref["key"])]
                else:
                    environ[e["name"]] = remap(_expand(e["value"], environ))
            if not lexio:
                argv += [remap(_expand(a, environ)) for a in c.get("args", [])[1:]]
            ports = {p["containerPort"] for p in c.get("ports", [])}
            metrics_port = annotations.get("prometheus.io/port")
            specs.append(
                {
                    **c,
                    "name": service if c["name"] == service else f"{name}-{c['name']}",
                    "argv": argv,
                    "environ": environ,
                    "metrics_port": metrics_port if int(metrics_port or 0) in ports else None,
                    "metrics_path": annotations.get("prometheus.io/path", "/metrics"),
                }
            )
    return specs


def test_the_manifests_probes_answer_from_the_real_services(tmp_path: Path) -> None:
    for tool in ("unshare", "ip", "mount"):
        assert shutil.which(tool), f"{tool} is missing (util-linux, iproute2)"
    objects = rendered("prod")
    containers = _containers(objects, tmp_path)
    assert {c["name"] for c in containers} == {*LEXIO_SERVICES, "redis", "redis-exporter"}
    services = [o["metadata"]["name"] for o in objects if o["kind"] == "Service"]
    hosts = tmp_path / "hosts"
    hosts.write_text(f"127.0.0.1 localhost\n::1 localhost\n127.0.0.1 {' '.join(services)}\n")
    config = tmp_path / "harness.json"
    config.write_text(json.dumps({"containers": containers, "workdir": str(tmp_path)}))
    unshare = ["unshare", "--net", "--mount"]
    if os.geteuid() != 0:
        unshare[1:1] = ["--user", "--map-root-user"]
    script = 'ip link set lo up && mount --bind "$0" /etc/hosts && exec "$1" "$2" "$3"'
    done = subprocess.run(
        [*unshare, "--", "sh", "-c", script, hosts, sys.executable, HARNESS, config],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    logs = report["logs"]
    for name, result in report["containers"].items():
        assert result["readiness"][0], (name, result["readiness"], logs[name])
        assert result["liveness"][0], (name, result["liveness"], logs[name])
    for name in LEXIO_SERVICES:
        status, text = report["containers"][name]["metrics"]
        assert status == 200, (name, text)
        assert "_created" not in text, name  # no _created series (issue 17)
        assert 'lexio_build_info{python_version="' in text
        assert f'service="{name}"' in text and 'revision="probe-test"' in text, name
        if name != "gateway":
            # The kubelet's gRPC probes are themselves counted by the interceptor.
            assert 'grpc_service="grpc.health.v1.Health",grpc_type="unary"' in text, name
    lexicon_metrics = report["containers"]["lexicon"]["metrics"][1]
    assert 'lexio_lexicon_list_info{sha256="' in lexicon_metrics
    assert "lexio_lexicon_words_loaded 3" in lexicon_metrics  # 325,288 words
    # The gateways share their tables through Redis: the gateway is connected to it.
    assert report["redis_clients"] >= 2, logs["gateway"]
    # So does the lobby (prod runs it on Redis): it opened its store under its own prefix, and
    # found Redis configured as it requires (it warns at start-up otherwise).
    lobby = env_of(containers, "lobby")
    assert lobby["LEXIO_REDIS_URL"] == env_of(containers, "gateway")["LEXIO_REDIS_URL"]
    assert f"{lobby['LEXIO_LOBBY_REDIS_PREFIX']}schema" in report["redis_keys"], logs["lobby"]
    assert '"store": "redis"' in logs["lobby"], logs["lobby"]
    assert "not configured to keep" not in logs["lobby"], logs["lobby"]
    settings = report["redis_config"]
    assert settings["appendonly"] == "yes"
    assert settings["appendfsync"] in ("everysec", "always")
    assert settings["maxmemory-policy"] == "noeviction"
    assert int(settings["maxmemory"]) > 0, settings["maxmemory"]
    # Redis wants its password from every client, its exporter included.
    assert report["redis_auth_required"], report
    exporter = report["containers"]["redis-exporter"]["metrics"]
    assert exporter[0] == 200 and "\nredis_up 1" in exporter[1], exporter
    # Every process stops on SIGTERM: Lexio's and Redis with status 0; the exporter (Go's
    # default) ends by the signal itself, which the kubelet counts as a clean stop too.
    wanted = {c["name"]: 0 for c in containers} | {"redis-exporter": -15}
    assert report["exits"] == wanted, logs


def env_of(containers: list[Obj], name: str) -> dict[str, str]:
    """The container's environment as the kubelet gives it (Secrets resolved, $(VAR) expanded)."""
    (c,) = (c for c in containers if c["name"] == name)
    return {e["name"]: c["environ"][e["name"]] for e in c.get("env", [])}
