"""Bad input gets a stable error and changes nothing; the web's own defences."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest
from gateway_play import seated_table, server_error, started_game, started_table
from lexio_testing import GatewayFactory, LoopThread, eventually
from prometheus_client import generate_latest

from lexio_client import GatewayClient
from lexio_gateway.config import GatewayConfig

# The store plays no part here (frames and headers are read before any store): SQLite only.
pytestmark = pytest.mark.one_store


async def _flood_with_pings(client: GatewayClient, count: int) -> list[dict[str, Any]]:
    """Send ``count`` pings at once; their answers. The gateway answers every frame it reads
    with exactly one frame: a ping its ``pong``, or an ``error`` (``rate_limited`` past the
    frame limit). No ``sync`` here: its own ping could be refused too."""
    seen = client.received

    def answers() -> list[dict[str, Any]]:
        return [f for f in client.frames[seen:] if f["type"] in ("pong", "error")]

    for _ in range(count):
        await client.send({"type": "ping"})
    await eventually(lambda: len(answers()) >= count, f"an answer to each of {count} pings")
    # None answered twice (of what has come by now), and nothing else sent.
    assert len(answers()) == count, answers()
    assert len(client.frames) - seen == count, client.frames[seen:]
    return answers()


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
        # Issue 12: a list where an object is expected, numbers that are not integers.
        ('{"type": "act", "id": "a6", "action": {"pass_turn": []}}', "bad_action"),
        ('{"type": "act", "id": "a7", "action": {"place": []}}', "bad_action"),
        ('{"type": "act", "id": "a8", "action": {"place": {"tiles": [[]]}}}', "bad_action"),
        ('{"type": "act", "id": "a9", "action": {"exchange": []}}', "bad_action"),
        (
            '{"type": "act", "id": "b1", "action": {"place": {"tiles": '
            '[{"row": 6.0, "col": 6, "letter": "A"}]}}}',
            "bad_action",
        ),
        (
            '{"type": "act", "id": "b2", "action": {"place": {"tiles": '
            '[{"row": true, "col": 6, "letter": "A"}]}}}',
            "bad_action",
        ),
        ('{"type": "act", "id": "b3", "action": {"pass_turn": {"cause": "clock"}}}', "bad_action"),
        ('{"type": "preview", "id": "b4", "action": {"place": []}}', "bad_action"),
        # Issue 12: valid JSON this server does not read: huge integers, NaN, infinity.
        ('{"type": "act", "id": "b5", "n": ' + "9" * 4301 + "}", "bad_json"),
        ('{"type": "act", "id": "b6", "n": ' + "1" * 40 + "}", "bad_json"),
        ('{"type": "act", "id": "b7", "n": NaN}', "bad_json"),
        ('{"type": "act", "id": "b8", "n": 1e999}', "bad_json"),
        ('{"type": "hello", "protocol": true}', "protocol_version"),
        ('{"type": "hello", "protocol": 1.0}', "protocol_version"),
        # Issue 36: a key twice, which a reader of the first value would take for another frame.
        (
            '{"type": "act", "id": "d1", "action": {"pass_turn": {}}, "action": {"pass_turn": {}}}',
            "bad_json",
        ),
        ('{"type": "act", "id": "d2", "id": "d3", "action": {"pass_turn": {}}}', "bad_json"),
        ('{"type": "ping", "type": "act", "id": "d4", "action": {"pass_turn": {}}}', "bad_json"),
        (
            '{"type": "act", "id": "d5", "action": {"place": {"tiles": '
            '[{"row": 6, "row": 7, "col": 6, "letter": "A"}]}}}',
            "bad_json",
        ),
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


@pytest.mark.parametrize(
    "raw",
    [
        '{"type": "hello", "protocol": ' + "1" * 4301 + "}",
        '{"type": "hello", "protocol": true}',
        '{"type": "hello", "protocol": 1.0}',
        '{"type": "hello", "protocol": "1"}',
    ],
)
def test_a_hello_that_is_not_exactly_version_1_gets_no_welcome(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, raw: str
) -> None:
    """Before hello too: a bad-input code, never ``internal``; the connection stays usable."""
    gateway = gateway_factory()

    async def scenario() -> None:
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"{gateway.url}/ws") as ws,
        ):
            await ws.send_str(raw)
            error = json.loads((await ws.receive()).data)
            assert error["type"] == "error"
            assert error["code"] in ("bad_json", "protocol_version")
            if error["code"] == "protocol_version":
                assert error["supported"] == 1
            await ws.send_str(json.dumps({"type": "ping"}))
            assert json.loads((await ws.receive()).data)["code"] == "hello_first"
            await ws.send_str(json.dumps({"type": "hello", "protocol": 1}))
            assert json.loads((await ws.receive()).data)["type"] == "welcome"

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
            answers = await _flood_with_pings(client, 60)
            codes = [f.get("code") for f in answers if f["type"] == "error"]
            assert "rate_limited" in codes and set(codes) == {"rate_limited"}
            assert sum(1 for f in answers if f["type"] == "pong") <= 45

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


def test_a_websocket_without_origin_is_a_program_and_accepted_unless_required(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """Browsers always send Origin; `lexio play` and bots send none (docs/protocol.md).
    LEXIO_GATEWAY_REQUIRE_ORIGIN=1 refuses them too."""
    lenient, strict = gateway_factory(), gateway_factory(require_origin=True)

    async def scenario() -> None:
        async with GatewayClient.connect(lenient.url) as program:
            assert program.games == {"lexio": True}
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            async with GatewayClient.connect(strict.url):
                pass
        assert refused.value.status == 403
        async with GatewayClient.connect(strict.url, origin=strict.url) as browser:
            assert browser.games == {"lexio": True}

    loop_thread.run(scenario(), timeout=30)


def test_the_require_origin_setting_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert not GatewayConfig().require_origin
    monkeypatch.setenv("LEXIO_GATEWAY_REQUIRE_ORIGIN", "1")
    assert GatewayConfig.from_env().require_origin


def test_rate_limited_answers_say_how_long_to_wait(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    """The lobby's join limit (10 unknown codes per 10 minutes per address) and the socket's
    frame limit both tell the client when to try again, in whole seconds."""
    gateway = gateway_factory()

    async def scenario() -> None:
        async with GatewayClient.connect(gateway.url) as guesser:
            for n in range(10):
                with server_error("unknown_code"):
                    await guesser.join(f"ZZZZ{'23456789AB'[n]}-ZZZZZ", "Eve")
            seen = guesser.received
            await guesser.send({"type": "join", "id": "j11", "code": "ZZZZZ-ZZZZZ", "name": "Eve"})
            error = await guesser.wait_for(lambda f: f.get("id") == "j11", since=seen)
            assert error["code"] == "rate_limited"
            assert type(error["retry_after"]) is int and 500 <= error["retry_after"] <= 600
        async with GatewayClient.connect(gateway.url) as flooder:
            answers = await _flood_with_pings(flooder, 60)
            limited = [f for f in answers if f.get("code") == "rate_limited"]
            assert limited and all(f["retry_after"] == 1 for f in limited)

    loop_thread.run(scenario(), timeout=60)


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
                # /metrics is not on the public port (it has a port of its own in the
                # process: tests/ops); in-process, the registry it would serve.
                async with session.get(f"{gateway.url}/metrics") as public:
                    assert public.status == 404
                text = generate_latest().decode()
            for name in (
                'lexio_gateway_turn_seconds_bucket{action="pass_turn",game="lexio",le="0.005",outcome="accepted"}',
                "lexio_gateway_connected_clients",
                "lexio_gateway_active_tables",
                "lexio_gateway_engine_call_seconds_count",
                "lexio_gateway_lobby_call_seconds_count",
            ):
                assert name.split("{")[0] in text and (("{" not in name) or name in text), name

    loop_thread.run(scenario(), timeout=30)
