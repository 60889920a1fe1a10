"""The games the lobby serves: names, seat limits, options, and whether each is ready to be played.

Games are configuration, not code: a game is a name, its seat limits, the table options it lets
the host fix with the invitation (:mod:`lexio_lobby.options`), and optionally a grpc.health.v1
check (an address and a service name) that says whether the game's back end can take a table
right now. The lobby refuses to open tables for a game whose check fails (the
site's R18: a game that could not be played is not offered). A game without a check is always
ready.

Readiness is cached for a short time (default 1 s), and concurrent askers share one check, so a
burst of creations costs the game's back end one health call, not one each.

The games this build of the site ships are configuration too: :data:`SITE_GAMES_FILE`, in the
format of ``LEXIO_LOBBY_GAMES``, which the lobby registers when that variable is unset
(:func:`site_games`). It is the lobby tier's one list of the site's games; no module of the
lobby names a game.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lexio_common import grpc_channel
from lexio_lobby.options import OptionConfigError, OptionSpec, check_registry, parse_option

log = logging.getLogger(__name__)

_NAME: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
MAX_SEATS_LIMIT: Final = 64


class GameConfigError(ValueError):
    """The games configuration cannot be used (the message says which entry and why)."""


@dataclass(frozen=True)
class GameSpec:
    """One registered game."""

    name: str
    min_seats: int
    max_seats: int
    #: ``host:port`` of a grpc.health.v1 server; None means "always ready".
    health_address: str | None = None
    #: The service name to check there ("" is the server's overall status).
    health_service: str = ""
    #: The options a table of this game is created with, in the order menus show them.
    options: tuple[OptionSpec, ...] = ()

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise GameConfigError(
                f"game name {self.name!r}: 1-32 of a-z 0-9 _ -, starting with a letter or digit"
            )
        if not 1 <= self.min_seats <= self.max_seats <= MAX_SEATS_LIMIT:
            raise GameConfigError(
                f"game {self.name!r}: need 1 <= min_seats <= max_seats <= {MAX_SEATS_LIMIT}"
            )
        try:
            check_registry(self.options)
        except OptionConfigError as e:
            raise GameConfigError(f"game {self.name!r}: {e}") from None


def _int(entry: Mapping[str, Any], key: str, where: str) -> int:
    value = entry.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise GameConfigError(f"{where}: {key} must be an integer")
    return value


def _spec(entry: object, where: str) -> GameSpec:
    if not isinstance(entry, dict):
        raise GameConfigError(f"{where}: each game is a JSON object")
    known = {"name", "min_seats", "max_seats", "health_address", "health_service", "options"}
    unknown = set(entry) - known
    if unknown:
        raise GameConfigError(f"{where}: unknown keys {sorted(unknown)}")
    name = entry.get("name")
    address = entry.get("health_address") or None
    service = entry.get("health_service", "")
    if not isinstance(name, str):
        raise GameConfigError(f"{where}: name must be a string")
    if address is not None and not isinstance(address, str):
        raise GameConfigError(f"{where}: health_address must be a string")
    if not isinstance(service, str):
        raise GameConfigError(f"{where}: health_service must be a string")
    return GameSpec(
        name=name,
        min_seats=_int(entry, "min_seats", where),
        max_seats=_int(entry, "max_seats", where),
        health_address=address,
        health_service=service,
        options=_options(entry.get("options", []), f"game {name!r}"),
    )


def _options(entries: object, where: str) -> tuple[OptionSpec, ...]:
    if not isinstance(entries, list):
        raise GameConfigError(f"{where}: options must be a list")
    try:
        return tuple(parse_option(entry, i) for i, entry in enumerate(entries))
    except OptionConfigError as e:
        raise GameConfigError(f"{where}, {e}") from None


def parse_games(text: str) -> tuple[GameSpec, ...]:
    """Games from JSON: a non-empty list of objects with ``name``, ``min_seats``,
    ``max_seats`` and optionally ``health_address``, ``health_service`` and ``options`` (a list
    of ``{"name", "choices", "default"}``, see :mod:`lexio_lobby.options`)."""
    try:
        entries = json.loads(text)
    except json.JSONDecodeError as e:
        raise GameConfigError(f"not JSON: {e}") from None
    if not isinstance(entries, list) or not entries:
        raise GameConfigError("expected a non-empty JSON list of games")
    return registry_of(_spec(entry, f"game #{i}") for i, entry in enumerate(entries))


def registry_of(specs: Iterable[GameSpec]) -> tuple[GameSpec, ...]:
    """The specs as a registry, refusing two games of one name."""
    specs = tuple(specs)
    names = [spec.name for spec in specs]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise GameConfigError(f"games registered twice: {duplicates}")
    return specs


SITE_GAMES_FILE: Final = Path(__file__).with_name("site_games.json")
"""The site's games as the lobby registers them by default: a ``LEXIO_LOBBY_GAMES`` document
whose games leave out ``health_address``: the site's engine process serves them all."""


