"""The gateway's aiohttp application: routes, security headers, start-up and clean-up."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from http import HTTPStatus
from pathlib import Path
from typing import Final

import grpc
import redis.asyncio as aioredis
from aiohttp import hdrs, web
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import Gauge

from lexio_common import grpc_channel, redis_client
from lexio_common.supervise import stop_tasks, supervise
from lexio_gateway import state as keys
from lexio_gateway.bus import Bus, LocalBus, RedisBus
from lexio_gateway.config import GatewayConfig
from lexio_gateway.drain import send_away
from lexio_gateway.engine_watch import EngineWatch
from lexio_gateway.games import GameAdapter, build_adapter
from lexio_gateway.http_layer import SECURITY_HEADERS, error_answer, http_error_code
from lexio_gateway.hub import TableHub
from lexio_gateway.lobby_client import LobbyClient
from lexio_gateway.redis_store import RedisTableStore
from lexio_gateway.review import add_routes as add_review_routes
from lexio_gateway.services import TableSettings
from lexio_gateway.store import SqliteTableStore, TableStore
from lexio_gateway.ws import websocket

log = logging.getLogger(__name__)

STATIC: Final = Path(__file__).parent / "static"
LOBBY_SERVICE: Final = "lexio.lobby.v1.Lobby"
#: How often the gateway asks the lobby's health (for the gauge below and the log).
LOBBY_CHECK_SECONDS: Final = 2.0
LOBBY_CLOSE_SECONDS: Final = 1.0
"""How often finished tables still open in the lobby are tried again (TableHub.close_in_lobby)."""
LOBBY_READY: Final = Gauge(
    "lexio_gateway_lobby_ready",
    "1 while the lobby answers SERVING to this gateway (tables can be created and joined).",
)
LOBBY_READY.set(0)
READINESS: Final = web.AppKey("readiness", dict)
ENGINE_WATCH: Final = web.AppKey("engine_watch", EngineWatch)
SHUTTING_DOWN: Final = web.AppKey("shutting_down", asyncio.Event)
"""Set once the application's shutdown began: aiohttp runs ``on_shutdown`` again after
GatewayRunner's own call (http_layer.py), which must not drain a second time."""


