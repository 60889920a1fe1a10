"""One person in front of the web client: a Playwright page and what they can do on it.

The page's state is read through ``window.lexio`` (what the client keeps: table, view, log);
everything else goes through what a player sees and clicks. ``page.wait_for_function`` cannot
be used: the gateway's CSP forbids ``eval``, so conditions are polled with ``evaluate``.
"""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import ConsoleMessage, Error, Locator, Page

from lexio_rules import Place, TilePlacement

CSP_WORDS = ("Content Security Policy", "Refused to")

# What the live regions receive, as a screen reader would be told: every paragraph added to
# an element with aria-live, with its region's politeness and its French words (lang="fr").
# Installed before the page's scripts on each load (an init script is not subject to the
# page's CSP), and at once on the page already open.
LISTEN = """(() => {
  if (window.__heard) return;
  window.__heard = [];
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        const region = node.nodeType === 1 && node.parentElement?.closest("[aria-live]");
        if (!region) continue;
        window.__heard.push({
          region: region.getAttribute("aria-live"),
          text: node.textContent,
          french: [...node.querySelectorAll('[lang="fr"]')].map((e) => e.textContent),
          words: [...node.querySelectorAll("bdi[lang]")].map((e) => [e.lang, e.textContent]),
        });
      }
    }
  }).observe(document, { childList: true, subtree: true });
})()"""


