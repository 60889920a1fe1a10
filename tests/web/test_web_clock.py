"""The turn clock (R28): it counts down on screen, and when it runs out the table passes for
the player, which both logs say, and the live region too: the player is warned at once (a
turn this short starts in the last 10 seconds). Before that: a reload at the waiting table
keeps the seat."""

from __future__ import annotations

import re

import web_browser
from lexio_testing import GatewayFactory
from web_browser import PlayerFactory
from web_pages import Player

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players


def seconds_left(player: Player) -> int:
    text = player.text("#clock")
    match = re.fullmatch(r"(\d+):(\d\d)", text)
    assert match, text
    return int(match[1]) * 60 + int(match[2])


def test_the_clock_counts_down_and_the_table_passes_on_time_out(
    gateway_factory: GatewayFactory, players: PlayerFactory
) -> None:
    gateway = gateway_factory(seed=5, turn_seconds=4.0)
    ana = players(gateway.url + "/")
    ana.listen()
    code = ana.create("Ana")
    bruno = players(gateway.url + "/")
    bruno.join(code, "Bruno")
    bruno.page.reload()
    bruno.wait_screen("table")
    bruno.wait_js("window.lexio.table && window.lexio.table.you === 1")
    ana.wait_js("window.lexio.table.seats.length === 2")
    ana.page.locator("#start-game:enabled").click()
    for player in (ana, bruno):
        player.wait_screen("game")
        player.wait_js("window.lexio.view !== null")

    first = seconds_left(ana)
    assert 0 < first <= 4
    assert "urgent" in (ana.page.get_attribute("#clock", "class") or "")
    ana.wait_js(f"document.querySelector('#clock').textContent !== '0:0{first}'", timeout=3)
    assert seconds_left(ana) < first
    assert abs(seconds_left(bruno) - seconds_left(ana)) <= 1  # the same clock for everyone

    warning = ana.wait_heard("pour jouer !", region="assertive")
    assert re.fullmatch(r"Plus que [1-4] secondes? pour jouer !", warning["text"]), warning
    for player in (ana, bruno):
        player.wait_log(1, timeout=8)
        assert "Temps écoulé : la table a passé pour Ana." in player.log_text()
    ana.wait_heard("Temps écoulé : la table a passé pour Ana. Au tour de Bruno.")
    assert ana.text("#turn-status") == "Au tour de Bruno"
    assert bruno.text("#turn-status") == "À vous de jouer !"
    assert 0 < seconds_left(bruno) <= 4
