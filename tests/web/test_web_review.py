"""Issue 26: a finished game reviewed move by move in the browser, and its record downloaded.

Both games, played to their end quickly, then reviewed from the end screen. A human seat is
a Chromium page; the other seat is a second page, or a lexio_client bot on its own socket
(web_review.BotSeat); a long race's page moves go on the page's own socket (PageSocket).

- Lexio (French, desktop): every way of stepping (first / previous / next / last, the slider,
  the arrow keys, Home and End), the log's current entry, the scores and the viewer's own rack
  at each step, the final racks only at the last; the board at three entries cell by cell
  against the rules core's replay of the downloaded record's first moves; the record
  downloaded (a file named as the spec says, the viewer's own racks, the other's exchanges as
  counts) and `lexio replay` reaching the final scores the end screen showed; the README's
  screenshot (docs/screenshots/review-lexio.png) with LEXIO_SCREENSHOTS=1.
- Lexio by keyboard alone in French and in Arabic (each seat): every control reached with Tab
  and used, no pointer; each step said in the polite live region (which step, who, what, the
  points) in the interface's language with the words marked French; the board mirrored in
  Arabic as in play; axe-core 0 violations in fr and ar, on a desktop and on a phone (360×740).
- The review later: after a reload, from the home page's list of finished games
  (``/?review=<table_id>``, the token from the browser's list, never in the address).
- al-Mishqaq ended by a resignation (fr and ar pages) and by a try (an Arabic page against a
  bot): the end screen's account, the board at three entries against mishqaq_rules.record,
  the record replayed by `lexio replay` to the same result, the columns each placement gained
  and the clocks then, the steps said in fr and ar (Arabic and Latin words each marked with
  their language), the board never mirrored, the reveal at the last step; axe in fr and ar,
  desktop and phone.

Any page error or CSP violation fails them (the players fixture)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import web_browser
from lexio_testing import GatewayFactory, LoopThread
from playwright.sync_api import ViewportSize
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory, screenshot_path, start_game
from web_kit import DESKTOP, mishqaq_table, switch_language
from web_mishqaq import mishqaq_gateway, side
from web_pages import Player
from web_review import (
    BRUNO_SCRIPT,
    CONTROLS,
    REVIEW,
    REVIEW_LABEL,
    board_on_page,
    current_entry,
    download_record,
    fetch,
    finished_games,
    last_position,
    lexio_against_bot,
    lexio_end_scores,
    lexio_replay,
    mishqaq_against_bot,
    mishqaq_to_the_end,
    moves_before,
    moves_up_to,
    open_review,
    play_lexio_against_bot,
    play_lexio_game,
    play_lexio_passes,
    play_mishqaq_then_resign,
    position,
    press,
    replayed_board,
    review_stops,
    slide_to,
    table_id,
    token,
    wait_position,
    wait_review,
)

from lexio_lobby.server import RunningLobby

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players

PHONE_SIZE: ViewportSize = {"width": 360, "height": 740}
FILENAME = r"{game}-\d{{4}}-\d\d-\d\d-[A-Z0-9]{{5}}-[A-Z0-9]{{5}}-{seat}\.json"

# From now on, how many times a pointer was pressed on the page.
COUNT_POINTER = """(() => {
  window.__pointer = 0;
  addEventListener("pointerdown", () => { window.__pointer += 1; }, true);
})()"""


def columns_to_go(board: list[str], of_side: str) -> int:
    """How many columns ``of_side``'s most advanced own tile on ``board`` (a view's 484
    cells) still is from its target column (M6: col 20 for Latin, col 1 for Arabic); before
    its first tile, from its start column. An own tile is one of its bag (M7): a letter of its
    script, a bilingual tile by its primary letter, a blank by the letter it stands for."""

    def ahead(col: int) -> int:
        return col if of_side == "latin" else 21 - col

    best = ahead(1 if of_side == "latin" else 20)
    for index, cell in enumerate(board):
        letter = cell[1:] if cell.startswith("?") else cell.rstrip("+")
        if letter and (letter.isascii() == (of_side == "latin")):
            best = max(best, ahead(index % 22))
    return 20 - best


def latin_digits(text: str) -> str:
    """Arabic-Indic digits (as an Arabic interface may write numbers) as 0-9."""
    return text.translate(str.maketrans("٠١٢٣٤٥٦٧٨٩", "0123456789"))


def assert_board_matches_replay(
    player: Player, game: str, review: dict[str, Any], record: dict[str, Any], at: int
) -> None:
    """The review at entry ``at``: its board, cell by cell, is the rules' replay of the
    record's moves up to that entry. At a placement the board before it differs, so that
    a review one step off would be caught."""
    slide_to(player, at)
    moves = moves_before(review["entries"], at, game)
    expected = replayed_board(record, moves)
    if review["entries"][at - 1]["kind"] == "place":
        assert replayed_board(record, moves - 1) != expected
    shown = board_on_page(player, game)
    wrong = [
        (row, col, shown[row][col], expected[row][col])
        for row in range(len(expected))
        for col in range(len(expected[row]))
        if shown[row][col] != expected[row][col]
    ]
    assert not wrong, f"entry {at}: (row, col, shown, replayed) {wrong}"


def lexio_rack_on_page(player: Player) -> str:
    """The review's rack as letters ('?' for a blank), in order."""
    letters: list[str] = player.page.evaluate(
        """(selector) => [...document.querySelectorAll(`${selector} .tile`)].map((tile) =>
          tile.classList.contains("blank")
            ? "?" : tile.querySelector(".tile-letter").textContent)""",
        REVIEW["rack"],
    )
    return "".join(letters)


