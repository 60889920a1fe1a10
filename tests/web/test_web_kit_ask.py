"""What a blind player asks to hear (issue 41, item 3: "a key to hear the last move again and
the scores or clocks on demand, announced once, not twice, not interrupted by the next live
update"), in both games, in French and in Arabic (kit/ask.js, announce.js's answer()):

- Alt+L says the last move again, in the very words the narrator said first (who, the words
  and points or cells and directions; the French words in lang="fr"), or that there is none
  yet; Alt+P says the game's state: Lexio's turn, time left, scores and bag; al-Mishqaq's
  turn and both clocks, each running or stopped;
- each answer is its own paragraph of the assertive region, said exactly once (a key held
  down answers once), and nothing said right after it cuts it: the clock's warning of the last
  10 seconds, which is asserted otherwise, falls due while the answer is being said and is said
  politely (after it), the answer staying in its region; once the answer is said, what the last
  seconds say is asserted again;
- an Arabic keyboard's keys answer too: Alt with the key marked L (which sends "م" there), and
  "؟" for "?";
- axe-core: no violation with the answers in the page.

The keys that jump on the board, the other player's low time: test_web_kit_keys.py,
test_web_kit_screens.py."""

from __future__ import annotations

import re
import time
from typing import Any

import web_browser
from lexio_testing import GatewayFactory
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory
from web_kit import DESKTOP, LEXIO, MISHQAQ, NAMES, lexio_table, mishqaq_table, page_time_passes
from web_mishqaq import bot, clock_text, mishqaq_gateway, play_turn, side
from web_pages import Player
from web_words import legal_move

from lexio_lobby.server import RunningLobby

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players

CLOCKED = {**DESKTOP, "clock": True}
ANA, BRUNO = NAMES["fr"][0], NAMES["ar"][1]  # Ana (fr) hosts, برونو (ar) joins

KEYS = {"last": "Alt+KeyL", "state": "Alt+KeyP"}
# What an Arabic (101) layout sends for the keys marked L and P, and for Shift+/ ("?").
ARABIC_LAYOUT = {"last": ("م", "KeyL", 76), "state": ("ح", "KeyP", 80)}
ARABIC_QUESTION_MARK = "؟"
ALT = 1  # CDP's modifiers bit for Alt

NO_MOVE = {"fr": "Aucun coup pour l'instant.", "ar": "لا حركات حتى الآن."}
YOUR_TURN = {"fr": "À vous de jouer !", "ar": "دورك!"}
TURN_OF = {"fr": "Au tour de {name}.", "ar": "دور {name}."}
# How the narrator's sentence of a placement starts, in both games.
PLACED = {"fr": "{name} a posé ", "ar": "{name}: وضع "}
LAST_SECONDS = {"fr": "Plus que 10 secondes pour jouer !", "ar": "بقيت 10 ثوانٍ للعب!"}

SETTLE_MS = 800
"""After an answer, the page's time moved on (its 120 ms gatherings, its ticks): what would
be said twice, or right after, is said by then."""
ASKED_AT = 13
"""Seconds left on the player's own clock when the state is asked for, before the warning of
the last 10 seconds (which must not cut the answer)."""
WARNING_MS = 3500
"""From the answer, the page's time moved on across the 10-second mark, at most 3.25 s away
(13 s shown: 13.15 s left at most, the warning at 10.15 s, a tick every 250 ms), while the
answer is being said (announce.js's hold: 60 ms a character; the answers asked for then are
some 70 characters or more, 4.2 s)."""
HOLD_OVER_MS = 9000
"""Then on, past the hold of such an answer."""
STEP_MS = 4000
"""A long wait is run in steps of the page's time, the real one passing between them: the
page pings every 15 s and gives the connection up 10 s later without a frame (net.js); the
pong must be let in."""


def fast_forward(player: Player, milliseconds: int) -> None:
    """The page's time (``clock=True``) moved on by ``milliseconds``, in steps that let the
    connection's ping be answered."""
    while milliseconds > 0:
        page_time_passes(player, min(STEP_MS, milliseconds))
        milliseconds -= STEP_MS
        time.sleep(0.25)
    assert player.page.locator("#banner").is_hidden(), player.text("#banner")


def ask(player: Player, what: str, *, arabic_layout: bool = False) -> dict[str, Any]:
    """``what`` ("last": Alt+L, "state": Alt+P) asked for; the answer: the first thing
    asserted after the press, and its index in what the player heard."""
    start = len(player.heard())
    if arabic_layout:
        key, code, virtual = ARABIC_LAYOUT[what]
        cdp = player.page.context.new_cdp_session(player.page)
        try:
            event = {"key": key, "code": code, "windowsVirtualKeyCode": virtual, "modifiers": ALT}
            cdp.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", **event})
            cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", **event})
        finally:
            cdp.detach()
    else:
        player.page.keyboard.press(KEYS[what])
    return first_said(player, start)


