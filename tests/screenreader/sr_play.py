"""The two seats of a screen reader game: the page Orca reads (read through Chromium's DevTools
port, never driven through it) and the other seat, played by the protocol client on the test's
event loop."""

from __future__ import annotations

import json
import random
import re
import time
import urllib.request
from collections.abc import Callable, Coroutine, Iterator, Mapping
from contextlib import AsyncExitStack
from typing import Any, TypeVar

import aiohttp
from lexio_testing import LoopThread
from lexio_words import french_index

from lexio_client import GatewayClient
from lexio_rules import Place, legal_placements

T = TypeVar("T")
Frame = dict[str, Any]


class PageProbe:
    """``Runtime.evaluate`` on the page's DevTools target: what the page knows (its view, its
    cursor, where the focus is), to choose the next key and to check what Orca said."""

    def __init__(self, loop_thread: LoopThread, port: int) -> None:
        self.loop_thread = loop_thread
        self.port = port
        self._stack = AsyncExitStack()
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._ids = 0

    def _page_socket(self, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json", timeout=5) as r:
                    targets = json.loads(r.read())
                pages = [
                    t
                    for t in targets
                    if t.get("type") == "page" and t["url"].startswith("http://127.0.0.1")
                ]
                if pages:
                    return str(pages[0]["webSocketDebuggerUrl"])
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"no page on Chromium's DevTools port {self.port}")
            time.sleep(0.1)

    def __enter__(self) -> PageProbe:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def connect(self) -> None:
        url = self._page_socket()

        async def open_socket() -> None:
            session = await self._stack.enter_async_context(aiohttp.ClientSession())
            self._ws = await session.ws_connect(url, max_msg_size=0)

        self.loop_thread.run(open_socket())

    def close(self) -> None:
        self.loop_thread.run(self._stack.aclose())

    def js(self, expression: str) -> Any:
        async def evaluate() -> Any:
            assert self._ws is not None
            self._ids += 1
            ident = self._ids
            await self._ws.send_json(
                {
                    "id": ident,
                    "method": "Runtime.evaluate",
                    "params": {"expression": expression, "returnByValue": True},
                }
            )
            async for message in self._ws:
                reply = json.loads(message.data)
                if reply.get("id") == ident:
                    return reply
            raise AssertionError("DevTools closed")

        reply = self.loop_thread.run(evaluate())
        result = reply.get("result", {})
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    def wait(self, expression: str, timeout: float = 15.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.js(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"still false after {timeout} s: {expression}")
            time.sleep(0.05)

    def view(self) -> dict[str, Any]:
        view: dict[str, Any] = self.js("window.lexio && window.lexio.view")
        return view

    def active(self, selector: str) -> bool:
        return bool(
            self.js(
                f"document.activeElement !== null && document.activeElement.matches({selector!r})"
            )
        )

    def cursor(self, board: str) -> tuple[int, int, list[str]]:
        """The keyboard cursor's cell and its classes (``dir-across``, ``dir-down``…)."""
        found = self.js(
            f"(() => {{ const c = document.querySelector('{board} .cell.cursor');"
            " return c && [Number(c.dataset.row), Number(c.dataset.col), [...c.classList]]; })()"
        )
        assert found, f"no cursor on {board}"
        return int(found[0]), int(found[1]), list(found[2])


class Seat:
    """The other seat: a protocol client on the test's loop, called synchronously."""

    def __init__(self, loop_thread: LoopThread, url: str) -> None:
        self.loop_thread = loop_thread
        self.url = url
        self._stack = AsyncExitStack()
        self.client: GatewayClient | None = None

    def __enter__(self) -> Seat:
        async def connect() -> GatewayClient:
            return await self._stack.enter_async_context(GatewayClient.connect(self.url))

        self.client = self.loop_thread.run(connect())
        return self

    def __exit__(self, *exc: object) -> None:
        self.loop_thread.run(self._stack.aclose())

    def run(
        self, make: Callable[[GatewayClient], Coroutine[Any, Any, T]], timeout: float = 30
    ) -> T:
        assert self.client is not None
        return self.loop_thread.run(make(self.client), timeout)

    @property
    def c(self) -> GatewayClient:
        assert self.client is not None
        return self.client

    def wait_frame(self, predicate: Callable[[Frame], bool], timeout: float = 20.0) -> Frame:
        """A frame this seat received (from the first on) that matches: the protocol's own
        condition, for what the other seat did."""
        return self.run(lambda c: c.wait_for(predicate, timeout, since=0), timeout + 5)

    def wait_log(self, length: int, timeout: float = 30.0) -> None:
        """Until this seat's log has ``length`` entries and its view follows them (checked as
        each frame comes)."""

        def done(_frame: Frame | None = None) -> bool:
            return len(self.c.log) >= length and self.c.view_seq >= self.c.seq

        if not done():
            self.run(lambda c: c.wait_for(done, timeout, since=c.received), timeout + 5)


def lexio_moves(board: str, rack: str, seed: int) -> Iterator[Place]:
    """Placements the rules and the French list accept, without a blank (a blank needs its
    dialog: typing its letter places a plain tile first)."""
    for place in legal_placements(board, rack, french_index(), random.Random(seed)):
        if not any(tile.blank for tile in place.tiles):
            yield place


def cell_name(row: int, col: int) -> str:
    return f"{chr(65 + col)}{row + 1}"


# A cell as Orca names it: "G7 : vide." (French), "A11: خالية" (Arabic), "L, 1 point, G7, …".
CELL_SAID = re.compile(r"(?<![A-Za-z])([A-W]\d{1,2}) ?: |[,،] ([A-W]\d{1,2})(?=[,،.]|$)")


def cells_said(texts: list[str]) -> list[str]:
    """The cells named in what Orca said, one per utterance that names one (in order)."""
    found = []
    for text in texts:
        match = CELL_SAID.search(text)
        if match:
            found.append(match.group(1) or match.group(2))
    return found


def points(count: int) -> str:
    return f"{count} point" if abs(count) < 2 else f"{count} points"


def names(seats: Mapping[int, str], seat: int) -> str:
    return seats[seat]
