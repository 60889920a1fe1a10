"""al-Mishqaq with a keyboard and a screen reader (docs/accessibility.md, its al-Mishqaq part):
a blind player opens a table, plays and hears the game with the keyboard alone — every move
with its words (in their language) and directions, whose turn, a refusal, the summary key,
the end; what Chromium gives a reader for cells, rack tiles and clocks; the cursor's rings
against every colour the board shows (WCAG 1.4.11). axe on the other screens runs in
test_web_mishqaq.py and test_web_mishqaq_clock.py, in French and in Arabic."""

from __future__ import annotations

import re
from typing import Any

import web_browser
from lexio_testing import GatewayFactory
from web_axe import assert_no_axe_violations, ax_name, ax_texts, contrast, luminance, rgb
from web_browser import PlayerFactory
from web_mishqaq import (
    bot,
    cell,
    create_table,
    join,
    mishqaq_gateway,
    open_invitation,
    place_by_keyboard,
    play_turn,
    refused_opening,
    side,
    start,
    wait_ended,
)
from web_pages import Player

from lexio_lobby.server import RunningLobby

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players

COUNT_POINTER = """(() => {
  window.__pointer = window.__pointer || 0;
  addEventListener("pointerdown", () => { window.__pointer += 1; }, true);
})()"""


def cell_name(row: int, col: int) -> str:
    return f"{chr(65 + col)}{row + 1}"


def test_a_blind_player_plays_al_mishqaq_by_keyboard_and_hears_every_move(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=25)  # Latin opens

    # Ana: Tab, arrows, typing and Enter only, from the top of the home page.
    ana = players(gateway.url + "/")
    ana.page.add_init_script(COUNT_POINTER)
    ana.js(COUNT_POINTER)
    ana.listen()
    ana.page.locator("#home-games").wait_for()
    keyboard = ana.page.keyboard
    ana.tab_to("#home-name")
    keyboard.type("Ana")
    ana.tab_to("#home-game-lexio")
    keyboard.press("ArrowDown")  # the radio group: al-Mishqaq
    assert ana.js("document.querySelector('#home-game-mishqaq').checked")
    ana.page.locator("#home-mq-options").wait_for()
    ana.tab_to("#home-create")
    keyboard.press("Enter")
    ana.wait_screen("table")
    code = ana.page.input_value("#table-code-text")

    bruno = open_invitation(players, gateway.url, code, "ar-MA")
    bruno.page.fill("#home-name", "Bruno")
    bruno.page.click("#home-join")
    ana.wait_heard("Bruno a rejoint la table.")
    ana.tab_to("#start-game")
    keyboard.press("Enter")
    for player in (ana, bruno):
        player.wait_screen("mishqaq")
        player.wait_js("window.lexio.view !== null")
    # The keyboard lands on the board by itself, at the player's own red square.
    ana.wait_js("document.activeElement.matches('#mq-board .cell.cursor')")
    assert ana.page.get_attribute("#mq-board .cell.cursor", "data-col") == "1"
    ana.wait_heard("La partie commence. Vous jouez le côté latin. À vous de jouer !")
    assert side(ana) == "latin"

    # 1. A word the French list does not know, typed at the red square: the refusal is the
    # page's alert; Escape takes every tile back (said).
    _tiles, word = refused_opening(ana, "fr")
    for letter in word:
        keyboard.press(letter)
    start_at = len(ana.heard())
    ana.wait_heard(f"B11 : {word[0]}, jeton latin", start=start_at - 8)
    keyboard.press("Enter")
    ana.page.locator("#mq-message.message-refusal").wait_for()
    assert f"Le lexique ne reconnaît pas « {word} »." in ana.text("#mq-message")
    keyboard.press("Escape")
    ana.wait_heard("Tous les jetons posés ce tour sont revenus sur le chevalet.")

    # 2. A real move, typed: each tile said with its cell, then where the cursor went; Enter
    # plays, and the move is said like anyone's, its words marked French.
    bots = {"latin": bot("fr", 1), "arabic": bot("ar", 2)}
    action = bots["latin"].choose(ana.view())
    assert action is not None
    start_at = len(ana.heard())
    place_by_keyboard(ana, action["place"]["tiles"], focus=False)
    first = sorted(action["place"]["tiles"], key=lambda t: t["col"])[0]
    ana.wait_heard(f"{cell_name(first['row'], first['col'])} : ", start=start_at)
    ana.wait_heard("Curseur en ", start=start_at)
    keyboard.press("Enter")
    ana.wait_log(2)
    entry = ana.js("window.lexio.log[1]")
    said = ana.wait_heard("Ana a posé", start=start_at)
    main = entry["words"][0]
    assert f"{main['word']} en {cell_name(main['row'], main['col'])}, horizontal" in said["text"]
    assert ["fr", main["word"]] in said["words"], said
    ana.wait_heard("Au tour de Bruno.", start=start_at)

    # 3. Bruno plays: Ana hears who, the Arabic word (marked Arabic), where, which way; then
    # that it is her turn.
    start_at = len(ana.heard())
    entry = play_turn(bruno, ana, bots, "click")
    main = entry["words"][0]
    said = ana.wait_heard("Bruno a posé", start=start_at)
    assert ["ar", main["word"]] in said["words"], said
    assert f"en {cell_name(main['row'], main['col'])}, horizontal" in said["text"], said
    turn = ana.wait_heard("À vous de jouer !", start=start_at)
    assert ana.heard().index(said) <= ana.heard().index(turn)

    # 4. The "?" key: both clocks, the rack, the bags; Space: the direction, three ways.
    start_at = len(ana.heard())
    assert ana.active_matches("#mq-board .cell.cursor")
    keyboard.press("?")
    summary = ana.wait_heard("Votre chevalet : ", start=start_at)
    assert re.search(r"Ana : \d+ min", summary["text"]) and "Bruno : " in summary["text"], summary
    assert "Sacs : " in summary["text"]
    for direction in ("de haut en bas", "de bas en haut", "horizontal"):
        keyboard.press("Space")
        ana.wait_heard(f"Sens : {direction}.", start=start_at)

    # 5. Ana passes (Tab to the button, Enter): said with what she drew.
    start_at = len(ana.heard())
    ana.tab_to("#mq-pass")
    keyboard.press("Enter")
    ana.wait_heard("Ana a passé et tiré 3 jetons.", start=start_at)

    # 6. Bruno calls a meaning pause: said. Its minute runs out (Ana's page a minute
    # ahead: no frame says it, M30): Ana's page sees it end by itself and says so, and
    # Bruno's clock runs again there.
    start_at = len(ana.heard())
    bruno.page.click("#mq-pause")
    ana.wait_heard("Bruno a demandé une pause sens : les deux pendules sont arrêtées.")
    ana.page.locator("#mq-pause-panel").wait_for()
    ana.js("(() => { const real = Date.now.bind(Date); Date.now = () => real() + 61000; })()")
    ana.wait_heard("La pause sens demandée par Bruno a pris fin au bout d'une minute.")
    ana.page.locator("#mq-pause-panel").wait_for(state="hidden")
    ana.wait_js("document.querySelector('#mq-clocks [data-side=\"arabic\"]').matches('.running')")

    # 7. Bruno resigns (also during a pause, M31): the end is said, the focus goes to the
    # end's heading.
    start_at = len(ana.heard())
    bruno.page.click("#mq-resign")
    bruno.page.click("#confirm-ok")
    wait_ended(ana)
    said = ana.wait_heard("Partie terminée.", start=start_at)
    assert "Bruno a abandonné. Victoire de Ana !" in said["text"], said
    ana.wait_js("document.activeElement.matches('#mq-end h2')")
    assert ana.js("window.__pointer") == 0, "Ana used a pointer"


