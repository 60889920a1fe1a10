"""al-Mishqaq's chess clock in the browser (M28–M30, M35), on phones with touch screens and
on a desktop, in French and in Arabic:

- a flag: short banks (a test-only gateway setting); the mover's clock runs, turns urgent,
  the mover is warned at once (assertive), the table itself ends the game (M29) and both
  pages show and say who ran out of time;
- a meaning pause by the player not to move: both clocks stop on both pages, the last
  accepted move's words are shown as the dictionary spells them, nothing can be played, only
  its caller resumes it (M30); then passes until a dead position (M35), the last one asked
  first, with both full racks revealed.

Any page error or CSP violation fails them (the players fixture)."""

from __future__ import annotations

import time

import web_browser
from lexio_testing import GatewayFactory
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory
from web_mishqaq import (
    bot,
    clock_text,
    create_table,
    join,
    log_length,
    log_text,
    mishqaq_gateway,
    open_invitation,
    play_turn,
    side,
    start,
    to_move,
    wait_ended,
)
from web_pages import Player

from lexio_lobby.server import RunningLobby

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players

PHONE = {"width": 360, "height": 740, "touch": True}
SHORT_BANKS = {"bank_minute_seconds": 0.25}
"""20 "minutes" last 5 s, 40 last 10 s: the flag falls while the test watches."""


