"""The engine tier's games come from one list (issue 24): each registration is served under its
health name with its metrics' series from zero, and no game's rules import another's."""

from __future__ import annotations

import ast
import asyncio
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY

from lexio_engine.games import GAMES
from lexio_engine.lexicon_client import LexiconClient
from lexio_engine.metrics import NO_ACTION, OUTCOMES
from lexio_engine.registry import EngineContext, lexicons_of
from lexio_engine.server import initialise_metrics
from lexio_engine.servicing import GameServicer

ENGINE = Path(__file__).resolve().parents[2] / "services" / "engine"
RULES_PACKAGES = ("lexio_rules", "mishqaq_rules")


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
    others = set(RULES_PACKAGES) - {package}
    imported = _imported(package)
    assert "rules_core" in imported
    assert not imported & others, imported & others


def test_the_rules_kernel_is_standard_library_only() -> None:
    assert _imported("rules_core") <= {*sys.stdlib_module_names, "__future__", "rules_core"}


def test_each_registration_is_one_game_with_its_own_service() -> None:
    assert len({g.name for g in GAMES}) == len(GAMES)
    assert len({g.service_name for g in GAMES}) == len(GAMES)
    for game in GAMES:
        assert game.health_name == game.service_name
        assert "Act" in game.rpcs and "ActStream" not in game.rpcs


def test_every_registered_game_answers_act_itself() -> None:
    """GameServicer.Act is only the slot ActStream answers through: each game's servicer,
    built as the process builds it, has an Act of its own."""

    async def servicers() -> list[object]:
        channel = grpc.aio.insecure_channel("127.0.0.1:1")  # never called here
        try:
            context = EngineContext(lexicon=LexiconClient(channel, timeout=1.0))
            return [game.build(context) for game in GAMES]
        finally:
            await channel.close()

    for game, servicer in zip(GAMES, asyncio.run(servicers()), strict=True):
        assert isinstance(servicer, GameServicer), game.name
        assert type(servicer).Act is not GameServicer.Act, game.name


def test_every_registered_games_series_start_at_zero() -> None:
    initialise_metrics()
    for game in GAMES:
        for rpc in game.rpcs:
            for action in (NO_ACTION, *game.action_kinds):
                for outcome in OUTCOMES:
                    labels = {"game": game.name, "rpc": rpc, "action": action, "outcome": outcome}
                    assert REGISTRY.get_sample_value("lexio_engine_calls_total", labels) is not None
    for lexicon in lexicons_of(GAMES):
        labels = {"lexicon": lexicon, "outcome": "ok"}
        sample = REGISTRY.get_sample_value("lexio_engine_lexicon_call_seconds_count", labels)
        assert sample is not None


def test_every_registered_game_has_its_health_name(orphan_engine: grpc.Channel) -> None:
    """Known to the health service (not NOT_FOUND), and NOT_SERVING while the lexicon is away."""
    health = health_pb2_grpc.HealthStub(orphan_engine)
    for game in GAMES:
        reply = health.Check(health_pb2.HealthCheckRequest(service=game.health_name), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.NOT_SERVING, game.name
