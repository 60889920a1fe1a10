"""The real ``lexio-lobby`` process: configuration from the environment, readiness, SIGTERM,
and the clear refusals to start."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lexio.lobby.v1 import lobby_pb2 as pb
from lexio.lobby.v1 import lobby_pb2_grpc

SCRIPT = str(Path(sys.executable).with_name("lexio-lobby"))
GAMES = json.dumps([{"name": "cards", "min_seats": 2, "max_seats": 4}])


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
    env.update(LEXIO_LOBBY_PORT="0", LEXIO_LOBBY_METRICS_PORT="-1", LEXIO_LOG_LEVEL="INFO")
    env.update(extra)
    return env


def test_the_process_serves_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    db = tmp_path / "var" / "lobby.sqlite3"
    process = subprocess.Popen(
        [SCRIPT],
        env=_env(LEXIO_LOBBY_DB=str(db), LEXIO_LOBBY_GAMES=GAMES),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        port = None
        for line in process.stderr:  # JSON lines; the port is in "lobby serving"
            entry = json.loads(line)
            if entry["msg"] == "lobby serving":
                port = entry["port"]
                assert entry["service"] == "lobby"
                break
        assert port, "the lobby never said it was serving"
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="lexio.lobby.v1.Lobby"), timeout=5
            )
            assert health.status == health_pb2.HealthCheckResponse.SERVING
            created = lobby_pb2_grpc.LobbyStub(channel).CreateTable(
                pb.CreateTableRequest(game="cards", player_id="p0", display_name="Ana"), timeout=5
            )
        process.send_signal(signal.SIGTERM)
        rest = process.stderr.read()
        assert process.wait(timeout=15) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "lobby stopped" in rest
    assert created.invite_code.replace("-", "") not in rest
    assert db.exists()


def _refuses(tmp_path: Path, **env: str) -> str:
    done = subprocess.run(
        [SCRIPT],
        env=_env(**{"LEXIO_LOBBY_DB": str(tmp_path / "lobby.sqlite3"), **env}),
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2, done.stderr
    return done.stderr


def test_bad_configuration_stops_start_up_with_a_clear_message(tmp_path: Path) -> None:
    err = _refuses(tmp_path, LEXIO_LOBBY_GAMES='[{"name": "x", "min_seats": 5, "max_seats": 4}]')
    assert "LEXIO_LOBBY_GAMES" in err and "min_seats <= max_seats" in err
    err = _refuses(tmp_path, LEXIO_LOBBY_CODE_TTL="soon")
    assert "LEXIO_LOBBY_CODE_TTL must be a number" in err


def test_an_unusable_store_stops_start_up(tmp_path: Path) -> None:
    (tmp_path / "not-a-dir").write_text("")
    err = _refuses(tmp_path, LEXIO_LOBBY_DB=str(tmp_path / "not-a-dir" / "lobby.sqlite3"))
    assert "cannot open the store" in err