class Player:
    def __init__(self, page: Page) -> None:
        self.page = page
        self.problems: list[str] = []
        page.on("pageerror", self._page_error)
        page.on("console", self._console)

    def _page_error(self, error: Error) -> None:
        self.problems.append(f"page error: {error}")

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error" and any(w in message.text for w in CSP_WORDS):
            self.problems.append(f"CSP: {message.text}")

    # Reading the page ---------------------------------------------------------------------

    def js(self, expression: str) -> Any:
        return self.page.evaluate(expression)

    def wait_js(self, expression: str, timeout: float = 10.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.page.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"still false after {timeout} s: {expression}")
            time.sleep(0.05)

    def wait_ready(self) -> None:
        """Until the page has started: its catalogs fetched and its language applied (``lang``,
        ``dir``: set by script after the load event, so a check right after ``goto`` could see
        the page's static ``fr``/``ltr``), which the language menu's options follow."""
        self.wait_js("document.querySelectorAll('#lang option').length > 0")

    def retry_now(self) -> None:
        """Press the connection banner's "retry now", unless the page's own backoff got through
        first: the check and the click run in one turn of the page's event loop, so the click
        cannot land on a banner the reconnection is taking down."""
        self.js(
            "(() => { const button = document.querySelector('#banner-action');"
            " if (button && button.checkVisibility()) button.click(); })()"
        )

    def view(self) -> dict[str, Any]:
        view: dict[str, Any] = self.js("window.lexio.view")
        return view

    def seat(self) -> int:
        seat: int = self.js("window.lexio.table.you")
        return seat

    def wait_log(self, length: int, timeout: float = 10.0) -> None:
        self.wait_js(
            f"window.lexio.log.length >= {length} && window.lexio.view "
            f"&& window.lexio.seq >= {length}",
            timeout,
        )

    def wait_screen(self, name: str) -> None:
        self.page.locator(f"#screen-{name}").wait_for(state="visible")

    def text(self, selector: str) -> str:
        return self.page.locator(selector).inner_text()

    def log_text(self) -> str:
        return self.text("#log")

    def cell(self, row: int, col: int) -> Locator:
        return self.page.locator(f'#board .cell[data-row="{row}"][data-col="{col}"]')

    def rack_tile(self, letter: str) -> Locator:
        if letter == "?":
            return self.page.locator("#rack .rack-tile:has(.tile.blank)").first
        return self.page.locator(f'#rack .rack-tile:has(.tile-letter:text-is("{letter}"))').first

    # Hearing (the live regions) -------------------------------------------------------------

    def listen(self) -> None:
        """From now on (and across reloads), record what the live regions are given."""
        self.page.add_init_script(LISTEN)
        self.page.evaluate(LISTEN)

    def heard(self) -> list[dict[str, Any]]:
        """Every announcement so far: ``{"region": "polite"|"assertive", "text", "french",
        "words"}`` (``words``: each word marked with its language, ``[lang, text]``)."""
        heard: list[dict[str, Any]] = self.js("window.__heard || []")
        return heard

    def wait_heard(
        self,
        text: str,
        *,
        region: str | None = None,
        start: int = 0,
        timeout: float = 10.0,
        french: list[str] | None = None,
        explain: str | None = None,
    ) -> dict[str, Any]:
        """The first announcement from index ``start`` on that contains ``text`` (in
        ``region`` if given, with exactly these French words if given), waiting for it.
        ``explain``: an expression of the page whose value a failure also shows."""
        deadline = time.monotonic() + timeout
        while True:
            for said in self.heard()[start:]:
                if (
                    text in said["text"]
                    and region in (None, said["region"])
                    and french in (None, said["french"])
                ):
                    return said
            if time.monotonic() > deadline:
                state = f"; the page: {self.js(explain)}" if explain else ""
                raise AssertionError(
                    f"never heard {text!r} ({region}): {self.heard()[start:]}{state}"
                )
            time.sleep(0.05)

    # Keyboard only -------------------------------------------------------------------------

    def active_matches(self, selector: str) -> bool:
        matches: bool = self.page.evaluate(
            "(s) => document.activeElement !== null && document.activeElement.matches(s)",
            selector,
        )
        return matches

    def tab_to(self, selector: str, backwards: bool = False, limit: int = 40) -> None:
        """Press Tab (Shift+Tab) until the focus is on ``selector``: a keyboard's only way."""
        for _ in range(limit):
            if self.active_matches(selector):
                return
            self.page.keyboard.press("Shift+Tab" if backwards else "Tab")
        assert self.active_matches(selector), f"Tab never reached {selector}"

    # Home and table -----------------------------------------------------------------------

    def create(self, name: str) -> str:
        self.wait_screen("home")
        self.page.fill("#home-name", name)
        self.page.click("#home-create")
        self.wait_screen("table")
        return self.page.input_value("#table-code-text")

    def join(self, code: str, name: str) -> None:
        self.wait_screen("home")
        self.page.fill("#home-name", name)
        self.page.fill("#home-code", code)
        self.page.click("#home-join")
        self.wait_screen("table")

    # Placing ------------------------------------------------------------------------------

    @staticmethod
    def rack_letter(tile: TilePlacement) -> str:
        return "?" if tile.blank else tile.letter

    def choose_blank(self, tile: TilePlacement) -> None:
        if tile.blank:
            self.page.click(f'#dlg-blank [data-letter="{tile.letter}"]')

    def place_by_drag(self, place: Place) -> None:
        for tile in place.tiles:
            self.rack_tile(self.rack_letter(tile)).drag_to(self.cell(tile.row, tile.col))
            self.choose_blank(tile)

    def place_by_click(self, place: Place) -> None:
        for tile in place.tiles:
            self.rack_tile(self.rack_letter(tile)).click()
            self.cell(tile.row, tile.col).click()
            self.choose_blank(tile)

    def cursor(self) -> tuple[int, int, bool]:
        cell = self.page.locator("#board .cell.cursor")
        classes = cell.get_attribute("class") or ""
        row = int(cell.get_attribute("data-row") or -1)
        col = int(cell.get_attribute("data-col") or -1)
        return row, col, "dir-across" in classes

    def place_by_keyboard(
        self, place: Place, *, mirrored: bool = False, focus: bool = True
    ) -> None:
        """Keyboard only: focus the board, arrows to the first cell, Space for the direction,
        then type the letters (the cursor skips tiles already on the board). ``focus=False``:
        the board must already have the focus (a test that never leaves the keyboard)."""
        tiles = sorted(place.tiles, key=lambda t: (t.row, t.col))
        across = len(tiles) == 1 or tiles[0].row == tiles[-1].row
        if focus:
            self.page.focus("#board .cell.cursor")
        assert self.active_matches("#board .cell.cursor"), "the board does not have the focus"
        row, col, direction = self.cursor()
        keyboard = self.page.keyboard
        first = tiles[0]
        vertical = "ArrowDown" if first.row > row else "ArrowUp"
        for _ in range(abs(first.row - row)):
            keyboard.press(vertical)
        right = first.col > col
        if mirrored:
            right = not right
        for _ in range(abs(first.col - col)):
            keyboard.press("ArrowRight" if right else "ArrowLeft")
        assert self.cursor()[:2] == (first.row, first.col)
        if direction != across:
            keyboard.press("Space")
        for tile in tiles:
            keyboard.press(tile.letter)

    def drag_by_mouse(self, source: Locator, target: Locator, steps: int = 12) -> None:
        """Press on ``source``, move in steps (pointer events, as a hand would), release over
        ``target``."""
        start = source.bounding_box()
        end = target.bounding_box()
        assert start is not None and end is not None
        mouse = self.page.mouse
        mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
        mouse.down()
        mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=steps)
        mouse.up()

    def fully_in_view(self, selector: str) -> bool:
        """Whether the element is displayed whole inside the window as it is scrolled now."""
        box = self.page.locator(selector).bounding_box()
        size = self.page.viewport_size
        assert size is not None
        return (
            box is not None
            and box["width"] > 0
            and box["x"] >= 0
            and box["y"] >= 0
            and box["x"] + box["width"] <= size["width"]
            and box["y"] + box["height"] <= size["height"]
        )

    def preview_text(self) -> str:
        self.page.locator("#preview .preview-score").wait_for()
        return self.text("#preview")
