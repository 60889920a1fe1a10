"""A whole game in two real browsers (French): create and join by code, start, moves by drag
and drop, keyboard and clicks, a refusal naming every refused word (R19), an exchange and
passes in the other player's log (R11), a reload that keeps the seat, the end by R31 with every
rack revealed (R30–R32), then "play again". Screenshots for the README on the way."""

from __future__ import annotations

import re
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

HIDE_TAB = """() => {
  Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
  document.dispatchEvent(new Event("visibilitychange"));
}"""
SHOW_TAB = """() => {
  delete document.hidden;
  delete document.visibilityState;
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def play(
    player: Player, others: list[Player], how: str, seed: int, showy: bool = False
) -> list[str]:
    """Place the bot's move the way asked, check the preview, validate; return its words."""
    view = player.view()
    find = showy_move if showy else legal_move
    place = find(view["board"], view["rack"], seed)
    before = len(player.js("window.lexio.log"))
    if how == "drag":
        player.place_by_drag(place)
    elif how == "keyboard":
        player.place_by_keyboard(place)
    else:
        player.place_by_click(place)
    assert re.search(r"Ce coup rapporterait \d+ pts?", player.preview_text())
    if how == "keyboard":
        player.page.keyboard.press("Enter")
    else:
        player.page.click("#btn-validate")
    for everyone in [player, *others]:
        everyone.wait_log(before + 1)
    entry = player.js("window.lexio.log")[-1]
    assert entry["kind"] == "place" and entry["seat"] == player.seat()
    return [w["word"] for w in entry["words"]]


