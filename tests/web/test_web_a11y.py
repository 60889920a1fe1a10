"""Issue 19: a blind player plays a whole game with a screen reader.

axe-core (WCAG 2.0/2.1/2.2 A and AA) finds nothing on any screen or state, in French and in
Arabic; one player plays a whole game with the keyboard alone and the live region tells them
every move, their own placements, the clock (R28), a pass and the end; cells, rack and scores
are named by what they show (read from Chromium's accessibility tree); the keyboard cursor and
the last move's ring reach 3:1 against every cell colour, measured from computed styles."""

from __future__ import annotations

import re
from typing import Any

import pytest
import web_browser
from lexio_testing import GatewayFactory
from web_axe import (
    assert_no_axe_violations,
    ax_name,
    ax_property,
    ax_texts,
    axe_violations,
    contrast,
    describe,
    luminance,
    rgb,
)
from web_browser import PlayerFactory, start_game
from web_pages import Player
from web_words import legal_move, refused_move

from lexio_rules import FormedMove, form_move
from lexio_rules.board import LAYOUT, SIZE, Square

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players

VALUES = {
    **dict.fromkeys("AEILNORSTU", 1),
    **dict.fromkeys("CDMP", 2),
    **dict.fromkeys("BG", 3),
    **dict.fromkeys("FHV", 4),
    **dict.fromkeys("JQX", 8),
    **dict.fromkeys("KWYZ", 10),
}
SOURCE = (6, 6)
WALLS = [divmod(i, SIZE) for i, square in enumerate(LAYOUT) if square is Square.WALL]


def points(count: int) -> str:
    """French, as the page says it (-1, 0 and 1 are singular)."""
    return f"{count} point" if abs(count) < 2 else f"{count} points"


def cell_name(row: int, col: int) -> str:
    return f"{chr(65 + col)}{row + 1}"


def log_length(player: Player) -> int:
    length: int = player.js("window.lexio.log.length")
    return length


# -- axe on every screen and state, French and Arabic ----------------------------------------


def pass_turn(mover: Player, everyone: tuple[Player, ...]) -> None:
    before = log_length(mover)
    mover.page.click("#btn-pass")
    for player in everyone:
        player.wait_log(before + 1)


