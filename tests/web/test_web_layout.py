"""The client's board layout (static/js/games/lexio/layout.js) is the engine's, cell by cell
(R7–R9)."""

from __future__ import annotations

import re
from pathlib import Path

import lexio_gateway
from lexio_rules.board import LAYOUT, SIZE, Square

LAYOUT_JS = Path(lexio_gateway.__file__).parent / "static" / "js" / "games" / "lexio" / "layout.js"
TOKENS = {
    "##": Square.WALL,
    "*": Square.SOURCE,
    "L2": Square.LETTER_2,
    "L3": Square.LETTER_3,
    "W2": Square.WORD_2,
    "W3": Square.WORD_3,
    "X": Square.CROSSING,
    ".": Square.PLAIN,
}
# What layout.js calls each kind (CSS classes sq-<kind>, catalog keys bonus.<kind>.*).
KINDS = {
    "##": "wall",
    "*": "source",
    "L2": "letter2",
    "L3": "letter3",
    "W2": "word2",
    "W3": "word3",
    "X": "crossing",
    ".": "plain",
}


def js_rows() -> list[list[str]]:
    source = LAYOUT_JS.read_text(encoding="utf-8")
    block = re.search(r"export const LAYOUT_ROWS = \[(.*?)\];", source, re.S)
    assert block, "layout.js must define LAYOUT_ROWS as an array of strings"
    return [row.split() for row in re.findall(r'"([^"]*)"', block.group(1))]


def test_the_client_layout_matches_the_engine_cell_by_cell() -> None:
    rows = js_rows()
    assert len(rows) == SIZE
    assert all(len(row) == SIZE for row in rows)
    for row in range(SIZE):
        for col in range(SIZE):
            token = rows[row][col]
            assert TOKENS[token] is LAYOUT[row * SIZE + col], (row, col, token)


def test_the_client_knows_each_kind_by_the_names_its_css_uses() -> None:
    source = LAYOUT_JS.read_text(encoding="utf-8")
    for token, kind in KINDS.items():
        assert re.search(rf'"?{re.escape(token)}"?: "{kind}"', source), (token, kind)
    css = (LAYOUT_JS.parent / "lexio.css").read_text(encoding="utf-8")
    for kind in set(KINDS.values()) - {"plain"}:
        assert f".sq-{kind}" in css, kind
