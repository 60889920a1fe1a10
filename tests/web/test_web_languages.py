"""Arabic and Spanish at the same table (R34, R35): the Arabic page is right-to-left with the
board mirrored (column A at the far right, an across word's first letter rightmost, letters
still Latin), the Spanish guest on a 360 px phone sees the same game in Spanish."""

from __future__ import annotations

from pathlib import Path

import web_browser
from lexio_testing import GatewayFactory
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory, screenshot_path
from web_pages import Player
from web_words import legal_move, refused_move, showy_move

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players


def word_cells_x(player: Player, row: int, col: int, length: int, across: bool) -> list[float]:
    """The on-screen x of each cell of a word, first letter first."""
    xs = []
    for i in range(length):
        box = player.cell(row, col + i if across else col).bounding_box()
        assert box is not None
        xs.append(box["x"])
    return xs


def play_by_click(player: Player, others: list[Player], seed: int) -> None:
    view = player.view()
    before = player.js("window.lexio.log.length")
    player.place_by_click(showy_move(view["board"], view["rack"], seed))
    player.preview_text()
    player.page.click("#btn-validate")
    for everyone in [player, *others]:
        everyone.wait_log(before + 1)


def test_arabic_board_is_mirrored_and_a_spanish_phone_plays_the_same_game(
    gateway_factory: GatewayFactory, players: PlayerFactory, tmp_path: Path
) -> None:
    gateway = gateway_factory(seed=8)
    layla = players(gateway.url + "/", locale="ar-MA")
    layla.wait_screen("home")
    assert layla.js("document.documentElement.dir") == "rtl"
    assert layla.js("document.documentElement.lang") == "ar"
    assert layla.text("#home-title") == "العب Lexio"
    assert_no_axe_violations(layla, "home in Arabic")
    code = layla.create("ليلى")

    # The share link pre-fills the code for Diego, whose browser speaks Spanish.
    link = layla.page.input_value("#share-link")
    diego = players(link, locale="es-ES", width=360, height=740)
    diego.wait_screen("home")
    assert diego.js("document.documentElement.dir") == "ltr"
    assert diego.page.input_value("#home-code") == code
    assert "Te han invitado a una mesa" in diego.text("#home-invited")
    diego.page.fill("#home-name", "Diego")
    diego.page.click("#home-join")
    diego.wait_screen("table")
    assert "Esperando a que ليلى empiece la partida." in diego.text("#table-hint")
    assert "anfitrión" in diego.text("#seat-list")
    assert diego.js("location.search") == ""  # the invitation is used up
    layla.page.locator("#start-game:enabled").click()
    for player in (layla, diego):
        player.wait_screen("game")
        player.wait_js("window.lexio.view !== null")

    # Spanish strings for Diego; the page fits a 360 px wide phone.
    assert diego.text("#turn-status") == "Turno de ليلى"
    assert "88 fichas en la bolsa" in diego.text(".game-status")
    assert [diego.text(f"#btn-{b}") for b in ("validate", "exchange", "pass")] == [
        "Validar",
        "Cambiar",
        "Pasar",
    ]
    assert diego.page.get_attribute("#rack", "aria-label") == "Tu atril"
    assert "Registro de la partida" in diego.text("#log-title")
    assert diego.js("document.documentElement.scrollWidth") <= 360
    assert layla.text("#turn-status") == "دورك!"
    assert_no_axe_violations(diego, "game in Spanish on a 360 px phone")

    # Column A is at the far right for Layla, at the far left for Diego.
    def label_x(player: Player, label: str) -> float:
        box = player.page.locator(".col-label", has_text=label).first.bounding_box()
        assert box is not None
        return box["x"]

    assert label_x(layla, "A") > label_x(layla, "M")
    assert label_x(diego, "A") < label_x(diego, "M")

    # Layla's first word (across, row 7) by keyboard: arrows are mirrored too.
    view = layla.view()
    place = legal_move(view["board"], view["rack"], 8)
    layla.place_by_keyboard(place, mirrored=True)
    layla.preview_text()
    layla.page.keyboard.press("Enter")
    for player in (layla, diego):
        player.wait_log(1)
    word = layla.js("window.lexio.log[0].words[0]")
    assert word["across"] and len(word["word"]) >= 2
    args = (word["row"], word["col"], len(word["word"]), True)
    xs = word_cells_x(layla, *args)
    assert xs == sorted(xs, reverse=True), "Arabic: the first letter is the rightmost"
    xs = word_cells_x(diego, *args)
    assert xs == sorted(xs), "Spanish: the first letter is the leftmost"
    first = layla.cell(word["row"], word["col"]).locator(".tile-letter").inner_text()
    assert first == word["word"][0]  # Latin letters stay Latin
    assert "←" in layla.log_text() and "→" in diego.log_text()
    # The arrows are shown, not read: the log says the direction in words.
    assert layla.page.locator("#log .pos [aria-hidden='true']").first.inner_text() == "←"
    assert layla.page.locator("#log .pos .visually-hidden").first.inner_text() == "أفقيًا"
    assert_no_axe_violations(layla, "game in Arabic, mirrored, after a move")

    # Diego's refusal, in Spanish, names every refused word.
    view = diego.view()
    place, refused = refused_move(view["board"], view["rack"])
    diego.place_by_click(place)
    diego.page.click("#btn-validate")
    diego.page.locator("#message.message-refusal").wait_for()
    message = diego.text("#message")
    for refused_word in refused:
        assert f"El diccionario no reconoce «{refused_word}»." in message
    assert "Sigue siendo tu turno" in message
    diego.page.click("#btn-recall")

    # A few more moves for a board worth a screenshot.
    for turn in range(2, 8):
        mover, other = (diego, layla) if turn % 2 == 0 else (layla, diego)
        play_by_click(mover, [other], seed=turn)
    assert layla.js("document.documentElement.scrollWidth") <= 1280
    assert diego.js("document.documentElement.scrollWidth") <= 360
    layla.page.screenshot(path=str(screenshot_path("board-ar.png", tmp_path)))

    # The language switcher: Diego reads English for a moment, then Spanish again.
    diego.page.select_option("#lang", "en")
    diego.wait_js("document.documentElement.lang === 'en'")
    assert diego.text("#btn-pass") == "Pass"
    diego.page.select_option("#lang", "es")
    diego.wait_js("document.documentElement.lang === 'es'")
    assert diego.text("#btn-pass") == "Pasar"
    diego.page.reload()
    diego.wait_screen("game")
    assert diego.js("document.documentElement.lang") == "es"