# -- Lexio: stepping, the board against the replay, the record --------------------------------


def test_a_lexio_game_is_reviewed_step_by_step_and_its_record_replays_to_its_scores(
    gateway_factory: GatewayFactory,
    players: PlayerFactory,
    loop_thread: LoopThread,
    tmp_path: Path,
) -> None:
    gateway = gateway_factory(seed=5)
    # 1280×900: the README's screenshots' size.
    ana, bruno = lexio_against_bot(players, loop_thread, gateway.url, BRUNO_SCRIPT)
    play_lexio_against_bot(ana, bruno)
    shown_scores = lexio_end_scores(ana)
    ending = ana.view()["ending"]
    assert shown_scores == ending["final_scores"]

    # The browser remembers the game it finished, newest first.
    remembered = finished_games(ana)[0]
    assert remembered["table_id"] == table_id(ana) and remembered["game"] == "lexio"
    assert remembered["token"] == token(ana) and remembered["you"] == 0
    assert remembered["players"] == ["Ana", "Bruno"] and remembered["ended_at"]

    review = fetch(gateway.url, table_id(ana), token(ana))
    entries, steps = review["entries"], review["steps"]
    last = len(entries)
    assert last == 8 and len(steps) == last + 1
    open_review(ana, "lexio")
    assert last_position(ana) == last
    assert int(ana.page.get_attribute(REVIEW["slider"], "min") or -1) == 0

    # The buttons.
    press(ana, "first")
    wait_position(ana, 0)
    assert current_entry(ana) is None  # the start: no entry yet
    for at in (1, 2):
        press(ana, "next")
        wait_position(ana, at)
        assert current_entry(ana) == at
    press(ana, "previous")
    wait_position(ana, 1)
    press(ana, "last")
    wait_position(ana, last)
    assert current_entry(ana) == last
    press(ana, "first")
    wait_position(ana, 0)
    # The slider.
    slide_to(ana, 3)
    assert current_entry(ana) == 3
    # The arrow keys, Home and End, with the focus on the board's window.
    ana.page.focus(REVIEW["board_window"])
    for key, at in (("ArrowRight", 4), ("ArrowLeft", 3), ("End", last), ("Home", 0)):
        ana.page.keyboard.press(key)
        wait_position(ana, at)

    # At each step: the current entry, the scores then, the viewer's own rack then; the
    # final racks (the reveal, R32) at the last step only.
    for at in range(last + 1):
        slide_to(ana, at)
        step = steps[at]
        assert current_entry(ana) == (at or None)
        for seat, score in enumerate(step["scores"]):
            shown = ana.page.locator(f'{REVIEW["scores"]} li[data-seat="{seat}"]')
            assert shown.locator(".player-name").inner_text() == ("Ana", "Bruno")[seat]
            assert shown.locator(".player-score > [aria-hidden]").inner_text() == str(score), at
        assert sorted(lexio_rack_on_page(ana)) == sorted(step["rack"]), at
        reveal = ana.page.locator(REVIEW["reveal"])
        assert reveal.is_visible() == (at == last), at
    for seat, rack in enumerate(ending["racks"]):
        rows = ana.page.locator(f"{REVIEW['reveal']} tr[data-seat='{seat}']")
        said = rows.locator(".end-rack .visually-hidden").text_content() or ""
        assert said.split() == [("joker" if t == "?" else t) for t in rack], (seat, said)
        final = rows.locator(".final").inner_text()
        assert final == str(ending["final_scores"][seat]) == str(shown_scores[seat])

    # A placement's words with their points.
    placed = next(i for i, e in enumerate(entries, 1) if e["kind"] == "place")
    slide_to(ana, placed)
    words = ana.text(REVIEW["words"])
    for word in entries[placed - 1]["words"]:
        assert word["word"] in words and str(word["score"]) in words, words
    assert ana.page.locator(f'{REVIEW["words"]} [lang="fr"]').count() >= 1

    # The record downloaded: named as the spec says, the viewer's racks, the other's
    # exchanges as counts and no rack of his before the reveal (R27, R32).
    name, record = download_record(ana, tmp_path)
    assert re.fullmatch(FILENAME.format(game="lexio", seat=1), name), name
    assert name == review["filename"]
    assert record == review["record"]
    assert record["format"] == "lexio-record/1" and record["players"] == ["Ana", "Bruno"]
    for move in record["moves"]:
        if move["player"] == 0:
            assert "rack" in move and not isinstance(move.get("exchange", ""), int), move
        else:
            assert "rack" not in move and isinstance(move.get("exchange", 0), int), move

    # The board at three entries: after the first placement, the fourth, and the last entry.
    places = [i for i, e in enumerate(entries, 1) if e["kind"] == "place"]
    for at in (places[0], places[3], last):
        assert_board_matches_replay(ana, "lexio", review, record, at)

    # `lexio replay` of the file reaches the end screen's final scores and winners.
    replayed = lexio_replay(tmp_path / name)
    assert replayed["ended"] is True
    assert replayed["final_scores"] == shown_scores
    assert replayed["winners"] == ending["winners"]
    assert replayed["scores"] == steps[-1]["scores"]

    slide_to(ana, places[3])
    assert_no_axe_violations(ana, "the review of a Lexio game (fr, desktop)")
    ana.js("window.scrollTo(0, 0)")
    ana.page.screenshot(path=str(screenshot_path("review-lexio.png", tmp_path)))


