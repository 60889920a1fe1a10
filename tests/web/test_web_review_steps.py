"""Issue 39, defects 5 and 6: what the review's steps are called, and signed numbers in Arabic.

- Defect 5: the review numbered every log entry as a move ("Coup n sur N", N the entries):
  al-Mishqaq's opening draw and a meaning pause's start and end were "moves", and a
  resignation took two steps (its entry, then the result). Now only moves are numbered and
  counted (M15: a placement or a pass); the draw and the pause are still steps, the slider
  and the buttons stop on them and the board shows them, named as what they are; the
  resignation and the end it causes are one step. The visible label, the slider's
  aria-valuetext, the board's name and the live region's sentence say the same. On a phone
  (360×740, touch, French) and a desktop (1280×800, English).
- Defect 6: in Arabic (dir=rtl) a negative number of an end table or a review table must read
  with its sign at the left of its digits ("-12", never "12-"): measured on the screen with
  a Range over the sign and one over the digits, on a phone and a desktop.

axe-core: 0 violations on the review at a step that is not a move and on the Arabic end panel.
Any page error or CSP violation fails them (the players fixture)."""

from __future__ import annotations

import re
from typing import Any

import web_browser
from lexio_testing import GatewayFactory, LoopThread
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory
from web_kit import DESKTOP, PHONE, mishqaq_table
from web_kit import press as press_button
from web_mishqaq import bot, log_length, mishqaq_gateway, play_turn, side, to_move
from web_pages import Player
from web_review import (
    BRUNO_SCRIPT,
    REVIEW,
    current_entry,
    fetch,
    is_move,
    last_position,
    lexio_against_bot,
    moves_up_to,
    open_review,
    play_lexio_against_bot,
    position,
    press,
    review_label,
    review_stops,
    signed_numbers,
    table_id,
    token,
    wait_end,
    wait_position,
)

from lexio_lobby.server import RunningLobby

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players

# How the review names its steps, in the two languages checked (the catalogs' wording).
WORDING = {
    "fr": {
        "move": "Coup {n} sur {count}",
        "after": "{what}, après le coup {n} sur {count}",
        "before": "{what}, avant le coup 1 sur {count}",
        "say": "{position} : ",
        "opening": "Tirage d'ouverture",
        "pause": "Pause sens",
        "resume": "Fin de la pause sens",
        "resign": "Abandon",
    },
    "en": {
        "move": "Move {n} of {count}",
        "after": "{what}, after move {n} of {count}",
        "before": "{what}, before move 1 of {count}",
        "say": "{position}: ",
        "opening": "Opening draw",
        "pause": "Meaning pause",
        "resume": "End of the meaning pause",
        "resign": "Resignation",
    },
}


def expected_label(entries: list[dict[str, Any]], stop: list[int], language: str) -> str:
    """What the review should call the step showing ``stop``'s entries (not the start)."""
    words = WORDING[language]
    first = entries[stop[0]]
    count = sum(is_move(entry, "mishqaq") for entry in entries)
    done = moves_up_to(entries, stop[0], "mishqaq")
    if is_move(first, "mishqaq"):
        return words["move"].format(n=done, count=count)
    what = words[first["kind"]]
    if done == 0:
        return words["before"].format(what=what, count=count)
    return words["after"].format(what=what, n=done, count=count)


def pause_and_resume(a: Player, b: Player) -> None:
    """The player not to move calls a meaning pause (M30) and ends it: two log entries."""
    _, waiting = to_move(a, b)
    before = log_length(waiting)
    press_button(waiting, "#mq-pause")
    for player in (a, b):
        player.wait_log(before + 1)
    waiting.page.locator("#mq-resume").wait_for()
    press_button(waiting, "#mq-resume")
    for player in (a, b):
        player.wait_log(before + 2)


def check_steps(
    player: Player, entries: list[dict[str, Any]], stops: list[list[int]], language: str
) -> None:
    """From the first step, Next on each in turn: the slider stops on every step (the draw and
    the pause too), each named as expected alike on screen, by the slider, on the board and
    in the live region, its entries marked in the log, the end's account at the last."""
    press(player, "first")
    wait_position(player, 0)
    for at in range(1, len(stops)):
        start = len(player.heard())
        press(player, "next")
        wait_position(player, at)
        label = expected_label(entries, stops[at], language)
        said = player.wait_heard(
            WORDING[language]["say"].format(position=label),
            region="polite",
            start=start,
            explain="document.querySelector('#review-position').textContent",
        )
        assert said["text"].startswith(label), (at, label, said["text"])
        seen = review_label(player)
        assert seen["shown"] == label, (at, entries[stops[at][0]]["kind"], label, seen)
        assert seen["valuetext"] == label, (at, label, seen)
        assert label in seen["board"], (at, label, seen)
        assert current_entry(player) == stops[at][0] + 1, (at, current_entry(player))
        marked = player.page.locator(f"{REVIEW['log']} > li.current").count()
        assert marked == len(stops[at]), (at, "log lines marked", marked, stops[at])
        assert player.page.locator(f"{REVIEW['board']} .cell").count() > 0
        reveal = player.page.locator(REVIEW["reveal"]).is_visible()
        assert reveal == (at == len(stops) - 1), (at, "the end's reveal shown", reveal)


