"""Noughts and crosses, the site's example game, in two real browsers through the real gateway,
lobby and engine (docs/noughts.md; its client is js/games/noughts/).

The site does not offer it by default (the lobby's site_games.json leaves it out): the lobby
here registers it beside Lexio, as LEXIO_LOBBY_GAMES would, and the gateway serves both.

- A whole game to a win: the French host picks the game at home, an Arabic guest joins; a mark
  on an occupied cell is refused to its actor only; one move by the keyboard alone (Tab to the
  grid, arrows, Enter), the winning one with Space; every move said through the live region;
  the winning line marked on both screens; the shared rematch; axe-core finds nothing.
- A resignation, asked first (cancelled once), by the player not to move (N7), after the host
  changed the page's language mid-game.

Any page error or CSP violation fails them (the players fixture)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import web_browser
from lexio_testing import (
    SHARED_LOOP_READINESS_TIMEOUT,
    GatewayFactory,
    GatewayHandle,
    LoopThread,
    site_games,
)
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory
from web_pages import Player

from lexio_engine.noughts import GAME as NOUGHTS_IN_THE_ENGINE
from lexio_engine.server import RunningEngine
from lexio_gateway.config import GameEndpoint
from lexio_lobby.games import GameSpec
from lexio_lobby.server import LobbyConfig, RunningLobby, start_lobby

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players

BOARD = "#noughts-board"
TABBABLE = f"{BOARD} .noughts-cell[tabindex='0']"


@pytest.fixture
def noughts_lobby(
    loop_thread: LoopThread, engine_server: RunningEngine, tmp_path: Path
) -> Iterator[RunningLobby]:
    """The real lobby offering Lexio (the site's default) and noughts, registered as an
    operator would through LEXIO_LOBBY_GAMES: two seats, ready while the engine serves it."""
    engine = f"127.0.0.1:{engine_server.port}"
    noughts = GameSpec(
        "noughts",
        min_seats=2,
        max_seats=2,
        health_address=engine,
        health_service=NOUGHTS_IN_THE_ENGINE.health_name,
    )
    config = LobbyConfig(
        host="127.0.0.1",
        port=0,
        metrics_port=-1,
        db_path=tmp_path / "lobby-noughts.sqlite3",
        games=(*site_games(engine), noughts),
        readiness_cache=0.0,
        readiness_timeout=SHARED_LOOP_READINESS_TIMEOUT,
    )
    lobby = loop_thread.run(start_lobby(config))
    yield lobby
    loop_thread.run(lobby.stop(0))


def noughts_gateway(gateway_factory: GatewayFactory, lobby: RunningLobby) -> GatewayHandle:
    return gateway_factory(
        lobby_address=f"127.0.0.1:{lobby.port}",
        games=(GameEndpoint("lexio"), GameEndpoint("noughts")),
    )


def cell(row: int, col: int) -> str:
    return f'{BOARD} .noughts-cell[data-row="{row}"][data-col="{col}"]'


def label(player: Player, row: int, col: int) -> str:
    return player.page.get_attribute(cell(row, col), "aria-label") or ""


def marks(player: Player) -> list[str]:
    board: list[str] = player.js("window.lexio.view.board")
    return board


def wait_marks(player: Player, count: int) -> None:
    player.wait_js(f"window.lexio.view.board.filter(Boolean).length === {count}")


def start_noughts(players: PlayerFactory, url: str) -> tuple[Player, Player]:
    """Ana (French) picks noughts at home and opens a table; Bruno (Arabic) joins by its code
    (no options to see first: the page joins at once); Ana starts. Both listen from the start."""
    ana = players(url + "/")
    ana.listen()
    ana.wait_screen("home")
    ana.page.locator("#home-games").wait_for()  # two games offered: a choice
    ana.page.check("#home-game-noughts")
    assert "Morpion" in ana.text("#home-title")
    assert ana.page.locator("#home-words-noughts").is_visible()
    code = ana.create("Ana")
    bruno = players(url + "/", locale="ar-MA")
    bruno.listen()
    bruno.join(code, "Bruno")
    ana.wait_js("window.lexio.table.seats.length === 2")
    ana.page.locator("#start-game:enabled").click()
    for player in (ana, bruno):
        player.wait_screen("noughts")
        player.wait_js("window.lexio.view !== null && Array.isArray(window.lexio.view.board)")
    return ana, bruno


def test_a_whole_game_to_a_win_french_host_against_an_arabic_guest(
    gateway_factory: GatewayFactory, noughts_lobby: RunningLobby, players: PlayerFactory
) -> None:
    gateway = noughts_gateway(gateway_factory, noughts_lobby)
    ana, bruno = start_noughts(players, gateway.url)

    # The table: nine buttons in a grid, X for the host who moves first, O for the guest.
    assert ana.page.locator(f"{BOARD} [role=row] > [role=gridcell] > button").count() == 9
    assert ana.text("#noughts-turn") == "À vous de jouer !"
    assert ana.text("#noughts-you") == "Vous jouez les X."
    assert "Ana" in bruno.text("#noughts-turn") and bruno.text("#noughts-you") == "علامتك: O."
    assert label(ana, 1, 1) == "au centre, vide"
    ana.wait_heard("La partie commence. Vous jouez les X. À vous de jouer !")
    # Arabic: the page reads right to left, the grid keeps col 0 on the left (no direction).
    assert bruno.js("document.documentElement.dir") == "rtl"
    left = bruno.page.locator(cell(0, 0)).bounding_box()
    right = bruno.page.locator(cell(0, 2)).bounding_box()
    assert left is not None and right is not None and left["x"] < right["x"]
    assert label(bruno, 0, 0) == "أعلى اليسار، خالية"
    # The keyboard lands on the grid (its one tab stop, the centre).
    ana.wait_js("document.activeElement?.matches(\"#noughts-board .noughts-cell[tabindex='0']\")")
    assert_no_axe_violations(ana, "noughts, own turn (fr)")
    assert_no_axe_violations(bruno, "noughts, the other's turn (ar, rtl)")

    # Ana marks the centre with the mouse; both boards show it, Bruno hears it.
    ana.page.click(cell(1, 1))
    for player in (ana, bruno):
        wait_marks(player, 1)
    assert bruno.text(cell(1, 1)) == "X"
    assert label(bruno, 1, 1) == "X، الوسط"
    bruno.wait_heard("Ana: X في الوسط.")
    bruno.wait_heard("دورك!")

    # Bruno marks the same cell: the server refuses it, to Bruno only; nothing changes.
    ana.wait_heard("Au tour de Bruno.")
    heard = len(ana.heard())
    bruno.page.click(cell(1, 1))
    bruno.page.locator("#noughts-message.message-refusal").wait_for()
    assert bruno.text("#noughts-message") == "هذه الخانة مشغولة."
    assert_no_axe_violations(bruno, "noughts, a refusal shown (ar)")
    assert ana.text("#noughts-message") == ""
    assert ana.heard()[heard:] == []
    assert marks(ana) == marks(bruno) == ["", "", "", "", "X", "", "", "", ""]

    # Bruno's move by the keyboard alone: Tab to the grid, Up and Left to the top left, Enter.
    bruno.js("document.activeElement.blur()")
    bruno.tab_to(TABBABLE)
    assert bruno.active_matches(cell(1, 1))
    bruno.page.keyboard.press("ArrowUp")
    bruno.page.keyboard.press("ArrowLeft")
    assert bruno.active_matches(cell(0, 0)) and bruno.active_matches(TABBABLE)
    bruno.page.keyboard.press("Enter")
    for player in (ana, bruno):
        wait_marks(player, 2)
    assert marks(ana)[0] == "O" and bruno.text("#noughts-message") == ""  # the refusal is past
    ana.wait_heard("Bruno joue O : en haut à gauche.")
    assert ana.text("#noughts-turn") == "À vous de jouer !"
    assert "Bruno joue O : en haut à gauche." in ana.text("#noughts-log")

    ana.page.click(cell(0, 1))
    wait_marks(bruno, 3)
    bruno.page.click(cell(2, 2))
    wait_marks(ana, 4)
    # The winning mark with Space, from the cell Ana last pressed: down twice.
    assert ana.active_matches(cell(0, 1))
    ana.page.keyboard.press("ArrowDown")
    ana.page.keyboard.press("ArrowDown")
    assert ana.active_matches(cell(2, 1))
    ana.page.keyboard.press("Space")

    # The end: who won, the line marked on both screens, said to both.
    for player in (ana, bruno):
        player.wait_js("window.lexio.view.ending !== null")
        player.page.locator("#noughts-end h2").wait_for()
    assert ana.js("window.lexio.view.ending.winner") == 0
    line = "Trois alignées : en haut au centre, au centre, en bas au centre."
    assert ana.text("#noughts-end .end-winners") == f"{line} Victoire de Ana !"
    ana.wait_heard(f"Partie terminée. {line} Victoire de Ana !")
    bruno.wait_heard("ثلاث علامات في خط: أعلى الوسط، الوسط، أسفل الوسط. الفوز لـAna!")
    for player in (ana, bruno):
        won = [
            (row, col)
            for row in range(3)
            for col in range(3)
            if "in-line" in (player.page.get_attribute(cell(row, col), "class") or "")
        ]
        assert won == [(0, 1), (1, 1), (2, 1)]
    assert label(ana, 2, 1) == "X, en bas au centre, ligne gagnante"
    assert label(bruno, 0, 1) == "X، أعلى الوسط، الخط الفائز"
    assert ana.page.get_attribute(cell(0, 0), "aria-disabled") == "true"
    assert ana.page.locator("#noughts-resign").is_hidden()
    assert ana.active_matches("#noughts-end h2")  # the keyboard lands on the result
    assert "Victoire de Ana !" in ana.text("#noughts-log")
    assert_no_axe_violations(ana, "noughts, game over, the host (fr)")
    assert_no_axe_violations(bruno, "noughts, game over, the guest (ar)")

    # The shared rematch: Ana opens a new table, Bruno is offered it and joins.
    ana.page.click("#noughts-rematch")
    ana.wait_screen("table")
    bruno.wait_heard("فُتحت طاولة جديدة للعب مجددًا بدعوة من Ana.")
    assert bruno.active_matches("#noughts-end h2")  # the panel drawn again keeps the keyboard
    bruno.page.locator("#noughts-join-new").click()
    bruno.wait_screen("table")
    ana.wait_js("window.lexio.table.seats.length === 2 && window.lexio.table.game === 'noughts'")


def test_a_resignation_asked_first_by_the_player_not_to_move(
    gateway_factory: GatewayFactory, noughts_lobby: RunningLobby, players: PlayerFactory
) -> None:
    gateway = noughts_gateway(gateway_factory, noughts_lobby)
    ana, bruno = start_noughts(players, gateway.url)
    dialog = bruno.page.locator("#dlg-confirm")

    # Another language mid-game: the grid's names and the status follow.
    ana.page.select_option("#lang", "en")
    ana.wait_js("document.querySelector('#noughts-turn').textContent === 'Your turn!'")
    assert label(ana, 1, 1) == "centre, empty" and ana.text("#noughts-you") == "You play X."

    # Asked first; cancelled, nothing happens.
    bruno.page.click("#noughts-resign")
    dialog.wait_for()
    assert "Ana" in bruno.text("#confirm-text")
    assert_no_axe_violations(bruno, "noughts, resign asked (ar)")
    bruno.page.click("#confirm-cancel")
    dialog.wait_for(state="hidden")
    assert bruno.js("window.lexio.view.ending") is None

    # Confirmed, out of turn (N7): Ana wins at once.
    bruno.page.click("#noughts-resign")
    bruno.page.click("#confirm-ok")
    for player in (ana, bruno):
        player.wait_js("window.lexio.view.ending !== null")
        player.page.locator("#noughts-end h2").wait_for()
    assert ana.text("#noughts-end .end-winners") == "Bruno resigned. Ana wins!"
    ana.wait_heard("Game over. Bruno resigned. Ana wins!")
    assert ana.page.locator(f"{BOARD} .in-line").count() == 0
    # The guest waits for the host's rematch.
    assert bruno.page.locator("#noughts-rematch").count() == 0
    assert bruno.page.locator("#noughts-home").is_visible()
