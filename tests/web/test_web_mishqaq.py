"""al-Mishqaq in two real browsers (issue 16): whole games through the page, each move the
bot finds from that page's own view played the way a person would — mouse drag, click then
click, tap then tap, a touch drag, the keyboard (an Arabic word typed right to left).

- A race to a try: the French host on a desktop (Latin side) against an Arabic phone with a
  touch screen (360×740); the options chosen at home and seen before joining; a refusal
  naming the unknown word with the reserve; a blank placed, then swapped back by dropping the
  real tile on it (M27); the log with each word's direction; both racks revealed; play again.
- A resignation by the player not to move (M31), in Arabic on a desktop against French: the
  code typed (looked up once, then joined), the board never mirrored (M4), Arabic words typed.

Any page error or CSP violation fails them (the players fixture)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import web_browser
from lexio_testing import GatewayFactory
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory, screenshot_path
from web_mishqaq import (
    blank_opening,
    bot,
    bring_into_view,
    cell,
    clock_text,
    create_table,
    join,
    log_length,
    log_text,
    mishqaq_gateway,
    open_invitation,
    pan_to,
    place,
    play_to_the_end,
    play_turn,
    rack_tile,
    refused_opening,
    side,
    start,
    to_move,
    validate,
    wait_ended,
)
from web_pages import Player

from lexio_lobby.server import RunningLobby

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players


def seconds(text: str) -> int:
    match = re.fullmatch(r"(\d+):(\d\d)", text)
    assert match, text
    return int(match[1]) * 60 + int(match[2])


def x_of(player: Player, selector: str) -> float:
    box = player.page.locator(selector).first.bounding_box()
    assert box is not None
    return box["x"]


def test_a_race_to_a_try_french_desktop_against_an_arabic_phone(
    gateway_factory: GatewayFactory,
    two_games_lobby: RunningLobby,
    players: PlayerFactory,
    tmp_path: Path,
) -> None:
    # Seed 25: the Latin side opens, with a blank on its rack.
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=25)

    # Ana picks al-Mishqaq and its options (M1–M3) on the home page.
    ana = players(gateway.url + "/")
    ana.wait_screen("home")
    ana.page.locator("#home-games").wait_for()
    assert ana.page.locator("#home-mq-options").is_hidden()  # Lexio is the default
    ana.page.check("#home-game-mishqaq")
    assert ana.page.locator("#home-words-french").is_hidden()
    assert_no_axe_violations(ana, "home, al-Mishqaq and its options (fr)")
    code = create_table(ana, "Ana", side="latin", latin="fr", latin_minutes=25, arabic_minutes=35)
    options = ana.text("#table-game")
    assert "al-Mishqaq" in options and "Ana joue le côté latin." in options
    assert "Place libre : côté arabe." in options
    assert "Pendules : 25 minutes pour le côté latin, 35 minutes pour le côté arabe." in options
    assert_no_axe_violations(ana, "al-Mishqaq table waiting, the host alone (fr)")

    # Bruno, on an Arabic phone, opens the link: the game and its options before joining.
    bruno = open_invitation(players, gateway.url, code, "ar-MA", width=360, height=740, touch=True)
    assert bruno.js("document.documentElement.dir") == "rtl"
    invitation = bruno.text("#home-invitation")
    assert "دعوة: طاولة المشقاق (1/2 لاعبين)." in invitation
    assert "ستلعب الجانب العربي، والمضيف يلعب الجانب اللاتيني." in invitation
    assert "كلمات الجانب اللاتيني: الفرنسية." in invitation
    assert "25 دقيقة للجانب اللاتيني" in invitation and "35 دقيقة للجانب العربي" in invitation
    assert_no_axe_violations(bruno, "home, invited to al-Mishqaq (ar, phone)")
    join(bruno, "برونو", tap=True)
    assert "برونو: الجانب العربي." in bruno.text("#table-game")
    start(ana, bruno, tap=False)

    # The table: 22×22, halves and red squares; never mirrored, not even in Arabic (M4).
    for player in (ana, bruno):
        assert player.page.locator("#mq-board .cell").count() == 22 * 22
        assert "red-latin" in (cell(player, 10, 1).get_attribute("class") or "")
        assert "red-arabic" in (cell(player, 10, 20).get_attribute("class") or "")
        assert x_of(player, '#mq-board .cell[data-row="0"][data-col="0"]') < x_of(
            player, '#mq-board .cell[data-row="0"][data-col="21"]'
        )
    clocks = '#mq-clocks [data-side="{}"]'
    assert x_of(bruno, clocks.format("latin")) < x_of(bruno, clocks.format("arabic"))
    assert side(ana) == "latin" and side(bruno) == "arabic"
    assert ana.js("window.lexio.view.turn") == "latin"
    red = cell(ana, 10, 1).get_attribute("aria-label") or ""
    assert "B11 : vide, case de départ du côté latin" in red, red
    # Both clocks in sight, the mover's running down from its bank (M3, M28).
    assert seconds(clock_text(bruno, "arabic")) == 35 * 60
    first = seconds(clock_text(bruno, "latin"))
    assert 24 * 60 < first <= 25 * 60
    bruno.wait_js(
        "document.querySelector('#mq-clocks [data-side=\"latin\"] .mq-time').textContent"
        f" !== '{clock_text(bruno, 'latin')}'"
    )
    assert seconds(clock_text(bruno, "arabic")) == 35 * 60  # the waiting side's stands
    assert "running" in (ana.page.get_attribute('#mq-clocks [data-side="latin"]', "class") or "")

    # The phone: cells of at least 24 px on a board that pans, rack and clocks in sight.
    box = cell(bruno, 0, 0).bounding_box()
    assert box is not None and box["width"] >= 24 and box["height"] >= 24
    assert bruno.js("document.querySelector('#mq-board-wrap').scrollWidth > 360")
    assert bruno.js("document.documentElement.scrollWidth") <= 360
    for selector in ("#mq-clocks", "#mq-rack", "#mq-validate"):
        assert bruno.fully_in_view(selector), selector
    # Panned to the far corners (as a finger would), the clocks and the rack stay in sight.
    for row, col in ((21, 0), (0, 21), (21, 21)):
        bring_into_view(cell(bruno, row, col))
        assert cell(bruno, row, col).is_visible()
        for selector in ("#mq-clocks", "#mq-rack", "#mq-validate"):
            assert bruno.fully_in_view(selector), (row, col, selector)
    bruno.page.click("#mq-zoom-in")
    zoomed = cell(bruno, 0, 0).bounding_box()
    assert zoomed is not None and zoomed["width"] > box["width"]
    bruno.page.click("#mq-zoom-out")
    assert_no_axe_violations(ana, "al-Mishqaq, own turn (fr, desktop)")
    assert_no_axe_violations(bruno, "al-Mishqaq, the opponent's turn (ar, phone)")

    # 1. Ana first tries a word the French list does not know: refused, the word named, the
    # reserve shown (M24); the turn goes on.
    tiles, word = refused_opening(ana, "fr")
    place(ana, tiles, "click")
    validate(ana, "click")
    ana.page.locator("#mq-message.message-refusal").wait_for()
    message = ana.text("#mq-message")
    assert f"Le lexique ne reconnaît pas « {word} »." in message
    assert "Il vous reste 9 vérifications dans la réserve." in message
    assert "existe" not in message
    assert "Vérifications en réserve : 9/10" in ana.text("#mq-reserve")
    assert ana.page.locator(f'#mq-message bdi.word[lang="fr"]:text-is("{word}")').count() == 1
    assert_no_axe_violations(ana, "al-Mishqaq, a refusal (fr)")
    ana.page.click("#mq-recall")

    # Then a blank standing for a letter she also holds, dragged, its letter chosen (M26).
    tiles, letter = blank_opening(ana)
    rack_tile(ana, "?").drag_to(cell(ana, tiles[0]["row"], tiles[0]["col"]))
    ana.page.locator("#dlg-blank[open]").wait_for()
    assert_no_axe_violations(ana, "al-Mishqaq, the blank's letter dialog (fr)")
    ana.page.click(f'#dlg-blank [data-letter="{letter}"]')
    ana.page.locator("#mq-board .mq-tile.pending.blank").wait_for()
    place(ana, tiles[1:], "drag")
    validate(ana, "click")
    for player in (ana, bruno):
        player.wait_log(2)
    assert ana.js("window.lexio.view.board[10 * 22 + 1]") == "?" + letter
    blank_cell = cell(bruno, 10, 1).get_attribute("aria-label") or ""
    assert blank_cell.startswith(f"{letter}، جوكر لاتيني يمثّل {letter}"), blank_cell

    bots = {"latin": bot("fr", 1), "arabic": bot("ar", 2)}
    # 2. Bruno taps a tile, then a cell (and so on), and taps to play.
    entry = play_turn(bruno, ana, bots, "tap")
    assert entry["kind"] == "place" and entry["side"] == "arabic"
    main = entry["words"][0]
    assert main["word"] in log_text(ana) and "←" in log_text(ana)
    assert ana.page.locator(f'#mq-log bdi.word[lang="ar"]:text-is("{main["word"]}")').count() >= 1

    # 3. Ana takes her blank back: the real tile dropped on it (M27), then plays on.
    before = log_length(ana)
    rack_tile(ana, letter).drag_to(cell(ana, 10, 1))
    for player in (ana, bruno):
        player.wait_log(before + 1)
    assert ana.js("window.lexio.view.board[10 * 22 + 1]") == letter
    assert ana.page.locator("#mq-rack .rack-tile[data-code='?']").count() == 1
    assert f"Ana a récupéré son joker en B11 en y posant le jeton {letter}." in log_text(ana)
    assert ana.js("window.lexio.view.turn") == "latin"  # a swap does not end the turn
    play_turn(ana, bruno, bots, "keyboard")

    # The rest of the race, every way of placing on both sides; screenshots on the way.
    ways = {"latin": ["drag", "click", "keyboard"], "arabic": ["touch-drag", "keyboard", "tap"]}
    entries: list[dict[str, Any]] = []
    for turn in range(8):
        mover, other = to_move(ana, bruno)
        how = ways[side(mover)][turn % 3]
        entries.append(play_turn(mover, other, bots, how))
    ana.page.screenshot(path=str(screenshot_path("mishqaq-fr.png", tmp_path)))
    last = bruno.js("window.lexio.log.findLast((e) => e.kind === 'place').tiles[0]")
    pan_to(bruno, last["row"], last["col"])
    bruno.page.screenshot(path=str(screenshot_path("mishqaq-phone.png", tmp_path)))
    assert_no_axe_violations(bruno, "al-Mishqaq mid-game (ar, phone)")
    entries += play_to_the_end(ana, bruno, bots, ways)

    # The end: a try (M23), both racks revealed (M12), to both.
    for player in (ana, bruno):
        ending = wait_ended(player)
        assert ending["cause"] == "try"
        for revealed in ("latin", "arabic"):
            shown = player.page.locator(f'#mq-end tr.end-rack-row[data-side="{revealed}"] .mq-tile')
            assert shown.count() == len(ending[f"{revealed}_rack"]), revealed
        assert player.page.locator("#mq-play").is_hidden()
    winner = {"latin": "Ana", "arabic": "برونو"}[ending["winner"]]
    assert f"{winner} a réussi un essai" in ana.text("#mq-end")
    assert f"Victoire de {winner} !" in ana.text("#mq-end")
    assert f"{winner}: محاولة ناجحة" in bruno.text("#mq-end")
    log = log_text(ana)
    for placed in [e for e in entries if e["kind"] == "place"]:
        assert placed["words"][0]["word"] in log
    assert any(arrow in log for arrow in "↓↑")  # columns read either way (M20)
    assert_no_axe_violations(ana, "al-Mishqaq, the end (fr)")
    assert_no_axe_violations(bruno, "al-Mishqaq, the end (ar, phone)")

    # Play again: a new table with the same options (same sides, same banks).
    ana.page.click("#mq-rematch")
    ana.wait_screen("table")
    bruno.page.locator("#mq-join-new").tap()
    bruno.wait_screen("table")
    for player in (ana, bruno):
        player.wait_js("window.lexio.table.seats.length === 2")
        assert player.js("window.lexio.table.options") == {
            "host_side": "latin",
            "latin": "fr",
            "latin_minutes": 25,
            "arabic_minutes": 35,
        }
    assert ana.page.input_value("#table-code-text") != code


FRAMES_SENT = """(() => {
  window.__sent = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    window.__sent.push(JSON.parse(data).type);
    return send.call(this, data);
  };
})()"""


def sent(player: Player, kind: str) -> int:
    count: int = player.js(f"window.__sent.filter((t) => t === {kind!r}).length")
    return count


def test_resigning_out_of_turn_in_arabic_on_a_desktop_against_french(
    gateway_factory: GatewayFactory,
    two_games_lobby: RunningLobby,
    players: PlayerFactory,
    tmp_path: Path,
) -> None:
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=11)  # Latin opens
    layla = players(gateway.url + "/", locale="ar-MA")
    layla.listen()
    assert layla.js("document.documentElement.dir") == "rtl"
    layla.page.locator("#home-games").wait_for()
    layla.page.check("#home-game-mishqaq")
    assert_no_axe_violations(layla, "home, al-Mishqaq and its options (ar)")
    code = create_table(
        layla, "ليلى", side="arabic", latin="en", latin_minutes=20, arabic_minutes=40
    )
    assert_no_axe_violations(layla, "al-Mishqaq table waiting (ar)")

    # Diego types the code and leaves the field: it is looked up once, shown, then joined.
    diego = players(gateway.url + "/")
    diego.page.add_init_script(FRAMES_SENT)
    diego.page.reload()
    diego.wait_screen("home")
    diego.listen()
    diego.page.fill("#home-name", "Diego")
    diego.page.locator("#home-code").press_sequentially(code.lower())
    diego.page.keyboard.press("Tab")
    diego.page.locator("#home-invitation .invitation-title").wait_for()
    invitation = diego.text("#home-invitation")
    assert "Invitation : une table de al-Mishqaq (1/2 joueurs)." in invitation
    assert "Vous jouerez le côté latin ; l'hôte joue le côté arabe." in invitation
    assert "Mots du côté latin : anglais." in invitation
    assert "20 minutes pour le côté latin, 40 minutes pour le côté arabe" in invitation
    diego.page.focus("#home-code")
    diego.page.keyboard.press("Tab")  # unchanged: not looked up again
    assert sent(diego, "lookup") == 1
    assert_no_axe_violations(diego, "home, an invitation looked up (fr)")
    diego.page.click("#home-join")
    diego.wait_screen("table")
    assert sent(diego, "lookup") == 1 and sent(diego, "join") == 1
    start(layla, diego)

    # In Arabic the page is right to left, the board is not: column A on the left (M4).
    assert side(layla) == "arabic" and side(diego) == "latin"
    a_x = x_of(layla, '#mq-board .col-label:text-is("A")')
    v_x = x_of(layla, '#mq-board .col-label:text-is("V")')
    assert a_x < v_x
    layla.wait_heard("بدأت المباراة. أنت تلعب الجانب العربي.")
    assert_no_axe_violations(layla, "al-Mishqaq, the opponent's turn (ar, desktop)")

    # Eight turns: Layla types her Arabic words on the keyboard, right to left; Diego plays
    # the English list's words by mouse.
    bots = {"latin": bot("en", 3), "arabic": bot("ar", 4)}
    for turn in range(8):
        mover, other = to_move(layla, diego)
        how = "keyboard" if mover is layla else ("drag", "click")[turn // 2 % 2]
        entry = play_turn(mover, other, bots, how)
        if mover is layla and entry["kind"] == "place":
            word = entry["words"][0]
            cols = [t["col"] for t in entry["tiles"]]
            if word["direction"] == "across" and len(set(t["row"] for t in entry["tiles"])) == 1:
                assert word["col"] >= max(cols), "an Arabic word starts on its right"
            said = diego.wait_heard(f"ليلى a posé {word['word']}")
            assert ["ar", word["word"]] in said["words"], said
    layla.page.screenshot(path=str(screenshot_path("mishqaq-ar.png", tmp_path)))

    # Diego reloads the page: the same seat, side, rack and log (the token kept).
    rack = diego.js("window.lexio.view.rack")
    log = log_text(diego)
    diego.page.reload()
    diego.wait_screen("mishqaq")
    diego.wait_js("window.lexio.view !== null && window.lexio.log.length > 1")
    assert side(diego) == "latin" and diego.js("window.lexio.view.rack") == rack
    assert log_text(diego) == log

    # He leaves the table (asked first: his clock runs on, M32), and comes back from home.
    diego.page.click("#mq-leave")
    diego.page.locator("#dlg-confirm[open]").wait_for()
    assert "votre pendule tourne" in diego.text("#dlg-confirm")
    diego.page.click("#confirm-ok")
    diego.wait_screen("home")
    away = diego.text("#home-away")
    assert "une partie d'al-Mishqaq en cours" in away and "votre pendule tourne" in away
    diego.page.click("#home-come-back")
    diego.wait_screen("mishqaq")
    diego.wait_js("window.lexio.view !== null")
    assert side(diego) == "latin" and diego.js("window.lexio.view.rack") == rack

    # The language can change during the game: every word follows, the board stays.
    diego.page.select_option("#lang", "en")
    diego.wait_js("document.documentElement.lang === 'en'")
    assert diego.text("#mq-resign") == "Resign"
    assert "Latin side" in diego.text("#mq-clocks")
    assert cell(diego, 0, 0).get_attribute("aria-label") == "A1: empty"
    diego.page.select_option("#lang", "fr")
    diego.wait_js("document.documentElement.lang === 'fr'")
    assert diego.text("#mq-resign") == "Abandonner"
    assert_no_axe_violations(layla, "al-Mishqaq after moves (ar, desktop)")

    # The player not to move resigns (M31): asked first, with the safe choice focused.
    mover, waiting = to_move(layla, diego)
    waiting.page.click("#mq-resign")
    waiting.page.locator("#dlg-confirm[open]").wait_for()
    assert waiting.active_matches("#confirm-cancel")
    assert_no_axe_violations(waiting, "the resign dialog")
    waiting.page.keyboard.press("Enter")  # Cancel: nothing ends
    waiting.page.locator("#dlg-confirm").wait_for(state="hidden")
    assert waiting.js("window.lexio.view.ending") is None
    waiting.page.click("#mq-resign")
    waiting.page.click("#confirm-ok")
    names = {layla: "ليلى", diego: "Diego"}
    for player in (layla, diego):
        ending = wait_ended(player)
        assert ending["cause"] == "resign" and ending["winner"] == side(mover)
    assert f"{names[waiting]} a abandonné." in diego.text("#mq-end")
    assert f"Victoire de {names[mover]} !" in diego.text("#mq-end")
    assert f"{names[waiting]}: استسلام." in layla.text("#mq-end")
    assert f"الفوز لـ{names[mover]}!" in layla.text("#mq-end")
    said = diego.wait_heard("Partie terminée.")
    assert f"{names[waiting]} a abandonné. Victoire de {names[mover]} !" in said["text"], said
    assert "الفوز" in layla.wait_heard("انتهت المباراة.")["text"]
    assert_no_axe_violations(layla, "al-Mishqaq, the end (ar, desktop)")
