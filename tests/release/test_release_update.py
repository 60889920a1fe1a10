"""A rolling update across the one engine contract (issue 38): games started by the previous
release finish on this one, on the same stores.

The previous release is the last commit before the contract (:data:`PREVIOUS_RELEASE`), taken
from this repository's history (``git archive``, its stubs generated with this venv's pinned
grpcio-tools) and run as its processes, exactly as operators ran it: engine, lobby and gateway
of that release (the lexicon's interface did not change; it is this release's in both halves).
Two players start a Lexio game and an al-Mishqaq game and make a few moves; every process is
stopped; this release's processes start on the same SQLite files (or the same Redis) and the
players come back with their seat tokens: the table, its sequence numbers and each seat's own
view are those they left, and the games play on to their end and are reviewed, which replays
them from the state the old engine wrote.

The order this needs in a deployment (the new engine beside the old one until no old gateway
is left) is docs/operations.md's "Rolling update across the one contract"; the second test
checks what enforces it: a gateway of this release takes no players while the engine at its
address is the previous release's.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from lexio_stack import Stack
from lexio_testing import LoopThread

from lexio_client import GatewayClient, ServerError
from lexio_common.procs import RedisServer, free_port
from lexio_lobby.games import SITE_GAMES_FILE

ROOT = Path(__file__).resolve().parents[2]
PREVIOUS_RELEASE = "fdd1f17"
"""The last commit whose engine served a gRPC service per game."""

# The site's games as the lobby offers them by default (names, seats, health names, options).
SITE_GAMES = {g["name"]: g for g in json.loads(SITE_GAMES_FILE.read_text(encoding="utf-8"))}
LEXIO, MISHQAQ = SITE_GAMES["lexio"], SITE_GAMES["mishqaq"]
UPDATED = ("engine", "lobby", "gateway")
CONTRACT = "lexio.game.v1.Engine"


@pytest.fixture(scope="module")
def previous_release(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The previous release's services as a PYTHONPATH (its code ahead of this one's)."""
    root = tmp_path_factory.mktemp("previous-release")
    archive = subprocess.run(
        ["git", "archive", PREVIOUS_RELEASE, "proto", "services"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    assert archive.returncode == 0, (
        f"the previous release {PREVIOUS_RELEASE} is not in this clone's history "
        f"(a shallow clone?): {archive.stderr.decode()}"
    )
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)
    protos = sorted(str(p.relative_to(root / "proto")) for p in (root / "proto").rglob("*.proto"))
    (root / "gen").mkdir()
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", "-I", "proto", "--python_out=gen",
         "--grpc_python_out=gen", *protos],
        cwd=root,
        check=True,
    )  # fmt: skip
    for directory in (root / "gen").rglob("*"):
        if directory.is_dir():
            (directory / "__init__.py").touch()
    tiers = ("common", "engine", "lobby", "gateway")
    return ":".join([*(str(root / "services" / t) for t in tiers), str(root / "gen")])


@pytest.fixture
def loop() -> Iterator[LoopThread]:
    thread = LoopThread()
    yield thread
    thread.close()


@pytest.fixture(params=["sqlite", "redis"])
def store_env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    if request.param == "sqlite":
        yield {}
        return
    server = RedisServer(str(tmp_path / "redis"), free_port())
    (tmp_path / "redis").mkdir()
    server.start()
    yield {"LEXIO_REDIS_URL": server.url}
    server.stop()


def _stack(root: Path, store_env: dict[str, str], pythonpath: str | None) -> Stack:
    stack = Stack.create(root, lobby_games=[LEXIO, MISHQAQ], **store_env)
    if pythonpath is not None:
        for name in UPDATED:
            stack[name].env["PYTHONPATH"] = pythonpath
    return stack


def _health(address: str, service: str) -> grpc.StatusCode:
    with grpc.insecure_channel(address) as channel:
        try:
            health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=5
            )
        except grpc.RpcError as e:
            code: grpc.StatusCode = e.code()
            return code
    return grpc.StatusCode.OK


def _review(url: str, table_id: str, token: str) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{url}/api/tables/{table_id}/review", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        review: dict[str, Any] = json.load(reply)
    return review


async def _begin(url: str) -> dict[str, Any]:
    """On the previous release: a Lexio game three moves in, an al-Mishqaq game one move in;
    what each seat knew when it left."""
    left: dict[str, Any] = {}
    for game, options in (("lexio", {}), ("mishqaq", {"latin_minutes": 20})):
        async with (
            GatewayClient.connect(url) as ana,
            GatewayClient.connect(url) as bruno,
        ):
            await ana.create("Ana", game=game, options=options)
            await bruno.join(ana.table["code"], "Bruno")
            await ana.wait_for(lambda f: f["type"] == "table" and len(f["seats"]) == 2)
            await ana.start()
            await bruno.wait_for(lambda f: f["type"] == "snapshot", since=0)
            if game == "lexio":
                moves: list[tuple[GatewayClient, dict[str, Any]]] = [
                    (ana, {"pass_turn": {}}),
                    (bruno, {"exchange": {"tiles": bruno.view["rack"][:2]}}),
                    (ana, {"pass_turn": {}}),
                ]
            else:
                mover = ana if ana.view["turn"] == ana.view["side"] else bruno
                moves = [(mover, {"pass_turn": {}})]
            for player, action in moves:
                ack = await player.act(action)
                for client in (ana, bruno):
                    await client.wait_view(ack["seq"])
            left[game] = {
                "table_id": ana.table["table_id"],
                "seats": [(c.token, c.seq, c.view, c.log) for c in (ana, bruno)],
            }
    return left