# -- Lexio by keyboard alone, heard, in French and in Arabic -----------------------------------


def keyboard_review(player: Player, last: int, tmp_path: Path, language: str) -> None:
    """On the review opened from the keyboard: every control reached with Tab (forwards and
    back) and used; on the slider the arrows step in the reading direction (in Arabic ←
    goes forward, as the mirrored slider runs), Up and Down too, Home and End."""
    keyboard = player.page.keyboard
    for control in CONTROLS:
        player.tab_to(REVIEW[control])
    for control in reversed(CONTROLS):
        player.tab_to(REVIEW[control], backwards=True)
    player.tab_to(REVIEW["first"])
    keyboard.press("Enter")
    wait_position(player, 0)
    player.tab_to(REVIEW["next"])
    keyboard.press("Enter")
    wait_position(player, 1)
    keyboard.press("Space")
    wait_position(player, 2)
    player.tab_to(REVIEW["previous"], backwards=True)
    keyboard.press("Enter")
    wait_position(player, 1)
    player.tab_to(REVIEW["last"])
    keyboard.press("Enter")
    wait_position(player, last)
    player.tab_to(REVIEW["slider"])
    keyboard.press("Home")
    wait_position(player, 0)
    forward, back = ("ArrowLeft", "ArrowRight") if language == "ar" else ("ArrowRight", "ArrowLeft")
    for key, at in ((forward, 1), (forward, 2), (back, 1), ("ArrowUp", 2), ("ArrowDown", 1)):
        keyboard.press(key)
        wait_position(player, at)
    keyboard.press("End")
    wait_position(player, last)
    player.tab_to(REVIEW["download"])
    name, record = download_record(player, tmp_path, keyboard=True)
    assert record["moves"], name


