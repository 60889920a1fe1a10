"""Adding the example game touched nothing but its own folders and the one list per tier
(issue 24): a file anywhere else that names it fails here. What the site's core, the other
games, the lobby, the deploy manifests and the shared web modules need of a game, they take
from the registries; docs/adding-a-game.md lists these places file by file."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GAME = "noughts"

OWN_PLACES = (
    "services/engine/noughts_rules/",
    "services/engine/lexio_engine/noughts.py",
    "services/gateway/lexio_gateway/games/noughts.py",
    "services/gateway/lexio_gateway/static/js/games/noughts/",
    "tests/noughts/",
    "docs/noughts.md",
)
"""The game's own places: its rules, its engine and gateway registrations, client module, tests,
doc."""

TIER_LISTS = (
    "services/engine/lexio_engine/games.py",
    "services/gateway/lexio_gateway/games/site.py",
    "services/gateway/lexio_gateway/static/js/games/index.js",
    "pyproject.toml",
)
"""The one list per tier that says which games this build ships (and the build's packages)."""

MAX_BYTES = 1 << 20

ALSO_ALLOWED = (
    "docs/",  # the worked example, file by file (adding-a-game.md), and the tiers it shows
    "README.md",
    "services/lexicon/lexio_lexicon/data/english.txt",  # "noughts" is an English word
)


def _files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    return sorted({name for name in listed if name and (ROOT / name).is_file()})


def _allowed(path: str) -> bool:
    if path.startswith(OWN_PLACES + ALSO_ALLOWED) or path in TIER_LISTS:
        return True
    # Its tests in the suites of other tiers (tests/engine, tests/web) carry its name.
    return path.startswith("tests/") and GAME in Path(path).name


def test_no_file_outside_its_own_places_and_the_tier_lists_names_the_example_game() -> None:
    pattern = re.compile(GAME, re.IGNORECASE)
    naming = []
    for path in _files():
        if (ROOT / path).stat().st_size > MAX_BYTES:
            continue  # the word lists and hunspell data: words, not code
        try:
            text = (ROOT / path).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a binary file (an image) names nothing
        if (pattern.search(text) or pattern.search(path)) and not _allowed(path):
            naming.append(path)
    assert naming == [], (
        "these files name the example game; take what they need of it from a registry"
    )


def test_the_check_sees_a_file_that_names_it() -> None:
    """The test above can fail: a shared module that named the game would be caught."""
    assert not _allowed("services/gateway/lexio_gateway/ws.py")
    assert not _allowed("services/lobby/lexio_lobby/site_games.json")
    assert not _allowed("services/gateway/lexio_gateway/static/js/home.js")
    assert not _allowed("deploy/base/lobby.yaml")
    assert _allowed("services/engine/lexio_engine/noughts.py")
