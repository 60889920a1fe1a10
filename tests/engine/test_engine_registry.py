"""The engine tier's games come from one list (issue 24): each registration is served through
the one contract (lexio.game.v1.Engine) by a rules object that answers its calls, under its
health name, with its metrics' series from zero; and no game's rules import another's."""

from __future__ import annotations

import ast
import asyncio
import inspect
import re
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY

from lexio.game.v1 import game_pb2
from lexio_common.streamed_calls import unary_methods
from lexio_engine.contract import GameRules
from lexio_engine.games import GAMES
from lexio_engine.json_state import JsonStateGame
from lexio_engine.lexicon_client import LexiconClient
from lexio_engine.metrics import NO_ACTION, OUTCOMES
from lexio_engine.registry import RPCS, SERVICE_NAME, EngineContext, lexicons_of
from lexio_engine.server import initialise_metrics
from lexio_lexicon.catalog import LIST_IDS

ENGINE = Path(__file__).resolve().parents[2] / "services" / "engine"
#: Every game's rules package, found by name (``*_rules``), not listed: a new game's is held
#: to the same (issue 38: the check listed two of three).
RULES_PACKAGES = tuple(sorted(p.name for p in ENGINE.iterdir() if p.name.endswith("_rules")))
#: The contract's calls, as a game's rules object answers them (lexio_engine.contract).
CONTRACT_CALLS = ("start", "act", "on_clock", "view", "preview", "review")
#: The calls every game answers itself; the others a game may not offer (NotOfferedError).
OWN_CALLS = ("start", "act", "view")
#: Where the contract and what games share are written: no game's own call is defined there.
SHARED_MODULES = frozenset({GameRules.__module__, JsonStateGame.__module__})


def _imported(package: str) -> set[str]:
    """The top-level names of every module ``package``'s files import."""
    names: set[str] = set()
    for path in (ENGINE / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", RULES_PACKAGES)
def test_a_games_rules_import_the_kernel_and_no_other_games(package: str) -> None:
    assert len(RULES_PACKAGES) >= 3  # the discovery found the packages it is meant to
    others = set(RULES_PACKAGES) - {package}
    imported = _imported(package)
    assert "rules_core" in imported
    assert not imported & others, imported & others


def test_the_rules_kernel_is_standard_library_only() -> None:
    assert _imported("rules_core") <= {*sys.stdlib_module_names, "__future__", "rules_core"}


def test_each_registration_is_one_game_with_its_own_health_name() -> None:
    """One name per game (the calls' ``game``), one health name per game; the metrics count
    every call of the one contract, a streamed Act as the Act it is."""
    assert len({g.name for g in GAMES}) == len(GAMES)
    assert len({g.health_name for g in GAMES}) == len(GAMES)
    for game in GAMES:
        assert re.fullmatch(r"[a-z0-9_]+", game.name), game.name
        assert game.health_name == (game.health_service or f"{SERVICE_NAME}/{game.name}")
        assert game.action_kinds and len(set(game.action_kinds)) == len(game.action_kinds)
        assert (game.record_format is None) == (game.replay is None), game.name
    formats = [g.record_format for g in GAMES if g.record_format is not None]
    assert len(set(formats)) == len(formats)
    service = game_pb2.DESCRIPTOR.services_by_name["Engine"]
    assert service.full_name == SERVICE_NAME
    assert unary_methods(service.methods_by_name) == RPCS
    assert "Act" in RPCS and "ActStream" not in RPCS


def test_word_games_list_their_lexicons() -> None:
    """A game asks its words of the lists it names (which the lexicon ships), and only then:
    its health follows the lexicon's. A game that names none is not given the lexicon."""
    assert set(lexicons_of(GAMES)) <= set(LIST_IDS)
    assert any(game.asks_words for game in GAMES)
    rules = _built_rules()
    for game in GAMES:
        assert game.asks_words == bool(game.lexicons), game.name
        assert len(set(game.lexicons)) == len(game.lexicons), game.name
        lexicon, built = rules[game.name]
        holds_lexicon = any(value is lexicon for value in vars(built).values())
        assert holds_lexicon == game.asks_words, game.name


def _built_rules() -> dict[str, tuple[LexiconClient, object]]:
    """Each game's rules object, built as the process builds it, and the lexicon it was given
    (on a channel never called here)."""

    async def build() -> dict[str, tuple[LexiconClient, object]]:
        channel = grpc.aio.insecure_channel("127.0.0.1:1")
        try:
            lexicon = LexiconClient(channel, timeout=1.0)
            context = EngineContext(lexicon=lexicon)
            return {game.name: (lexicon, game.build(context)) for game in GAMES}
        finally:
            await channel.close()

    return asyncio.run(build())


def test_the_contract_calls_are_the_rules_protocols() -> None:
    members = {
        name for name, value in vars(GameRules).items() if inspect.iscoroutinefunction(value)
    }
    assert members == set(CONTRACT_CALLS)


def test_every_registered_game_answers_act_itself() -> None:
    """Each game's rules object, built as the process builds it, answers every call of the
    contract (the service awaits each), and start, act and view with code of its own: not
    the protocol's empty body, not a shared base's "not offered"."""
    for name, (_lexicon, rules) in _built_rules().items():
        for call in CONTRACT_CALLS:
            method = getattr(type(rules), call, None)
            assert method is not None, (name, call)
            assert inspect.iscoroutinefunction(method), (name, call)
            assert method is not getattr(GameRules, call), (name, call)
        for call in OWN_CALLS:
            assert getattr(type(rules), call).__module__ not in SHARED_MODULES, (name, call)


def test_every_registered_games_series_start_at_zero() -> None:
    initialise_metrics()
    for game in GAMES:
        for rpc in RPCS:
            for action in (NO_ACTION, *game.action_kinds):
                for outcome in OUTCOMES:
                    labels = {"game": game.name, "rpc": rpc, "action": action, "outcome": outcome}
                    assert REGISTRY.get_sample_value("lexio_engine_calls_total", labels) is not None
    for lexicon in lexicons_of(GAMES):
        labels = {"lexicon": lexicon, "outcome": "ok"}
        sample = REGISTRY.get_sample_value("lexio_engine_lexicon_call_seconds_count", labels)
        assert sample is not None


def test_every_registered_game_has_its_health_name(orphan_engine: grpc.Channel) -> None:
    """Known to the health service (not NOT_FOUND): a game that asks words NOT_SERVING while
    the lexicon is away, any other SERVING (it needs nothing but the process)."""
    health = health_pb2_grpc.HealthStub(orphan_engine)
    serving = health_pb2.HealthCheckResponse.SERVING
    not_serving = health_pb2.HealthCheckResponse.NOT_SERVING
    for game in GAMES:
        reply = health.Check(health_pb2.HealthCheckRequest(service=game.health_name), timeout=5)
        assert reply.status == (not_serving if game.asks_words else serving), game.name
