"""The gateway tier's registry (issue 24): one :class:`GatewayGame` per game, one list of the
games this build ships (``lexio_gateway/games/site.py``), and everything else derived from it:
the adapters, the metrics' label sets, the protocol's action names, the games served by
default and the game a ``create`` that names none opens."""

from __future__ import annotations

import asyncio
import importlib
import pkgutil
from typing import Any

import pytest
from lexio_testing import GatewayFactory, LoopThread

import lexio_gateway.games
from lexio_client import GatewayClient
from lexio_gateway.config import DEFAULT_GAMES, GameEndpoint, GatewayConfig
from lexio_gateway.games import (
    ACTION_KINDS,
    ADAPTER_TYPES,
    GAMES,
    METRIC_LABELS,
    REGISTRY,
    GatewayGame,
)
from lexio_gateway.games.registry import registry_of
from lexio_lobby.server import RunningLobby

#: The modules of lexio_gateway.games that are no game's: the contract and its helpers.
SHARED_MODULES = {"contract", "engine_call", "registry", "shape", "site"}


def _adapter_modules() -> list[Any]:
    names = [m.name for m in pkgutil.iter_modules(lexio_gateway.games.__path__)]
    return [
        importlib.import_module(f"lexio_gateway.games.{name}")
        for name in names
        if name not in SHARED_MODULES
    ]


def test_every_adapter_module_registers_itself_once_and_is_listed() -> None:
    modules = _adapter_modules()
    assert modules, "no adapter module found"
    for module in modules:
        assert isinstance(module.GAME, GatewayGame), module.__name__
    assert {module.GAME for module in modules} == set(GAMES)
    assert len({game.name for game in GAMES}) == len(GAMES)


def test_the_registry_is_derived_from_the_list() -> None:
    names = [game.name for game in GAMES]
    assert list(REGISTRY) == list(ADAPTER_TYPES) == list(METRIC_LABELS) == names
    for game in GAMES:
        assert ADAPTER_TYPES[game.name] is game.build
        assert METRIC_LABELS[game.name] is game.metric_labels
        assert game.action_kinds == game.metric_labels.actions
        assert set(game.action_kinds) <= ACTION_KINDS
    assert frozenset(k for game in GAMES for k in game.action_kinds) == ACTION_KINDS
    with pytest.raises(ValueError, match="registered twice"):
        registry_of([GAMES[0], GAMES[0]])


def test_without_configuration_the_gateway_serves_every_game_on_the_site_engine() -> None:
    assert tuple(GameEndpoint(game.name) for game in GAMES) == DEFAULT_GAMES
    assert GatewayConfig().games == DEFAULT_GAMES


def test_a_create_that_names_no_game_opens_the_first_configured_one(
    loop_thread: LoopThread, gateway_factory: GatewayFactory, two_games_lobby: RunningLobby
) -> None:
    """docs/protocol.md: ``create``'s ``game`` defaults to the first game the gateway is
    configured with. Both orders of the site's first two games, so that no name is the
    default by itself."""
    first, second = (game.name for game in GAMES[:2])

    async def created(url: str) -> str:
        async with GatewayClient.connect(url) as host:
            await host.request({"type": "create", "name": "Ana"})
            await host.wait_for(lambda f: f["type"] == "table")
            return str(host.table["game"])

    for order in ((first, second), (second, first)):
        gateway = gateway_factory(
            games=tuple(GameEndpoint(name) for name in order),
            lobby_address=f"127.0.0.1:{two_games_lobby.port}",
        )
        assert loop_thread.run(asyncio.wait_for(created(gateway.url), 30)) == order[0]
