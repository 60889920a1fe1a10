"""The gateway's aiohttp application: routes, security headers, start-up and clean-up."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Final

import grpc
from aiohttp import web
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from lexio_common import redis_client
from lexio_common.supervise import supervise
from lexio_gateway import state as keys
from lexio_gateway.bus import Bus, LocalBus, RedisBus
from lexio_gateway.config import GatewayConfig
from lexio_gateway.games import GameAdapter, build_adapter
from lexio_gateway.hub import TableHub
from lexio_gateway.lobby_client import LobbyClient
from lexio_gateway.redis_store import RedisTableStore
from lexio_gateway.services import TableSettings
from lexio_gateway.store import SqliteTableStore, TableStore
from lexio_gateway.ws import websocket

log = logging.getLogger(__name__)

STATIC: Final = Path(__file__).parent / "static"
LOBBY_SERVICE: Final = "lexio.lobby.v1.Lobby"

SECURITY_HEADERS: Final = {
    "Content-Security-Policy": (
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; "
        "script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
        "form-action 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}


@web.middleware
async def security_headers(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    try:
        response = await handler(request)
    except web.HTTPException as e:
        e.headers.update(SECURITY_HEADERS)
        raise
    if not response.prepared:
        response.headers.update(SECURITY_HEADERS)
        if request.path.startswith("/static/"):
            # Revalidate (ETag) on every load, so a deploy never mixes old and new modules.
            response.headers["Cache-Control"] = "no-cache"
    return response


async def index(request: web.Request) -> web.StreamResponse:
    page = STATIC / "index.html"
    if not page.exists():
        raise web.HTTPNotFound(text="the web client is not installed")
    return web.FileResponse(page, headers={"Cache-Control": "no-cache"})


async def healthz(request: web.Request) -> web.Response:
    return web.json_response({"status": "ok"})


def _not_ready(reason: str) -> web.Response:
    return web.json_response({"status": "not_ready", "reason": reason}, status=503)


async def readyz(request: web.Request) -> web.Response:
    """Ready when this replica can play: its store answers, its bus hears the other replicas
    (a deaf replica would keep players one move behind), and the lobby answers."""
    config = request.app[keys.CONFIG]
    hub = request.app[keys.HUB]
    if not await hub.store.ping():
        return _not_ready("store")
    if not hub.bus.healthy:
        return _not_ready("bus")
    try:
        async with grpc.aio.insecure_channel(config.lobby_address) as channel:
            reply = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=LOBBY_SERVICE), timeout=1.0
            )
        ready = reply.status == health_pb2.HealthCheckResponse.SERVING
    except grpc.aio.AioRpcError:
        ready = False
    if not ready:
        return _not_ready("lobby")
    return web.json_response({"status": "ready"})


async def metrics(request: web.Request) -> web.Response:
    response = web.Response(body=generate_latest())
    response.content_type = CONTENT_TYPE_LATEST.split(";")[0]
    return response


def _game_adapters(
    config: GatewayConfig,
) -> tuple[dict[str, grpc.aio.Channel], dict[str, GameAdapter]]:
    """One adapter per configured game; one channel per engine address (games sharing the
    site's engine process share its channel)."""
    channels: dict[str, grpc.aio.Channel] = {}
    adapters: dict[str, GameAdapter] = {}
    for game in config.games:
        address = game.engine_address or config.engine_address
        channel = channels.get(address) or grpc.aio.insecure_channel(address)
        channels[address] = channel
        adapters[game.name] = build_adapter(game.name, channel, config.rpc_timeout, game.settings)
    return channels, adapters


def _services(
    clock: Callable[[], float], seeds: Callable[[], int] | None
) -> Callable[[web.Application], AsyncIterator[None]]:
    async def services(app: web.Application) -> AsyncIterator[None]:
        """Open the store and the channels, resume the games in play; close them at the end."""
        config = app[keys.CONFIG]
        store: TableStore
        bus: Bus
        if config.redis_url:
            store = RedisTableStore.from_url(config.redis_url)
            bus = RedisBus(
                redis_client.connect(
                    config.redis_url,
                    timeout=2.0,
                    name="lexio-gateway-bus",
                    text=False,
                    subscriber=True,
                )
            )
        else:
            store, bus = SqliteTableStore(config.db_path), LocalBus()
        channels, adapters = _game_adapters(config)
        lobby_channel = grpc.aio.insecure_channel(config.lobby_address)
        hub = TableHub(
            store=store,
            bus=bus,
            lobby=LobbyClient(lobby_channel, config.rpc_timeout),
            adapters=adapters,
            settings=TableSettings(
                replay_events=config.replay_events,
                events_in_memory=config.events_in_memory,
            ),
            clock=clock,
            **({"seeds": seeds} if seeds else {}),
        )
        app[keys.HUB] = hub
        resumed = await hub.recover()
        background = [asyncio.create_task(supervise("bus", lambda: bus.run(hub.on_notice)))]
        if store.shared:
            background.append(
                asyncio.create_task(
                    supervise("keep_alive", lambda: hub.keep_alive(hub.settings.keep_alive))
                )
            )
        log.info(
            "gateway ready",
            extra={
                "games": {g.name: g.engine_address or config.engine_address for g in config.games},
                "games_resumed": resumed,
                "store": "redis" if store.shared else str(config.db_path),
                "replica": hub.replica,
            },
        )
        yield
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
        for channel in channels.values():
            await channel.close()
        await lobby_channel.close()
        await bus.close()
        await store.close()

    return services


async def _on_shutdown(app: web.Application) -> None:
    """SIGTERM, once the listening socket is closed: let the turns in flight finish and reach
    their players (holding every room's lock, so that no new turn starts meanwhile), then tell
    every client to reconnect. Bounded by the shutdown grace."""
    hub = app[keys.HUB]
    async with contextlib.AsyncExitStack() as held:
        try:
            async with asyncio.timeout(app[keys.CONFIG].shutdown_grace):
                for room in list(hub.rooms.values()):
                    await held.enter_async_context(room.lock)
        except TimeoutError:
            log.warning("turns still in flight at shutdown")
        await hub.shutdown()


def create_app(
    config: GatewayConfig,
    clock: Callable[[], float] = time.time,
    seeds: Callable[[], int] | None = None,
) -> web.Application:
    """The gateway. ``clock`` and ``seeds`` (each game's bag seed) are injectable for tests."""
    app = web.Application(middlewares=[security_headers], client_max_size=64 * 1024)
    app[keys.CONFIG] = config
    app.cleanup_ctx.append(_services(clock, seeds))
    app.on_shutdown.append(_on_shutdown)
    app.router.add_get("/", index)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics)
    app.router.add_get("/ws", websocket)
    if STATIC.is_dir():
        app.router.add_static("/static/", STATIC, append_version=False)
    return app
