"""The home page with two games (issue 16): only the games `welcome.games` lists are offered
(one not available now, disabled); al-Mishqaq's options go with `create`; an invitation is
looked up once per code — from the link, or a code typed and left — and shown before joining,
while a press of Join asks the server itself (a lookup counts toward the same anti-guessing
limit as a join)."""

from __future__ import annotations

import json
from typing import Any

import web_browser
from lexio_testing import GatewayFactory
from playwright.sync_api import WebSocketRoute
from web_axe import assert_no_axe_violations
from web_browser import PlayerFactory
from web_mishqaq import create_table, mishqaq_gateway, open_invitation
from web_pages import Player

from lexio_lobby.server import RunningLobby

# The shared browser fixtures (pytest finds them by these names).
browser = web_browser.browser
players = web_browser.players


def route_welcome(player: Player, games: dict[str, bool], sent: list[dict[str, Any]]) -> None:
    """The gateway's welcome says the site offers ``games``; every frame the page sends is
    kept in ``sent`` (and passed on)."""

    def route(page_side: WebSocketRoute) -> None:
        server_side = page_side.connect_to_server()

        def from_page(message: str | bytes) -> None:
            sent.append(json.loads(message))
            server_side.send(message)

        def from_server(message: str | bytes) -> None:
            frame = json.loads(message)
            if frame.get("type") == "welcome":
                frame["games"] = games
            page_side.send(json.dumps(frame))

        page_side.on_message(from_page)
        server_side.on_message(from_server)

    player.page.route_web_socket("**/ws", route)
    player.page.reload()
    player.wait_screen("home")
    player.page.locator("#home-forms").wait_for()


def visible(player: Player, selector: str) -> bool:
    return player.page.locator(selector).is_visible()