def site_games(engine_address: str) -> tuple[GameSpec, ...]:
    """The games of :data:`SITE_GAMES_FILE`, each ready while the engine at ``engine_address``
    serves its health name (a game that names an address of its own keeps it).
    GameConfigError if the file is not a valid games list."""
    return tuple(
        game if game.health_address is not None else replace(game, health_address=engine_address)
        for game in parse_games(SITE_GAMES_FILE.read_text(encoding="utf-8"))
    )


@dataclass
class _Cached:
    ready: bool
    at: float


class GameReadiness:
    """Answers "can this game take a table now?" from each game's health check, cached."""

    def __init__(
        self,
        games: Sequence[GameSpec],
        *,
        timeout: float = 0.5,
        cache_seconds: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        on_result: Callable[[str, bool], None] | None = None,
    ) -> None:
        self._games = {game.name: game for game in games}
        self._timeout = timeout
        self._cache_seconds = cache_seconds
        self._clock = clock
        self._on_result = on_result
        self._channels: dict[str, grpc.aio.Channel] = {}
        self._cache: dict[str, _Cached] = {}
        self._pending: dict[str, asyncio.Future[bool]] = {}

    async def ready(self, name: str) -> bool:
        """Whether the registered game ``name`` passes its check (KeyError if unknown)."""
        game = self._games[name]
        if game.health_address is None:
            return True
        cached = self._cache.get(name)
        if cached is not None and self._clock() - cached.at < self._cache_seconds:
            return cached.ready
        pending = self._pending.get(name)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._pending[name] = future
        try:
            ready = await self._check(game, game.health_address)
            self._cache[name] = _Cached(ready, self._clock())
            future.set_result(ready)
        except BaseException:  # cancelled (shutting down): waiters are cancelled too
            future.cancel()
            raise
        finally:
            del self._pending[name]
        if cached is None or cached.ready != ready:
            log.info("game readiness changed", extra={"game": name, "ready": ready})
        if self._on_result is not None:
            self._on_result(name, ready)
        return ready

    async def check_all(self) -> None:
        """Ask every game's check (or its cache), so that ``on_result`` hears of each game
        even while nobody creates a table; a game without a check is reported ready."""
        checked: list[Awaitable[bool]] = []
        for name, game in self._games.items():
            if game.health_address is None:
                if self._on_result is not None:
                    self._on_result(name, True)
            else:
                checked.append(self.ready(name))
        await asyncio.gather(*checked)

    async def _check(self, game: GameSpec, address: str) -> bool:
        channel = self._channels.get(address)
        if channel is None:
            channel = grpc_channel.insecure_channel(address)
            self._channels[address] = channel
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = await stub.Check(
                health_pb2.HealthCheckRequest(service=game.health_service), timeout=self._timeout
            )
        except grpc.aio.AioRpcError as e:
            log.debug("readiness check failed", extra={"game": game.name, "code": e.code().name})
            return False
        return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)

    async def close(self) -> None:
        for channel in self._channels.values():
            await channel.close()
        self._channels.clear()