@pytest.mark.parametrize("locale", ["fr-FR", "ar-MA"])
def test_axe_finds_no_wcag_violation_on_any_screen_or_state(
    gateway_factory: GatewayFactory, players: PlayerFactory, locale: str
) -> None:
    gateway = gateway_factory(seed=5)
    ana = players(gateway.url + "/", locale=locale)
    ana.page.locator("#home-forms").wait_for()
    assert ana.js("document.documentElement.dir") == ("rtl" if locale == "ar-MA" else "ltr")
    assert_no_axe_violations(ana, "home")
    code = ana.create("Ana")
    assert_no_axe_violations(ana, "table waiting, the host alone")
    bruno = players(gateway.url + "/?join=" + code, locale=locale)
    bruno.page.locator("#home-invited").wait_for()
    assert_no_axe_violations(bruno, "home, invited")
    bruno.join(code, "Bruno")
    bruno.listen()
    ana.wait_js("window.lexio.table.seats.length === 2")
    assert_no_axe_violations(ana, "table waiting, the host can start")
    assert_no_axe_violations(bruno, "table waiting, a guest")

    ana.page.locator("#start-game:enabled").click()
    for player in (ana, bruno):
        player.wait_screen("game")
        player.wait_js("window.lexio.view !== null")
    ana.page.focus("#board .cell.cursor")
    assert_no_axe_violations(ana, "game, own turn, the board focused")
    assert_no_axe_violations(bruno, "game, the opponent's turn")

    view = ana.view()
    ana.place_by_click(legal_move(view["board"], view["rack"], 1))
    ana.preview_text()
    assert_no_axe_violations(ana, "game, with a preview")
    ana.page.click("#btn-validate")
    bruno.wait_log(1)
    ana.wait_log(1)
    assert_no_axe_violations(ana, "game, after its own move (the last move marked)")

    # French words inside Arabic (or any) text are marked French (WCAG 3.1.2).
    word = bruno.js("window.lexio.log[0].words[0].word")
    assert bruno.page.locator(f'#log bdi.word[lang="fr"]:text-is("{word}")').count() == 1
    said = bruno.wait_heard(word)
    assert said["french"] == [word], said
    assert "Ana" in said["text"] and said["region"] == "polite"

    view = bruno.view()
    place, _words = refused_move(view["board"], view["rack"])
    bruno.place_by_click(place)
    bruno.preview_text()
    bruno.page.click("#btn-validate")
    bruno.page.locator("#message.message-refusal").wait_for()
    assert bruno.page.locator('#message bdi.word[lang="fr"]').count() >= 2
    assert_no_axe_violations(bruno, "game, with a refusal")
    bruno.page.click("#btn-recall")

    bruno.page.click("#btn-exchange")
    bruno.page.locator("#dlg-exchange[open]").wait_for()
    assert_no_axe_violations(bruno, "the exchange dialog open")
    bruno.page.keyboard.press("Escape")
    bruno.page.click("#btn-leave")
    bruno.page.locator("#dlg-confirm[open]").wait_for()
    assert bruno.active_matches("#confirm-cancel"), "the dialog must focus its safe choice"
    assert_no_axe_violations(bruno, "the leave dialog open")
    bruno.page.keyboard.press("Escape")

    # Three passes, then the fourth turn without a placement asks first (R31), then ends.
    pass_turn(bruno, (ana, bruno))
    pass_turn(ana, (ana, bruno))
    pass_turn(bruno, (ana, bruno))
    ana.page.click("#btn-pass")
    ana.page.locator("#dlg-confirm[open]").wait_for()
    assert ana.active_matches("#confirm-cancel")
    assert_no_axe_violations(ana, "the end-the-game dialog open")
    ana.page.click("#confirm-ok")
    for player in (ana, bruno):
        player.page.locator("#end-panel").wait_for()
        assert_no_axe_violations(player, "the end of the game")


# -- A whole game by keyboard alone, and what the live region says --------------------------

COUNT_POINTER = """(() => {
  window.__pointer = window.__pointer || 0;
  addEventListener("pointerdown", () => { window.__pointer += 1; }, true);
})()"""


# What a failure to hear the end shows of the page (a fresh-clone run once never heard it).
END_STATE = """({
  log: window.lexio.log.map((entry) => entry.kind),
  turn: window.lexio.view?.turn,
  secondsLeft: window.lexio.view?.turn_deadline - Date.now() / 1000,
  ending: Boolean(window.lexio.view?.ending),
  dialogOpen: document.querySelector("#dlg-confirm").open,
  focus: document.activeElement?.id || document.activeElement?.className,
})"""