@web.middleware
async def security_headers(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    try:
        response = await handler(request)
    except web.HTTPException as e:
        if e.status < HTTPStatus.BAD_REQUEST:
            e.headers.update(SECURITY_HEADERS)
            raise
        # aiohttp's own refusals (no route, a method the route lacks, a body too large) are
        # errors like the gateway's: {"error": code}.
        answer = error_answer(e.status, http_error_code(e.status))
        for name in (hdrs.ALLOW, hdrs.WWW_AUTHENTICATE, hdrs.RETRY_AFTER):
            if name in e.headers:
                answer.headers[name] = e.headers[name]
        return answer
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
    """Ready when this replica can play its part: its store answers, and its bus hears the
    other replicas (a deaf replica would keep its players one move behind). Not the lobby:
    games in play never call it, so a lobby outage must not take every gateway out of the
    load balancer. Meanwhile creating and joining answer ``unavailable``, the welcome's games
    are all unavailable, and ``lexio_gateway_lobby_ready`` is 0. Nor an engine that does not
    answer (an outage: games answer ``unavailable``); but an engine that answers without this
    gateway's contract is an older release's, met during a rolling update, and the replica is
    not ready until it is replaced."""
    hub = request.app[keys.HUB]
    reason = ""
    if not await hub.store.ping():
        reason = "store"
    elif not hub.bus.healthy:
        reason = "bus"
    elif request.app[ENGINE_WATCH].mismatched:
        reason = "engine_contract"  # an engine of an older release: lexio_gateway.engine_watch
    state = request.app[READINESS]
    if state.get("reason") != reason:
        log.info("readiness changed", extra={"ready": not reason, "reason": reason or None})
        state["reason"] = reason
    if reason:
        return _not_ready(reason)
    return web.json_response({"status": "ready"})


async def _watch_lobby(channel: grpc.aio.Channel, every: float = LOBBY_CHECK_SECONDS) -> None:
    """``lexio_gateway_lobby_ready`` and one log line per change: what an operator needs to
    see that the lobby is down, now that readiness does not say it."""
    stub = health_pb2_grpc.HealthStub(channel)
    last: bool | None = None
    while True:
        try:
            reply = await stub.Check(
                health_pb2.HealthCheckRequest(service=LOBBY_SERVICE), timeout=1.0
            )
            ready = reply.status == health_pb2.HealthCheckResponse.SERVING
        except grpc.aio.AioRpcError:
            ready = False
        LOBBY_READY.set(int(ready))
        if ready != last:
            (log.info if ready else log.warning)("lobby readiness changed", extra={"ready": ready})
            last = ready
        await asyncio.sleep(every)


def _game_adapters(
    config: GatewayConfig,
) -> tuple[dict[str, grpc.aio.Channel], dict[str, GameAdapter]]:
    """One adapter per configured game; one channel per engine address (games sharing the
    site's engine process share its channel)."""
    channels: dict[str, grpc.aio.Channel] = {}
    adapters: dict[str, GameAdapter] = {}
    for game in config.games:
        address = game.engine_address or config.engine_address
        channel = channels.get(address) or grpc_channel.insecure_channel(address)
        channels[address] = channel
        adapters[game.name] = build_adapter(
            game.name, channel, config.rpc_timeout, game.settings, stream=config.engine_stream
        )
    return channels, adapters


def _node_subscriber(url: str, host: str, port: int) -> aioredis.Redis:
    """The bus's subscriber to one master of the cluster ``url`` names."""
    return redis_client.connect_one(
        redis_client.node_url(url, host, port),
        timeout=2.0,
        name="lexio-gateway-bus",
        text=False,
        subscriber=True,
    )


def _services(
    clock: Callable[[], float], seeds: Callable[[str], int] | None
) -> Callable[[web.Application], AsyncIterator[None]]:
    async def services(app: web.Application) -> AsyncIterator[None]:
        """Open the store and the channels, resume the games in play; close them at the end."""
        config = app[keys.CONFIG]
        store: TableStore
        bus: Bus
        if config.redis_url:
            store = RedisTableStore.from_url(
                config.redis_url,
                clock,
                wait_replicas=config.redis_wait_replicas,
                seat_wait_replicas=config.redis_seat_wait_replicas,
                wait_timeout=config.redis_wait_timeout,
            )
            bus = RedisBus(
                redis_client.connect(
                    config.redis_url,
                    timeout=2.0,
                    name="lexio-gateway-bus",
                    text=False,
                    # On a cluster this client only publishes (each master's subscriber is
                    # another, _node_subscriber's): its calls get the time-out of any call.
                    subscriber=not redis_client.is_cluster_url(config.redis_url),
                ),
                node_client=functools.partial(_node_subscriber, config.redis_url),
            )
        else:
            store, bus = SqliteTableStore(config.db_path, clock), LocalBus()
        channels, adapters = _game_adapters(config)
        lobby_channel = grpc_channel.insecure_channel(config.lobby_address)
        hub = TableHub(
            store=store,
            bus=bus,
            lobby=LobbyClient(lobby_channel, config.rpc_timeout),
            adapters=adapters,
            settings=TableSettings(
                replay_events=config.replay_events,
                events_in_memory=config.events_in_memory,
                resumes_in_flight=config.resumes_in_flight,
                resume_patience=config.resume_patience,
            ),
            clock=clock,
            **({"seeds": seeds} if seeds else {}),
        )
        app[keys.HUB] = hub
        app[ENGINE_WATCH] = watch = EngineWatch(channels)
        resumed = await hub.recover()
        background = [
            asyncio.create_task(supervise("engine_watch", watch.run)),
            asyncio.create_task(supervise("bus", lambda: bus.run(hub.on_notice))),
            asyncio.create_task(supervise("lobby_watch", lambda: _watch_lobby(lobby_channel))),
            asyncio.create_task(
                supervise("lobby_close", lambda: hub.close_in_lobby(LOBBY_CLOSE_SECONDS))
            ),
            asyncio.create_task(
                supervise(
                    "record_expiry",
                    lambda: hub.expire_records(
                        config.record_sweep_seconds, config.record_retention_seconds
                    ),
                )
            ),
        ]
        if store.shared:
            background.append(
                asyncio.create_task(
                    supervise("keep_alive", lambda: hub.keep_alive(hub.settings.keep_alive))
                )
            )
        # Not "ready": that is /readyz's to say (it logs "readiness changed").
        log.info(
            "gateway started",
            extra={
                "games": {g.name: g.engine_address or config.engine_address for g in config.games},
                "games_resumed": resumed,
                "store": "redis" if store.shared else str(config.db_path),
                "replica": hub.replica,
                "record_retention_days": config.record_retention_days,
            },
        )
        yield
        await stop_tasks(background)
        for channel in channels.values():
            await channel.close()
        await lobby_channel.close()
        await bus.close()
        await store.close()

    return services


async def _on_shutdown(app: web.Application) -> None:
    """SIGTERM, once the listening socket is closed: send the players to the other replicas a
    batch at a time (drain.py: no reconnection storm), each after its table's turn in flight;
    then let the turns still in flight finish and reach their players (holding every room's
    lock, so that no new turn starts meanwhile), and tell whoever is left to reconnect.
    Bounded by the shutdown grace; logged from start to end."""
    if app[SHUTTING_DOWN].is_set():
        return
    app[SHUTTING_DOWN].set()
    hub = app[keys.HUB]
    config = app[keys.CONFIG]
    grace = config.shutdown_grace
    rooms = list(hub.rooms.values())
    started = time.monotonic()
    log.info("gateway draining", extra={"tables": len(rooms), "grace_s": grace})
    connections = list(hub.connections)
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(grace):
            await send_away(
                connections,
                within=grace * 2 / 3,
                rate=config.shutdown_rate,
                seats=hub.sent_away if config.redis_url else None,
            )
    left = max(0.0, grace - (time.monotonic() - started))
    held_rooms = 0
    async with contextlib.AsyncExitStack() as held:
        try:
            async with asyncio.timeout(left):
                for room in rooms:
                    await held.enter_async_context(room.lock)
                    held_rooms += 1
        except TimeoutError:
            log.warning(
                "turns still in flight at shutdown",
                extra={"tables_busy": len(rooms) - held_rooms, "grace_s": grace},
            )
        await hub.shutdown()
    log.info(
        "gateway drained",
        extra={"tables": len(rooms), "drain_s": round(time.monotonic() - started, 3)},
    )


def create_app(
    config: GatewayConfig,
    clock: Callable[[], float] = time.time,
    seeds: Callable[[str], int] | None = None,
) -> web.Application:
    """The gateway. ``clock`` and ``seeds`` (each game's bag seed from its table id) are
    injectable for tests; the process (``lexio-gateway``) never takes them."""
    app = web.Application(middlewares=[security_headers], client_max_size=64 * 1024)
    app[keys.CONFIG] = config
    app[READINESS] = {}
    app[SHUTTING_DOWN] = asyncio.Event()
    app.cleanup_ctx.append(_services(clock, seeds))
    app.on_shutdown.append(_on_shutdown)
    app.router.add_get("/", index)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    # No /metrics here: the public port answers 404; the metrics have a port of their own
    # (LEXIO_GATEWAY_METRICS_PORT), which only the monitoring namespace may reach.
    app.router.add_get("/ws", websocket)
    add_review_routes(app)
    if STATIC.is_dir():
        app.router.add_static("/static/", STATIC, append_version=False)
    return app
