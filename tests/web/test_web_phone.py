"""What a phone player still tripped over (issue 39), the parts of the site's shell and the kit's
turn-based layer: each failed on the code before the issue.

- Defect 1: after a refused move on a phone (360×740, touch), the refusal's message lies under
  the sticky button bar (French: wholly; Arabic: its bottom third). Now the message is in sight,
  above the bar, with the buttons.
- Valider, as defect 3 (the pause) found: a focused button disabled while its action is on
  its way, or once the move is played, lost the focus to <body> at the next frame; a keyboard
  player pressing Enter on Valider then had to find the page again. The kit moves the focus
  to the board's cursor when a focused control of the screen becomes unusable.
- Defect 7: opening "/" again after a finished game reopened the old end screen; now it is the
  home page with the finished game in its list (a reload of the end screen keeps the end: the
  player asked for the same page). And the header named "Lexio" on al-Mishqaq's screens: it
  names the game being played, the site's name at home.

Any page error or CSP violation fails them (the players fixture)."""

from __future__ import annotations

from typing import Any

import pytest
import web_browser
from lexio_testing import GatewayFactory
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory
from web_kit import DESKTOP, LEXIO, PHONE, focused, lexio_table, mishqaq_table, still
from web_mishqaq import mishqaq_gateway, slow_network, wait_ended
from web_pages import Player
from web_words import legal_move, refused_move

from lexio_lobby.server import RunningLobby

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players

REFUSAL_SEED = 5  # Ana's move, then Bruno's refusable pair (as test_web_first_time_lexio's D7)
STICKY_BAR = "#play-area .game-actions"

# Where a node is covered: for each of its corners and its centre, what the page shows there
# (the node, or its parent at a rounded corner, is not a cover).
COVERED = """(node) => {
  const box = node.getBoundingClientRect();
  const points = {
    "top left": [box.left + 2, box.top + 2], "top right": [box.right - 2, box.top + 2],
    "bottom left": [box.left + 2, box.bottom - 2], "bottom right": [box.right - 2, box.bottom - 2],
    "centre": [(box.left + box.right) / 2, (box.top + box.bottom) / 2],
  };
  const covered = {};
  for (const [name, [x, y]] of Object.entries(points)) {
    const under = document.elementFromPoint(x, y);
    if (!under || !(node.contains(under) || under.contains(node))) {
      covered[name] = under ? `${under.tagName}#${under.id}.${under.className}` : "off screen";
    }
  }
  return {covered, box: [box.top, box.bottom], height: window.innerHeight};
}"""


def covered(player: Player, selector: str) -> dict[str, Any]:
    """Which parts of the element something else covers (or the window leaves out)."""
    found: dict[str, Any] = player.page.locator(selector).evaluate(COVERED)
    return found


@pytest.mark.parametrize("language", ["fr", "ar"])
def test_defect_1_a_refusal_is_in_sight_with_the_buttons_on_a_phone(
    gateway_factory: GatewayFactory, players: PlayerFactory, language: str
) -> None:
    """Bruno (phone, French or Arabic) taps two tiles forming words the lexicon does not know,
    taps Valider where it is: the refusal's message is then wholly in sight, nothing over it,
    and Valider and the bar's buttons are in sight too."""
    gateway = gateway_factory(seed=REFUSAL_SEED)
    ana, bruno = lexio_table(players, gateway, host=DESKTOP, guest=PHONE, language=("fr", language))
    view = ana.view()
    ana.place_by_click(legal_move(view["board"], view["rack"], 1))
    ana.page.click(LEXIO["validate"])
    bruno.wait_log(1)
    view = bruno.view()
    place, _words = refused_move(view["board"], view["rack"])
    for tile in place.tiles:
        bruno.rack_tile(bruno.rack_letter(tile)).tap()
        target = bruno.cell(tile.row, tile.col)
        target.evaluate("(node) => node.scrollIntoView({block: 'nearest'})")
        target.tap()
    bruno.page.locator(LEXIO["pending"]).nth(len(place.tiles) - 1).wait_for()
    validate = bruno.page.locator(LEXIO["validate"])
    validate.evaluate("(node) => node.scrollIntoView({block: 'nearest'})")
    bruno.js("window.__viewBefore = window.lexio.view")
    validate.tap()
    message = f"{LEXIO['message']}.message-refusal"
    bruno.page.locator(message).wait_for()
    bruno.wait_js("window.lexio.view !== window.__viewBefore")
    still(bruno)
    seen = covered(bruno, message)
    bar = bruno.page.locator(STICKY_BAR).bounding_box()
    assert not seen["covered"], f"the refusal ({language}) is covered: {seen}; the bar at {bar}"
    assert bruno.fully_in_view(LEXIO["validate"]), f"Valider: {validate.bounding_box()}"
    assert not covered(bruno, LEXIO["validate"])["covered"]
    assert_no_axe_violations(bruno, f"Lexio, a refusal in sight ({language}, phone)")