def test_a_lexio_review_by_keyboard_alone_is_heard_in_french_and_in_arabic(
    gateway_factory: GatewayFactory, players: PlayerFactory, tmp_path: Path
) -> None:
    gateway = gateway_factory(seed=5)
    ana, bruno = start_game(players, gateway.url, locales=("fr-FR", "ar-MA"))
    for player in (ana, bruno):
        player.listen()
    play_lexio_game(ana, bruno)
    review = fetch(gateway.url, table_id(ana), token(ana))
    entries = review["entries"]
    last = len(entries)

    for player, language in ((ana, "fr"), (bruno, "ar")):
        player.js(COUNT_POINTER)
        assert player.text("#btn-review") == REVIEW_LABEL[language]
        player.tab_to("#btn-review")
        player.page.keyboard.press("Enter")
        wait_review(player)
        keyboard_review(player, last, tmp_path / language, language)
        assert player.js("window.__pointer") == 0, "a pointer was used"

    # Each step is said: which step of how many, who, what, the points; the words French.
    first = entries[0]
    word = first["words"][0]["word"]
    heard = {}
    for player, language in ((ana, "fr"), (bruno, "ar")):
        player.page.focus(REVIEW["slider"])
        player.page.keyboard.press("Home")
        wait_position(player, 0)
        start = len(player.heard())
        player.tab_to(REVIEW["next"])
        player.page.keyboard.press("Enter")
        wait_position(player, 1)
        said = player.wait_heard(word, region="polite", start=start)
        text = latin_digits(said["text"])
        assert "Ana" in text and str(first["score"]) in text, said
        assert ["fr", word] in said["words"], said
        heard[language] = text
    assert heard["fr"].startswith(f"Coup 1 sur {last} : Ana a posé {word}"), heard["fr"]
    assert heard["ar"].startswith(f"النقلة 1 من {last}: Ana: وضع {word}"), heard["ar"]

    # An exchange of the other player is said by its count, never which letters.
    exchange = next(
        i for i, e in enumerate(entries, 1) if e["kind"] == "exchange" and e["seat"] == 1
    )
    start = len(ana.heard())
    slide_to(ana, exchange)
    said = ana.wait_heard("Bruno", region="polite", start=start)
    assert "3" in said["text"] and "échangé" in said["text"], said

    # In Arabic the review's Lexio board is mirrored as in play (R34): column A on the right.
    def x_of(player: Player, col: int) -> float:
        box = player.page.locator(
            f'{REVIEW["board"]} .cell[data-row="6"][data-col="{col}"]'
        ).bounding_box()
        assert box is not None
        return box["x"]

    assert x_of(bruno, 0) > x_of(bruno, 12)
    assert x_of(ana, 0) < x_of(ana, 12)

    # axe: French and Arabic, each on a desktop and on a phone, at an entry with words.
    slide_to(ana, 1)
    slide_to(bruno, 1)
    for player, language in ((ana, "fr"), (bruno, "ar")):
        assert_no_axe_violations(player, f"the Lexio review ({language}, desktop)")
        player.page.set_viewport_size(PHONE_SIZE)
        wait_review(player)
        assert player.js("document.documentElement.scrollWidth") <= PHONE_SIZE["width"]
        assert_no_axe_violations(player, f"the Lexio review ({language}, phone 360×740)")

    # The language changed on the review screen: everything is said and drawn again in it.
    switch_language(ana, "ar")
    assert ana.text("#review-position").startswith(f"النقلة 1 من {last}")
    assert x_of(ana, 0) > x_of(ana, 12)


# -- The review later, from the home page ------------------------------------------------------


