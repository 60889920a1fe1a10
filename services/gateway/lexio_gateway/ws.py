"""The WebSocket endpoint: one handler per connection, one coroutine per frame type."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

from aiohttp import WSMsgType, web

from lexio_gateway import state as keys
from lexio_gateway.admission import ResumeRefusedError
from lexio_gateway.connection import Connection, TokenBucket
from lexio_gateway.games import ACTION_KINDS
from lexio_gateway.http_layer import error_answer
from lexio_gateway.hub import TableHub
from lexio_gateway.metrics import CONNECTED_CLIENTS, FRAMES, TURN_SECONDS
from lexio_gateway.protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    display_name,
    options_field,
    parse_frame,
    request_id,
    text_field,
)
from lexio_gateway.records import TableStatus
from lexio_gateway.room import CLOSE_TRY_AGAIN_LATER, TableRoom, room_of
from lexio_gateway.store import StoreUnavailableError

log = logging.getLogger(__name__)

Handler = Callable[[TableHub, Connection, dict[str, Any]], Awaitable[None]]


def _check_free(conn: Connection, action_id: str) -> None:
    """A connection holds one seat; once its game is over it may take a seat elsewhere."""
    room = room_of(conn)
    if conn.seat is not None and (room is None or room.record.status is not TableStatus.OVER):
        raise ProtocolError("already_seated", id=action_id)


def _room(conn: Connection, action_id: str | None = None) -> TableRoom:
    room = room_of(conn)
    if room is None or conn.seat is None:
        raise ProtocolError("not_seated", **({"id": action_id} if action_id else {}))
    return room


async def _hello(hub: TableHub, conn: Connection, frame: dict[str, Any]) -> None:
    # `type` and not `==`: true == 1 and 1.0 == 1 in Python, and neither is the version 1.
    protocol = frame.get("protocol")
    if type(protocol) is not int or protocol != PROTOCOL_VERSION:
        raise ProtocolError("protocol_version", supported=PROTOCOL_VERSION)
    conn.welcomed = True
    await conn.send(
        {
            "type": "welcome",
            "protocol": PROTOCOL_VERSION,
            "server_time": hub.clock(),
            "games": await hub.available_games(),
        }
    )
    token = frame.get("token")
    if token is None:
        return
    last_seq = frame.get("last_seq")
    if not isinstance(token, str) or len(token) > 128:
        raise ProtocolError("bad_frame", field="token")
    if last_seq is not None and (not isinstance(last_seq, int) or isinstance(last_seq, bool)):
        raise ProtocolError("bad_frame", field="last_seq")
    try:
        await hub.resume(conn, token, last_seq)
    except ResumeRefusedError as busy:
        # Nothing was done for the seat: the client comes back after the wait, here or on
        # another replica (docs/replicas.md, "When a replica dies").
        await conn.send(
            {"type": "reconnect", "reason": "busy", "retry_after": round(busy.retry_after, 1)}
        )
        await conn.close(CLOSE_TRY_AGAIN_LATER, "busy")


async def _create(hub: TableHub, conn: Connection, frame: dict[str, Any]) -> None:
    action_id = request_id(frame)
    _check_free(conn, action_id)
    game = frame.get("game", hub.default_game)
    if not isinstance(game, str):
        raise ProtocolError("bad_frame", id=action_id, field="game")
    options = options_field(frame, action_id)
    await hub.create(conn, action_id, _name(frame, action_id), game, options)


async def _lookup(hub: TableHub, conn: Connection, frame: dict[str, Any]) -> None:
    action_id = request_id(frame)
    try:
        code = text_field(frame, "code", 64)
    except ProtocolError:
        raise ProtocolError("bad_frame", id=action_id, field="code") from None
    await hub.lookup(conn, action_id, code)


async def _join(hub: TableHub, conn: Connection, frame: dict[str, Any]) -> None:
    action_id = request_id(frame)
    _check_free(conn, action_id)
    try:
        code = text_field(frame, "code", 64)
    except ProtocolError:
        raise ProtocolError("bad_frame", id=action_id, field="code") from None
    await hub.join(conn, action_id, code, _name(frame, action_id))


def _name(frame: dict[str, Any], action_id: str) -> str:
    try:
        return display_name(frame)
    except ProtocolError:
        raise ProtocolError("invalid_name", id=action_id) from None


async def _leave(hub: TableHub, conn: Connection, frame: dict[str, Any]) -> None:
    await hub.leave(conn, request_id(frame))


async def _start(hub: TableHub, conn: Connection, frame: dict[str, Any]) -> None:
    action_id = request_id(frame)
    await _room(conn, action_id).start(conn, action_id)


def _action(frame: dict[str, Any], action_id: str) -> dict[str, Any]:
    action = frame.get("action")
    if not isinstance(action, dict):
        raise ProtocolError("bad_frame", id=action_id, field="action")
    return action


async def _act(hub: TableHub, conn: Connection, frame: dict[str, Any]) -> None:
    action_id = request_id(frame)
    room = _room(conn, action_id)
    action = _action(frame, action_id)
    kind = next(iter(action), "none") if len(action) == 1 else "none"
    kind = kind if kind in ACTION_KINDS else "other"
    started = time.perf_counter()
    outcome = "error"
    try:
        outcome = await room.act(conn, action_id, action)
    finally:
        TURN_SECONDS.labels(game=room.record.game, action=kind, outcome=outcome).observe(
            time.perf_counter() - started
        )


async def _preview(hub: TableHub, conn: Connection, frame: dict[str, Any]) -> None:
    action_id = request_id(frame)
    await _room(conn, action_id).preview(conn, action_id, _action(frame, action_id))


async def _rematch(hub: TableHub, conn: Connection, frame: dict[str, Any]) -> None:
    await hub.rematch(conn, request_id(frame))


async def _ping(hub: TableHub, conn: Connection, frame: dict[str, Any]) -> None:
    await conn.send({"type": "pong"})


HANDLERS: dict[str, Handler] = {
    "hello": _hello,
    "create": _create,
    "lookup": _lookup,
    "join": _join,
    "leave": _leave,
    "start": _start,
    "act": _act,
    "preview": _preview,
    "rematch": _rematch,
    "ping": _ping,
}


STORE_RETRY_AFTER: Final = 1.0
"""Seconds a request the store could not answer is to be sent again after (``retry_after``)."""


async def handle_frame(hub: TableHub, conn: Connection, text: str) -> None:
    """One client frame: an answer, or an ``error`` frame; never an exception out of here."""
    frame_id: str | None = None
    try:
        frame = parse_frame(text)
        frame_id = frame.get("id")
        if not conn.bucket.take():
            # After parsing (frames are at most 16 KiB) so the refusal names the request:
            # the client knows which action to send again, and when.
            raise ProtocolError("rate_limited", retry_after=conn.bucket.retry_after())
        if not conn.welcomed and frame["type"] != "hello":
            raise ProtocolError("hello_first")
        await HANDLERS[frame["type"]](hub, conn, frame)
    except StoreUnavailableError:
        # Nothing was done: a store failing over, a slot of a Redis Cluster in motion (the
        # cluster client's own retries outlasted), a Redis restarting. Back in a second.
        unavailable: dict[str, Any] = {
            "type": "error",
            "code": "unavailable",
            "retry_after": STORE_RETRY_AFTER,
        }
        if frame_id is not None:
            unavailable["id"] = frame_id
        await conn.send(unavailable)
    except ProtocolError as e:
        error: dict[str, Any] = {"type": "error", "code": e.code, **e.params}
        if frame_id is not None:
            error.setdefault("id", frame_id)
        await conn.send(error)
    except Exception:
        log.exception("frame failed")
        error = {"type": "error", "code": "internal"}
        if frame_id is not None:
            error["id"] = frame_id
        await conn.send(error)


def _origin_allowed(request: web.Request, allowed: tuple[str, ...], require: bool) -> bool:
    origin = request.headers.get("Origin")
    if origin is None:
        # Every browser sends Origin on a WebSocket handshake, so a request without one is not
        # a page of another site riding a player's session (what the check is for): it is a
        # program (`lexio play`, a bot), which could forge any header anyway.
        return not require
    origin = origin.rstrip("/")
    if allowed:
        return origin in allowed
    return origin in (f"http://{request.host}", f"https://{request.host}")


def _caller(request: web.Request, trust_forwarded_for: bool) -> str:
    if trust_forwarded_for and (forwarded := request.headers.get("X-Forwarded-For")):
        return forwarded.split(",")[0].strip()
    return request.remote or "unknown"


async def websocket(request: web.Request) -> web.StreamResponse:
    config = request.app[keys.CONFIG]
    hub = request.app[keys.HUB]
    if not _origin_allowed(request, config.origins, config.require_origin):
        return error_answer(403, "origin_not_allowed")
    ws = web.WebSocketResponse(
        heartbeat=config.heartbeat,
        max_msg_size=config.max_frame_bytes,
        compress=config.ws_compress,
    )
    try:
        await ws.prepare(request)
    except ConnectionError:
        # The client left before the handshake's answer went out (a storm of resumes, a
        # phone that gave up): nothing to serve, and no error of ours.
        log.debug("client gone before the handshake")
        # Not ``ws``: aiohttp prepares what a handler returns, and a second prepare of a
        # handshake that failed raises RuntimeError ("Call .prepare() first", logged as an
        # unhandled error: 24 lines in a rolling update at 2,000 tables). A plain answer's
        # write fails as a closed transport's does, which aiohttp takes quietly.
        return web.Response(status=499, text="client gone")
    conn = Connection(
        ws,
        _caller(request, config.trust_forwarded_for),
        TokenBucket(config.frames_per_second, config.frame_burst),
    )
    hub.connections.add(conn)
    CONNECTED_CLIENTS.inc()
    try:
        async for message in ws:
            FRAMES.labels(direction="in").inc()
            if message.type == WSMsgType.TEXT:
                await handle_frame(hub, conn, message.data)
            elif message.type == WSMsgType.BINARY:
                await conn.send({"type": "error", "code": "bad_frame", "field": "type"})
    except ConnectionError:
        # The transport closed under a write of aiohttp's own (a close answer, a ping): the
        # client is gone, as when the loop ends (seen under a storm of resumes, issue 40).
        log.debug("client gone mid-connection")
    finally:
        hub.connections.discard(conn)
        CONNECTED_CLIENTS.dec()
        await hub.leave_room(conn)
    return ws