def first_said(player: Player, start: int) -> dict[str, Any]:
    """The first thing asserted from index ``start`` on (waiting for it), and its index: what
    was said politely meanwhile (a clock's warning falling due) is not the answer."""
    deadline = time.monotonic() + 5
    while True:
        heard = player.heard()
        for index in range(start, len(heard)):
            if heard[index]["region"] == "assertive":
                return {**heard[index], "index": index}
        assert time.monotonic() < deadline, f"nothing asserted after {start}: {heard[start:]}"
        time.sleep(0.05)


def times_said(player: Player, text: str, start: int) -> int:
    """How many paragraphs given to the live regions from ``start`` on are exactly ``text``."""
    return sum(one["text"] == text for one in player.heard()[start:])


def assert_said_once(player: Player, answer: dict[str, Any]) -> None:
    """Once the page's time has moved on, ``answer`` was said once, and nothing after it was
    asserted (which would cut it); it is still in its region."""
    page_time_passes(player, SETTLE_MS)
    after = player.heard()[answer["index"] :]
    assert times_said(player, answer["text"], answer["index"]) == 1, after
    assert [one for one in after[1:] if one["region"] == "assertive"] == [], after
    assert in_region(player, answer["text"]), answer


IN_REGION = """(text) => [...document.querySelectorAll("#live-assertive > p")]
  .some((paragraph) => paragraph.textContent === text)"""


def in_region(player: Player, text: str) -> bool:
    found: bool = player.page.evaluate(IN_REGION, text)
    return found


def narrated(player: Player, language: str, start: int) -> dict[str, Any]:
    """What the narrator said (from ``start`` on) of Ana's placement, then whose turn it is
    (not the preview, which named her words before)."""
    return player.wait_heard(PLACED[language].format(name=ANA), start=start)


def assert_as_narrated(answer: dict[str, Any], said: dict[str, Any], turn: str) -> None:
    """The answer is the narrator's sentence of the move, word for word, which the narrator
    followed with whose turn it is (in one breath with whatever else was said within 120 ms:
    a tile placed, the preview)."""
    assert f"{answer['text']} {turn}" in said["text"], (answer, said)


def press_arabic_question_mark(player: Player) -> int:
    """The "?" key of an Arabic layout ("؟"); the index of what follows in what was heard."""
    start = len(player.heard())
    cdp = player.page.context.new_cdp_session(player.page)
    try:
        key = {"key": ARABIC_QUESTION_MARK, "text": ARABIC_QUESTION_MARK}
        cdp.send("Input.dispatchKeyEvent", {"type": "keyDown", **key, "unmodifiedText": "/"})
        cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": ARABIC_QUESTION_MARK})
    finally:
        cdp.detach()
    return start


def seconds_shown(text: str) -> int:
    """A clock's "m:ss" in seconds."""
    minutes, seconds = text.split(":")
    return int(minutes) * 60 + int(seconds)


def count_down_to(player: Player, clock: str, seconds: int) -> None:
    """The page's time moved on until the clock ``clock`` (a selector) shows ``seconds``: in
    long steps to a few seconds before, then tick by tick."""
    left = seconds_shown(player.text(clock))
    assert left > seconds + 1, f"too late for the test: {left} s left"
    if left > seconds + 4:
        fast_forward(player, (left - seconds - 3) * 1000)
    while seconds_shown(player.text(clock)) > seconds:
        page_time_passes(player, 250)
    assert seconds_shown(player.text(clock)) >= seconds - 1, player.text(clock)


def seconds_said(pattern: str, text: str) -> int:
    """The seconds left an answer said (``pattern``'s group), which must be in the last
    seconds before the 10-second mark."""
    found = re.fullmatch(pattern, text)
    assert found, (pattern, text)
    seconds = int(found.group(1))
    assert 10 < seconds <= ASKED_AT, text
    return seconds


# Lexio ----------------------------------------------------------------------------------------