def test_cells_rack_tiles_and_clocks_are_named_by_what_they_show(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=25)
    ana = players(gateway.url + "/")
    code = create_table(ana, "Ana", latin_minutes=20)
    bruno = open_invitation(players, gateway.url, code, "ar-MA")
    join(bruno, "Bruno")
    start(ana, bruno)

    # Empty cells: their name, "empty", and what the square is for.
    assert cell(ana, 0, 0).get_attribute("aria-label") == "A1 : vide"
    assert cell(ana, 10, 20).get_attribute("aria-label") == (
        "U11 : vide, case de départ du côté arabe, colonne d'arrivée du côté latin"
    )
    assert cell(bruno, 3, 1).get_attribute("aria-label") == "B4: خالية، عمود وصول الجانب العربي"
    # Rack tiles: their letters first ("R ر, jeton latin bilingue").
    for button in ana.page.locator("#mq-rack .rack-tile").all():
        name = button.get_attribute("aria-label") or ""
        code_ = button.get_attribute("data-code") or ""
        if code_ == "?":
            assert name == "Joker"
        elif code_.endswith("+"):
            assert name.startswith(code_[0] + " ") and name.endswith(", jeton latin bilingue")
        else:
            assert name == f"{code_}, jeton latin"
    # A move: its tiles named by their letters, then the cell, then "the last move".
    bots = {"latin": bot("fr", 1), "arabic": bot("ar", 2)}
    entry = play_turn(ana, bruno, bots, "click")
    for tile in entry["tiles"]:
        selector = f'#mq-board .cell[data-row="{tile["row"]}"][data-col="{tile["col"]}"]'
        name = ax_name(bruno, selector)
        assert name.startswith(tile["tile"]["letter"]), name
        assert f"، {cell_name(tile['row'], tile['col'])}" in name, name
        assert name.endswith("، من الحركة الأخيرة"), name
    # The clocks: the time as words, and which one runs.
    texts = ax_texts(ana, '#mq-clocks [data-side="arabic"]')
    assert "Bruno" in texts and "pendule en marche" in texts, texts
    assert any(re.fullmatch(r"\d+ min( \d+ s)?", t) for t in texts), texts
    assert not any(":" in t for t in texts if t[:1].isdigit()), texts  # "29:59" is not read
    assert_no_axe_violations(bruno, "al-Mishqaq, names (ar)")