def test_a_flag_falls_on_two_phones_in_french_and_arabic(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    gateway = mishqaq_gateway(
        gateway_factory, two_games_lobby, seed=11, mishqaq_settings=SHORT_BANKS
    )  # Latin opens
    ana = players(gateway.url + "/", **PHONE)
    code = create_table(ana, "Ana", side="latin", latin_minutes=20, arabic_minutes=40, tap=True)
    bruno = open_invitation(players, gateway.url, code, "ar-MA", **PHONE)
    join(bruno, "برونو", tap=True)
    ana.listen()
    bruno.listen()
    start(ana, bruno, tap=True)
    assert side(ana) == "latin" and ana.js("window.lexio.view.turn") == "latin"

    # Ana's clock runs, in its last minute from the start: urgent, and she is told at once.
    card = '#mq-clocks .mq-clock[data-side="latin"]'
    ana.wait_js(f"document.querySelector('{card}').matches('.running.urgent')")
    warning = ana.wait_heard("pour jouer !", region="assertive")
    assert warning["text"].startswith("Plus que "), warning
    assert not [s for s in bruno.heard() if "للعب" in s["text"]]  # only the mover's clock
    assert bruno.page.locator(f"{card}.running").count() == 1  # Bruno sees it run too

    # The flag falls: the table ends the game (M29), once, for both.
    for player in (ana, bruno):
        ending = wait_ended(player, timeout=20)
        assert ending["cause"] == "flag" and ending["winner"] == "arabic"
    assert clock_text(ana, "latin") == "0:00"
    assert "Le drapeau de Ana est tombé : le temps de sa pendule est écoulé." in ana.text("#mq-end")
    assert "Victoire de برونو !" in ana.text("#mq-end")
    assert "نفد وقت ساعة Ana." in bruno.text("#mq-end")
    assert "Drapeau tombé pour Ana : victoire de برونو." in log_text(ana)
    said = ana.wait_heard("Partie terminée.")
    assert "Le drapeau de Ana est tombé" in said["text"], said
    assert "الفوز لـبرونو!" in bruno.wait_heard("انتهت المباراة.")["text"]
    assert_no_axe_violations(ana, "al-Mishqaq, the end by a flag (fr, phone)")
    assert_no_axe_violations(bruno, "al-Mishqaq, the end by a flag (ar, phone)")


def clocks(player: Player) -> tuple[str, str]:
    return clock_text(player, "latin"), clock_text(player, "arabic")


def assert_clocks_stay_for(player: Player, milliseconds: int) -> None:
    """Move the page's own time (``players(clock=True)``) on by ``milliseconds`` at once, its
    timers firing as they would (four clock ticks a second): neither clock may change."""
    stopped = clocks(player)
    player.page.clock.run_for(milliseconds)
    assert clocks(player) == stopped


def tap_or_click(player: Player, selector: str, phone: bool) -> None:
    if phone:
        player.page.tap(selector)
    else:
        player.page.click(selector)


def test_a_meaning_pause_then_passes_to_a_dead_position(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby, seed=5)  # Arabic opens
    # Ana, on a French phone, hosts and plays the Arabic side; Bruno, on an Arabic desktop,
    # plays the Latin side with the French list.
    ana = players(gateway.url + "/", **PHONE, clock=True)
    code = create_table(ana, "Ana", side="arabic", tap=True)
    bruno = open_invitation(players, gateway.url, code, "ar-MA", clock=True)
    join(bruno, "Bruno")
    start(ana, bruno, tap=True)
    assert (side(ana), side(bruno)) == ("arabic", "latin")
    phone = {ana: True, bruno: False}

    # One placement each, so that the pause has words to show.
    bots = {"latin": bot("fr", 5), "arabic": bot("ar", 6)}
    for _ in range(2):
        mover, other = to_move(ana, bruno)
        entry = play_turn(mover, other, bots, "tap" if mover is ana else "click")
        assert entry["kind"] == "place"
    last = entry

    # The player not to move calls a meaning pause (M30).
    mover, waiting = to_move(ana, bruno)
    waiting.listen()
    mover.listen()
    before = log_length(mover)
    assert "(3)" in waiting.text("#mq-pause")
    tap_or_click(waiting, "#mq-pause", phone[waiting])
    for player in (ana, bruno):
        player.wait_log(before + 1)
        player.page.locator("#mq-pause-panel").wait_for()
    pauser = {ana: "Ana", bruno: "Bruno"}[waiting]
    assert f"{pauser} a arrêté les deux pendules" in ana.text("#mq-pause-panel")
    assert "بطلب من" in bruno.text("#mq-pause-panel")
    # The last accepted move's words, as the dictionary spells them (M37).
    for player in (ana, bruno):
        panel = player.text("#mq-pause-panel")
        for word in last["words"]:
            assert word["word"] in panel
            for spelling in word["spellings"]:
                assert spelling in panel, (spelling, panel)
    assert "a demandé une pause sens" in log_text(ana)
    said = mover.wait_heard(pauser)
    assert said["region"] == "polite"

    # Both clocks stopped on both pages; nothing to play; only the caller may resume.
    for player in (ana, bruno):
        assert player.page.locator("#mq-clocks .mq-clock.running").count() == 0
        assert_clocks_stay_for(player, 1500)
    assert mover.page.locator("#mq-validate").is_disabled()
    assert mover.page.locator("#mq-pass").is_disabled()
    assert mover.page.locator("#mq-pause").is_disabled()
    assert mover.page.locator("#mq-resume").count() == 0
    assert waiting.text("#mq-pause") in ("Reprendre la partie", "استئناف المباراة")
    assert waiting.page.locator("#mq-resume").is_visible()
    left = waiting.js(f"window.lexio.view.{side(waiting)}_pauses_left")
    assert left == 2
    assert_no_axe_violations(ana, "al-Mishqaq, a meaning pause (fr, phone)")
    assert_no_axe_violations(bruno, "al-Mishqaq, a meaning pause (ar, desktop)")
    tap_or_click(waiting, "#mq-resume", phone[waiting])
    for player in (ana, bruno):
        player.wait_log(before + 2)
        player.page.locator("#mq-pause-panel").wait_for(state="hidden")
    running = f'#mq-clocks .mq-clock[data-side="{side(mover)}"]'
    mover.wait_js(f"document.querySelector('{running}').matches('.running')")
    ticking = clock_text(mover, side(mover))
    mover.wait_js(f"document.querySelector('{running} .mq-time').textContent !== '{ticking}'")
    assert "(2)" in waiting.text("#mq-pause")

    # Passes until a dead position: racks fill up to 12 (M11), then four passes that draw
    # nothing end the game (M35); the last one is asked first.
    asked = False
    for _ in range(12):
        if ana.js("window.lexio.view.ending") is not None:
            break
        mover, other = to_move(ana, bruno)
        before = log_length(mover)
        tap_or_click(mover, "#mq-pass", phone[mover])
        dialog = mover.page.locator("#dlg-confirm[open]")
        for _ in range(20):
            if dialog.count() or log_length(mover) > before:
                break
            time.sleep(0.05)
        if dialog.count():
            assert "position bloquée" in mover.text("#dlg-confirm") or "وضعية مسدودة" in (
                mover.text("#dlg-confirm")
            )
            assert mover.active_matches("#confirm-cancel")
            tap_or_click(mover, "#confirm-ok", phone[mover])
            asked = True
        other.wait_log(before + 1)
    assert asked, "the pass that ends the game must be confirmed"
    for player in (ana, bruno):
        ending = wait_ended(player)
        assert ending["cause"] == "dead_position"
        assert len(ending["latin_rack"]) == len(ending["arabic_rack"]) == 12
        for revealed in ("latin", "arabic"):
            row = player.page.locator(f'#mq-end tr.end-rack-row[data-side="{revealed}"] .mq-tile')
            assert row.count() == 12
    assert "Position bloquée : quatre tours de suite sans pose ni tirage." in ana.text("#mq-end")
    assert "وضعية مسدودة" in bruno.text("#mq-end")
    winner = ending["winner"]
    if winner is None:
        assert "Match nul." in ana.text("#mq-end")
    else:
        name = {side(ana): "Ana", side(bruno): "Bruno"}[winner]
        assert f"Victoire de {name} !" in ana.text("#mq-end")
    assert_no_axe_violations(ana, "al-Mishqaq, the end by a dead position (fr, phone)")
