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
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from ops_deploy import LEXIO_SERVICES, image_env, rendered

Obj = dict[str, Any]
BIN = Path(sys.executable).parent
HARNESS = Path(__file__).with_name("ops_netns_harness.py")


def _containers(objects: list[Obj], workdir: Path) -> list[Obj]:
    """What the harness starts: one entry per workload of the manifests."""
    specs = []
    for workload in objects:
        if workload["kind"] not in ("Deployment", "StatefulSet"):
            continue
        name = workload["metadata"]["name"]
        template = workload["spec"]["template"]
        (c,) = template["spec"]["containers"]
        # Volumes other than /tmp become directories of this test.
        mounts = {}
        for mount in c.get("volumeMounts", []):
            if mount["mountPath"] != "/tmp":
                target = workdir / f"{name}-{mount['name']}"
                target.mkdir()
                mounts[mount["mountPath"]] = str(target)

        def remap(value: str, mounts: dict[str, str] = mounts) -> str:
            for path, target in mounts.items():
                if value == path or value.startswith(path + "/"):
                    return target + value[len(path) :]
            return value

        environ = {"PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp"}
        if name in LEXIO_SERVICES:
            for key, value in image_env(name).items():
                environ[key] = (
                    value.replace("$PATH", environ["PATH"])
                    .replace("/opt/lexio/bin", str(BIN))
                    .replace("$REVISION", "probe-test")
                )
            argv = [str(BIN / f"lexio-{name}")]
        else:
            executable = shutil.which(c["args"][0])
            assert executable, f"{c['args'][0]} is missing (make test installs it)"
            argv = [executable]
        argv += [remap(a) for a in (c["args"][1:] if name not in LEXIO_SERVICES else [])]
        environ.update({e["name"]: remap(e["value"]) for e in c.get("env", [])})
        annotations = template["metadata"].get("annotations", {})
        specs.append(
            {
                **c,
                "name": name,
                "argv": argv,
                "environ": environ,
                "metrics_port": annotations.get("prometheus.io/port"),
                "metrics_path": annotations.get("prometheus.io/path", "/metrics"),
            }
        )
    return specs


def test_the_manifests_probes_answer_from_the_real_services(tmp_path: Path) -> None:
    for tool in ("unshare", "ip", "mount"):
        assert shutil.which(tool), f"{tool} is missing (util-linux, iproute2)"
    objects = rendered("prod")
    containers = _containers(objects, tmp_path)
    assert {c["name"] for c in containers} == {*LEXIO_SERVICES, "redis"}
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
    assert report["exits"] == {c["name"]: 0 for c in containers}, logs


def env_of(containers: list[Obj], name: str) -> dict[str, str]:
    (c,) = (c for c in containers if c["name"] == name)
    return {e["name"]: e["value"] for e in c.get("env", [])}
