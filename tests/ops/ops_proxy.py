"""A TCP proxy on 127.0.0.1 that can hold back the answers of the service behind it, so a
test can keep a call in flight for as long as it likes (a slow engine, seen from the gateway)."""

from __future__ import annotations

import asyncio
import contextlib


class DelayProxy:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.delay = 0.0
        """Seconds each chunk coming back from the target waits before it is passed on."""
        self.port = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self.port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, OSError):
                await task

    async def _accept(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            target_r, target_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            client_w.close()
            return
        for task in (
            asyncio.ensure_future(self._pump(client_r, target_w, delayed=False)),
            asyncio.ensure_future(self._pump(target_r, client_w, delayed=True)),
        ):
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, delayed: bool
    ) -> None:
        try:
            while data := await reader.read(65536):
                if delayed and self.delay:
                    await asyncio.sleep(self.delay)
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()
