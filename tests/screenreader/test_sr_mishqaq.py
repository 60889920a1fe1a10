"""A whole al-Mishqaq game, heard through Orca: Bruno plays the Arabic side by keyboard alone
with the interface in Arabic, Ana the Latin side (French) by the protocol client. Bruno's bank
is short (a test setting of the gateway: 20 "minutes" of 6 s, two real minutes), so that his
clock's last minute comes and his flag falls: the game's own end. Every check is on what Orca
spoke, in order (issue 41)."""

from __future__ import annotations

import contextlib
import functools
import re

import pytest
from lexio_testing import GatewayFactory, LoopThread

from lexio_client.mishqaq_bot import MishqaqBot
from lexio_lexicon.catalog import open_list
from lexio_lexicon.words import WordList
from lexio_lobby.server import RunningLobby

from .sr_desktop import Desktop
from .sr_keys import Keyboard
from .sr_play import PageProbe, Seat, cell_name, cells_said

pytestmark = pytest.mark.slow

BANK_MINUTE_SECONDS = 6.0
"""Bruno's 20 minutes last 120 s, Ana's 40 minutes 240 s."""
RED_ARABIC = (10, 20)
VOICE = "ar"
"""Orca set up as an Arabic-speaking player's: its voice espeak-ng's Arabic one."""


@functools.cache
def word_list(list_id: str) -> WordList:
    return open_list(list_id)


def bot(list_id: str, seed: int) -> MishqaqBot:
    return MishqaqBot(word_list(list_id), seed)


