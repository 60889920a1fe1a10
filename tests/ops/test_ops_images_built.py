"""The images, built for real with buildah (``make images``) and run (issue 17, point 4).

Slow (``make test-slow``): every image is built from its Dockerfile on the registry's base or,
where that cannot be pulled (this machine), on the base made from Debian's packages; then:

- each runs as user 10001, has no pip or setuptools, and holds exactly its own service's
  locked dependencies (``requirements/<service>.txt``, installed with ``--require-hashes``);
- the four run as containers (``buildah run``: the image's user, environment and file system,
  on this machine's loopback) wired together, and a game is played through the gateway's
  container with the real protocol client; the gateway's metrics port shows the build's
  revision and its public port answers 404 on ``/metrics``; each container stops on SIGTERM.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from lexio_stack import http_text
from lexio_testing import LoopThread
from ops_game import bot, pass_to_the_end, play_turns, started_table

from lexio_client import GatewayClient
from lexio_common.procs import free_port, grpc_serving, http_status

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy"))
import lexio_images  # noqa: E402

# Building the four images takes ~90 s on 2 cores (the base ~80 s more the first time).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
TAG = "slow-test"
REVISION = "built-by-test"


def _buildah(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["buildah", *args],
        env=lexio_images.buildah_env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert not check or done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def images() -> Iterator[dict[str, str]]:
    assert shutil.which("buildah"), "buildah is missing: make images installs it (apt, as root)"
    base = lexio_images.choose_base()
    started = time.monotonic()
    names = {
        service: lexio_images.build(service, base=base, tag=TAG, revision=REVISION)
        for service in lexio_images.SERVICES
    }
    print(f"built {len(names)} images on {base} in {time.monotonic() - started:.0f} s")
    for name in names.values():
        print(name, lexio_images.image_size(name))
    yield names
    for name in names.values():
        _buildah("rmi", name, check=False)


@pytest.fixture(scope="module")
def containers(images: dict[str, str]) -> Iterator[dict[str, str]]:
    made = {s: _buildah("from", "--quiet", image).stdout.strip() for s, image in images.items()}
    yield made
    for container in made.values():
        _buildah("rm", container, check=False)


def _config(image: str) -> dict[str, object]:
    inspected = json.loads(_buildah("inspect", "--type", "image", image).stdout)
    config: dict[str, object] = inspected["OCIv1"]["config"]
    return config


def _locked(service: str) -> set[str]:
    text = (ROOT / "requirements" / f"{service}.txt").read_text()
    return {m.lower().replace("_", "-") for m in re.findall(r"^([A-Za-z0-9_.-]+)==", text, re.M)}


def test_each_image_runs_unprivileged_without_an_installer_and_with_only_its_own_dependencies(
    images: dict[str, str], containers: dict[str, str]
) -> None:
    script = (
        "import importlib.metadata as m, importlib.util as u, json; "
        "print(json.dumps({'dists': sorted(d.metadata['Name'] for d in m.distributions()), "
        "'pip': bool(u.find_spec('pip')), 'setuptools': bool(u.find_spec('setuptools'))}))"
    )
    for service, image in images.items():
        config = _config(image)
        assert config["User"] == "10001:10001", service
        assert config["Entrypoint"] == [f"lexio-{service}"], service
        container = containers[service]
        done = _buildah("run", container, "--", "/opt/lexio/bin/python", "-c", script)
        found = json.loads(done.stdout)
        assert not found["pip"] and not found["setuptools"], (service, found)
        dists = {d.lower().replace("_", "-") for d in found["dists"]}
        assert dists == _locked(service) | {"lexio"}, (service, dists ^ _locked(service))
        # Nor the base's: no pip for the system's python3 either.
        system = _buildah("run", container, "--", "python3", "-c", "import pip", check=False)
        assert system.returncode != 0, service
        assert _buildah("run", container, "--", "id", "-u").stdout.strip() == "10001"
    assert "marisa-trie" in _locked("lexicon") and "marisa-trie" not in _locked("gateway")
    assert "aiohttp" in _locked("gateway") and "aiohttp" not in _locked("engine")
    assert "redis" not in _locked("engine") | _locked("lexicon")


class Container:
    """One image's entry point, run by ``buildah run`` with the given environment."""

    def __init__(self, service: str, container: str, env: dict[str, str], log: Path) -> None:
        self.service = service
        self.log_path = log
        flags = [f"--env={k}={v}" for k, v in env.items()]
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                ["buildah", "run", *flags, container, "--", f"lexio-{service}"],
                env=lexio_images.buildah_env(),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
            )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def _service_pid(self) -> int | None:
        """The service's own process under ``buildah run`` (buildah kills, not forwards, on
        SIGTERM: the kubelet's runtime signals the container's process itself)."""
        pending = [self.process.pid]
        while pending:
            pid = pending.pop()
            try:
                children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if pid != self.process.pid and any(
                part.endswith(f"lexio-{self.service}".encode()) for part in cmdline
            ):
                return pid
            pending.extend(int(c) for c in children)
        return None

    def stop(self) -> int:
        if self.process.poll() is None:
            pid = self._service_pid()
            if pid is not None:
                os.kill(pid, signal.SIGTERM)
            else:
                self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
            raise AssertionError(f"{self.service} ignored SIGTERM:\n{self.log()}") from None


