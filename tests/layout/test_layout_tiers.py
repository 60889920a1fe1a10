"""The house in order (issue 38): each tier imports only what it may, the gateway's core has no
import cycle, every game's rules stand alone, and the platform's code names no game.

Imports are read from the source (``ast``: every ``import`` and ``from … import``, those under
``if TYPE_CHECKING:`` and inside functions included), so that a lazy import or a type-only one
cannot hide a dependency.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from lexio_engine.games import GAMES as ENGINE_GAMES
from lexio_gateway.games.site import GAMES as GATEWAY_GAMES

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ROOT / "services"

TIERS: dict[str, tuple[str, ...]] = {
    "services/common": ("lexio_common",),
    "services/engine": ("lexio_engine", "rules_core"),  # and every *_rules package
    "services/lexicon": ("lexio_lexicon",),
    "services/lobby": ("lexio_lobby",),
    "services/gateway": ("lexio_gateway",),
    "services/client": ("lexio_client",),
    "services/cli": ("lexio_cli",),
}
"""Each tier's folder and the packages it holds."""

MAY_IMPORT: dict[str, tuple[str, ...]] = {
    "services/common": (),
    "services/engine": ("services/common",),
    "services/lexicon": ("services/common",),
    "services/lobby": ("services/common",),
    "services/gateway": ("services/common",),
    # The reference client and its bots play by the rules (legal moves): a tool, not a tier
    # any service imports.
    "services/client": ("services/common", "services/engine"),
    # The `lexio` command line: replays records (the engine's games, the lexicon's shipped
    # lists) and plays in a terminal (the client). The one place that joins tiers.
    "services/cli": (
        "services/common",
        "services/engine",
        "services/lexicon",
        "services/client",
    ),
}
"""Whose packages each tier's code may import (besides its own, the standard library, the
generated contracts and third-party packages)."""


def _rules_packages() -> list[str]:
    return sorted(p.name for p in (SERVICES / "engine").iterdir() if p.name.endswith("_rules"))


@cache
def _package_tier() -> dict[str, str]:
    owner = {package: tier for tier, packages in TIERS.items() for package in packages}
    owner.update(dict.fromkeys(_rules_packages(), "services/engine"))
    return owner