def test_a_blind_player_plays_a_whole_game_by_keyboard_and_hears_every_move(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=5, turn_seconds=20.0)
    ana = players(gateway.url + "/")
    ana.listen()
    code = ana.create("Ana")

    # Bruno: Tab, typing and Enter only, from the top of the home page; no pointer ever.
    bruno = players(gateway.url + "/")
    bruno.page.add_init_script(COUNT_POINTER)
    bruno.js(COUNT_POINTER)
    bruno.listen()
    bruno.page.locator("#home-forms").wait_for()
    keyboard = bruno.page.keyboard
    bruno.tab_to("#home-name")
    keyboard.type("Bruno")
    bruno.tab_to("#home-code")
    keyboard.type(code)
    keyboard.press("Enter")
    bruno.wait_screen("table")
    ana.wait_heard("Bruno a rejoint la table.")

    ana.page.locator("#start-game:enabled").click()
    for player in (ana, bruno):
        player.wait_screen("game")
        player.wait_js("window.lexio.view !== null")
    bruno.wait_heard("La partie commence. Au tour de Ana")
    # The keyboard lands on the board by itself (the table screen it was on went away).
    bruno.wait_js("document.activeElement.matches('#board .cell.cursor')")

    # 1. Ana plays: Bruno hears who, the word (French), where, which way, the points; then
    # that it is his turn, in that order.
    start = len(bruno.heard())
    view = ana.view()
    ana.place_by_click(legal_move(view["board"], view["rack"], 1))
    ana.page.click("#btn-validate")
    bruno.wait_log(1)
    entry = bruno.js("window.lexio.log[0]")
    word = entry["words"][0]
    direction = "horizontal" if word["across"] else "vertical"
    said = bruno.wait_heard("Ana a posé", start=start)
    where = f"{word['word']} en {cell_name(word['row'], word['col'])}, {direction}"
    assert where in said["text"], said
    assert f"pour {points(entry['score'])}." in said["text"], said
    assert said["french"] == [word["word"]]
    assert said["region"] == "polite"
    turn = bruno.wait_heard("À vous de jouer !", start=start)
    heard = bruno.heard()
    assert heard.index(said) <= heard.index(turn)
    assert "Au tour de Bruno" in ana.wait_heard("Au tour de Bruno")["text"]

    # 2. Bruno places by keyboard: each tile is said with its cell, then where the cursor
    # went; a tile taken back is said too; the preview once, its disclaimer only the first
    # time; Enter plays, and his own move is said like anyone's.
    start = len(bruno.heard())
    view = bruno.view()
    place = legal_move(view["board"], view["rack"], 2)
    bruno.place_by_keyboard(place, focus=False)
    tiles = sorted(place.tiles, key=lambda t: (t.row, t.col))
    for tile in tiles:
        letter = "joker valant " + tile.letter if tile.blank else tile.letter
        value = 0 if tile.blank else VALUES[tile.letter]
        said = bruno.wait_heard(
            f"{cell_name(tile.row, tile.col)} : {letter}, {points(value)}, posé ce tour",
            start=start,
        )
    first = bruno.wait_heard(f"{cell_name(tiles[0].row, tiles[0].col)} : ", start=start)
    assert "Curseur en " in first["text"] or len(tiles) == 1, first
    preview = bruno.wait_heard("Aperçu : ", start=start)
    assert "Aperçu indicatif" in preview["text"]
    assert "Ce coup rapporterait" not in preview["text"]
    # The preview of the whole placement (the first one heard may be of its first tiles).
    formed = form_move(view["board"], view["rack"], place)
    assert isinstance(formed, FormedMove)
    words = [w.word for w in formed.words]
    bruno.wait_heard("Aperçu : ", start=start, french=words)
    # Backspace takes the last tile back (said); typing it again places it again.
    after = len(bruno.heard())
    last = tiles[-1]
    keyboard.press("Backspace")
    taken = bruno.wait_heard("repris, de retour sur le chevalet.", start=after)
    letter = "joker" if last.blank else last.letter
    assert f"{cell_name(last.row, last.col)} : {letter} repris" in taken["text"], taken
    after = len(bruno.heard())
    keyboard.press(last.letter)
    bruno.wait_heard("posé ce tour", start=after)
    # Not the preview of the tiles left by Backspace, which may be said after it: Enter
    # before the whole placement's preview is said would hear that preview and the move as
    # one paragraph.
    bruno.wait_heard("Aperçu : ", start=after, french=words)
    keyboard.press("Enter")
    ana.wait_log(2)
    bruno.wait_log(2)
    mine = bruno.js("window.lexio.log[1]")
    said = bruno.wait_heard("Bruno a posé", start=after)
    assert all(w["word"] in said["french"] for w in mine["words"]), said
    assert points(mine["score"]) in said["text"]
    bruno.wait_heard("Au tour de Ana", start=after)
    assert sum("Aperçu indicatif" in s["text"] for s in bruno.heard()) == 1
    assert said["french"] == words
    assert ana.wait_heard("Bruno a posé")["french"] == words

    # The "?" key: time left, rack, scores, without leaving the board.
    after = len(bruno.heard())
    keyboard.press("?")
    summary = bruno.wait_heard("Votre chevalet : ", start=after)
    assert "Scores : Ana " in summary["text"] and "Au tour de Ana" in summary["text"]

    # 3. Ana exchanges two tiles: said by their count, never which.
    after = len(bruno.heard())
    ana.page.click("#btn-exchange")
    exchange = ana.page.locator("#exchange-tiles .exchange-tile")
    exchange.nth(0).click()
    exchange.nth(1).click()
    ana.page.click("#exchange-ok")
    bruno.wait_heard("Ana a échangé 2 jetons.", start=after)
    bruno.wait_heard("À vous de jouer !", start=after)

    # 4. Bruno lets his time run out: warned (at once, assertive) in the last 10 seconds,
    # then the table passes for him (R28), which he hears.
    warning = bruno.wait_heard("secondes pour jouer !", region="assertive", start=after, timeout=30)
    assert re.fullmatch(r"Plus que ([1-9]|10) secondes? pour jouer !", warning["text"]), warning
    bruno.wait_heard("Temps écoulé : la table a passé pour Bruno.", start=after, timeout=30)
    bruno.wait_log(4)

    # 5. Ana passes.
    after = len(bruno.heard())
    ana.page.click("#btn-pass")
    bruno.wait_heard("Ana a passé.", start=after)
    bruno.wait_log(5)

    # 6. Bruno passes, by Tab and Enter. Ending the game asks first, with "Annuler" focused:
    # Enter alone cancels; then Shift+Tab to the confirmation and Enter.
    bruno.tab_to("#btn-pass")
    keyboard.press("Enter")
    bruno.page.locator("#dlg-confirm[open]").wait_for()
    assert bruno.active_matches("#confirm-cancel")
    keyboard.press("Enter")
    bruno.page.locator("#dlg-confirm").wait_for(state="hidden")
    assert log_length(bruno) == 5
    bruno.tab_to("#btn-pass")
    keyboard.press("Enter")
    bruno.page.locator("#dlg-confirm[open]").wait_for()
    bruno.tab_to("#confirm-ok", backwards=True)
    after = len(bruno.heard())
    keyboard.press("Enter")

    # 7. The end: the cause, the winner(s) and every final score.
    said = bruno.wait_heard("Partie terminée.", start=after, explain=END_STATE)
    assert "Bruno a passé." in bruno.wait_heard("Bruno a passé.", start=after)["text"]
    ending = bruno.view()["ending"]
    assert "Deux tours de table sans aucune pose" in said["text"]
    assert "Victoire" in said["text"]
    for seat, name in enumerate(("Ana", "Bruno")):
        assert f"{name} {points(ending['final_scores'][seat])}" in said["text"], said
    assert bruno.js("window.__pointer") == 0, "Bruno used a pointer"