def frames(sent: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [frame for frame in sent if frame.get("type") == kind]


def test_only_the_games_welcome_lists_are_offered(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby)

    # Lexio alone: no choice to make, the page is Lexio's as before.
    sent: list[dict[str, Any]] = []
    ana = players(gateway.url + "/")
    route_welcome(ana, {"lexio": True}, sent)
    assert not visible(ana, "#home-games") and not visible(ana, "#home-mq-options")
    assert visible(ana, "#home-create") and visible(ana, "#home-words-french")

    # Both listed, al-Mishqaq not available now: shown, disabled, and said so.
    route_welcome(ana, {"lexio": True, "mishqaq": False}, sent)
    assert visible(ana, "#home-games")
    assert ana.page.locator("#home-game-mishqaq").is_disabled()
    assert "(indisponible pour le moment)" in ana.text('#home-games [data-game="mishqaq"]')
    assert not visible(ana, '#home-games [data-game="lexio"] .game-off')
    assert_no_axe_violations(ana, "home, al-Mishqaq listed but not available")

    # A game the page does not know is not offered; al-Mishqaq alone: its options, no choice.
    route_welcome(ana, {"mishqaq": True, "chess": True}, sent)
    assert not visible(ana, "#home-games")
    assert visible(ana, "#home-mq-options") and not visible(ana, "#home-words-french")
    assert ana.page.locator('#home-games [data-game="chess"]').count() == 0
    code = create_table(ana, "Ana", side="arabic", latin="en", latin_minutes=35, arabic_minutes=25)
    (create,) = frames(sent, "create")
    assert create["game"] == "mishqaq"
    assert create["options"] == {
        "host_side": "arabic",
        "latin": "en",
        "latin_minutes": 35,
        "arabic_minutes": 25,
    }
    assert ana.js("window.lexio.table.game") == "mishqaq" and code


def test_an_invitation_is_looked_up_once_per_code_and_shown_before_joining(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby)
    ana = players(gateway.url + "/")
    code = create_table(ana, "Ana", latin_minutes=40)

    # The invitation link: looked up once, shown; Join then joins.
    sent: list[dict[str, Any]] = []
    cleo = players(f"{gateway.url}/?join={code}", locale="es-ES")
    route_welcome(cleo, {"lexio": True, "mishqaq": True}, sent)
    cleo.page.locator("#home-invitation .invitation-title").wait_for()
    invitation = cleo.text("#home-invitation")
    assert "Invitación: una mesa de al-Mishqaq (1/2 jugadores)." in invitation
    assert "Jugarás el lado árabe; quien te invita juega el lado latino." in invitation
    assert "Relojes: 40 minutos para el lado latino, 30 minutos para el lado árabe." in invitation
    assert len(frames(sent, "lookup")) == 1

    # A code typed and left: looked up once (not again when left unchanged, nor once more
    # for the same code typed again); an unknown one is said in the invitation's box.
    cleo.page.fill("#home-name", "Cleo")
    cleo.page.fill("#home-code", "")
    cleo.page.locator("#home-code").press_sequentially("ZZZZZ-ZZZZZ")
    cleo.page.keyboard.press("Tab")
    cleo.page.locator("#home-invitation.invitation-error").wait_for()
    assert "Ninguna mesa tiene este código" in cleo.text("#home-invitation")
    assert cleo.text("#home-error") == ""
    cleo.page.fill("#home-code", code)
    cleo.page.keyboard.press("Tab")
    cleo.page.locator("#home-invitation .invitation-title").wait_for()
    cleo.page.fill("#home-code", "zzzzz zzzzz")
    cleo.page.keyboard.press("Tab")
    cleo.page.locator("#home-invitation.invitation-error").wait_for()
    assert len(frames(sent, "lookup")) == 2  # the link's code, then ZZZZZ-ZZZZZ once

    # Enter in the field with a new code: looked up, shown, not joined; Enter again joins.
    bruno = players(gateway.url + "/", locale="en-GB")
    bruno_sent: list[dict[str, Any]] = []
    route_welcome(bruno, {"lexio": True, "mishqaq": True}, bruno_sent)
    bruno.page.fill("#home-name", "Bruno")
    bruno.page.locator("#home-code").press_sequentially(code)
    bruno.page.keyboard.press("Enter")
    bruno.page.locator("#home-invitation .invitation-title").wait_for()
    assert "You will play the Arabic side; the host plays the Latin side." in bruno.text(
        "#home-invitation"
    )
    assert bruno.page.locator("#screen-home").is_visible()
    assert frames(bruno_sent, "join") == []
    bruno.page.locator("#home-code").press("Enter")
    bruno.wait_screen("table")
    assert len(frames(bruno_sent, "lookup")) == 1 and len(frames(bruno_sent, "join")) == 1
    assert "Bruno plays the Arabic side." in bruno.text("#table-game")

    # The table is full now: an invitee is told before trying.
    dora = open_invitation(players, gateway.url, code)
    assert "Cette table est complète : il n'y reste aucune place." in dora.text("#home-invitation")
    assert_no_axe_violations(dora, "home, an invitation to a full table")


def test_the_home_page_speaks_of_the_game_invited_to_not_of_the_create_form(
    gateway_factory: GatewayFactory, two_games_lobby: RunningLobby, players: PlayerFactory
) -> None:
    """D5 (issue 25): the home page's title, players and "which words" line are those of the
    game the invitation opens, whatever game the create form holds; without an invitation,
    those of the game chosen there. Each game brings its own lines (js/games/<id>/)."""
    gateway = mishqaq_gateway(gateway_factory, two_games_lobby)

    # No invitation: the page follows the create form's choice.
    ana = players(gateway.url + "/")
    ana.wait_screen("home")
    ana.page.locator("#home-games").wait_for()
    assert ana.text("#home-title") == "Jouer à Lexio"
    assert "De 2 à 4 joueurs" in ana.text("#home-tagline")
    assert visible(ana, "#home-words-french") and not visible(ana, "#home-words-mishqaq")
    ana.page.check("#home-game-mishqaq")
    assert ana.text("#home-title") == "Jouer à al-Mishqaq"
    assert "À deux" in ana.text("#home-tagline") and "De 2 à 4" not in ana.text("#home-tagline")
    assert visible(ana, "#home-words-mishqaq") and not visible(ana, "#home-words-french")
    assert "en arabe" in ana.text("#home-words-mishqaq")
    code = create_table(ana, "Ana")

    # Invited to al-Mishqaq while the create form says Lexio (a new visitor's default).
    bruno = open_invitation(players, gateway.url, code)
    assert bruno.page.locator("#home-game-lexio").is_checked()
    assert bruno.text("#home-title") == "Jouer à al-Mishqaq"
    assert "À deux" in bruno.text("#home-tagline")
    assert visible(bruno, "#home-words-mishqaq") and not visible(bruno, "#home-words-french")
    assert_no_axe_violations(bruno, "home, invited to al-Mishqaq")

    # The same in Arabic: the game's own name and lines, from its own catalog.
    layla = open_invitation(players, gateway.url, code, locale="ar")
    assert layla.text("#home-title") == "العب المشقاق"
    assert "للاعبَين اثنين" in layla.text("#home-tagline")
    assert "بالعربية" in layla.text("#home-words-mishqaq")

    # Invited to Lexio (a code typed and left) while the create form says al-Mishqaq.
    diego = players(gateway.url + "/")
    diego.wait_screen("home")
    diego.page.locator("#home-forms").wait_for()
    diego.page.fill("#home-name", "Diego")
    diego.page.click("#home-create")
    diego.wait_screen("table")
    lexio_code = diego.page.input_value("#table-code-text")
    chloe = players(gateway.url + "/")
    chloe.wait_screen("home")
    chloe.page.locator("#home-games").wait_for()
    chloe.page.check("#home-game-mishqaq")
    assert chloe.text("#home-title") == "Jouer à al-Mishqaq"
    chloe.page.fill("#home-code", lexio_code)
    chloe.page.press("#home-code", "Tab")
    chloe.page.locator("#home-invitation .invitation-title").wait_for()
    assert chloe.page.locator("#home-game-mishqaq").is_checked()
    assert chloe.text("#home-title") == "Jouer à Lexio"
    assert "De 2 à 4 joueurs" in chloe.text("#home-tagline")
    assert "toujours en français" in chloe.text("#home-words-french")
    assert not visible(chloe, "#home-words-mishqaq")