@pytest.mark.timeout(900)
def test_a_blind_player_plays_al_mishqaq_in_arabic_with_orca(
    gateway_factory: GatewayFactory,
    two_games_lobby: RunningLobby,
    loop_thread: LoopThread,
    desktop: Desktop,
) -> None:
    gateway = gateway_factory(
        seed=25,
        lobby_address=f"127.0.0.1:{two_games_lobby.port}",
        mishqaq_settings={"bank_minute_seconds": BANK_MINUTE_SECONDS},
    )
    options: dict[str, str | int] = {
        "host_side": "latin",
        "latin": "fr",
        "latin_minutes": 40,
        "arabic_minutes": 20,
    }
    bots = {"latin": bot("fr", 1), "arabic": bot("ar", 2)}
    with contextlib.ExitStack() as stack, Seat(loop_thread, gateway.url) as ana:
        ana.run(lambda c: c.create("Ana", game="mishqaq", options=options))
        code = ana.c.table["code"]

        # Bruno opens the invitation with the interface in Arabic, Tab to his name, types it,
        # Tab to "انضم", Enter.
        desktop.open(f"{gateway.url}/?join={code}&lang=ar", lang="ar")
        page = stack.enter_context(PageProbe(loop_thread, desktop.debug_port))
        keys = Keyboard(desktop, page)
        page.wait("document.querySelectorAll('#lang option').length > 0")
        page.wait("!document.querySelector('#home-forms').hidden")
        assert page.js("document.documentElement.lang") == "ar"
        keys.tab_to("#home-name")
        desktop.type("Bruno")
        keys.tab_to("#home-join")
        keys.press("Return")
        ana.wait_frame(lambda f: f["type"] == "table" and len(f["seats"]) == 2)

        # 1. Entering the game: it starts, his side, whose turn; "?": the clocks, his rack.
        mark = desktop.mark()
        ana.run(lambda c: c.start())
        start = desktop.hear("بدأت المباراة.", since=mark, timeout=30)
        assert "أنت تلعب" in start.text and "العربي" in start.text, start
        # Spoken with espeak-ng's Arabic voice (the reader's own).
        assert desktop.voice_of(start).startswith("ar"), desktop.voice_of(start)
        page.wait(
            "document.activeElement && document.activeElement.matches('#mq-board .cell.cursor')"
        )
        desktop.quiet()
        # Coming onto the board: the cursor's cell once, not the 22 cells of its row.
        entering = [u.text for u in desktop.said()[mark:]]
        assert len(cells_said(entering)) == 1, entering
        # Orca must be in focus mode on the board, or the letters typed are its own browse
        # mode keys (ا is on the H key: "next heading"). When the focused "copy code" button
        # went with the table screen, the focus fell to the page, Orca said nothing of the
        # board and stayed in browse mode (issue 41's runs); the page now moves the focus to
        # the board first, which Orca follows into focus mode.
        assert desktop.in_focus_mode(), "Orca stayed in browse mode as the game started"
        mark = desktop.mark()
        keys.press("question")
        summary = desktop.hear("على حاملك", since=mark)
        # Its sentences and names apart ("دور Ana.Ana: 3 د 58 ث." before, issue 41).
        assert not re.search(r"[.!](?=[^\s.])", summary.text), summary
        desktop.hear("الكيسان", since=mark)
        for tile in page.view()["rack"]:
            if not tile.get("blank"):
                assert tile["letter"] in summary.text, (tile, summary)
        desktop.quiet()

        # 2. Ana (Latin, French) opens if the draw says so: Bruno hears her word and his turn.
        if ana.c.view["turn"] == "latin":
            mark = desktop.mark()
            action = bots["latin"].choose(ana.c.view)
            assert action is not None
            opening = action
            ana.run(lambda c: c.act(opening))
            entry = ana.c.log[-1]
            said, _ = desktop.hear_in_order(["Ana: وضع", "دورك!"], since=mark, timeout=20)
            assert entry["words"][0]["word"] in said.text, said
            # Her French word (lang="fr") is read with the same Arabic voice: Orca 43 logs the
            # language it was asked for and keeps its one voice (docs/accessibility.md).
            desktop.note(f"voice of Ana's French word: {desktop.voice_of(said)}")
            desktop.quiet()

        # 3. A refusal: two of his letters from his red square that the Arabic list does not
        # know; the alert names the word; Escape takes the tiles back (said).
        view = page.view()
        tiles, word = refused_opening(view["rack"])
        mark = desktop.mark()
        keys.place_mishqaq(tiles, "arabic")
        desktop.hear(f"{cell_name(*RED_ARABIC)}: ", since=mark)
        desktop.quiet()
        mark = desktop.mark()
        keys.press("Return")
        desktop.hear("لا يتعرّف معجم الطاولة على", since=mark, timeout=20)
        desktop.hear(word, since=mark)
        desktop.quiet()
        mark = desktop.mark()
        keys.press("Escape")
        desktop.hear("عادت كل القطع الموضوعة في هذا الدور إلى الحامل.", since=mark)
        desktop.quiet()

        # 4. His first word, typed right to left from his red square: each tile said with
        # its cell; Enter plays; his move is said, then Ana's turn.
        view = page.view()
        action = bots["arabic"].choose(view)
        assert action is not None, view["rack"]
        placed = action["place"]["tiles"]
        mark = desktop.mark()
        keys.place_mishqaq(placed, "arabic")
        for tile in placed:
            desktop.hear(f"{cell_name(tile['row'], tile['col'])}: ", since=mark)
        desktop.quiet()
        mark = desktop.mark()
        length = len(ana.c.log)
        keys.press("Return")
        ana.wait_log(length + 1)
        mine = ana.c.log[-1]
        said, _ = desktop.hear_in_order(["Bruno: وضع", "دور Ana."], since=mark, timeout=20)
        assert mine["words"][0]["word"] in said.text, said

        # 5. Ana plays (or passes); Bruno hears her move and his turn.
        mark = desktop.mark()
        action = bots["latin"].choose(ana.c.view)
        ana.run(lambda c: c.act(action or {"pass_turn": {}}))
        entry = ana.c.log[-1]
        if entry.get("words"):
            said = desktop.hear("Ana: وضع", since=mark, timeout=20)
            assert entry["words"][0]["word"] in said.text, said
        desktop.hear("دورك!", since=mark, timeout=20)
        desktop.quiet()

        # The keys to ask (docs/accessibility.md): Alt+L, the last move again (once); Alt+P,
        # whose turn and both clocks.
        mark = desktop.mark()
        keys.press("alt+l")
        desktop.hear("Ana: وضع", since=mark)
        desktop.quiet(1.0)
        assert len([u for u in desktop.said()[mark:] if "Ana: وضع" in u.text]) == 1
        mark = desktop.mark()
        keys.press("alt+p")
        state = desktop.hear("دورك!", since=mark)
        assert "Ana" in state.text and "Bruno" in state.text, state
        assert not re.search(r"[.!](?=[^\s.])", state.text), state  # "دورك!Ana" before
        desktop.quiet(1.0)

        # 6. Over the board: End jumps to the last move's tiles, each named with its cell.
        if entry.get("tiles"):
            first = sorted(entry["tiles"], key=lambda t: (t["row"], t["col"]))[0]
            mark = desktop.mark()
            keys.press("End")
            desktop.hear(cell_name(first["row"], first["col"]), since=mark)
            desktop.quiet()

        # 7. His clock's last minute, then his flag falls: the end and the winner.
        mark = desktop.mark()
        desktop.hear("بقيت دقيقة واحدة في ساعتك.", since=0, timeout=150)
        desktop.hear(re.compile(r"بقيت .*للعب!"), since=mark, timeout=90)
        end = desktop.hear("انتهت المباراة.", since=mark, timeout=30)
        said_end = " ".join(u.text for u in desktop.said()[desktop.said().index(end) :])
        assert "نفد وقت ساعة Bruno" in said_end, said_end
        assert "الفوز لـAna" in said_end, said_end
        # The end's heading is a heading, not "clickable" (issue 41).
        desktop.quiet()
        assert not [u for u in desktop.said() if "clickable" in u.text], said_end
        assert ana.c.view.get("ending") or ana.wait_frame(
            lambda f: f["type"] == "view" and bool(f["view"].get("ending"))
        )


def refused_opening(rack: list[dict[str, object]]) -> tuple[list[dict[str, object]], str]:
    """Two rack tiles from the Arabic red square (read right to left) whose word the Arabic
    list does not know."""
    letters = [t for t in rack if not t["blank"]]
    words = word_list("ar")
    row, col = RED_ARABIC
    for first in letters:
        for second in letters:
            word = f"{first['letter']}{second['letter']}"
            if second is not first and words.unknown([word]):
                tiles = [
                    {"row": row, "col": col, "tile": first["code"]},
                    {"row": row, "col": col - 1, "tile": second["code"]},
                ]
                return tiles, word
    raise AssertionError(f"no refusable opening in {rack}")
