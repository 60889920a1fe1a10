"""The gateway tier's registry (issue 24): one :class:`GatewayGame` per game, one list of the
games this build ships (``lexio_gateway/games/site.py``), and everything else derived from it:
the adapters (the one adapter over the engine's one contract, built from each registration),
the metrics' label sets, the protocol's action names, the games served by default and the game
a ``create`` that names none opens. And the promise it keeps with the lobby's and the
operations' tiers: no file of theirs names a game outside the game's own files and the one
list per tier."""

from __future__ import annotations

import ast
import asyncio
import importlib
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from lexio_testing import GatewayFactory, LoopThread
from prometheus_client import REGISTRY as REGISTRY_OF_METRICS

import lexio_gateway.games
from lexio_client import GatewayClient
from lexio_engine.games import GAMES as ENGINE_GAMES
from lexio_gateway.config import DEFAULT_GAMES, GameEndpoint, GatewayConfig
from lexio_gateway.games import (
    ACTION_KINDS,
    GAMES,
    METRIC_LABELS,
    REGISTRY,
    GatewayGame,
    build_adapter,
)
from lexio_gateway.games.adapter import ENGINE_RPCS, EngineGameAdapter
from lexio_gateway.games.registry import registry_of
from lexio_lobby.games import SITE_GAMES_FILE
from lexio_lobby.server import DEFAULT_GAMES as LOBBY_GAMES
from lexio_lobby.server import RunningLobby

#: The modules of lexio_gateway.games that are no game's: the contract, the one adapter and
#: their helpers.
SHARED_MODULES = {"adapter", "contract", "engine_call", "registry", "site"}


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
    assert list(REGISTRY) == list(METRIC_LABELS) == names
    for game in GAMES:
        assert REGISTRY[game.name] is game
        assert METRIC_LABELS[game.name] is game.metric_labels
        assert game.action_kinds == game.metric_labels.actions
        assert set(game.action_kinds) <= ACTION_KINDS
    assert frozenset(k for game in GAMES for k in game.action_kinds) == ACTION_KINDS
    with pytest.raises(ValueError, match="registered twice"):
        registry_of([GAMES[0], GAMES[0]])


def _built(loop_thread: LoopThread, game: str, settings: dict[str, Any]) -> object:
    """What ``build_adapter`` gives ``game`` with ``settings`` (on a channel it never calls),
    or the ValueError it raised."""

    async def build() -> object:
        channel = grpc.aio.insecure_channel("127.0.0.1:1")  # never called here
        try:
            return build_adapter(game, channel, 1.0, settings)
        except ValueError as e:
            return e
        finally:
            await channel.close()

    return loop_thread.run(build())


def _engine_call_series(game: str, rpc: str) -> float | None:
    labels = {"game": game, "rpc": rpc, "outcome": "ok"}
    return REGISTRY_OF_METRICS.get_sample_value("lexio_gateway_engine_call_seconds_count", labels)


def test_every_registered_game_is_built_by_the_one_adapter(loop_thread: LoopThread) -> None:
    """``build_adapter`` gives each game the one adapter over the engine's one contract, named
    as the game, with its series of every engine call at 0; a game the gateway does not have
    is a ValueError."""
    for game in GAMES:
        built = _built(loop_thread, game.name, {})
        assert isinstance(built, EngineGameAdapter), (game.name, built)
        assert built.name == game.name
        assert game.metric_labels.engine_rpcs == ENGINE_RPCS
        for rpc in ENGINE_RPCS:
            assert _engine_call_series(game.name, rpc) is not None, (game.name, rpc)
    unknown = "no-such-game"
    assert unknown not in REGISTRY
    assert isinstance(_built(loop_thread, unknown, {}), ValueError)


def test_a_games_unknown_setting_is_a_value_error_when_its_adapter_is_built(
    loop_thread: LoopThread,
) -> None:
    """A configuration (``LEXIO_GATEWAY_GAMES``'s ``settings``) that gives a game a setting it
    does not have fails when the gateway builds the game's adapter, not at its first table."""
    for game in GAMES:
        refused = _built(loop_thread, game.name, {"no_such_setting": 1})
        assert isinstance(refused, ValueError), (game.name, refused)
        assert "no_such_setting" in str(refused), (game.name, refused)


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