def _python_files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*.py")):
        if "__pycache__" not in path.parts:
            yield path


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, by its full dotted name (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _tier_of(path: Path) -> str:
    relative = path.relative_to(ROOT).as_posix()
    return next(tier for tier in TIERS if relative.startswith(tier + "/"))


def test_every_tier_folder_holds_only_its_packages() -> None:
    """Each folder's top-level packages are the ones :data:`TIERS` names (a new package says
    which tier it is in here, so that its imports are checked)."""
    for tier, packages in TIERS.items():
        found = {
            p.name for p in (ROOT / tier).iterdir() if p.is_dir() and (p / "__init__.py").exists()
        }
        expected = set(packages) | (set(_rules_packages()) if tier == "services/engine" else set())
        assert found == expected, (tier, sorted(found ^ expected))


def test_no_tier_imports_another_it_may_not() -> None:
    owner = _package_tier()
    crossing = []
    for tier in TIERS:
        allowed = {tier, *MAY_IMPORT[tier]}
        for path in _python_files(ROOT / tier):
            for module in _imports(path):
                imported = owner.get(module.split(".")[0])
                if imported is not None and imported not in allowed:
                    crossing.append(f"{path.relative_to(ROOT)} imports {module}")
    assert crossing == [], "\n".join(crossing)


def test_every_rules_package_imports_only_the_standard_library_and_the_kernel() -> None:
    """Every game's rules package (all of them, found by name: ``*_rules``) imports the shared
    kernel ``rules_core`` and the standard library only, and never another game's rules; the
    kernel imports nothing of ours."""
    ours = set(_package_tier())
    for package in ["rules_core", *_rules_packages()]:
        allowed = {package} | ({"rules_core"} if package != "rules_core" else set())
        for path in _python_files(SERVICES / "engine" / package):
            for module in _imports(path):
                top = module.split(".")[0]
                assert top not in ours or top in allowed, f"{path.relative_to(ROOT)}: {module}"
                assert top != "lexio", f"{path.relative_to(ROOT)}: {module} (a generated stub)"


def test_a_games_typed_messages_are_imported_by_its_engine_package_only() -> None:
    """``lexio.<game>.v1`` (a game's own state and views, when it keeps typed messages) is its
    engine package's business: nothing else of the services imports it."""
    owners = {"lexio.engine.v1": "lexio_engine/lexio/", "lexio.mishqaq.v1": "lexio_engine/mishqaq/"}
    assert {p.parent.name for p in (ROOT / "proto" / "lexio").glob("*/v1")} == {
        "engine",
        "mishqaq",
        "game",
        "lexicon",
        "lobby",
    }, "a new per-game proto package: say whose it is here"
    for tier in TIERS:
        for path in _python_files(ROOT / tier):
            relative = path.relative_to(ROOT).as_posix()
            for module in _imports(path):
                for package, owner in owners.items():
                    if module.startswith(package):
                        assert owner in relative, f"{relative} imports {module}"


def _gateway_graph() -> dict[str, set[str]]:
    package = SERVICES / "gateway" / "lexio_gateway"
    modules = {
        ".".join(p.relative_to(package.parent).with_suffix("").parts).removesuffix(".__init__"): p
        for p in _python_files(package)
    }
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        graph[name] = {m for m in _imports(path) if m in modules and m != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` if it has one (depth first, white/grey/black)."""
    state: dict[str, int] = {}
    trail: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        trail.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*trail[trail.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        trail.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_the_gateway_core_has_no_import_cycle() -> None:
    """Among the gateway's modules, type-only imports included: a module that needs another's
    type and that other's services is one module too many (room ↔ connection was one)."""
    # A package's __init__ re-exporting its modules is not a cycle of their code.
    graph = {
        name: {m for m in imports if not (name.endswith(".games") and m.startswith(name + "."))}
        for name, imports in _gateway_graph().items()
    }
    assert _cycle(graph) is None, " → ".join(_cycle(graph) or [])


def test_the_cycle_check_sees_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


PLATFORM = (
    "services/common/",
    "services/lobby/",
    "services/gateway/lexio_gateway/",
    "services/engine/lexio_engine/",
    "services/engine/rules_core/",
    "deploy/",
    "proto/",
)
"""The site's own code, which must not know any game but through the registrations."""

TIER_LISTS = (
    "services/engine/lexio_engine/games.py",
    "services/gateway/lexio_gateway/games/site.py",
    "services/gateway/lexio_gateway/static/js/games/index.js",
    "services/lobby/lexio_lobby/site_games.json",
)


def _own_places(game: str) -> tuple[str, ...]:
    return (
        f"services/engine/{game}_rules/",
        f"services/engine/lexio_engine/{game}/",
        f"services/engine/lexio_engine/{game}.py",
        f"services/gateway/lexio_gateway/games/{game}.py",
        f"services/gateway/lexio_gateway/static/js/games/{game}/",
        f"proto/lexio/{game}/",
    )


# Lexio is also the site's name (its packages, its protos' package, its title): its own check
# is the web client's (tests/web/test_web_catalogs.py); the engine's typed messages of Lexio
# live in proto/lexio/engine/ (the first game's, named before there were others).
NAMED_BY_SITE = {"lexio"}


REGISTERED = sorted({g.name for g in ENGINE_GAMES} | {g.name for g in GATEWAY_GAMES})


@pytest.mark.parametrize("game", [g for g in REGISTERED if g not in NAMED_BY_SITE])
def test_the_platform_names_no_game_outside_its_own_places(game: str) -> None:
    """Every registered game, not one named here: no module of the platform outside the game's
    own places and the tier lists names it (issue 24 held the example game to it; issue 38
    every game)."""
    # Its id, not inside a longer word or identifier (a game's id may be a fragment of a word).
    pattern = re.compile(rf"(?i)(?<![a-z0-9]){re.escape(game)}(?![a-z0-9])")
    naming = []
    for path in sorted(ROOT.rglob("*")):
        relative = path.relative_to(ROOT).as_posix()
        if not path.is_file() or not relative.startswith(PLATFORM) or "__pycache__" in relative:
            continue
        if relative.startswith(_own_places(game)) or relative in TIER_LISTS:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        naming += [
            f"{relative}:{n}" for n, line in enumerate(text.splitlines(), 1) if pattern.search(line)
        ]
    assert naming == [], "\n".join(naming)
