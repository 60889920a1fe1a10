"""The real ``lexio-lobby`` process: configuration from the environment, readiness, SIGTERM,
the clear refusals to start, and two processes sharing one Redis."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from lexio_testing import RedisServer, free_port
from lobby_fixtures import MISHQAQ_JSON, race_joins

from lexio.lobby.v1 import lobby_pb2 as pb
from lexio.lobby.v1 import lobby_pb2_grpc

SCRIPT = str(Path(sys.executable).with_name("lexio-lobby"))
GAMES = json.dumps([{"name": "cards", "min_seats": 2, "max_seats": 4}])


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
    env.update(LEXIO_LOBBY_PORT="0", LEXIO_LOBBY_METRICS_PORT="-1", LEXIO_LOG_LEVEL="INFO")
    env.update(extra)
    return env


def _serve_and_stop(env: dict[str, str]) -> tuple[dict[str, object], str, str]:
    """Start the process, check health and create a table, SIGTERM it: (the "lobby serving"
    line, the created code, the rest of stderr)."""
    process = subprocess.Popen([SCRIPT], env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        serving: dict[str, object] = {}
        for line in process.stderr:  # JSON lines; the port is in "lobby serving"
            entry = json.loads(line)
            if entry["msg"] == "lobby serving":
                serving = entry
                assert entry["service"] == "lobby"
                break
        port = serving.get("port")
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
    return serving, created.invite_code, rest


def test_the_process_serves_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    db = tmp_path / "var" / "lobby.sqlite3"
    serving, _, _ = _serve_and_stop(_env(LEXIO_LOBBY_DB=str(db), LEXIO_LOBBY_GAMES=GAMES))
    assert serving["store"] == "sqlite"
    assert db.exists()


def test_the_process_serves_from_redis_and_never_logs_its_password(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    with redis.Redis.from_url(redis_server.url) as raw:
        raw.config_set("requirepass", "hunter2")
    url = f"redis://:hunter2@127.0.0.1:{redis_server.port}/0"
    db = tmp_path / "lobby.sqlite3"
    serving, code, rest = _serve_and_stop(
        _env(LEXIO_REDIS_URL=url, LEXIO_LOBBY_DB=str(db), LEXIO_LOBBY_GAMES=GAMES)
    )
    assert (serving["store"], serving["db"]) == (
        "redis",
        f"redis://127.0.0.1:{redis_server.port}/0",
    )
    assert "hunter2" not in json.dumps(serving) + rest
    assert not db.exists()
    with redis.Redis.from_url(url, decode_responses=True) as raw:
        assert raw.exists("lexio:lobby:code:" + code.replace("-", ""))


@contextmanager
def _running(env: dict[str, str]) -> Iterator[int]:
    """A lobby process, serving: its gRPC port. Stopped (SIGTERM, then kill) at the end."""
    process = subprocess.Popen([SCRIPT], env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        for line in process.stderr:
            entry = json.loads(line)
            if entry["msg"] == "lobby serving":
                port = int(entry["port"])
                break
        else:
            raise AssertionError("the lobby never said it was serving")
        yield port
        process.send_signal(signal.SIGTERM)
        process.stderr.read()
        assert process.wait(timeout=15) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_two_processes_on_one_redis_race_twenty_joins_for_three_seats(
    redis_server: RedisServer,
) -> None:
    env = _env(LEXIO_REDIS_URL=redis_server.url, LEXIO_LOBBY_GAMES=GAMES)
    with _running(env) as port_a, _running(env) as port_b:
        channels = [grpc.insecure_channel(f"127.0.0.1:{p}") for p in (port_a, port_b)]
        try:
            stubs = [lobby_pb2_grpc.LobbyStub(c) for c in channels]
            created = stubs[0].CreateTable(
                pb.CreateTableRequest(game="cards", player_id="p0", display_name="Ana"), timeout=5
            )
            seats, refused = race_joins(stubs, created.invite_code)
            assert sorted(seats) == [1, 2, 3]
            assert refused == ["table_full"] * 17
            table_id = created.table.table_id
            for stub in stubs:
                table = stub.GetTable(pb.GetTableRequest(table_id=table_id), timeout=5).table
                assert (len(table.seats), table.version) == (4, 4)
        finally:
            for channel in channels:
                channel.close()


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


def test_a_bad_option_stops_start_up_with_one_line_naming_the_game_and_the_option(
    tmp_path: Path,
) -> None:
    bad = {**MISHQAQ_JSON, "options": [{"name": "latin", "choices": ["fr", "en"], "default": "de"}]}
    err = _refuses(tmp_path, LEXIO_LOBBY_GAMES=json.dumps([bad]))
    (line,) = err.splitlines()
    assert json.loads(line)["msg"] == (
        "bad configuration: LEXIO_LOBBY_GAMES: game 'mishqaq', option 'latin': "
        "default 'de' is not one of the choices"
    )


def test_the_process_serves_the_options_its_environment_registers(tmp_path: Path) -> None:
    mishqaq = {k: v for k, v in MISHQAQ_JSON.items() if not k.startswith("health_")}
    env = _env(
        LEXIO_LOBBY_DB=str(tmp_path / "lobby.sqlite3"), LEXIO_LOBBY_GAMES=json.dumps([mishqaq])
    )
    with _running(env) as port, grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = lobby_pb2_grpc.LobbyStub(channel)
        (game,) = stub.ListGames(pb.ListGamesRequest(), timeout=5).games
        assert [o.name for o in game.options] == [o["name"] for o in MISHQAQ_JSON["options"]]
        created = stub.CreateTable(
            pb.CreateTableRequest(
                game="mishqaq",
                player_id="p0",
                display_name="Ana",
                options={"latin_minutes": pb.OptionValue(integer=40)},
            ),
            timeout=5,
        )
        found = stub.LookupCode(pb.LookupCodeRequest(invite_code=created.invite_code), timeout=5)
        assert found.options["latin_minutes"].integer == 40
        assert found.options["host_side"].text == "latin"


def test_an_unusable_store_stops_start_up(tmp_path: Path) -> None:
    (tmp_path / "not-a-dir").write_text("")
    err = _refuses(tmp_path, LEXIO_LOBBY_DB=str(tmp_path / "not-a-dir" / "lobby.sqlite3"))
    assert "cannot open the store" in err


def test_an_unreachable_redis_stops_start_up(tmp_path: Path) -> None:
    port = free_port()
    err = _refuses(tmp_path, LEXIO_REDIS_URL=f"redis://:hunter2@127.0.0.1:{port}/0")
    assert f"cannot reach Redis at redis://127.0.0.1:{port}/0" in err
    assert "hunter2" not in err