# No other file names a game ------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
GATEWAY_GAMES_DIR = ROOT / "services/gateway/lexio_gateway/games"
#: The gateway's, the lobby's and the operations' files (the web client, static/, keeps its own
#: registry and is checked by its own tests).
SCANNED = (ROOT / "services/gateway", ROOT / "services/lobby", ROOT / "deploy")
NOT_SCANNED = (ROOT / "services/gateway/lexio_gateway/static",)
#: The one list of each tier: the games the build ships (the engine's is in its own tier).
TIER_LISTS = frozenset({GATEWAY_GAMES_DIR / "site.py", SITE_GAMES_FILE})
#: "lexio" is also the site's namespace (packages, protos, metrics, Redis keys): only a
#: string that is exactly a game's name is looked for as Lexio, in Python modules.
SITE_NAMESPACE = "lexio"


def _game_names() -> set[str]:
    """Every game any tier registers: the engine's, the gateway's and the lobby's lists."""
    return {g.name for g in ENGINE_GAMES} | {g.name for g in GAMES} | {g.name for g in LOBBY_GAMES}


def _own_files(game: str) -> set[Path]:
    """A game's own files in these tiers: its adapter, and its bot in the reference client."""
    return {
        GATEWAY_GAMES_DIR / f"{game}.py",
        ROOT / "services/gateway/lexio_client" / f"{game}_bot.py",
    }


def _scanned_files() -> Iterator[Path]:
    for root in SCANNED:
        for path in sorted(root.rglob("*")):
            if (
                path.is_file()
                and not any(path.is_relative_to(d) for d in NOT_SCANNED)
                and "__pycache__" not in path.parts
                and not any(part.endswith(".egg-info") for part in path.parts)
            ):
                yield path


def names_game(game: str, text: str) -> bool:
    """Whether lower-case ``text`` names ``game``: its id, not inside a longer word or
    identifier (a game's id may be a fragment of a word: "nim" in "minimum").

    >>> names_game("nim", "the minimum"), names_game("nim", "nim_rules")
    (False, True)
    >>> names_game("mishqaq", "al-mishqaq")
    True
    """
    return re.search(rf"(?<![a-z0-9]){re.escape(game)}(?![a-z0-9])", text) is not None


def test_no_gateway_lobby_or_deploy_file_names_a_game_outside_its_own_places() -> None:
    """Issue 24: adding a game touches its own files and one list per tier. A file of the
    gateway (but the web client), the lobby or deploy/ (manifests, images, monitoring) that
    names a game — al-Mishqaq today, whatever game tomorrow — fails here, case-insensitively,
    in code, comments and configuration alike."""
    games = sorted(_game_names() - {SITE_NAMESPACE})
    assert "mishqaq" in games
    named: list[str] = []
    for path in _scanned_files():
        try:
            text = path.read_text(encoding="utf-8").lower()
        except UnicodeDecodeError:
            continue
        for game in games:
            if names_game(game, text) and path not in _own_files(game) | TIER_LISTS:
                named.append(f"{path.relative_to(ROOT)} names {game}")
    assert named == []


def test_no_shared_module_of_the_gateway_or_the_lobby_defaults_to_a_game() -> None:
    """No Python module but a game's own and the lists holds a game's name as a string (such
    as ``create``'s old default, "lexio"), the site's namespace included."""
    games = _game_names()
    named: list[str] = []
    for path in _scanned_files():
        if path.suffix != ".py" or path.is_relative_to(ROOT / "deploy"):
            continue  # deploy/'s tools say "lexio" of the site's objects (labels), never a game
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Constant)
                and node.value in games
                and path not in _own_files(str(node.value)) | TIER_LISTS
            ):
                named.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}")
    assert named == []
