"""The images' build steps, run here without Docker (no daemon, no registry on this machine):
the build stage's own RUN commands — the runtime requirements, the gRPC stubs, the wheel, its
installation — on a copy of exactly what the Dockerfile COPYs, with /opt/build, /opt/lexio
and /wheels mapped to temporary directories. The result must hold the four console scripts
and the lexicon's word list (the list reaches the pod through the image), and the lexicon
image's own check must find the list inside what was installed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ops_deploy import LEXIO_SERVICES, ROOT, dockerfile

from lexio_lexicon.words import DEFAULT_WORDLIST_PATH

BIN = Path(sys.executable).parent


def _build_stage(name: str) -> list[tuple[str, str]]:
    steps = dockerfile(name)
    last = max(i for i, (instruction, _) in enumerate(steps) if instruction == "FROM")
    return steps[:last]


def _run(command: str, cwd: Path) -> str:
    done = subprocess.run(
        ["sh", "-ec", command], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Run the lexicon Dockerfile's build stage; the directory standing for /opt/lexio."""
    work = tmp_path_factory.mktemp("image")
    src, wheels, site = work / "src", work / "wheels", work / "site"
    src.mkdir()
    for instruction, rest in _build_stage("lexicon"):
        if instruction == "COPY":
            *sources, _destination = rest.split()
            for source in sources:
                path = ROOT / source
                if path.is_dir():
                    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
                    shutil.copytree(path, src / source, ignore=ignore)
                else:
                    shutil.copy(path, src / source)
    runs = [rest for instruction, rest in _build_stage("lexicon") if instruction == "RUN"]
    # 1. The runtime requirements and the build tools (not installed: they are in .venv).
    requirements = [c for c in runs[0].split(" && ") if "venv" not in c and "pip install" not in c]
    _run(" && ".join(requirements), src)
    # 2. Stubs, wheel, installation, as written, into this test's directories.
    stubs_and_wheel = (
        runs[1]
        .replace("/opt/build/bin/python", str(BIN / "python"))
        .replace("/opt/build/bin/pip wheel", f"{BIN / 'pip'} wheel --quiet")
        .replace(
            "/opt/lexio/bin/pip install --no-deps",
            f"{BIN / 'pip'} install --quiet --no-deps --target {site}",
        )
        .replace("/wheels", str(wheels))
    )
    assert "/opt/" not in stubs_and_wheel
    _run(stubs_and_wheel, src)
    return work


def test_the_build_installs_only_pinned_runtime_requirements(built: Path) -> None:
    runtime = (built / "src" / "runtime.txt").read_text().split()
    assert runtime and all("==" in line for line in runtime)
    names = {line.split("==")[0].lower() for line in runtime}
    assert {"grpcio", "grpcio-health-checking", "prometheus-client", "marisa-trie"} <= names
    assert not names & {"pytest", "mypy", "ruff", "playwright", "grpcio-tools"}
    build = (built / "src" / "build.txt").read_text().split()
    assert {line.split("==")[0] for line in build} == {"grpcio-tools", "setuptools"}


def test_the_image_holds_the_services_and_the_word_list(built: Path) -> None:
    site = built / "site"
    for name in LEXIO_SERVICES:
        assert (site / "bin" / f"lexio-{name}").is_file(), name
    installed = site / "lexio_lexicon" / "data" / DEFAULT_WORDLIST_PATH.name
    assert installed.read_bytes() == DEFAULT_WORDLIST_PATH.read_bytes()
    for package in ("lexio.engine.v1", "lexio.lexicon.v1", "lexio.lobby.v1"):
        assert (site.joinpath(*package.split(".")) / "__init__.py").is_file(), package
    # The lexicon image's own check, run against what was installed.
    (check,) = [
        rest
        for instruction, rest in _build_stage("lexicon")
        if instruction == "RUN" and "DEFAULT_WORDLIST_PATH" in rest
    ]
    printed = _run(
        f"PYTHONPATH={site} " + check.replace("/opt/lexio/bin/python", str(BIN / "python")),
        built,
    )
    assert Path(printed.strip()) == installed


def test_the_gateway_image_holds_the_web_client(built: Path) -> None:
    """The web client's static files are not package data of the wheel today, so the gateway
    image copies them to where the wheel installs lexio_gateway."""
    in_wheel = (built / "site" / "lexio_gateway" / "static" / "index.html").is_file()
    copies = [
        rest.split()
        for instruction, rest in dockerfile("gateway")
        if instruction == "COPY" and "static" in rest
    ]
    assert in_wheel or copies, "the gateway image would have no web client"
    for source, destination in copies:
        assert (ROOT / source / "index.html").is_file()
        assert destination == "/opt/lexio/lib/python3.11/site-packages/lexio_gateway/static"
    assert (built / "site" / "lexio_gateway" / "app.py").is_file()


def test_every_image_builds_the_same_way() -> None:
    """The build stage checked above is every image's (the lexicon's adds its list check)."""
    lexicon = [step for step in _build_stage("lexicon") if "DEFAULT_WORDLIST_PATH" not in step[1]]
    for name in ("engine", "lobby", "gateway"):
        assert _build_stage(name) == lexicon, name
