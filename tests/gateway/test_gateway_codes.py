"""Every code that can reach a browser is documented (docs/protocol.md), and the lobby's and
the store's failures reach it as the documented ``unavailable`` (issue 13)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from gateway_play import server_error
from lexio_testing import (
    SHARED_LOOP_READINESS_TIMEOUT,
    GatewayFactory,
    LoopThread,
    RedisServer,
    site_games,
)

from lexio_client import GatewayClient
from lexio_engine.server import RunningEngine
from lexio_gateway.lobby_client import BROWSER_CODES
from lexio_gateway.metrics import ERRORS
from lexio_gateway.protocol import ERROR_CODES
from lexio_lobby.model import Reason as LobbyReason
from lexio_lobby.server import LobbyConfig, start_lobby
from lexio_rules import Reason as LexioReason

ROOT = Path(__file__).resolve().parents[2]
GATEWAY = ROOT / "services" / "gateway" / "lexio_gateway"
PROTOCOL = ROOT / "docs" / "protocol.md"


def _section(title: str) -> str:
    text = PROTOCOL.read_text(encoding="utf-8")
    start = text.index(title)
    end = text.find("\n#", start + len(title))
    return text[start : end if end >= 0 else None]


def documented_error_codes() -> set[str]:
    """The codes of the "Error codes" table: first column, each `code` in backquotes."""
    codes: set[str] = set()
    for line in _section("### Error codes").splitlines():
        if line.startswith("| `"):
            codes.update(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    return codes


def documented_refusal_reasons() -> set[str]:
    """The codes listed in the first paragraph of "Refusal reasons" (not its parentheses,
    which name fields)."""
    paragraph = _section("### Refusal reasons").split("\n\n")[1]
    return set(re.findall(r"`([a-z_]+)`", re.sub(r"\(.*?\)", "", paragraph, flags=re.S)))


def codes_raised_by_the_gateway() -> set[str]:
    """Every literal code given to ProtocolError or put in an ``error`` frame in the gateway."""
    codes: set[str] = set()
    for path in GATEWAY.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "ProtocolError"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                codes.add(str(node.args[0].value))
            if isinstance(node, ast.Dict):
                pairs = dict(zip(node.keys, node.values, strict=True))
                kind = next((v for k, v in pairs.items() if _is(k, "type")), None)
                code = next((v for k, v in pairs.items() if _is(k, "code")), None)
                if _is(kind, "error") and isinstance(code, ast.Constant):
                    codes.add(str(code.value))
    return codes


def _is(node: ast.AST | None, value: str) -> bool:
    return isinstance(node, ast.Constant) and node.value == value


def test_every_error_code_the_gateway_sends_is_documented() -> None:
    raised = codes_raised_by_the_gateway()
    assert {"bad_json", "unavailable", "internal", "rate_limited"} <= raised  # the scan works
    assert raised - documented_error_codes() == set()


def test_the_error_codes_label_set_is_the_documented_one_and_starts_at_zero() -> None:
    """``ERROR_CODES`` (the errors counter's series from the start) holds every code the
    gateway sends or lets through from the lobby, and no other."""
    assert documented_error_codes() == ERROR_CODES
    assert codes_raised_by_the_gateway() | BROWSER_CODES <= ERROR_CODES
    exported = {
        s.labels["code"]
        for metric in ERRORS.collect()
        for s in metric.samples
        if s.name == "lexio_gateway_errors_total"
    }
    assert exported >= ERROR_CODES


def test_every_lobby_code_let_through_is_documented_and_the_rest_become_unavailable() -> None:
    assert BROWSER_CODES - documented_error_codes() == set()
    assert "store_unavailable" not in BROWSER_CODES and "conflict" not in BROWSER_CODES
    assert {reason.value for reason in LobbyReason} >= BROWSER_CODES


def test_every_refusal_reason_of_the_engine_is_documented() -> None:
    assert {reason.value for reason in LexioReason} == documented_refusal_reasons()


@pytest.mark.parametrize("gateway_backend", ["sqlite"])
def test_creating_and_joining_while_the_lobbys_redis_is_down_is_unavailable(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    engine_server: RunningEngine,
    redis_server: RedisServer,
    tmp_path: Path,
) -> None:
    """The lobby says ``store_unavailable``; the browser hears ``unavailable`` (documented,
    translated): nothing changed, try again."""
    config = LobbyConfig(
        host="127.0.0.1",
        port=0,
        metrics_port=-1,
        db_path=tmp_path / "unused.sqlite3",
        games=site_games(f"127.0.0.1:{engine_server.port}"),
        readiness_timeout=SHARED_LOOP_READINESS_TIMEOUT,
        redis_url=redis_server.url,
    )
    lobby = loop_thread.run(start_lobby(config))
    try:
        gateway = gateway_factory(lobby_address=f"127.0.0.1:{lobby.port}")

        # The kill below must not cut off the table just created: with AOF everysec Redis may
        # hold a second or two of writes (more on a busy disk) that a kill -9 loses, which is
        # the documented window and not this test's subject. Each write fsynced before its
        # reply makes "nothing was lost" hold whatever the disk.
        redis_server.command("CONFIG", "SET", "appendfsync", "always")

        async def scenario() -> None:
            async with GatewayClient.connect(gateway.url) as ana:
                await ana.create("Ana")
                code = ana.table["code"]
                redis_server.stop(kill=True)
                async with GatewayClient.connect(gateway.url) as bruno:
                    with server_error("unavailable"):
                        await bruno.create("Bruno")
                    with server_error("unavailable"):
                        await bruno.join(code, "Bruno")
                redis_server.start()
                async with GatewayClient.connect(gateway.url) as bruno:
                    await bruno.join(code, "Bruno")  # nothing was lost: the table is there
                    assert [s["name"] for s in bruno.table["seats"]] == ["Ana", "Bruno"]

        loop_thread.run(scenario(), timeout=60)
    finally:
        loop_thread.run(lobby.stop(0))
