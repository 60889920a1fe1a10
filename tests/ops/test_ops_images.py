"""The Dockerfiles, read (the real build and run is test_ops_images_built.py, slow): each image
installs only its own service's lock, with hashes required; its base is a build argument;
its final stage has no installer and runs unprivileged; the make target builds with buildah.
"""

from __future__ import annotations

import re
import sys

import pytest
from ops_deploy import DEPLOY, LEXIO_SERVICES, ROOT, dockerfile

sys.path.insert(0, str(DEPLOY))
import lexio_images


def _stages(name: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    steps = dockerfile(name)
    last = max(i for i, (instruction, _) in enumerate(steps) if instruction == "FROM")
    return steps[:last], steps[last:]


@pytest.mark.parametrize("name", LEXIO_SERVICES)
def test_each_image_installs_its_own_lock_with_hashes_required(name: str) -> None:
    build, final = _stages(name)
    assert dockerfile(name)[0] == ("ARG", "PYTHON_IMAGE=python:3.11.7-slim-bookworm")
    assert ("FROM", "${PYTHON_IMAGE} AS build") in build
    assert final[0] == ("FROM", "${PYTHON_IMAGE}")
    copies = [rest for instruction, rest in build if instruction == "COPY"]
    assert copies[0] == f"requirements/build.txt requirements/{name}.txt ./requirements/"
    runs = " ".join(" ".join(rest.split()) for instruction, rest in build if instruction == "RUN")
    installs = re.findall(r"pip(?: --python \S+)? install [^&;]*", runs)
    assert installs, name
    for install in installs:
        # Every install is of a lock with hashes required, or of the project's own wheel.
        assert "--require-hashes --no-deps -r requirements/" in install or "/wheels/" in install
    assert f"-r requirements/{name}.txt" in runs
    for other in set(LEXIO_SERVICES) - {name}:
        assert f"requirements/{other}.txt" not in runs, other
    assert "venv --without-pip /opt/lexio" in runs  # the run time's venv has no pip
    lock = (ROOT / "requirements" / f"{name}.txt").read_text()
    pins = re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", lock, re.M)
    assert pins and lock.count("--hash=sha256:") >= len(pins)


@pytest.mark.parametrize("name", LEXIO_SERVICES)
def test_the_final_stage_has_no_installer_and_runs_unprivileged(name: str) -> None:
    _, final = _stages(name)
    runs = [rest for instruction, rest in final if instruction == "RUN"]
    (cleanup,) = runs
    assert "pip uninstall" in cleanup and "ensurepip" in cleanup and "exit 1" in cleanup
    assert ("USER", "10001:10001") in final
    assert ("ENTRYPOINT", f'["lexio-{name}"]') in final
    assert any(
        rest.startswith("--from=build /opt/lexio /opt/lexio") for i, rest in final if i == "COPY"
    )
    ignore = (DEPLOY / "docker" / f"{name}.Dockerfile.dockerignore").read_text().split()
    assert f"!requirements/{name}.txt" in ignore and "!requirements/build.txt" in ignore
    assert "!requirements.txt" not in ignore  # the work tree's lock is not the image's


def test_the_images_build_with_buildah_on_a_base_given_as_argument() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "deploy/lexio_images.py" in makefile and "buildah debootstrap" in makefile
    assert lexio_images.REGISTRY_BASE.endswith("python:3.11.7-slim-bookworm")
    assert lexio_images.buildah_env()["BUILDAH_ISOLATION"] == "chroot"
    base = (DEPLOY / "images" / "debian-base.sh").read_text()
    assert "debootstrap --variant=minbase --include=python3,python3-venv" in base
