"""The browser for the web client's tests: Debian's Chromium driven by Playwright.

Never a downloaded browser: Chromium is the system's headless shell (``apt-get install
chromium-headless-shell``: the build Playwright itself runs headless, a third less CPU than the
full browser over these tests), at ``/usr/lib/chromium/chromium-headless-shell`` unless
``LEXIO_CHROMIUM`` says otherwise (Debian's full ``/usr/bin/chromium`` works too). A missing
browser fails the tests with a clear message: CI must never skip them silently.

Test modules take the fixtures by name::

    import web_browser

    browser = web_browser.browser
    players = web_browser.players
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright
from web_pages import Player

CHROMIUM = Path(os.environ.get("LEXIO_CHROMIUM", "/usr/lib/chromium/chromium-headless-shell"))
# This machine (and CI) has no network: keep Chromium from phoning home.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

PlayerFactory = Callable[..., Player]

DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def screenshot_path(name: str, tmp_path: Path) -> Path:
    """Where a test saves the screenshot ``name``: docs/screenshots/ (the README's) when
    LEXIO_SCREENSHOTS=1, else the test's own temporary directory, so that an ordinary run
    leaves the working tree as it found it."""
    if os.environ.get("LEXIO_SCREENSHOTS") == "1":
        return DOCS_SCREENSHOTS / name
    return tmp_path / name


class _Shared:
    """One Playwright and one Chromium for a test module. Each test module imports the
    ``browser`` fixture; they share this (a second sync Playwright in the same thread is not
    possible) and the last one out closes it.

    Per module, not per session: a sync Playwright leaves its event loop marked as running in
    the main thread while it lives, and under parallel workers (make test) a worker may run a
    module that calls ``asyncio.run`` after a browser module, which then fails ("cannot be
    called from a running event loop"). Starting Chromium costs about 0.6 s a module."""

    playwright: Playwright | None = None
    browser: Browser | None = None
    users = 0

    @classmethod
    def acquire(cls) -> Browser:
        if cls.browser is None:
            cls.playwright = sync_playwright().start()
            cls.browser = cls.playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
        cls.users += 1
        return cls.browser

    @classmethod
    def release(cls) -> None:
        cls.users -= 1
        if cls.users == 0 and cls.playwright is not None and cls.browser is not None:
            cls.browser.close()
            cls.playwright.stop()
            cls.browser = cls.playwright = None


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.is_file():
        pytest.fail(
            f"Chromium is missing at {CHROMIUM}: the web client's browser tests need Debian's "
            "chromium-headless-shell (`apt-get install chromium-headless-shell`, done by the "
            "`make test` set-up) or LEXIO_CHROMIUM pointing at a Chromium binary. They are "
            "never skipped.",
            pytrace=False,
        )
    yield _Shared.acquire()
    _Shared.release()


@pytest.fixture
def players(browser: Browser) -> Iterator[PlayerFactory]:
    """``players(url, locale="fr-FR", width=1280, height=900, touch=False, clock=False)``: one
    browser context (one person) per call, its page open at ``url``; ``touch``: a phone's touch
    screen (``has_touch``, ``is_mobile``: taps, touch events); ``clock``: the page's time is
    Playwright's (``page.clock``, installed before the page loads: it runs as the real one
    until a test pauses it and moves it on by hand). At the end: no page error, no CSP
    violation."""
    opened: list[Player] = []

    def open_player(
        url: str,
        locale: str = "fr-FR",
        width: int = 1280,
        height: int = 900,
        touch: bool = False,
        *,
        clock: bool = False,
    ) -> Player:
        context = browser.new_context(
            locale=locale,
            viewport={"width": width, "height": height},
            service_workers="block",
            has_touch=touch,
            is_mobile=touch,
        )
        context.set_default_timeout(10_000)
        if clock:
            context.clock.install()
        player = Player(context.new_page())
        opened.append(player)
        player.page.goto(url)
        player.wait_ready()
        return player

    yield open_player
    problems = [problem for player in opened for problem in player.problems]
    for player in opened:
        player.page.context.close()
    assert not problems, problems


def start_game(
    players: PlayerFactory,
    url: str,
    sizes: tuple[tuple[int, int], tuple[int, int]] = ((1280, 900), (1280, 900)),
    locales: tuple[str, str] = ("fr-FR", "fr-FR"),
) -> tuple[Player, Player]:
    """Ana opens a table at ``url``, Bruno joins it by its code, Ana starts: both on the game
    screen with their first view (Ana plays first)."""
    (ana_width, ana_height), (bruno_width, bruno_height) = sizes
    ana = players(url + "/", locale=locales[0], width=ana_width, height=ana_height)
    code = ana.create("Ana")
    bruno = players(url + "/", locale=locales[1], width=bruno_width, height=bruno_height)
    bruno.join(code, "Bruno")
    ana.page.locator("#start-game:enabled").click()
    for player in (ana, bruno):
        player.wait_screen("game")
        player.wait_js("window.lexio.view !== null")
    return ana, bruno