def test_two_players_play_a_whole_game_in_french(
    gateway_factory: GatewayFactory, players: PlayerFactory, tmp_path: Path
) -> None:
    gateway = gateway_factory(seed=5)
    ana = players(gateway.url + "/")
    ana.wait_screen("home")
    assert ana.js("document.documentElement.lang") == "fr"
    ana.page.fill("#home-name", "Ana")
    ana.page.locator("#home-name").blur()
    ana.page.screenshot(path=str(screenshot_path("home.png", tmp_path)))
    assert_no_axe_violations(ana, "home, a name typed")
    code = ana.create("Ana")
    assert re.fullmatch(r"[A-Z0-9]{5}-[A-Z0-9]{5}", code)
    assert ana.page.input_value("#share-link") == f"{gateway.url}/?join={code}"
    assert ana.page.locator("#start-game").is_disabled()

    # Bruno types the code sloppily (lower case, spaces instead of the dash).
    bruno = players(gateway.url + "/")
    bruno.join(" " + code.lower().replace("-", " ") + " ", "Bruno")
    for player in (ana, bruno):
        player.wait_js("window.lexio.table.seats.length === 2")
    assert "Ana" in bruno.text("#seat-list") and "hôte" in bruno.text("#seat-list")
    assert bruno.page.locator("#start-game").is_hidden()
    assert "En attente du lancement par Ana" in bruno.text("#table-hint")
    assert_no_axe_violations(ana, "table waiting, the host can start")
    ana.page.locator("#start-game:enabled").click()
    for player in (ana, bruno):
        player.wait_screen("game")
        player.wait_js("window.lexio.view !== null")
    assert ana.text("#turn-status") == "À vous de jouer !"
    assert bruno.text("#turn-status") == "Au tour de Ana"
    assert "88 jetons dans le sac" in ana.text(".game-status")
    assert "7 jetons" in bruno.text("#players")

    # Turn 1, Ana by drag and drop.
    words = play(ana, [bruno], "drag", seed=1)
    assert all(w in bruno.log_text() for w in words)
    assert bruno.text("#turn-status") == "À vous de jouer !"

    # Turn 2, Bruno: first a refusal naming every refused word, then a move by keyboard.
    view = bruno.view()
    place, refused = refused_move(view["board"], view["rack"])
    bruno.place_by_click(place)
    bruno.preview_text()
    bruno.page.click("#btn-validate")
    bruno.page.locator("#message.message-refusal").wait_for()
    message = bruno.text("#message")
    for word in refused:
        assert f"Le lexique ne reconnaît pas « {word} »." in message
    assert "existe" not in message
    assert "Il vous reste 9 essais dans la réserve." in message
    assert "Réserve d'essais : 9/10" in bruno.text("#reserve")
    assert_no_axe_violations(bruno, "a refusal naming every refused word")
    assert bruno.text("#turn-status") == "À vous de jouer !"
    bruno.page.click("#btn-recall")
    assert bruno.page.locator("#board .tile.pending").count() == 0
    # Ana's tab is in the background when her turn comes: the title and the icon say so.
    ana.page.evaluate(HIDE_TAB)
    assert ana.page.title() == "Lexio"
    words = play(bruno, [ana], "keyboard", seed=2)
    assert all(w in ana.log_text() for w in words)
    ana.wait_js("document.title === 'À vous de jouer ! — Lexio'")
    assert ana.page.get_attribute("#favicon", "href") == "/static/img/favicon-turn.svg"
    ana.page.evaluate(SHOW_TAB)
    ana.wait_js("document.title === 'Lexio'")

    # Turns 3 to 8 by click-then-click; then Ana prepares a move: the screenshot.
    for turn in range(3, 9):
        mover, other = (ana, bruno) if turn % 2 else (bruno, ana)
        play(mover, [other], "click", seed=turn, showy=True)
    view = ana.view()
    ana.place_by_drag(showy_move(view["board"], view["rack"], 9))
    ana.preview_text()
    ana.page.screenshot(path=str(screenshot_path("game-fr.png", tmp_path)))
    ana.page.click("#btn-recall")

    # Turn 9, Ana exchanges two tiles: Bruno's log says how many, never which.
    ana.page.click("#btn-exchange")
    tiles = ana.page.locator("#exchange-tiles .exchange-tile")
    tiles.nth(0).click()
    tiles.nth(1).click()
    assert ana.text("#exchange-ok") == "Échanger 2 jetons"
    ana.page.click("#exchange-ok")
    bruno.wait_log(9)
    assert "Ana a échangé 2 jetons." in bruno.log_text()

    # Turn 10, Bruno reloads the page first: same seat, same rack, same log; then passes.
    rack = bruno.view()["rack"]
    bruno.page.reload()
    bruno.wait_screen("game")
    bruno.wait_log(9)
    assert bruno.seat() == 1 and bruno.view()["rack"] == rack
    assert "Ana a échangé 2 jetons." in bruno.log_text()
    assert bruno.text("#turn-status") == "À vous de jouer !"
    bruno.page.click("#btn-pass")
    ana.wait_log(10)
    assert "Bruno a passé." in ana.log_text()

    # Turn 11 Ana passes; turn 12 would be the 4th turn without a placement (R31, 2×2):
    # Bruno is asked to confirm, first says no, then yes.
    ana.page.click("#btn-pass")
    bruno.wait_log(11)
    assert ana.page.locator("#dlg-confirm").is_hidden()
    bruno.page.click("#btn-pass")
    bruno.page.locator("#dlg-confirm[open]").wait_for()
    assert "la partie s'arrête" in bruno.text("#dlg-confirm")
    assert bruno.js("document.activeElement.id") == "confirm-cancel"  # the safe choice
    assert_no_axe_violations(bruno, "the end-the-game dialog")
    bruno.page.click("#dlg-confirm button[data-close='']")
    assert bruno.js("window.lexio.log.length") == 11
    bruno.page.click("#btn-pass")
    bruno.page.click("#confirm-ok")

    # The end: reckoning, winner(s), every rack revealed to both.
    racks = {p.seat(): p.view()["rack"] for p in (ana, bruno)}
    for player in (ana, bruno):
        player.page.locator("#end-panel").wait_for()
        ending = player.view()["ending"]
        assert ending["cause"] == "no_placement"
        panel = player.text("#end-panel")
        assert "Deux tours de table sans aucune pose" in panel
        winners = [["Ana", "Bruno"][s] for s in ending["winners"]]
        if len(winners) == 1:
            assert f"Victoire de {winners[0]} !" in panel
        else:
            assert "Victoire partagée" in panel
        for seat, rack in racks.items():
            rows = player.page.locator(f"#end-panel tr[data-seat='{seat}']")
            shown = rows.locator(".end-rack .visually-hidden").text_content() or ""
            assert shown.split() == [("joker" if t == "?" else t) for t in rack]
            assert rows.locator(".final").inner_text() == str(ending["final_scores"][seat])
        assert player.page.locator("#play-area").is_hidden()
        assert_no_axe_violations(player, "the end of the game")

    # Play again: the host opens a new table, Bruno joins it from his end screen.
    bruno.page.locator("#end-panel").get_by_text("Si Ana propose de rejouer").wait_for()
    ana.page.click("#btn-rematch")
    ana.wait_screen("table")
    bruno.page.click("#btn-join-new")
    bruno.wait_screen("table")
    for player in (ana, bruno):
        player.wait_js("window.lexio.table.seats.length === 2")
    new_code = ana.page.input_value("#table-code-text")
    assert new_code != code
    assert bruno.page.input_value("#table-code-text") == new_code