def test_the_clock_is_said_at_30_seconds_politely(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=5, turn_seconds=33.0)
    ana, bruno = start_game(players, gateway.url)
    ana.listen()
    bruno.listen()
    warning = ana.wait_heard("secondes pour jouer !", timeout=15)
    assert warning["region"] == "polite"
    assert re.fullmatch(r"Plus que (30|29|28) secondes pour jouer !", warning["text"]), warning
    assert not [s for s in bruno.heard() if "pour jouer" in s["text"]]  # only on one's turn


# -- Names: what a cell, a rack tile, a score says ------------------------------------------


def test_cells_rack_tiles_and_scores_are_named_by_what_they_show(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=5)
    ana, bruno = start_game(players, gateway.url)

    # Empty cells: a bonus's mark first (M×3), a symbol (✚, ◉) not at all; walls disabled.
    assert bruno.cell(0, 4).get_attribute("aria-label") == "M×3, E1 : Mot compte triple"
    assert bruno.cell(4, 5).get_attribute("aria-label") == "L×3, F5 : Lettre compte triple"
    crossing = bruno.cell(3, 3).get_attribute("aria-label") or ""
    assert crossing.startswith("D4 : Croisement") and "✚" not in crossing
    assert bruno.cell(0, 2).get_attribute("aria-label") == "C1 : vide"
    for row, col in WALLS:
        assert bruno.cell(row, col).get_attribute("aria-disabled") == "true"
    assert ax_property(bruno, '#board .cell[data-row="0"][data-col="0"]', "disabled") is True
    legend = ax_texts(bruno, "#legend-box")
    assert not any(symbol in text for text in legend for symbol in "✚◉")

    # Rack tiles: "S, 1 point", their visible letter and value first.
    for button in bruno.page.locator("#rack .rack-tile").all():
        name = button.get_attribute("aria-label") or ""
        letter = button.locator(".tile-letter").inner_text()
        if letter:
            assert name == f"{letter}, {points(VALUES[letter])}", name
        else:
            assert name == "Joker (0 point)"

    # A move: its tiles give their value, the bonus they cover, and that they are the last
    # move's; Chromium's tree names the cell so.
    view = ana.view()
    ana.place_by_click(legal_move(view["board"], view["rack"], 1))
    ana.page.click("#btn-validate")
    bruno.wait_log(1)
    entry = bruno.js("window.lexio.log[0]")
    for tile in entry["tiles"]:
        row, col, letter = tile["row"], tile["col"], tile["letter"].upper()
        blank = tile.get("blank", False)
        shown = (
            f"{letter}, joker valant {letter}, 0 point"
            if blank
            else f"{letter}, {points(VALUES[letter])}"
        )
        expected = f"{shown}, {cell_name(row, col)}"
        if (row, col) == SOURCE:
            expected += ", sous le jeton : source"
        expected += ", joué au dernier coup"
        selector = f'#board .cell[data-row="{row}"][data-col="{col}"]'
        assert bruno.cell(row, col).get_attribute("aria-label") == expected
        assert ax_name(bruno, selector) == expected

    # Scores are text (an aria-label on a <span> was dropped: "Ana 9"); arrows are words.
    score = entry["score"]
    texts = ax_texts(bruno, '#players li[data-seat="0"]')
    assert "Ana" in texts and points(score) in texts, texts
    assert str(score) not in texts, texts
    log = ax_texts(bruno, "#log")
    assert any(t in ("horizontal", "vertical") for t in log), log
    assert not any(arrow in t for t in log for arrow in "→←↓"), log
    assert points(score) in log, log
    # The live regions are in the tree as such.
    assert ax_property(bruno, "#live-polite", "live") == "polite"
    assert ax_property(bruno, "#live-assertive", "live") == "assertive"


