"""Run inside a private network namespace (test_ops_probes.py starts it): start every
container of the rendered manifests as the kubelet would (the image's entrypoint and ENV,
then the manifest's env and args; all at once, and again when one exits before it is ready),
with the Services' names resolving to this namespace's loopback, and report what the probes
and the metrics ports answer, and what Redis holds, as JSON on stdout.

Argument: a JSON file {"containers": [...], "workdir": "..."} written by the test.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

Obj = dict[str, Any]


def _port(container: Obj, port: int | str) -> int:
    if isinstance(port, int):
        return port
    return int(next(p["containerPort"] for p in container["ports"] if p.get("name") == port))


def probe(container: Obj, spec: Obj) -> tuple[bool, str]:
    """One probe, as the kubelet runs it against the pod's address."""
    timeout = float(spec.get("timeoutSeconds", 1))
    if "grpc" in spec:
        target = f"127.0.0.1:{spec['grpc']['port']}"
        with grpc.insecure_channel(target) as channel:
            try:
                reply = health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(service=spec["grpc"].get("service", "")),
                    timeout=timeout,
                )
            except grpc.RpcError as e:
                return False, f"grpc {target}: {e.code().name}"
        ok = reply.status == health_pb2.HealthCheckResponse.SERVING
        return ok, f"grpc {target} {spec['grpc'].get('service', '')}: {reply.status}"
    if "httpGet" in spec:
        get = spec["httpGet"]
        url = f"http://127.0.0.1:{_port(container, get['port'])}{get.get('path', '/')}"
        try:
            with urllib.request.urlopen(url, timeout=timeout) as reply:
                status = reply.status
        except urllib.error.HTTPError as e:
            status = e.code
        except OSError as e:
            return False, f"GET {url}: {e}"
        return 200 <= status < 400, f"GET {url}: {status}"
    if "tcpSocket" in spec:
        port = _port(container, spec["tcpSocket"]["port"])
        try:
            socket.create_connection(("127.0.0.1", port), timeout=timeout).close()
        except OSError as e:
            return False, f"tcp {port}: {e}"
        return True, f"tcp {port}: open"
    if "exec" in spec:
        command = spec["exec"]["command"]
        done = subprocess.run(
            command,
            check=False,
            capture_output=True,
            timeout=timeout + 5,
            env=container["environ"],  # an exec probe runs with the container's environment
        )
        return done.returncode == 0, f"exec {spec['exec']['command']}: {done.returncode}"
    return False, f"unknown probe {spec}"


#: Restarts of an exited container before the harness gives up on it.
MAX_RESTARTS = 3


def _start(container: Obj, workdir: Path) -> subprocess.Popen[bytes]:
    with (workdir / f"{container['name']}.log").open("ab") as log:
        return subprocess.Popen(
            container["argv"],
            env=container["environ"],
            stdout=log,
            stderr=log,
            stdin=subprocess.DEVNULL,
        )


def _redis_cli(*args: str, password: str = "") -> str:
    env = {**os.environ, "REDISCLI_AUTH": password} if password else None
    return subprocess.run(
        ["redis-cli", *args], check=False, capture_output=True, text=True, timeout=5, env=env
    ).stdout


def main() -> int:
    config = json.loads(Path(sys.argv[1]).read_text())
    workdir = Path(config["workdir"])
    containers: list[Obj] = config["containers"]
    processes: dict[str, subprocess.Popen[bytes]] = {}
    report: Obj = {"containers": {}, "restarts": {}}
    try:
        # All at once, in no particular order, as a cluster starts them.
        for c in containers:
            processes[c["name"]] = _start(c, workdir)
        deadline = time.monotonic() + 40
        for c in containers:
            name = c["name"]
            result: Obj = {"readiness": None, "liveness": None, "metrics": None}
            report["containers"][name] = result
            while True:
                ok, detail = probe(c, c["readinessProbe"])
                if ok or time.monotonic() > deadline:
                    result["readiness"] = [ok, detail]
                    break
                if processes[name].poll() is not None:
                    # restartPolicy Always: the kubelet starts an exited container again (a
                    # lobby that found Redis not yet listening exits 2 and comes back).
                    restarts = report["restarts"].get(name, 0)
                    if restarts >= MAX_RESTARTS:
                        result["readiness"] = [False, f"{detail}; exited {restarts + 1} times"]
                        break
                    report["restarts"][name] = restarts + 1
                    time.sleep(0.5 * (restarts + 1))
                    processes[name] = _start(c, workdir)
                    continue
                time.sleep(0.1)
        for c in containers:
            result = report["containers"][c["name"]]
            result["liveness"] = list(probe(c, c["livenessProbe"]))
            if c.get("metrics_port"):
                url = f"http://127.0.0.1:{c['metrics_port']}{c['metrics_path']}"
                try:
                    with urllib.request.urlopen(url, timeout=5) as reply:
                        result["metrics"] = [reply.status, reply.read().decode()]
                except OSError as e:
                    result["metrics"] = [0, str(e)]
        if "redis" in processes:
            password = next(c for c in containers if c["name"] == "redis")["environ"].get(
                "REDISCLI_AUTH", ""
            )
            report["redis_auth_required"] = "NOAUTH" in _redis_cli("ping")
            report["redis_clients"] = _redis_cli("client", "list", password=password).count("\n")
            report["redis_keys"] = sorted(
                _redis_cli("--scan", "--pattern", "lexio:*", password=password).split()
            )
            report["redis_config"] = {
                name: _redis_cli("config", "get", name, password=password).splitlines()[-1]
                for name in ("appendonly", "appendfsync", "maxmemory", "maxmemory-policy")
            }
    finally:
        exits: Obj = {}
        for process in processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for name, process in processes.items():
            try:
                exits[name] = process.wait(timeout=25)
            except subprocess.TimeoutExpired:
                process.kill()
                exits[name] = "killed"
        report["exits"] = exits
        report["logs"] = {
            name: (workdir / f"{name}.log").read_text(errors="replace")[-3000:]
            for name in processes
        }
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