def _wait(check: object, what: Container, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not callable(check) or not check():
        assert what.process.poll() is None, f"{what.service} exited:\n{what.log()}"
        assert time.monotonic() < deadline, f"{what.service} not ready:\n{what.log()}"
        time.sleep(0.2)


def test_a_game_is_played_through_the_gateways_container(
    containers: dict[str, str], tmp_path: Path
) -> None:
    ports = {name: (free_port(), free_port()) for name in lexio_images.SERVICES}
    lexicon, engine, lobby = (f"127.0.0.1:{ports[s][0]}" for s in ("lexicon", "engine", "lobby"))
    games = [
        {
            "name": "lexio",
            "min_seats": 2,
            "max_seats": 4,
            "health_address": engine,
            "health_service": "lexio.engine.v1.Engine",
        }
    ]
    envs = {
        "lexicon": {"LEXIO_LEXICON_HOST": "127.0.0.1"},
        "engine": {"LEXIO_ENGINE_HOST": "127.0.0.1", "LEXIO_LEXICON_ADDRESS": lexicon},
        "lobby": {"LEXIO_LOBBY_HOST": "127.0.0.1", "LEXIO_LOBBY_GAMES": json.dumps(games)},
        "gateway": {
            "LEXIO_GATEWAY_HOST": "127.0.0.1",
            "LEXIO_ENGINE_ADDRESS": engine,
            "LEXIO_LOBBY_ADDRESS": lobby,
        },
    }
    running: dict[str, Container] = {}
    loop = LoopThread()
    try:
        for service in lexio_images.SERVICES:
            prefix = f"LEXIO_{service.upper()}"
            env = {
                **envs[service],
                f"{prefix}_PORT": str(ports[service][0]),
                f"{prefix}_METRICS_PORT": str(ports[service][1]),
            }
            running[service] = Container(
                service, containers[service], env, tmp_path / f"{service}.log"
            )
        health = {"lexicon": "lexio.lexicon.v1.Lexicon", "engine": "lexio.engine.v1.Engine"}
        health["lobby"] = "lexio.lobby.v1.Lobby"
        for service, name in health.items():
            address = f"127.0.0.1:{ports[service][0]}"
            _wait(lambda a=address, n=name: grpc_serving(a, n) is True, running[service], 120)
        url = f"http://127.0.0.1:{ports['gateway'][0]}"
        _wait(lambda: http_status(f"{url}/readyz") == 200, running["gateway"])

        async def play() -> None:
            clients = [GatewayClient(aiohttp.ClientSession(), url, None) for _ in range(2)]
            try:
                for client in clients:
                    await client.open()
                await clients[0].create("Ana")
                await clients[1].join(clients[0].table["code"], "Bruno")
                await started_table(clients)
                await play_turns(clients, bot(7), 4)
                await pass_to_the_end(clients)
            finally:
                for client in clients:
                    await client.close()

        loop.run(play(), timeout=120)
        assert http_status(f"{url}/metrics") == 404
        metrics_url = f"http://127.0.0.1:{ports['gateway'][1]}/metrics"
        text = http_text(metrics_url)
        assert f'revision="{REVISION}"' in text and 'service="gateway"' in text
        assert "lexio_gateway_turn_seconds_count" in text and "_created" not in text
    finally:
        loop.run(asyncio.sleep(0))
        loop.close()
        # Each container stops (stop() fails if one is still up 30 s after SIGTERM). How it
        # stops is not the service's to show here: under `buildah run --isolation chroot` the
        # signal reaches buildah's wrapper, which kills its child ("subprocess exited on
        # killed", status 1), so the service never sees a SIGTERM. That a service drains and
        # exits 0 on SIGTERM is tests/ops/test_ops_shutdown.py's, on the real processes; in a
        # cluster the runtime signals the container's own process.
        for container in reversed(running.values()):
            container.stop()