@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_enter_on_valider_leaves_the_keyboard_on_the_board(
    gateway_factory: GatewayFactory, players: PlayerFactory, device: str
) -> None:
    """Ana (a phone's network: 150 ms each way) places a word, focuses Valider and presses
    Enter: once the move is played and drawn, the focus is on the board (its cursor), not on
    <body>."""
    gateway = gateway_factory(seed=REFUSAL_SEED)
    size = PHONE if device == "phone" else DESKTOP
    ana, _bruno = lexio_table(players, gateway, host=size, guest=DESKTOP)
    view = ana.view()
    ana.place_by_click(legal_move(view["board"], view["rack"], 1))
    network = slow_network(ana)
    still(ana)
    ana.page.focus(LEXIO["validate"])
    ana.page.keyboard.press("Enter")
    ana.wait_log(1)
    still(ana)
    where = focused(ana)
    network.detach()
    assert where is not None, f"after Enter on Valider ({device}) the focus fell to <body>"
    assert ana.active_matches(f"{LEXIO['board']} .cell"), f"the focus after Valider: {where}"


def brand(player: Player) -> str:
    """The header's name (not its tile's letter)."""
    return player.text(".topbar .brand > span:not([aria-hidden])")


def test_defect_7_the_header_names_the_game_being_played(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    """The header and the tab's title say al-Mishqaq on its screens, Lexio on Lexio's (the
    site's name, at home too)."""
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby)
    ana, bruno = mishqaq_table(players, gateway, host=PHONE, guest=DESKTOP, language=("fr", "ar"))
    for player, name in ((ana, "al-Mishqaq"), (bruno, "المشقاق")):
        assert brand(player) == name, f"the header on al-Mishqaq's screen: {brand(player)}"
        title = player.js("document.title")
        assert title == f"{name} · Lexio", f"the tab's title on al-Mishqaq's screen: {title}"
    carla, _dan = lexio_table(players, gateway, host=DESKTOP, guest=DESKTOP)
    assert brand(carla) == "Lexio" and carla.js("document.title") == "Lexio"


def test_defect_7_home_after_a_finished_game(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    """An al-Mishqaq game on a phone: Bruno resigns; a reload shows the end again (the same
    page asked for); "/" opened again shows the home page, the game first in its finished
    list, the header the site's name, the finished seat let go."""
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby)
    ana, bruno = mishqaq_table(players, gateway, host=PHONE, guest=PHONE, language=("fr", "fr"))
    bruno.page.click("#mq-resign")
    bruno.page.click("#confirm-ok")
    for player in (ana, bruno):
        wait_ended(player)
    bruno.page.reload()
    bruno.wait_ready()
    bruno.wait_screen("mishqaq")
    bruno.page.locator("#mq-end").wait_for()

    bruno.page.goto(gateway.url + "/")
    bruno.wait_ready()
    bruno.wait_js("window.lexio.welcomed")
    screen = bruno.wait_js(
        "['home', 'mishqaq'].includes(window.lexio.screen) && window.lexio.screen"
    )
    assert screen == "home", f"the screen at / after a finished game: {screen}"
    assert bruno.page.locator("#mq-end").is_hidden()
    finished = bruno.page.locator("#home-finished-list li")
    finished.first.wait_for()
    assert "al-Mishqaq" in finished.first.inner_text(), finished.first.inner_text()
    assert brand(bruno) == "Lexio", f"the header at home: {brand(bruno)}"
    # The seat of the finished game is let go: a new table is one click away.
    assert bruno.js("window.lexio.token") is None
    assert_no_axe_violations(bruno, "home after a finished game (fr, phone)")