def test_the_review_numbers_moves_only_and_a_resignation_is_one_step_with_its_end(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=11)  # Latin opens
    ana, bruno = mishqaq_table(
        players, gateway, host=PHONE, guest=DESKTOP, language=("fr", "en"), side="latin"
    )
    for player in (ana, bruno):
        player.listen()
    bots = {"latin": bot("fr", 1), "arabic": bot("ar", 2)}
    how = {ana: "tap", bruno: "click"}
    for turn in range(3):
        if turn == 2:
            pause_and_resume(ana, bruno)
        mover, other = to_move(ana, bruno)
        play_turn(mover, other, bots, how[mover])
    _, waiting = to_move(ana, bruno)
    resigned = side(waiting)
    press_button(waiting, "#mq-resign")
    waiting.page.locator("#dlg-confirm[open]").wait_for()
    press_button(waiting, "#confirm-ok")
    wait_end((ana, bruno), "mishqaq")

    review = fetch(gateway.url, table_id(ana), token(ana))
    entries = review["entries"]
    kinds = [entry["kind"] for entry in entries]
    assert kinds[0] == "opening" and kinds[-2:] == ["resign", "result"], kinds
    assert kinds[3:5] == ["pause", "resume"], kinds
    assert entries[-1]["cause"] == "resign" and resigned != entries[-1]["winner"], entries[-1]
    stops = review_stops(entries, "mishqaq")
    assert stops[-1] == [len(entries) - 2, len(entries) - 1], stops

    for player, language in ((ana, "fr"), (bruno, "en")):
        open_review(player, "mishqaq", language)
        # Opened at the end: the resignation and its result, one step.
        assert position(player) == last_position(player), (position(player), last_position(player))
        check_steps(player, entries, stops, language)
        assert last_position(player) == len(stops) - 1, (
            f"the slider has {last_position(player) + 1} steps for the log's {len(entries)} "
            f"entries; expected {len(stops)} (the resignation and its result one step)"
        )

    # axe at a step that is not a move: the pause, on the phone and on the desktop.
    pause = kinds.index("pause") + 1
    for player, device in ((ana, "fr, phone 360×740"), (bruno, "en, desktop 1280×800")):
        press(player, "first")
        wait_position(player, 0)
        for _ in range(pause):
            press(player, "next")
        wait_position(player, pause)
        assert not re.match(r"(Coup|Move) \d", review_label(player)["shown"])
        assert_no_axe_violations(player, f"the review at a meaning pause ({device})")


def assert_signs_in_place(player: Player, selector: str, where: str) -> int:
    """Every signed number under ``selector`` has its sign drawn at the left of its digits
    (the order it is read in, whatever the page's direction); how many there were."""
    player.page.locator(selector).first.wait_for()
    found = signed_numbers(player, selector)
    wrong = [number for number in found if not number["sign"][1] <= number["digits"][0] + 0.5]
    assert not wrong, (
        f"{where}: the sign drawn after its digits (the sign's and the digits' left and right "
        f"on screen) {wrong}"
    )
    return len([number for number in found if number["text"].startswith(("-", "\u2212"))])


def test_negative_numbers_of_the_arabic_end_and_review_tables_keep_their_sign_on_the_left(
    gateway_factory: GatewayFactory, players: PlayerFactory, loop_thread: LoopThread
) -> None:
    gateway = gateway_factory(seed=5)
    ana, bruno = lexio_against_bot(
        players, loop_thread, gateway.url, BRUNO_SCRIPT, locale="ar-MA", **PHONE
    )
    play_lexio_against_bot(ana, bruno)
    assert ana.js("document.documentElement.dir") == "rtl"
    ending = ana.view()["ending"]
    # Two rounds without a placement (R31): every rack's value taken off, negative numbers.
    assert ending["cause"] == "no_placement" and min(ending["adjustments"]) < 0, ending
    end_table = "#end-panel .end-table"
    reveal_table = f"{REVIEW['reveal']} .end-table"
    for size, device in ((PHONE, "phone 360×740"), (DESKTOP, "desktop 1280×800")):
        ana.page.set_viewport_size({"width": size["width"], "height": size["height"]})
        negative = assert_signs_in_place(ana, end_table, f"the end table ({device})")
        assert negative >= 2, f"the end table ({device}) shows {negative} negative numbers"
    assert_no_axe_violations(ana, "the Lexio end panel (ar, desktop 1280×800)")
    ana.page.set_viewport_size({"width": PHONE["width"], "height": PHONE["height"]})
    assert_no_axe_violations(ana, "the Lexio end panel (ar, phone 360×740)")

    open_review(ana, "lexio", "ar")
    ana.page.locator(reveal_table).wait_for()
    for size, device in ((PHONE, "phone 360×740"), (DESKTOP, "desktop 1280×800")):
        ana.page.set_viewport_size({"width": size["width"], "height": size["height"]})
        negative = assert_signs_in_place(ana, reveal_table, f"the review's table ({device})")
        assert negative >= 2, f"the review's table ({device}) shows {negative} negative numbers"