def test_a_finished_game_is_reviewed_again_from_the_home_list_after_a_reload(
    gateway_factory: GatewayFactory, players: PlayerFactory, loop_thread: LoopThread
) -> None:
    gateway = gateway_factory(seed=5)
    ana, bruno = lexio_against_bot(players, loop_thread, gateway.url, ("pass", "pass"))
    play_lexio_passes(ana, bruno)
    table = table_id(ana)
    seat_token = token(ana)
    last = len(fetch(gateway.url, table, seat_token)["entries"])

    # A reload shows the end again (the seat is kept) or home; from the end, home.
    ana.page.reload()
    ana.wait_js(
        "!document.querySelector('#screen-home').hidden || "
        "document.querySelector('#btn-home')?.checkVisibility()"
    )
    if ana.page.locator("#btn-home").is_visible():
        ana.page.click("#btn-home")
    ana.wait_screen("home")
    listed = ana.page.locator(f'#home-finished-list a[href="/?review={table}"]')
    listed.wait_for()
    assert "Vos parties terminées" in ana.text("#home-finished")
    assert_no_axe_violations(ana, "home, with a finished game listed")
    listed.click()
    wait_review(ana)
    assert last_position(ana) == last
    assert seat_token not in ana.page.url

    # The link itself, opened in a fresh load: the token comes from the browser's list.
    ana.page.goto(f"{gateway.url}/?review={table}")
    wait_review(ana)
    assert last_position(ana) == last
    press(ana, "first")
    wait_position(ana, 0)
    press(ana, "last")
    wait_position(ana, last)
    assert current_entry(ana) == last
    assert seat_token not in ana.page.url
    assert finished_games(ana)[0]["table_id"] == table


# -- al-Mishqaq ------------------------------------------------------------------------------