def _same_view(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What differs between two views, but for what moves with the clock (the instant of the
    view, the seconds left) and the log (a snapshot's view holds it; the log is compared
    apart)."""
    moving = {"now", "reserve_next_in", "latin_bank", "arabic_bank", "log"}
    return {k: v for k, v in after.items() if k not in moving and before.get(k) != v}


async def _finish(url: str, left: dict[str, Any]) -> None:
    """On this release: each seat comes back with its token, finds what it left, and the games
    play to their end."""
    for game, table in left.items():
        (ana_token, ana_seq, ana_view, ana_log), (bruno_token, bruno_seq, bruno_view, _) = table[
            "seats"
        ]
        async with (
            GatewayClient.connect(url, token=ana_token) as ana,
            GatewayClient.connect(url, token=bruno_token) as bruno,
        ):
            for client, seq, view in ((ana, ana_seq, ana_view), (bruno, bruno_seq, bruno_view)):
                await client.wait_for(lambda f: f["type"] == "snapshot", since=0)
                assert client.table["table_id"] == table["table_id"]
                assert client.view_seq == seq, (game, client.view_seq, seq)
                assert _same_view(view, client.view) == {}, game
            assert ana.log == ana_log, game
            if game == "lexio":
                # R31: two passes a seat with no placement between them end the game.
                while ana.view["ending"] is None:
                    mover = ana if ana.view["turn"] == ana.view["seat"] else bruno
                    ack = await mover.pass_turn()
                    for client in (ana, bruno):
                        await client.wait_view(ack["seq"])
                assert ana.view["ending"]["cause"] == "no_placement"
            else:
                ack = await bruno.act({"resign": {}})
                for client in (ana, bruno):
                    await client.wait_view(ack["seq"])
                assert ana.view["ending"]["cause"] == "resign"
                assert ana.view["ending"]["winner"] == ana.view["side"]
            with pytest.raises(ServerError):
                await ana.pass_turn()  # over: refused, as any finished game's action
            review = _review(url, table["table_id"], ana_token)
            assert len(review["steps"]) == len(review["entries"]) + 1 == ana.seq + 1, game
            assert review["entries"] == ana.log, game


def test_games_started_by_the_previous_release_finish_on_this_one(
    tmp_path: Path, loop: LoopThread, previous_release: str, store_env: dict[str, str]
) -> None:
    before = _stack(tmp_path, store_env, previous_release)
    try:
        before.start()
        # The previous release indeed: its engine answers without the one contract.
        assert _health(before["engine"].address, CONTRACT) == grpc.StatusCode.NOT_FOUND
        left = loop.run(_begin(before.gateway_url), timeout=60)
    finally:
        assert before.stop() == dict.fromkeys(("gateway", "lobby", "engine", "lexicon"), 0)

    after = _stack(tmp_path, store_env, None)
    try:
        after.start()
        loop.run(_finish(after.gateway_url, left), timeout=60)
    finally:
        statuses = after.stop()
    assert statuses == dict.fromkeys(("gateway", "lobby", "engine", "lexicon"), 0)


def _readiness(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"{url}/readyz", timeout=5) as reply:
            return reply.status, json.load(reply).get("reason", "")
    except urllib.error.HTTPError as e:
        return e.code, json.load(e).get("reason", "")
    except urllib.error.URLError:
        return 0, "not listening yet"


def _until(what: str, condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.05)


def test_a_gateway_of_this_release_takes_no_players_until_its_engine_serves_the_contract(
    tmp_path: Path, loop: LoopThread, previous_release: str
) -> None:
    """The mixed pair a rolling update can meet: this release's gateway (and lobby) with the
    previous release's engine at its address. The gateway answers, but is not ready
    (``engine_contract``), so a balancer sends it nobody; a player who reaches it all the same
    is told ``unavailable`` (try again), never ``internal``, and nothing is stored. Once the
    engine at that address is this release's, the gateway is ready and the same table starts."""
    stack = Stack.create(tmp_path, lobby_games=[LEXIO])
    stack["engine"].env["PYTHONPATH"] = previous_release
    try:
        stack.start(("lexicon", "engine", "lobby"))
        stack["gateway"].start()
        url = stack.gateway_url
        _until("the gateway answers not ready", lambda: _readiness(url) == (503, "engine_contract"))

        async def refused_then_played() -> None:
            async with (
                GatewayClient.connect(url) as ana,
                GatewayClient.connect(url) as bruno,
            ):
                await ana.create("Ana", game="lexio")
                await bruno.join(ana.table["code"], "Bruno")
                await ana.wait_for(lambda f: f["type"] == "table" and len(f["seats"]) == 2)
                with pytest.raises(ServerError) as refused:
                    await ana.start()
                assert refused.value.code == "unavailable"

                # The update reaches the engine: this release's, at the same address.
                assert stack["engine"].terminate() == 0
                del stack["engine"].env["PYTHONPATH"]
                await asyncio.to_thread(stack.start, ("engine",))
                await asyncio.to_thread(
                    _until, "the gateway is ready", lambda: _readiness(url) == (200, "")
                )
                await ana.start()
                await bruno.wait_for(lambda f: f["type"] == "snapshot", since=0)
                ack = await ana.pass_turn()
                await bruno.wait_view(ack["seq"])

        loop.run(refused_then_played(), timeout=60)
    finally:
        statuses = stack.stop()
    assert statuses == dict.fromkeys(("gateway", "lobby", "engine", "lexicon"), 0)
