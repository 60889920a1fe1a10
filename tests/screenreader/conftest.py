"""The screen reader's desktop for each test (Xvfb, D-Bus, AT-SPI, Orca, Chromium), stopped by
pid at the end whatever happened, and the transcript of what Orca said kept as the test's
artefact in build/screenreader/<test>.txt."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .sr_desktop import Desktop, missing

ARTEFACTS = Path(__file__).resolve().parents[2] / "build" / "screenreader"


@pytest.fixture
def desktop(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Desktop]:
    absent = missing()
    if absent:
        pytest.fail(
            "the screen reader tests need Debian's "
            + ", ".join(absent)
            + ": `make screenreader` installs them (as root), as `make test-slow` does",
            pytrace=False,
        )
    desk = Desktop(tmp_path / "desktop", voice=getattr(request.module, "VOICE", "fr_FR"))
    try:
        desk.start()
        yield desk
    finally:
        try:
            if desk.orca is not None:
                name = request.node.name.replace("/", "_")
                desk.write_transcript(ARTEFACTS / f"{name}.txt")
        finally:
            desk.stop()