def mishqaq_review_checks(
    player: Player,
    gateway_url: str,
    tmp_path: Path,
    chosen: tuple[int, int],
    language: str = "fr",
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``player`` opens the review from the end screen, steps it, checks the board at two
    ``chosen`` entries and the last step against the replay, downloads the record and replays
    it to the ending the end screen showed; returns the review and the record."""
    ending = player.view()["ending"]
    review = fetch(gateway_url, table_id(player), token(player))
    entries = review["entries"]
    # The result is one step with the placement or resignation that caused it (issue 39);
    # only the last step merges, and a result is no record move: the replay's count holds.
    last = len(review_stops(entries, "mishqaq")) - 1
    open_review(player, "mishqaq", language)
    assert last_position(player) == last
    press(player, "first")
    wait_position(player, 0)
    press(player, "next")
    wait_position(player, 1)
    press(player, "last")
    wait_position(player, last)
    player.page.focus(REVIEW["board_window"])
    forward, back = ("ArrowLeft", "ArrowRight") if language == "ar" else ("ArrowRight", "ArrowLeft")
    for key, at in (("Home", 0), (forward, 1), ("End", last), (back, last - 1)):
        player.page.keyboard.press(key)
        wait_position(player, at)

    # The board never mirrored (M4), in every language.
    def x_of(col: int) -> float:
        box = player.page.locator(
            f'{REVIEW["board"]} .cell[data-row="10"][data-col="{col}"]'
        ).bounding_box()
        assert box is not None
        return box["x"]

    assert x_of(0) < x_of(21)

    name, record = download_record(player, tmp_path)
    mine = player.js("window.lexio.view.side")
    seat = player.js("window.lexio.table.you")
    assert re.fullmatch(FILENAME.format(game="mishqaq", seat=seat + 1), name), name
    assert record == review["record"] and record["format"] == "mishqaq-record/1"
    # The other side's racks are not in it (M12): only the viewer's own.
    assert not [m for m in record["moves"] if m["side"] != mine and "rack" in m]
    assert [m for m in record["moves"] if m["side"] == mine and "rack" in m]
    for at in (*chosen, last):
        assert_board_matches_replay(player, "mishqaq", review, record, at)
    replayed = lexio_replay(tmp_path / name)
    assert replayed["result"] == {"winner": ending["winner"], "cause": ending["cause"]}
    return review, record


def test_an_al_mishqaq_game_ended_by_resignation_is_reviewed_in_french_and_arabic(
    gateway_factory: GatewayFactory,
    two_games_lobby: RunningLobby,
    players: PlayerFactory,
    tmp_path: Path,
) -> None:
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=11)  # Latin opens
    ana, bruno = mishqaq_table(
        players, gateway, host=DESKTOP, guest=DESKTOP, language=("fr", "ar"), side="latin"
    )
    for player in (ana, bruno):
        player.listen()
    resigned = play_mishqaq_then_resign(ana, bruno, turns=4, seeds=(1, 2))
    names = {"latin": "Ana", "arabic": "برونو"}
    winner = names[ana.view()["ending"]["winner"]]
    loser = names[side(resigned)]
    assert f"{loser} a abandonné." in ana.text("#mq-end")
    assert f"Victoire de {winner} !" in ana.text("#mq-end")
    review, _record = mishqaq_review_checks(ana, gateway.url, tmp_path / "fr", (2, 4))
    entries, steps = review["entries"], review["steps"]

    # Each placement: the columns it gained toward the mover's target column and those left
    # (M6, M23), computed here from the steps' boards; both clocks as they stood then.
    for at, entry in enumerate(entries, 1):
        if entry["kind"] != "place":
            continue
        slide_to(ana, at)
        left = columns_to_go(steps[at]["board"], entry["side"])
        gained = columns_to_go(steps[at - 1]["board"], entry["side"]) - left
        gain = ana.text(f"{REVIEW['words']} .review-gain")
        assert gain.endswith(f"il en reste {left}."), (at, gain)
        assert gain.startswith(f"{gained} colonne" if gained else "Aucune colonne"), (at, gain)
        for clock_side in ("latin", "arabic"):
            bank = math.ceil(max(0.0, steps[at][f"{clock_side}_bank"]))
            clock = f'{REVIEW["scores"]} [data-side="{clock_side}"] .mq-time'
            assert ana.text(clock) == f"{bank // 60}:{bank % 60:02d}", (at, clock_side)

    # The Arabic player reviews too: each step said in Arabic, the Arabic side's words
    # marked Arabic, the Latin side's French.
    open_review(bruno, "mishqaq", "ar")
    moves = moves_up_to(entries, len(entries), "mishqaq")
    for at, entry in enumerate(entries, 1):
        if entry["kind"] != "place":
            continue
        start = len(bruno.heard())
        slide_to(bruno, at)
        word = entry["words"][0]["word"]
        said = bruno.wait_heard(word, region="polite", start=start)
        move = moves_up_to(entries, at - 1, "mishqaq")
        assert said["text"].startswith(f"النقلة {move} من {moves}: "), said
        lang = "ar" if entry["side"] == "arabic" else "fr"
        assert [lang, word] in said["words"], said
        assert bruno.page.locator(f'{REVIEW["words"]} bdi[lang="{lang}"]').count() >= 1
    start = len(ana.heard())
    press(ana, "first")
    wait_position(ana, 0)
    press(ana, "next")
    wait_position(ana, 1)
    # The first step is the opening draw: shown, not a move (issue 39).
    said = ana.wait_heard("Tirage d'ouverture", region="polite", start=start)
    assert said["text"].startswith(f"Tirage d'ouverture, avant le coup 1 sur {moves} : "), said

    assert_no_axe_violations(ana, "the al-Mishqaq review (fr, desktop)")
    assert_no_axe_violations(bruno, "the al-Mishqaq review (ar, desktop)")
    bruno.page.set_viewport_size(PHONE_SIZE)
    wait_review(bruno)
    assert_no_axe_violations(bruno, "the al-Mishqaq review (ar, phone 360×740)")
    switch_language(bruno, "fr")
    assert_no_axe_violations(bruno, "the al-Mishqaq review (fr, phone 360×740)")


def test_an_al_mishqaq_race_to_a_try_is_reviewed_and_its_record_replays_to_the_try(
    gateway_factory: GatewayFactory,
    two_games_lobby: RunningLobby,
    players: PlayerFactory,
    loop_thread: LoopThread,
    tmp_path: Path,
) -> None:
    # Seed 25: the Latin side (the bot) opens; the race ends by a try after some twenty turns.
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=25)
    salma, socket, diego = mishqaq_against_bot(players, loop_thread, gateway.url, 1, **DESKTOP)
    mishqaq_to_the_end(salma, socket, diego, seed=2)
    ending = salma.view()["ending"]
    assert ending["cause"] == "try"
    winner = {"latin": "Diego", "arabic": "سلمى"}[ending["winner"]]
    assert f"{winner}: محاولة ناجحة" in salma.text("#mq-end")
    review, _record = mishqaq_review_checks(salma, gateway.url, tmp_path, (3, 9), "ar")
    # The final racks at the last step: both sides' (M12).
    assert position(salma) == len(review_stops(review["entries"], "mishqaq")) - 1
    for revealed in ("latin", "arabic"):
        shown = salma.page.locator(
            f'{REVIEW["reveal"]} tr.end-rack-row[data-side="{revealed}"] .mq-tile'
        )
        assert shown.count() == len(ending[f"{revealed}_rack"]), revealed
