"""A blind player's keyboard: keys through the X server (xdotool), each followed by what Orca
says of it; the page's state read only to know which key comes next."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lexio_words import refused_move

from lexio_rules import Place
from lexio_rules.board import SIZE

from .sr_desktop import Desktop, ScreenReaderTimeoutError
from .sr_play import PageProbe

# The focused control's name as Orca says it first: its label, else its own text.
ACCESSIBLE_NAME = """(() => {
  const node = document.activeElement;
  if (!node) return "";
  const label = node.labels && node.labels[0] ? node.labels[0].textContent : "";
  return (node.getAttribute("aria-label") || label || node.textContent || "").trim().slice(0, 30);
})()"""
DIRECTIONS = ("across", "down", "up")
"""al-Mishqaq's cursor directions, in the order Space turns through them."""


class Keyboard:
    def __init__(self, desktop: Desktop, page: PageProbe) -> None:
        self.desktop = desktop
        self.page = page

    def press(self, *keys: str) -> None:
        self.desktop.key(*keys)

    def press_heard(self, key: str, timeout: float = 5.0) -> None:
        """A key, then until Orca has said something of it (or ``timeout``: some keys say
        nothing, such as an arrow against the board's edge)."""
        mark = self.desktop.mark()
        self.desktop.key(key)
        try:
            self.desktop.hear(lambda _text: True, since=mark, timeout=timeout, what="anything")
        except ScreenReaderTimeoutError:
            self.desktop.note(f"(Orca said nothing after {key} in {timeout} s)")

    def tab_to(self, selector: str, *, backwards: bool = False, limit: int = 40) -> None:
        """Tab (Shift+Tab) until the focus is on ``selector``, hearing each stop; there, until
        Orca has said the control's name (typing before that, Orca still in browse mode,
        would take the letters as its own navigation keys)."""
        for _ in range(limit):
            if self.page.active(selector):
                return
            mark = self.desktop.mark()
            self.press_heard("shift+Tab" if backwards else "Tab")
            if self.page.active(selector):
                name = self.page.js(ACCESSIBLE_NAME)
                if name:
                    self.desktop.hear(name, since=mark, what=f"the name of {selector}: {name}")
                self.desktop.quiet(0.3)
                return
        assert self.page.active(selector), f"Tab never reached {selector}"

    def back_to_board(self, board: str = "#board") -> None:
        self.tab_to(f"{board} .cell.cursor", backwards=True)

    # The board's cursor ----------------------------------------------------------------

    def walk_to(self, board: str, row: int, col: int, *, mirrored: bool = False) -> None:
        """Arrows to (row, col): the rows first, then the columns; each step heard."""
        if not self.page.active(f"{board} .cell.cursor"):
            self.back_to_board(board)
        for _ in range(3 * SIZE + 30):
            at_row, at_col, _classes = self.page.cursor(board)
            if (at_row, at_col) == (row, col):
                return
            if at_row != row:
                key = "Down" if row > at_row else "Up"
            else:
                right = col > at_col
                key = "Right" if right != mirrored else "Left"
            self.press_heard(key)
        raise AssertionError(f"the arrows never reached {(row, col)}: at {self.page.cursor(board)}")

    def turn_to(self, board: str, direction: str, choices: Sequence[str]) -> None:
        """Space until the cursor goes ``direction`` (said: "Sens : …")."""
        for _ in range(len(choices)):
            if f"dir-{direction}" in self.page.cursor(board)[2]:
                return
            self.press_heard("space")
        assert f"dir-{direction}" in self.page.cursor(board)[2]

    # Lexio -----------------------------------------------------------------------------

    def place_lexio(self, place: Place) -> None:
        """Walk to the first tile, turn the direction if need be, type the letters (the cursor
        moves on by itself, over tiles already on the board)."""
        tiles = sorted(place.tiles, key=lambda t: (t.row, t.col))
        across = len(tiles) == 1 or tiles[0].row == tiles[-1].row
        self.walk_to("#board", tiles[0].row, tiles[0].col)
        self.turn_to("#board", "across" if across else "down", ("across", "down"))
        for tile in tiles:
            self.press(tile.letter.lower())

    @staticmethod
    def refused_lexio(board: str, rack: str) -> tuple[Place, list[str]]:
        """Two rack tiles side by side whose form is legal but whose words (the main word and
        a cross word) the lexicon does not know (the browser suites' own)."""
        return refused_move(board, rack)

    # al-Mishqaq ------------------------------------------------------------------------

    def place_mishqaq(self, tiles: list[dict[str, Any]], side: str) -> None:
        """The tiles in typing order (an Arabic row right to left, a column from the top)."""
        rows = {t["row"] for t in tiles}
        if len(tiles) == 1 or len(rows) == 1:
            ordered = sorted(tiles, key=lambda t: t["col"], reverse=side == "arabic")
            direction = "across"
        else:
            ordered = sorted(tiles, key=lambda t: t["row"])
            direction = "down"
        first = ordered[0]
        self.walk_to("#mq-board", first["row"], first["col"])
        self.turn_to("#mq-board", direction, DIRECTIONS)
        letters = [str(tile.get("as") or tile["tile"].rstrip("+")) for tile in ordered]
        if all(letter.isascii() for letter in letters):
            for letter in letters:
                self.press(letter.lower())
            return
        # An Arabic keyboard: the layout switched to Arabic, the letters typed, then back.
        self.desktop.layout("ara")
        try:
            for letter in letters:
                self.desktop.type(letter)
        finally:
            self.desktop.layout("us")
