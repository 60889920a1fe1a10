"""One start-up and shutdown for every process (issue 17, point 8): the four services refuse a
bad ``LEXIO_LOG_LEVEL`` the same way, and ``make run`` takes every port from the environment
(so that a second copy runs beside the first), its services finding each other there."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lexio_stack import clean_env, http_status
from ops_deploy import LEXIO_SERVICES

from lexio_common.devrun import PORTS
from lexio_common.procs import grpc_serving

BIN = Path(sys.executable).parent


@pytest.mark.parametrize("name", LEXIO_SERVICES)
def test_every_service_refuses_a_bad_log_level_in_one_line_with_status_2(name: str) -> None:
    done = subprocess.run(
        [str(BIN / f"lexio-{name}")],
        env=clean_env() | {"LEXIO_LOG_LEVEL": "LOUD"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    entry = json.loads(line)
    assert entry["service"] == name and entry["level"] == "error"
    assert entry["msg"] == "bad configuration: LEXIO_LOG_LEVEL is not a logging level"


def test_make_run_takes_every_port_from_the_environment(tmp_path: Path) -> None:
    env = clean_env() | dict.fromkeys(PORTS, "0")  # 0: a free port each
    env |= {
        "LEXIO_LOBBY_DB": str(tmp_path / "lobby.sqlite3"),
        "LEXIO_GATEWAY_DB": str(tmp_path / "gateway.sqlite3"),
        "LEXIO_LOG_LEVEL": "WARNING",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "lexio_common.devrun"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        printed = ""
        deadline = time.monotonic() + 90
        while "Ctrl-C" not in printed:
            assert time.monotonic() < deadline and process.poll() is None, printed
            printed += process.stdout.readline()
        addresses = dict(re.findall(r"^\s+(\w+)\s+\w+://(127\.0\.0\.1:\d+)$", printed, re.M))
        assert set(addresses) == set(LEXIO_SERVICES), printed
        defaults = {f"127.0.0.1:{port}" for port in (50051, 50052, 50053, 8080)}
        assert not set(addresses.values()) & defaults  # none of the fixed ports
        gateway = f"http://{addresses['gateway']}"
        assert f"Open {gateway}/ in two browsers" in printed
        assert http_status(f"{gateway}/readyz") == 200
        # The lobby checks the engine where it runs now (R18): both games are offered.
        assert grpc_serving(addresses["engine"], "lexio.engine.v1.Engine") is True
        assert grpc_serving(addresses["lobby"], "lexio.lobby.v1.Lobby") is True
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