# -- Contrast of the cursor and of the last move's ring (WCAG 1.4.11) -----------------------

COLOURS = """(cell) => {
  const node = document.querySelector(cell);
  const style = getComputedStyle(node);
  const tile = node.querySelector(".tile");
  const under = tile ? getComputedStyle(tile) : null;
  return {
    outline: style.outlineColor, outlineWidth: style.outlineWidth, shadow: style.boxShadow,
    background: style.backgroundColor, image: style.backgroundImage,
    tile: under ? under.backgroundColor : null, tileShadow: under ? under.boxShadow : null,
  };
}"""
# The faces a tile can have, read from the page's own stylesheet (elements made on the spot).
FACES = """(() => {
  const faces = {};
  for (const kind of ["", "blank", "pending", "last"]) {
    const node = document.createElement("span");
    node.className = `tile ${kind}`.trim();
    document.querySelector("#board").append(node);
    const style = getComputedStyle(node);
    faces[kind || "tile"] = { background: style.backgroundColor, shadow: style.boxShadow };
    node.remove();
  }
  return faces;
})()"""


# One cell of each kind (R7–R9): plain, L×2, L×3, M×2, M×3, crossing, source, walled.
KINDS = {
    "plain": (0, 2),
    "letter2": (2, 4),
    "letter3": (4, 5),
    "word2": (1, 2),
    "word3": (0, 4),
    "crossing": (3, 3),
    "source": (6, 6),
    "wall": (0, 0),
}


