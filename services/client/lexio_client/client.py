"""One seat's connection to the gateway, over a real WebSocket.

>>> # async with GatewayClient.connect("http://127.0.0.1:8080") as ana:
>>> #     await ana.create("Ana");  code = ana.table["code"]

When the connection is lost (a replica killed, a network cut), a request waiting for its
answer raises :class:`ConnectionLostError`, which carries the frame as sent, id included;
:meth:`GatewayClient.reconnect` resumes the seat (with the backoff of
:mod:`lexio_client.backoff`, at the next of a load balancer's replicas) and the same frame
can then be sent again: for an ``act`` the id is its idempotency key, so an action applied
before the loss is answered its first ``ack`` and not applied twice.

>>> # try:
>>> #     await ana.act(action)
>>> # except ConnectionLostError as lost:
>>> #     await ana.reconnect([url_a, url_b])
>>> #     await ana.act(action, action_id=lost.frame["id"])
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import aiohttp

from lexio_client.backoff import Backoff

PROTOCOL_VERSION = 1
Frame = dict[str, Any]


class ServerError(Exception):
    """The gateway answered ``error`` (or ``refused``) to a request."""

    def __init__(self, frame: Frame) -> None:
        super().__init__(frame.get("code") or frame.get("reason"))
        self.frame = frame
        self.code: str = frame.get("code") or frame.get("reason") or "?"


class ConnectionLostError(ConnectionError):
    """The connection ended before the answer to ``frame`` came: it may or may not have been
    applied. Send ``frame`` again (same id) after :meth:`GatewayClient.reconnect`."""

    def __init__(self, frame: Frame) -> None:
        super().__init__(f"connection lost waiting for the answer to {frame.get('type')}")
        self.frame = frame


_LOSSES = (OSError, aiohttp.ClientError, TimeoutError)
"""What a failed connection attempt raises (ConnectionError is an OSError)."""


class GatewayClient:
    """Keeps what one seat knows: its token, the table, its view, the log, the last event seq.

    Every frame received is also appended to :attr:`frames`, so tests can inspect exactly what
    the server sent to this seat.
    """

    def __init__(
        self,
        session: aiohttp.ClientSession,
        base_url: str,
        origin: str | None,
        *,
        keep_frames: int | None = None,
    ) -> None:
        self.session = session
        self.base_url = base_url.rstrip("/")
        self._origin = origin
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._reader: asyncio.Task[None] | None = None
        self._ids = itertools.count(1)
        self._waiters: list[tuple[Callable[[Frame], bool], asyncio.Future[Frame]]] = []
        self.frames: list[Frame] = []
        """The frames received, oldest first: all of them, or the last ``keep_frames``."""
        self._keep_frames = keep_frames
        self._dropped = 0
        self.token: str | None = None
        self.player: str | None = None
        self.table: Frame = {}
        self.view: Frame = {}
        self.log: list[Frame] = []
        self.seq = -1
        self.view_seq = -1
        """The event the current view follows."""
        self.games: dict[str, bool] = {}
        self.retry_after = 0.0
        """Seconds the server asked this client to wait before its next try (a resume refused
        as ``busy``: ``reconnect`` with ``retry_after``); 0 if it asked nothing."""
        self.closed = asyncio.Event()
        self.on_frame: Callable[[Frame], object] | None = None
        """Called with every frame received (``lexio play`` prints them)."""
        self.on_close: Callable[[], object] | None = None
        """Called when the connection ends, however it ends."""

    @classmethod
    @asynccontextmanager
    async def connect(
        cls,
        base_url: str,
        *,
        token: str | None = None,
        origin: str | None = None,
        keep_frames: int | None = None,
    ) -> AsyncIterator[GatewayClient]:
        async with aiohttp.ClientSession() as session:
            client = cls(session, base_url, origin, keep_frames=keep_frames)
            client.token = token
            await client.open()
            try:
                yield client
            finally:
                await client.close()

    async def open(self, timeout: float = 10.0, *, until_caught_up: bool = False) -> None:
        """(Re)connect and say hello; with a token, resume the seat from the last seq seen.

        A resumed game returns after its catch-up (the missed events and a view, or a
        snapshot) or an error in its place. The gateway answers ``unavailable`` there when its
        engine or store is away and sends the catch-up by itself once they are back: with
        ``until_caught_up`` that wait is part of this one (and any other error raises)."""
        headers = {"Origin": self._origin} if self._origin else {}
        self._ws = await self.session.ws_connect(
            f"{self.base_url}/ws", headers=headers, heartbeat=None, compress=0
        )
        self.closed.clear()
        self._reader = asyncio.create_task(self._read(self._ws))
        hello: Frame = {"type": "hello", "protocol": PROTOCOL_VERSION}
        if self.token:
            hello["token"] = self.token
            if self.seq >= 0:
                hello["last_seq"] = self.seq
        # Every answer is expected before the hello goes out: the catch-up that follows a
        # resume may be many frames, and looking for them afterwards could miss them.
        welcomed = self._expect(lambda f: f["type"] in ("welcome", "error"))
        seated = self._expect(lambda f: f["type"] in ("table", "error"))
        caught_up = self._expect(
            lambda f: (
                f["type"] in ("view", "snapshot")
                or (
                    f["type"] == "error"
                    and not (until_caught_up and f.get("code") == "unavailable" and "id" not in f)
                )
            )
        )
        try:
            await self.send(hello)
            welcome = await asyncio.wait_for(welcomed, timeout)
            if welcome["type"] == "error":
                raise ServerError(welcome)
            self.games = welcome["games"]
            if not self.token:
                return
            table = await asyncio.wait_for(seated, timeout)
            if table["type"] == "error":
                raise ServerError(table)
            if table["state"] in ("started", "over"):
                # Resuming a game: the catch-up (events, then a view; or a snapshot) follows.
                caught = await asyncio.wait_for(caught_up, timeout)
                if until_caught_up and caught["type"] == "error":
                    raise ServerError(caught)
        finally:
            seated.cancel()
            caught_up.cancel()

    @property
    def connected(self) -> bool:
        """An open WebSocket (said hello to or not)."""
        return self._ws is not None and not self._ws.closed and not self.closed.is_set()

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            await self._reader

    async def drop(self) -> None:
        """Lose the connection without a goodbye (a network cut, as the server sees it)."""
        await self.close()

    async def reconnect(
        self,
        urls: Sequence[str] | None = None,
        *,
        backoff: Backoff | None = None,
        give_up_after: float = 60.0,
        timeout: float = 10.0,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> int:
        """After a lost connection: try again after each of ``backoff``'s delays, each try at
        the next of ``urls`` (a load balancer's replicas; by default this client's own
        ``base_url``), resuming the seat with its token and the last seq seen. Returns the
        number of tries once resumed and caught up (``welcome``, ``table``, then the missed
        events and a view, or a snapshot); raises the last failure once ``give_up_after``
        seconds have passed, and at once a refusal other than ``unavailable`` (``bad_token``).

        The first try waits too (a jittered 0–0.5 s): every seat of a dead replica loses its
        connection in the same instant, and their first tries must not all land together. A
        try the replica refused as busy (``reconnect`` with ``retry_after``, then the socket
        closed) is followed by a wait of at least ``retry_after``."""
        choices = [u.rstrip("/") for u in urls] if urls else [self.base_url]
        start = choices.index(self.base_url) + 1 if self.base_url in choices else 0
        backoff = backoff or Backoff()
        if self._ws is not None and not self._ws.closed:
            await self.drop()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + give_up_after
        attempt = 0
        while True:
            # A replica busy resuming others said when to come back: at least that long.
            await sleep(max(backoff.delay(attempt), self.retry_after))
            self.retry_after = 0.0
            self.base_url = choices[(start + attempt) % len(choices)]
            attempt += 1
            try:
                await self.open(timeout, until_caught_up=True)
                return attempt
            except ServerError as e:
                if e.code != "unavailable":
                    raise
                failure: Exception = e
            except _LOSSES as e:
                failure = e
            if self._ws is not None and not self._ws.closed:
                await self.drop()  # a half-made resume: the next try starts clean
            if loop.time() >= deadline:
                raise failure

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        try:
            async for message in ws:
                if message.type == aiohttp.WSMsgType.TEXT:
                    self._receive(json.loads(message.data))
        finally:
            self.closed.set()
            if self.on_close is not None:
                self.on_close()
            for _, future in self._waiters:
                if not future.done():
                    future.set_exception(ConnectionError("connection closed"))
            self._waiters.clear()

    @property
    def received(self) -> int:
        """How many frames this client has received since it was made (``wait_for``'s
        ``since`` counts in these, whatever ``keep_frames`` dropped)."""
        return self._dropped + len(self.frames)

    def _receive(self, frame: Frame) -> None:
        self.frames.append(frame)
        if self._keep_frames is not None and len(self.frames) > 2 * self._keep_frames:
            # Dropped in batches: one list shift per ``keep_frames`` frames, not per frame.
            drop = len(self.frames) - self._keep_frames
            del self.frames[:drop]
            self._dropped += drop
        if self.on_frame is not None:
            self.on_frame(frame)
        kind = frame["type"]
        if kind == "reconnect" and frame.get("retry_after"):
            self.retry_after = float(frame["retry_after"])
        if kind == "seated":
            self.token = frame["token"]
            self.player = frame["player"]
            self.log, self.view, self.seq, self.view_seq = [], {}, -1, -1
        elif kind == "table":
            self.table = frame
        elif kind == "snapshot":
            self.seq, self.view = frame["seq"], frame["view"]
            self.view_seq = frame["seq"]
            self.log = list(frame["view"]["log"])
        elif kind == "event":
            if frame["seq"] == self.seq + 1:
                self.log.append(frame["entry"])
                self.seq = frame["seq"]
        elif kind == "view":
            self.view = frame["view"]
            self.view_seq = frame["seq"]
        waiting = []
        for predicate, future in self._waiters:
            if future.done():
                continue  # timed out or no longer wanted
            if predicate(frame):
                future.set_result(frame)
            else:
                waiting.append((predicate, future))
        self._waiters = waiting

    def _expect(self, predicate: Callable[[Frame], bool]) -> asyncio.Future[Frame]:
        future: asyncio.Future[Frame] = asyncio.get_running_loop().create_future()
        self._waiters.append((predicate, future))
        return future

    async def wait_for(
        self, predicate: Callable[[Frame], bool], timeout: float = 10.0, since: int | None = None
    ) -> Frame:
        """The first frame that matches among those received from number ``since`` on (by
        default: the last one received), or the next one to come.

        ``since`` counts frames as :attr:`received` does: with ``keep_frames``, frames already
        dropped are no longer looked at."""
        start = self.received - 1 if since is None else since
        for frame in self.frames[max(0, start - self._dropped) :]:
            if predicate(frame):
                return frame
        return await asyncio.wait_for(self._expect(predicate), timeout)

    async def sync(self, timeout: float = 10.0) -> None:
        """A round trip (``ping``, ``pong``): once it returns, every frame the gateway had
        sent this connection before it read the ping has arrived, since one connection's frames
        keep their order. What a test waits on to say that nothing else came."""
        seen = self.received
        await self.send({"type": "ping"})
        await self.wait_for(lambda f: f["type"] == "pong", timeout, since=seen)

    async def send(self, frame: Frame) -> None:
        assert self._ws is not None
        await self._ws.send_str(json.dumps(frame))

    async def send_raw(self, text: str) -> None:
        assert self._ws is not None
        await self._ws.send_str(text)

    async def request(self, frame: Frame, timeout: float = 10.0) -> Frame:
        """Send with a fresh id (or the frame's own: a resend after a reconnect); return the
        answer, raising ServerError on error/refused and ConnectionLostError (which holds the frame
        as sent) when the connection ends first."""
        frame = {**frame, "id": frame.get("id") or f"r{next(self._ids)}"}
        answer = self._expect(lambda f: f.get("id") == frame["id"])
        try:
            if self._ws is None or self._ws.closed or self.closed.is_set():
                raise ConnectionResetError("not connected")
            await self.send(frame)
            reply = await asyncio.wait_for(answer, timeout)
        except TimeoutError:
            answer.cancel()
            seen = [f["type"] for f in self.frames[-6:]]
            raise TimeoutError(
                f"no answer to {frame['type']} {frame['id']} from {self.base_url} in {timeout} s"
                f" (connected: {self.connected}; the last frames: {seen})"
            ) from None
        except ConnectionError as e:
            answer.cancel()
            if self.connected:
                # The send failed on a closing transport before the reader saw the end: give
                # the socket up, or `connected` would still say yes and a caller that resends
                # after reconnecting would spin on it without ever yielding to the reader
                # (found by the replica-kill load run: two generators at 90 % CPU, 5 GB).
                await self.drop()
            raise ConnectionLostError(frame) from e
        if reply["type"] in ("error", "refused"):
            raise ServerError(reply)
        return reply

    # The protocol's requests --------------------------------------------------------

    async def create(
        self, name: str, game: str | None = None, options: Mapping[str, str | int] | None = None
    ) -> Frame:
        """Open a table of ``game`` (None: the gateway's default, the first game it serves)."""
        frame: Frame = {"type": "create", "name": name}
        if game is not None:
            frame["game"] = game
        if options:
            frame["options"] = dict(options)
        seated = await self.request(frame)
        await self.wait_for(lambda f: f["type"] == "table")
        return seated

    async def lookup(self, code: str) -> Frame:
        """What an invitation opens (game, options, seats), before joining."""
        return await self.request({"type": "lookup", "code": code})

    async def join(self, code: str, name: str) -> Frame:
        seated = await self.request({"type": "join", "code": code, "name": name})
        await self.wait_for(lambda f: f["type"] == "table")
        return seated

    async def leave(self) -> Frame:
        return await self.request({"type": "leave"})

    async def start(self) -> None:
        """Start the game (host); returns once this seat has its first snapshot."""
        frame_id = f"r{next(self._ids)}"
        snapshot = self._expect(lambda f: f["type"] == "snapshot")
        failed = self._expect(lambda f: f.get("id") == frame_id and f["type"] == "error")
        await self.send({"type": "start", "id": frame_id})
        done, _ = await asyncio.wait({snapshot, failed}, timeout=10, return_when="FIRST_COMPLETED")
        if failed in done:
            snapshot.cancel()
            raise ServerError(failed.result())
        failed.cancel()

    async def act(self, action: Frame, action_id: str | None = None) -> Frame:
        """Play; wait until this seat's view reflects the action's event. Lost on the way
        (ConnectionLostError): after :meth:`reconnect`, act again with ``lost.frame["id"]``."""
        frame = {"type": "act", "action": action, "id": action_id or f"r{next(self._ids)}"}
        ack = await self.request(frame)
        try:
            await self.wait_view(ack["seq"])
        except ConnectionError as e:
            raise ConnectionLostError(frame) from e
        return ack

    async def wait_view(self, seq: int, timeout: float = 10.0) -> None:
        """Until this seat's view is the one after event ``seq`` (an event frame comes before
        its view: having the event is not enough)."""
        if self.view_seq >= seq:
            return
        await self.wait_for(
            lambda f: f["type"] in ("view", "snapshot") and f["seq"] >= seq, timeout
        )

    async def place(self, *tiles: tuple[int, int, str] | tuple[int, int, str, bool]) -> Frame:
        return await self.act({"place": {"tiles": [_tile(t) for t in tiles]}})

    async def exchange(self, tiles: str) -> Frame:
        return await self.act({"exchange": {"tiles": tiles}})

    async def pass_turn(self) -> Frame:
        return await self.act({"pass_turn": {}})

    async def preview(self, *tiles: tuple[int, int, str] | tuple[int, int, str, bool]) -> Frame:
        return await self.request(
            {"type": "preview", "action": {"place": {"tiles": [_tile(t) for t in tiles]}}}
        )

    async def rematch(self) -> Frame:
        return await self.request({"type": "rematch"})


def _tile(t: tuple[int, int, str] | tuple[int, int, str, bool]) -> Frame:
    tile: Frame = {"row": t[0], "col": t[1], "letter": t[2]}
    if len(t) > 3 and t[3]:
        tile["blank"] = True
    return tile
