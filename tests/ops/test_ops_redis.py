"""Redis as prod runs it (issue 17, point 3), on a real redis-server with a password:

- the manifests: a password from the Secret for Redis and for every client (gateway, lobby,
  exporter), no unauthenticated access, an exporter, a disruption budget, the patch release;
- every client authenticates: the real gateway and lobby processes serve on a Redis that
  requires the password, and refuse to start (lobby) or report not ready (gateway) without it;
- the exporter (Debian's, as the sidecar runs it) exports every ``redis_*`` series the
  lexio.redis alerts read, with the values they expect of a healthy Redis.
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from lexio_stack import Stack, http_status
from ops_deploy import DEPLOY, container, env, find, rendered
from ops_prometheus import redis_exporter_text

from lexio_common.procs import RedisServer

PASSWORD = "5ec12e7" * 8


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(str(tmp_path), password=PASSWORD)
    server.extra_args = ["--maxmemory", "64mb", "--maxmemory-policy", "noeviction"]
    server.start()
    yield server
    server.stop()


@pytest.mark.parametrize("overlay", ["dev", "prod", "prod-ingress"])
def test_every_redis_client_takes_the_password_from_the_secret(overlay: str) -> None:
    objects = rendered(overlay)
    redis = find(objects, "StatefulSet", "redis")
    server, exporter = redis["spec"]["template"]["spec"]["containers"]
    args = server["args"]
    assert args[args.index("--requirepass") + 1] == "$(REDIS_PASSWORD)"
    assert "--protected-mode" not in args  # protected mode stays on; the password is required
    assert server["image"] == "docker.io/library/redis:7.2.12-bookworm"

    def secret_of(c: dict[str, object], name: str) -> dict[str, str]:
        (entry,) = [e for e in c["env"] if e["name"] == name]  # type: ignore[attr-defined]
        ref: dict[str, str] = entry["valueFrom"]["secretKeyRef"]
        return ref

    expected = {"name": "redis-auth", "key": "password"}
    assert secret_of(server, "REDIS_PASSWORD") == expected
    assert secret_of(server, "REDISCLI_AUTH") == expected  # the readiness probe's redis-cli
    assert secret_of(exporter, "REDIS_PASSWORD") == expected
    clients = ["gateway"] + (["lobby"] if overlay != "dev" else [])
    for name in clients:
        c = container(objects, name)
        assert secret_of(c, "REDIS_PASSWORD") == expected, name
        names = [e["name"] for e in c["env"]]
        assert names.index("REDIS_PASSWORD") < names.index("LEXIO_REDIS_URL"), name
        assert env(c)["LEXIO_REDIS_URL"] == "redis://:$(REDIS_PASSWORD)@redis:6379/0", name
    budget = find(objects, "PodDisruptionBudget", "redis")
    assert budget["spec"] == {
        "minAvailable": 1,
        "selector": {"matchLabels": {"app.kubernetes.io/name": "redis"}},
    }
    annotations = redis["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/port"] == "9121"
    assert {p["name"]: p["containerPort"] for p in exporter["ports"]} == {"metrics": 9121}
    # The Secret: generated for a developer's cluster; in prod made by the deploy tool.
    secrets = [o for o in objects if o["kind"] == "Secret"]
    assert [s["metadata"]["name"] for s in secrets] == (["redis-auth"] if overlay == "dev" else [])


def test_the_exporter_exports_what_the_redis_alerts_read(redis: RedisServer) -> None:
    program = shutil.which("prometheus-redis-exporter")
    assert program, "prometheus-redis-exporter is missing (make test installs it)"
    rules = (DEPLOY / "monitoring" / "lexio-rules.yml").read_text()
    group = next(g for g in yaml.safe_load(rules)["groups"] if g["name"] == "lexio.redis")
    read = {m for rule in group["rules"] for m in re.findall(r"\bredis_[a-z_]+", rule["expr"])}
    assert {"redis_up", "redis_memory_used_bytes", "redis_aof_last_write_status"} <= read

    def scrape(password: str) -> dict[str, float]:
        text = redis_exporter_text(redis.port, password)
        values = {}
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if name.startswith("redis_") and "{" not in name:
                values[name] = float(value)
        return values

    healthy = scrape(PASSWORD)
    assert read <= set(healthy), read - set(healthy)
    assert healthy["redis_up"] == 1
    assert healthy["redis_aof_enabled"] == 1
    assert healthy["redis_aof_last_write_status"] == 1
    assert healthy["redis_aof_last_bgrewrite_status"] == 1
    assert healthy["redis_memory_max_bytes"] == 64 * 1024 * 1024
    assert 0 < healthy["redis_memory_used_bytes"] < healthy["redis_memory_max_bytes"]
    # Without the password, Redis refuses the exporter: the alert's redis_up == 0.
    assert scrape("wrong")["redis_up"] == 0


def test_the_gateway_and_the_lobby_authenticate_and_need_the_password(
    tmp_path: Path, redis: RedisServer
) -> None:
    stack = Stack.create(tmp_path, LEXIO_REDIS_URL=redis.url)
    try:
        stack.start()  # both ready on a Redis that requires the password
        assert '"store": "redis"' in stack["lobby"].log()
        clients = redis.command("CLIENT", "LIST").decode()
        assert "lexio-gateway" in clients, clients
    finally:
        stack.stop()
    unauthenticated = f"redis://127.0.0.1:{redis.port}/0"
    lobby = stack["lobby"]
    lobby.env["LEXIO_REDIS_URL"] = unauthenticated
    lobby.start()
    assert lobby.process is not None
    assert lobby.process.wait(timeout=30) == 2
    assert "cannot open the store" in lobby.log()
    gateway = stack["gateway"]
    gateway.env["LEXIO_REDIS_URL"] = unauthenticated
    gateway.start()
    try:
        deadline = time.monotonic() + 20
        while http_status(f"{stack.gateway_url}/readyz") is None:
            assert gateway.process is not None and gateway.process.poll() is None, gateway.log()
            assert time.monotonic() < deadline, gateway.log()
            time.sleep(0.1)
        assert http_status(f"{stack.gateway_url}/readyz") == 503
    finally:
        gateway.terminate()
