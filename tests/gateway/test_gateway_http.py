"""Every HTTP answer of the gateway is one of its own (issue 36): requests aiohttp's parser
cannot read, and aiohttp's own refusals, get a JSON error with the security headers and
``no-store``; a malformed request is logged as a warning without a traceback and counted.

The requests go over a raw socket: an HTTP client would refuse to send most of them."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from lexio_testing import GatewayFactory, LoopThread
from prometheus_client import REGISTRY

from lexio_gateway.http_layer import SECURITY_HEADERS

# The store plays no part here (answered before any route, let alone a store): SQLite only.
pytestmark = pytest.mark.one_store

CLOSE = b"Host: x\r\nConnection: close\r\n\r\n"
"""The end of a well-formed request's head: the gateway closes after its answer."""
LONG_TOKEN = "x" * 9000
"""Over aiohttp's 8,190-byte limit for a header line."""


async def _exchange(url: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``request`` as it is and read the answer to the end (the gateway closes)."""
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(request)
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), timeout=10)
    finally:
        writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers, body


def _malformed(reason: str) -> float:
    value = REGISTRY.get_sample_value(
        "lexio_gateway_http_malformed_requests_total", {"reason": reason}
    )
    return value or 0.0


def _assert_gateway_answer(headers: dict[str, str], body: bytes, code: str) -> None:
    for name, value in SECURITY_HEADERS.items():
        assert headers.get(name.lower()) == value, (name, headers)
    assert headers.get("cache-control") == "no-store", headers
    assert headers.get("content-type", "").startswith("application/json"), headers
    assert json.loads(body) == {"error": code}


MALFORMED: list[Any] = [
    pytest.param(
        b"GET /api/tables/AAAA/review HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
        + LONG_TOKEN.encode()
        + b"\r\n\r\n",
        "line_too_long",
        id="authorization-over-8190-bytes",
    ),
    pytest.param(
        b"GET /api/tables/\xc3\xa9/review HTTP/1.1\r\nHost: x\r\n\r\n",
        "invalid_url",
        id="raw-utf8-in-the-path",
    ),
    pytest.param(
        b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        "line_too_long",
        id="request-line-over-8190-bytes",
    ),
    pytest.param(
        b"GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", "bad_message", id="bad-header"
    ),
    pytest.param(b"G(T / HTTP/1.1\r\nHost: x\r\n\r\n", "bad_method", id="bad-method"),
    pytest.param(b"GET / HTTP/9.9\r\nHost: x\r\n\r\n", "bad_request_line", id="http-9.9"),
    pytest.param(
        b"GET / HTTP/1.1\r\nHost: x\r\nX-Bad\x01Name: y\r\n\r\n", "bad_message", id="control-char"
    ),
    pytest.param(
        b"POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "bad_message",  # llhttp reports a chunk size as a message error
        id="bad-chunk-size",
    ),
]


@pytest.mark.parametrize(("request_bytes", "reason"), MALFORMED)
def test_a_request_the_parser_cannot_read_gets_the_gateways_json_answer(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    caplog: pytest.LogCaptureFixture,
    request_bytes: bytes,
    reason: str,
) -> None:
    gateway = gateway_factory()
    caplog.set_level(logging.DEBUG)
    before = _malformed(reason)
    status, headers, body = loop_thread.run(_exchange(gateway.url, request_bytes), timeout=20)
    assert status == 400
    _assert_gateway_answer(headers, body, "bad_request")
    assert _malformed(reason) == before + 1
    loud = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert loud == [], [(r.name, r.levelname, r.getMessage()) for r in loud]
    warned = [r for r in caplog.records if r.getMessage() == "malformed http request"]
    assert len(warned) == 1 and warned[0].levelno == logging.WARNING
    assert warned[0].__dict__["reason"] == reason


def test_many_malformed_requests_write_no_error_line(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """The report's 113 requests, which gave 113 error lines with a traceback."""
    gateway = gateway_factory()
    caplog.set_level(logging.DEBUG)

    async def scenario() -> list[int]:
        requests = [p.values[0] for p in MALFORMED] * 23
        return [(await _exchange(gateway.url, r))[0] for r in requests[:113]]

    assert loop_thread.run(scenario(), timeout=60) == [400] * 113
    assert [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info] == []


@pytest.mark.parametrize(
    ("request_bytes", "expected"),
    [
        (b"GET /no/such/page HTTP/1.1\r\n" + CLOSE, (404, "not_found", None)),
        (b"POST /healthz HTTP/1.1\r\nContent-Length: 0\r\n" + CLOSE,
         (405, "method_not_allowed", "allow")),
        (b"GET /api/tables/AAAA/review HTTP/1.1\r\nAuthorization: Bearer " + b"x" * 129
         + b"\r\n" + CLOSE,
         (401, "missing_token", "www-authenticate")),
    ],
)  # fmt: skip
def test_aiohttps_own_refusals_are_json_errors_with_the_headers(
    loop_thread: LoopThread,
    gateway_factory: GatewayFactory,
    request_bytes: bytes,
    expected: tuple[int, str, str | None],
) -> None:
    """Its status, its code, and the header of aiohttp's answer it keeps (if any)."""
    status, code, kept = expected
    gateway = gateway_factory()
    got, headers, body = loop_thread.run(_exchange(gateway.url, request_bytes), timeout=20)
    assert got == status
    _assert_gateway_answer(headers, body, code)
    if kept is not None:
        assert headers.get(kept), headers


def test_a_websocket_from_another_origin_is_a_json_error_with_the_headers(
    loop_thread: LoopThread, gateway_factory: GatewayFactory
) -> None:
    gateway = gateway_factory()
    request = (
        b"GET /ws HTTP/1.1\r\nHost: x\r\nOrigin: https://evil.example\r\nUpgrade: websocket\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        b"Sec-WebSocket-Version: 13\r\nConnection: close\r\n\r\n"
    )
    status, headers, body = loop_thread.run(_exchange(gateway.url, request), timeout=20)
    assert status == 403
    _assert_gateway_answer(headers, body, "origin_not_allowed")


def test_a_client_gone_before_the_websocket_handshake_is_answered_logs_no_error(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """A storm of resumes has clients that give up mid-handshake: their socket reset before
    the gateway's 101 goes out. That is a client gone, not an error of the gateway (a rolling
    update at 2,000 tables logged 24 'Unhandled exception: Call .prepare() first')."""
    gateway = gateway_factory()
    host, port = gateway.url.removeprefix("http://").split(":")
    upgrade = (
        b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )

    async def scenario() -> None:
        for _ in range(40):
            _reader, writer = await asyncio.open_connection(host, int(port))
            writer.write(upgrade)
            await writer.drain()
            writer.transport.abort()  # a reset, before the answer
        # The gateway still answers (and has handled the 40 by then: one event loop, in order).
        status, _headers, _body = await _exchange(gateway.url, b"GET /healthz HTTP/1.1\r\n" + CLOSE)
        assert status == 200

    with caplog.at_level(logging.WARNING):
        loop_thread.run(scenario())
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [f"{r.name}: {r.getMessage()}" for r in errors]