def test_the_cursor_and_the_last_move_ring_reach_3_to_1_against_every_cell_colour(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=5)
    ana, bruno = start_game(players, gateway.url)

    # Every colour a cell can show: each kind's background (gradients: each stop) and the
    # faces of tiles (placed, blank, placed this turn).
    cell_colours: dict[str, list[tuple[int, int, int]]] = {}
    for kind, (row, col) in KINDS.items():
        colours = ana.page.evaluate(COLOURS, f'#board .cell[data-row="{row}"][data-col="{col}"]')
        cell_colours[kind] = rgb(colours["background"]) + rgb(colours["image"])
        assert cell_colours[kind], kind
    faces: dict[str, Any] = ana.js(FACES)
    for face in ("tile", "blank", "pending"):
        cell_colours[face] = rgb(faces[face]["background"])

    # The cursor, on every kind of cell the cursor can be on (walls are skipped by it).
    measured: dict[str, float] = {}
    for kind, (row, col) in KINDS.items():
        if kind == "wall":
            continue
        ana.cell(row, col).click()
        assert ana.cursor()[:2] == (row, col)
        style = ana.page.evaluate(COLOURS, "#board .cell.cursor")
        assert style["outlineWidth"] == "3px"
        (dark,) = rgb(style["outline"])
        (light,) = rgb(style["shadow"])
        assert contrast(dark, light) >= 3
        for colour in cell_colours[kind]:
            measured[f"cursor/{kind}"] = min(
                measured.get(f"cursor/{kind}", 99), contrast(dark, colour)
            )
            # The dark ring alone reaches 3:1 on every cell the cursor can be on.
            assert contrast(dark, colour) >= 3, (kind, colour, contrast(dark, colour))
    for face in ("tile", "blank", "pending"):
        for colour in cell_colours[face]:
            assert contrast(dark, colour) >= 3, (face, contrast(dark, colour))
            measured[f"cursor/{face}"] = contrast(dark, colour)

    # The last move's ring: two tones; against every cell colour (its neighbours, walls
    # included) one of them reaches 3:1; the dark one against the tile it rings.
    last_dark, last_light = sorted(rgb(faces["last"]["shadow"]), key=luminance)
    assert contrast(last_dark, last_light) >= 3
    for kind, colours in cell_colours.items():
        for colour in colours:
            best = max(contrast(last_dark, colour), contrast(last_light, colour))
            measured[f"last/{kind}"] = min(measured.get(f"last/{kind}", 99), best)
            assert best >= 3, (kind, colour, best)
    for face in ("tile", "blank"):
        for colour in cell_colours[face]:
            assert contrast(last_dark, colour) >= 3, (face, contrast(last_dark, colour))

    # And on the page: a real last move shows that ring.
    view = ana.view()
    ana.place_by_click(legal_move(view["board"], view["rack"], 1))
    ana.page.click("#btn-validate")
    bruno.wait_log(1)
    cursor = bruno.cursor()[:2]
    tiles = bruno.js("window.lexio.log[0].tiles")
    tile = next(t for t in tiles if (t["row"], t["col"]) != cursor)
    shown = bruno.page.evaluate(
        COLOURS, f'#board .cell[data-row="{tile["row"]}"][data-col="{tile["col"]}"]'
    )
    assert sorted(rgb(shown["tileShadow"]), key=luminance) == [last_dark, last_light]
    print(sorted(measured.items(), key=lambda item: item[1])[:6])


def test_the_axe_check_finds_a_violation_put_on_the_page(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    """The check every screen goes through can fail: a button without a name, added to a page
    axe found clean, is reported (WCAG 4.1.2)."""
    gateway = gateway_factory()
    ana = players(gateway.url + "/")
    ana.wait_screen("home")
    assert axe_violations(ana) == []
    ana.js("document.body.append(Object.assign(document.createElement('button'), {id: 'x'}))")
    found = axe_violations(ana)
    assert [v["id"] for v in found] == ["button-name"], describe(found)
    assert found[0]["nodes"][0]["target"] == ["#x"]