def test_lexio_the_last_move_and_the_scores_on_demand_said_once(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    """Lexio, Ana (fr) and برونو (ar), turns of 40 s. Before any move Alt+L says there is none.
    Ana plays; on both pages Alt+L says her move as the narrator said it (the French words in
    lang="fr"; برونو with an Arabic layout's key), once, also when Ana holds the keys down;
    Alt+P says whose turn it is, the time left, the scores and the bag. On برونو's turn, 13 s
    left: Alt+P, then his clock crosses 10 s: the warning is said politely, after the answer,
    which stays; later the last seconds are asserted again. "؟" says the summary."""
    gateway = gateway_factory(seed=5, turn_seconds=40.0)
    ana, bruno = lexio_table(players, gateway, host=CLOCKED, guest=CLOCKED, language=("fr", "ar"))
    for player in (ana, bruno):
        player.listen()
    board = f"{LEXIO['board']} .cell.cursor"
    bruno.page.focus(board)
    none = ask(bruno, "last")
    assert none["text"] == NO_MOVE["ar"], none
    assert_said_once(bruno, none)

    view = ana.view()
    before = {player: len(player.heard()) for player in (ana, bruno)}
    ana.place_by_click(legal_move(view["board"], view["rack"], 1))
    ana.page.click(LEXIO["validate"])
    for player in (ana, bruno):
        player.wait_log(1)
    entry = ana.js("window.lexio.log[0]")
    assert entry["kind"] == "place", entry
    words = [word["word"] for word in entry["words"]]
    told = {ana: narrated(ana, "fr", before[ana]), bruno: narrated(bruno, "ar", before[bruno])}

    # برونو, his board focused, with an Arabic layout: Alt and the key marked L.
    bruno.page.focus(board)
    again = ask(bruno, "last", arabic_layout=True)
    assert_as_narrated(again, told[bruno], YOUR_TURN["ar"])
    assert again["text"].startswith(PLACED["ar"].format(name=ANA)), again
    assert again["french"] == words, again
    assert_said_once(bruno, again)

    # Ana holds Alt+L down (the key repeats): said once.
    start = len(ana.heard())
    keyboard = ana.page.keyboard
    keyboard.down("Alt")
    for _ in range(3):
        keyboard.down("KeyL")  # repeats: the same key again while it is down
    keyboard.up("KeyL")
    keyboard.up("Alt")
    mine = first_said(ana, start)
    assert_as_narrated(mine, told[ana], TURN_OF["fr"].format(name=BRUNO))
    assert mine["text"].startswith(f"{ANA} a posé ") and mine["french"] == words, mine
    assert_said_once(ana, mine)

    score = entry["score"]
    state = ask(ana, "state")
    expected = (
        rf"Au tour de {BRUNO}\. Il reste \d+ secondes?\. "
        rf"Scores : {ANA} {score} points? et {BRUNO} 0 point\. \d+ jetons dans le sac\."
    )
    assert re.fullmatch(expected, state["text"]), state
    assert_said_once(ana, state)
    state = ask(bruno, "state", arabic_layout=True)
    assert state["text"].startswith(f"{YOUR_TURN['ar']} بقيت "), state
    assert f"النقاط: {ANA} " in state["text"] and state["text"].endswith(" في الكيس."), state
    assert_said_once(bruno, state)

    # "؟" (an Arabic layout's "?") on the board: the summary, his rack in it.
    bruno.page.focus(board)
    summary = first_said(bruno, press_arabic_question_mark(bruno))
    assert "على حاملك: " in summary["text"] and f"النقاط: {ANA} " in summary["text"], summary
    assert_said_once(bruno, summary)

    # His turn, 13 s left on his page: Alt+P; his clock crosses 10 s while it is said.
    count_down_to(bruno, "#clock", ASKED_AT)
    state = ask(bruno, "state")
    seconds_said(rf"{YOUR_TURN['ar']} بقيت (\d+) ثانية\. .*", state["text"])
    shown = bruno.text("#clock")
    page_time_passes(bruno, WARNING_MS)
    assert bruno.text("#clock") != shown, "the clock did not tick"
    after = bruno.heard()[state["index"] :]
    warnings = [one for one in after if one["text"] == LAST_SECONDS["ar"]]
    assert [one["region"] for one in warnings] == ["polite"], after
    assert_said_once(bruno, state)
    # Once the answer is said, the last seconds are asserted again (Space: the direction).
    page_time_passes(bruno, HOLD_OVER_MS)
    bruno.page.focus(board)
    start = len(bruno.heard())
    bruno.page.keyboard.press("Space")
    direction = bruno.wait_heard("الاتجاه: ", start=start)
    assert direction["region"] == "assertive", direction
    assert_no_axe_violations(ana, "Lexio, answers given (fr)")
    assert_no_axe_violations(bruno, "Lexio, answers given (ar)")


# al-Mishqaq -----------------------------------------------------------------------------------


def test_mishqaq_the_last_move_and_the_clocks_on_demand_said_once(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    """al-Mishqaq, Ana (fr, Latin side, to move) and برونو (ar), banks of 20 minutes lasting
    50 s. Before any move (the opening draw is no move) Alt+L says there is none. Ana places a
    word; on both pages Alt+L says it as the narrator did (the Latin words in lang="fr"), once;
    Alt+P says whose turn it is and both clocks, the mover's running. برونو plays; on Ana's
    turn, 13 s left on her clock: Alt+P, then her clock crosses 10 s: the warning is said
    politely, after the answer, which stays."""
    gateway = mishqaq_gateway(
        gateway_factory,
        two_games_lobby,
        seed=11,  # the Latin side opens
        mishqaq_settings={"bank_minute_seconds": 2.5},
    )
    ana, bruno = mishqaq_table(
        players, gateway, host=CLOCKED, guest=CLOCKED, language=("fr", "ar"), side="latin"
    )
    assert side(ana) == "latin" and ana.js("window.lexio.view.turn") == "latin"
    for player in (ana, bruno):
        player.listen()
    for player, language in ((ana, "fr"), (bruno, "ar")):
        none = ask(player, "last")
        assert none["text"] == NO_MOVE[language], none
        assert_said_once(player, none)

    bots = {"latin": bot("fr", 1), "arabic": bot("ar", 2)}
    before = {player: len(player.heard()) for player in (ana, bruno)}
    entry = play_turn(ana, bruno, bots, "click")
    assert entry["kind"] == "place", entry
    words = [word["word"] for word in entry["words"]]
    told = {ana: narrated(ana, "fr", before[ana]), bruno: narrated(bruno, "ar", before[bruno])}

    mine = ask(ana, "last")
    assert_as_narrated(mine, told[ana], TURN_OF["fr"].format(name=BRUNO))
    assert mine["text"].startswith(f"{ANA} a posé ") and mine["french"] == words, mine
    assert_said_once(ana, mine)
    bruno.page.focus(f"{MISHQAQ['board']} .cell.cursor")
    hers = ask(bruno, "last", arabic_layout=True)
    assert_as_narrated(hers, told[bruno], YOUR_TURN["ar"])
    assert hers["text"].startswith(PLACED["ar"].format(name=ANA)), hers
    assert hers["words"] == [["fr", word] for word in words], hers
    assert_said_once(bruno, hers)

    state = ask(ana, "state")
    clocks = (
        rf"{ANA}, côté latin : [^;]+, pendule arrêtée ; "
        rf"{BRUNO}, côté arabe : [^;]+, pendule en marche\."
    )
    assert re.fullmatch(rf"Au tour de {BRUNO}\. {clocks}", state["text"]), state
    assert_said_once(ana, state)
    state = ask(bruno, "state", arabic_layout=True)
    clocks = (
        rf"{ANA}، الجانب اللاتيني: [^؛]+، الساعة متوقفة؛ "
        rf"{BRUNO}، الجانب العربي: [^؛]+، الساعة تعمل\."
    )
    assert re.fullmatch(rf"{YOUR_TURN['ar']} {clocks}", state["text"]), state
    assert_said_once(bruno, state)
    bruno.page.focus(f"{MISHQAQ['board']} .cell.cursor")
    summary = first_said(bruno, press_arabic_question_mark(bruno))
    assert "على حاملك: " in summary["text"] and "الكيسان: " in summary["text"], summary
    assert_said_once(bruno, summary)

    play_turn(bruno, ana, bots, "click")
    # Ana's turn, 13 s left on her page: Alt+P; her clock crosses 10 s while it is said.
    count_down_to(ana, '#mq-clocks .mq-clock[data-side="latin"] .mq-time', ASKED_AT)
    state = ask(ana, "state")
    clocks = (
        rf"{ANA}, côté latin : (\d+) s, pendule en marche ; "
        rf"{BRUNO}, côté arabe : [^;]+, pendule arrêtée\."
    )
    seconds_said(rf"À vous de jouer ! {clocks}", state["text"])
    shown = clock_text(ana, "latin")
    page_time_passes(ana, WARNING_MS)
    assert clock_text(ana, "latin") != shown, "the clock did not tick"
    after = ana.heard()[state["index"] :]
    warnings = [one for one in after if one["text"] == LAST_SECONDS["fr"]]
    assert [one["region"] for one in warnings] == ["polite"], after
    assert_said_once(ana, state)
    assert_no_axe_violations(ana, "al-Mishqaq, answers given (fr)")
    assert_no_axe_violations(bruno, "al-Mishqaq, answers given (ar)")