COLOURS = """(selector) => {
  const node = document.querySelector(selector);
  const style = getComputedStyle(node);
  return { outline: style.outlineColor, shadow: style.boxShadow, background: style.backgroundColor,
           image: style.backgroundImage };
}"""
FACES = """(() => {
  const faces = {};
  for (const kind of ["latin", "arabic", "latin blank", "arabic blank", "latin pending",
                      "arabic pending", "latin last"]) {
    const node = document.createElement("span");
    node.className = `mq-tile ${kind}`;
    document.querySelector("#mq-board").append(node);
    const style = getComputedStyle(node);
    faces[kind] = { background: style.backgroundColor, shadow: style.boxShadow };
    node.remove();
  }
  return faces;
})()"""
TILE_FACES = ("latin", "arabic", "latin blank", "arabic blank", "latin pending", "arabic pending")
# One cell of each kind: each half, the red squares, the target columns.
KINDS = {
    "latin half": (0, 3),
    "arabic half": (0, 15),
    "red (Latin)": (10, 1),
    "red (Arabic)": (10, 20),
    "target (Latin)": (0, 20),
    "target (Arabic)": (0, 1),
}


def colours_of(player: Player, selector: str) -> list[tuple[int, int, int]]:
    style: dict[str, Any] = player.page.evaluate(COLOURS, selector)
    return rgb(style["background"]) + rgb(style["image"])


def test_the_cursor_and_the_last_move_ring_reach_3_to_1_on_every_colour_of_the_board(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=25)
    ana = players(gateway.url + "/")
    code = create_table(ana, "Ana")
    bruno = open_invitation(players, gateway.url, code)
    join(bruno, "Bruno")
    start(ana, bruno)
    faces: dict[str, Any] = ana.js(FACES)
    surfaces = {
        kind: colours_of(ana, f"#mq-board {cell_selector(*rc)}") for kind, rc in KINDS.items()
    }
    for face in TILE_FACES:
        surfaces[face] = rgb(faces[face]["background"])
    ana.page.focus("#mq-board .cell.cursor")
    for kind, (row, col) in KINDS.items():
        move_cursor(ana, row, col)
        style = ana.page.evaluate(COLOURS, "#mq-board .cell.cursor")
        (dark,) = rgb(style["outline"])
        (light,) = rgb(style["shadow"])
        assert contrast(dark, light) >= 3
        for colour in surfaces[kind]:
            assert contrast(dark, colour) >= 3, (kind, colour, contrast(dark, colour))
    for face in TILE_FACES:
        for colour in surfaces[face]:
            assert contrast(dark, colour) >= 3, (face, contrast(dark, colour))
    last_dark, last_light = sorted(rgb(faces["latin last"]["shadow"]), key=luminance)
    for kind, colours in surfaces.items():
        for colour in colours:
            best = max(contrast(last_dark, colour), contrast(last_light, colour))
            assert best >= 3, (kind, colour, best)
    for face in ("latin", "arabic"):
        for colour in surfaces[face]:
            assert contrast(last_dark, colour) >= 3, face


def cell_selector(row: int, col: int) -> str:
    return f'.cell[data-row="{row}"][data-col="{col}"]'


def ana_cursor(player: Player) -> tuple[int, int]:
    node = player.page.locator("#mq-board .cell.cursor")
    return int(node.get_attribute("data-row") or 0), int(node.get_attribute("data-col") or 0)


def move_cursor(player: Player, row: int, col: int) -> None:
    """Arrows from where the cursor is to (row, col): the keyboard's way around the board."""
    at_row, at_col = ana_cursor(player)
    keyboard = player.page.keyboard
    for _ in range(abs(row - at_row)):
        keyboard.press("ArrowDown" if row > at_row else "ArrowUp")
    for _ in range(abs(col - at_col)):
        keyboard.press("ArrowRight" if col > at_col else "ArrowLeft")
    assert ana_cursor(player) == (row, col)
