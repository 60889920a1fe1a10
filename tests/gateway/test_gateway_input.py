"""Bad input gets a stable error and changes nothing; the web's own defences."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest
from gateway_play import seated_table, server_error, started_game, started_table
from lexio_testing import GatewayFactory, LoopThread

from lexio_client import GatewayClient
from lexio_gateway.config import GatewayConfig


async def _error_for(client: GatewayClient, raw: str) -> dict[str, Any]:
    seen = len(client.frames)
    await client.send_raw(raw)
    return await client.wait_for(lambda f: f["type"] == "error" and len(client.frames) > seen)


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("{not json", "bad_json"),
        ("[1, 2]", "bad_frame"),
        ('{"no_type": 1}', "bad_frame"),
        ('{"type": "teleport", "id": "x"}', "unknown_type"),
        ('{"type": "act", "id": 7}', "bad_frame"),
        ('{"type": "act", "id": "a1", "action": {"place": {"tiles": "nope"}}}', "bad_action"),
        ('{"type": "act", "id": "a2", "action": {"pass_turn": {}, "exchange": {}}}', "bad_action"),
        (
            '{"type": "act", "id": "a3", "action": {"place": {"tiles": '
            '[{"row": 6, "col": 6, "letter": "É"}]}}}',
            "bad_action",
        ),
        ('{"type": "act", "id": "a4", "action": {"exchange": {"tiles": ""}}}', "bad_action"),
        ('{"type": "act", "id": "a5", "action": "pass"}', "bad_frame"),
        ('{"type": "create", "id": "c1", "name": "Ana"}', "already_seated"),
        ('{"type": "start", "id": "s1"}', "game_started"),
        ('{"type": "rematch", "id": "r1"}', "not_over"),
        ('{"type": "hello", "protocol": 99}', "protocol_version"),
    ],
)
def test_bad_frames_get_a_stable_error_and_change_nothing(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, raw: str, code: str
) -> None:
    gateway = gateway_factory()

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, bruno):
            before = ana.view
            error = await _error_for(ana, raw)
            assert error["code"] == code
            await asyncio.sleep(0.05)
            assert ana.view == before and ana.seq == 0
            await ana.pass_turn()  # the connection and the game go on
            await bruno.wait_view(1)
            assert [e["kind"] for e in bruno.log] == ["pass"]

    loop_thread.run(scenario(), timeout=30)


def test_before_hello_and_without_a_seat(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory()

    async def scenario() -> None:
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"{gateway.url}/ws") as ws,
        ):
            await ws.send_str(json.dumps({"type": "ping"}))
            assert json.loads((await ws.receive()).data)["code"] == "hello_first"
        async with GatewayClient.connect(gateway.url) as guest:
            cases: list[tuple[dict[str, Any], str]] = [
                ({"type": "act", "action": {"pass_turn": {}}}, "not_seated"),
                ({"type": "start"}, "not_seated"),
                ({"type": "leave"}, "not_seated"),
                ({"type": "join", "code": "ZZZZZ-ZZZZZ", "name": "Eve"}, "unknown_code"),
                ({"type": "join", "code": "ZZ", "name": "Eve"}, "invalid_code"),
                ({"type": "join", "code": "K7QF3-XMP9R", "name": "  "}, "invalid_name"),
                ({"type": "create", "name": "a" * 25}, "invalid_name"),
                ({"type": "create", "name": "bell\u0007"}, "invalid_name"),
                ({"type": "create", "name": "Eve", "game": "chess"}, "unknown_game"),
            ]
            for frame, code in cases:
                with server_error(code, what=frame):
                    await guest.request(frame)
        with server_error("bad_token"):
            async with GatewayClient.connect(gateway.url, token="not-a-token"):
                pass

    loop_thread.run(scenario(), timeout=30)


def test_lobby_refusals_reach_the_client(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory()

    async def scenario() -> None:
        names = ["Ana", "Bruno", "Chloé", "Dani"]
        async with seated_table(gateway.url, names) as clients:
            code = clients[0].table["code"]
            async with GatewayClient.connect(gateway.url) as fifth:
                with server_error("table_full"):
                    await fifth.join(code, "Eve")
            await started_table(clients)
        async with (
            started_game(gateway.url, ["Ana", "Bruno"]) as (ana, _),
            GatewayClient.connect(gateway.url) as late,
        ):
            with server_error("game_started", "unknown_code"):
                await late.join(ana.table["code"].lower().replace("-", " "), "Eve")

    loop_thread.run(scenario(), timeout=30)


def test_a_frame_over_16_kib_closes_with_1009_and_applies_nothing(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory()

    async def scenario() -> None:
        async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, _):
            huge = {"type": "act", "id": "big", "action": {"pass_turn": {}}, "pad": "x" * 17_000}
            await ana.send(huge)
            await asyncio.wait_for(ana.closed.wait(), 5)
            assert ana._ws is not None and ana._ws.close_code == 1009
            await ana.open()
            assert ana.view["turn"] == 0 and ana.seq == 0

    loop_thread.run(scenario(), timeout=30)


def test_too_many_frames_are_rate_limited(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory()

    async def scenario() -> None:
        async with GatewayClient.connect(gateway.url) as client:
            for _ in range(60):
                await client.send({"type": "ping"})
            await asyncio.sleep(0.3)
            codes = [f.get("code") for f in client.frames if f["type"] == "error"]
            assert "rate_limited" in codes
            assert sum(1 for f in client.frames if f["type"] == "pong") <= 45

    loop_thread.run(scenario(), timeout=30)


def test_the_frame_rate_limit_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert (GatewayConfig().frames_per_second, GatewayConfig().frame_burst) == (20.0, 40.0)
    monkeypatch.setenv("LEXIO_GATEWAY_FRAMES_PER_SECOND", "5")
    monkeypatch.setenv("LEXIO_GATEWAY_FRAME_BURST", "8")
    config = GatewayConfig.from_env()
    assert (config.frames_per_second, config.frame_burst) == (5.0, 8.0)


def test_websocket_from_another_site_is_refused(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory()

    async def scenario() -> None:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            async with GatewayClient.connect(gateway.url, origin="https://evil.example"):
                pass
        assert refused.value.status == 403
        async with GatewayClient.connect(gateway.url, origin=gateway.url) as same_site:
            assert same_site.games == {"lexio": True}

    loop_thread.run(scenario(), timeout=30)


def test_http_routes_carry_security_headers_and_metrics(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory()

    async def scenario() -> None:
        async with aiohttp.ClientSession() as session:
            async with session.get(f"{gateway.url}/healthz") as health:
                assert health.status == 200
                assert "frame-ancestors 'none'" in health.headers["Content-Security-Policy"]
                assert health.headers["X-Content-Type-Options"] == "nosniff"
            async with session.get(f"{gateway.url}/readyz") as ready:
                assert (ready.status, await ready.json()) == (200, {"status": "ready"})
            async with started_game(gateway.url, ["Ana", "Bruno"]) as (ana, _):
                await ana.pass_turn()
                async with session.get(f"{gateway.url}/metrics") as metrics:
                    text = await metrics.text()
            for name in (
                'lexio_gateway_turn_seconds_bucket{action="pass_turn",le="0.005",outcome="accepted"}',
                "lexio_gateway_connected_clients",
                "lexio_gateway_active_tables",
                "lexio_gateway_engine_call_seconds_count",
                "lexio_gateway_lobby_call_seconds_count",
            ):
                assert name.split("{")[0] in text and (("{" not in name) or name in text), name

    loop_thread.run(scenario(), timeout=30)
