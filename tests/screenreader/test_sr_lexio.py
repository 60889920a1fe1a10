"""A whole Lexio game, heard through Orca: Bruno plays by keyboard alone with the interface in
French, Ana by the protocol client. Every check is on what Orca spoke, in order (issue 41)."""

from __future__ import annotations

import contextlib
import re

import pytest
from lexio_testing import GatewayFactory, LoopThread
from lexio_words import french_words

from lexio_client.bot import Bot

from .sr_desktop import Desktop
from .sr_keys import Keyboard
from .sr_play import PageProbe, Seat, cell_name, cells_said, lexio_moves, points

pytestmark = pytest.mark.slow

VOICE = "fr_FR"
"""Orca set up as a French-speaking player's: its voice espeak-ng's French one."""


def french_bot(seed: int) -> Bot:
    return Bot(french_words(), seed)


@pytest.mark.timeout(900)
def test_a_blind_player_plays_lexio_in_french_with_orca(
    gateway_factory: GatewayFactory, loop_thread: LoopThread, desktop: Desktop
) -> None:
    gateway = gateway_factory(seed=5, turn_seconds=600.0)
    with contextlib.ExitStack() as stack, Seat(loop_thread, gateway.url) as ana:
        ana.run(lambda c: c.create("Ana"))
        code = ana.c.table["code"]

        # Bruno opens the invitation in French; Tab to his name, types it, Tab to "Rejoindre".
        desktop.open(f"{gateway.url}/?join={code}&lang=fr", lang="fr")
        page = stack.enter_context(PageProbe(loop_thread, desktop.debug_port))
        keys = Keyboard(desktop, page)
        page.wait("document.querySelectorAll('#lang option').length > 0")
        page.wait("!document.querySelector('#home-forms').hidden")
        keys.tab_to("#home-name")
        desktop.type("Bruno")
        keys.tab_to("#home-join")
        keys.press("Return")
        ana.wait_frame(lambda f: f["type"] == "table" and len(f["seats"]) == 2)
        page.wait("document.querySelector('#screen-table').checkVisibility()")

        # 1. Entering the game: who starts, then (the "?" key) whose turn and his rack.
        mark = desktop.mark()
        ana.run(lambda c: c.start())
        desktop.hear("La partie commence. Au tour de Ana.", since=mark, timeout=30)
        page.wait("document.activeElement && document.activeElement.matches('#board .cell.cursor')")
        desktop.quiet()
        # Coming onto the board: the board (13 by 13), then the cursor's cell, once; not every
        # cell of its row ("A7 : vide. B7 : vide. …", issue 41's runs).
        entering = [u.text for u in desktop.said()[mark:]]
        assert cells_said(entering) == ["G7"], entering
        assert any("13 lignes 13 colonnes" in text for text in entering), entering
        view = page.view()
        rack = [("joker" if letter == "?" else letter) for letter in view["rack"]]
        mark = desktop.mark()
        keys.press("question")
        summary = desktop.hear("Votre chevalet : ", since=mark)
        assert "Au tour de Ana" in summary.text, summary
        for letter in rack:
            assert letter.upper() in summary.text.upper(), (letter, summary)
        assert "Scores : Ana 0 point et Bruno 0 point" in summary.text, summary

        # 2. Ana's move (the protocol client): who, the word, where, which way, the points,
        # then that it is Bruno's turn.
        bot = french_bot(3)
        mark = desktop.mark()
        ana.run(lambda c: c.act(bot.choose(c.view)))
        entry = ana.c.log[-1]
        word = entry["words"][0]
        direction = "horizontal" if word["across"] else "vertical"
        where = f"{word['word']} en {cell_name(word['row'], word['col'])}, {direction}"
        move, _turn = desktop.hear_in_order(
            [f"Ana a posé {where}", "À vous de jouer !"], since=mark, timeout=20
        )
        assert f"pour {points(entry['score'])}" in move.text, move
        # Spoken with the French voice (the reader's own; Orca 43 does not switch on lang).
        assert desktop.voice_of(move).startswith("fr"), desktop.voice_of(move)

        # The keys to ask (docs/accessibility.md, "Keys to ask"): Alt+L, the last move again,
        # said once; Alt+P, whose turn, the time, the scores, the bag.
        desktop.quiet()
        mark = desktop.mark()
        keys.press("alt+l")
        desktop.hear(f"Ana a posé {where}", since=mark)
        desktop.quiet(1.0)
        again = [u for u in desktop.said()[mark:] if "Ana a posé" in u.text]
        assert len(again) == 1, again
        mark = desktop.mark()
        keys.press("alt+p")
        state = desktop.hear("Scores : ", since=mark)
        assert "À vous de jouer" in state.text, state
        assert f"Ana {points(entry['score'])}" in state.text, state
        desktop.quiet(1.0)

        # 3. Over the board: End goes from tile to tile of the last move (reading order, round
        # again), each named (the letter, the points, the cell, "joué au dernier coup"),
        # without the empty cells between; then an arrow to the cell past the word.
        desktop.quiet()
        tiles = sorted(entry["tiles"], key=lambda t: (t["row"], t["col"]))
        cells = {cell_name(t["row"], t["col"]): t["letter"].upper() for t in tiles}
        heard_cells = set()
        for _ in tiles:
            mark = desktop.mark()
            keys.press("End")
            said = desktop.hear("joué au dernier coup", since=mark)
            found = re.search(r"(\w), \d+ points?, (\w\d+)", said.text)
            assert found and cells.get(found.group(2)) == found.group(1), (said, cells)
            heard_cells.add(found.group(2))
            desktop.quiet()
            # The row and column numbers Orca adds are the cell's own (they were one off: the
            # labels were header cells of the grid), and no header of another column.
            column, number = ord(found.group(2)[0]) - 64, int(found.group(2)[1:])
            for u in desktop.said()[mark:]:
                assert "column header" not in u.text, u
                for kind, value in re.findall(r"\b(colonne|ligne) (\d+)", u.text):
                    assert int(value) == (column if kind == "colonne" else number), (u, found)
        assert heard_cells == set(cells), (heard_cells, cells)
        row, col, _classes = page.cursor("#board")
        step = "Right" if word["across"] else "Down"
        last = tiles[-1]
        if (row, col) == (last["row"], last["col"]) and (col if word["across"] else row) < 12:
            mark = desktop.mark()
            keys.press(step)
            desktop.hear(" : vide", since=mark)
            desktop.quiet()

        # 4. Bruno places a word by typing it: each tile said with its cell and where the
        # cursor went; the preview; Enter plays and his move is said like anyone's.
        view = page.view()
        place = next(lexio_moves(view["board"], view["rack"], 2))
        mark = desktop.mark()
        keys.place_lexio(place)
        ordered = sorted(place.tiles, key=lambda t: (t.row, t.col))
        for tile in ordered:
            desktop.hear(f"{cell_name(tile.row, tile.col)} : {tile.letter}", since=mark)
        desktop.hear("Aperçu : ", since=mark)
        desktop.quiet()
        mark = desktop.mark()
        keys.press("Return")
        ana.wait_log(2)
        mine = ana.c.log[-1]
        said, _ = desktop.hear_in_order(["Bruno a posé", "Au tour de Ana."], since=mark)
        assert f"{points(mine['score'])}" in said.text, said
        for w in mine["words"]:
            assert w["word"] in said.text, (w, said)

        # 5. Ana plays again; Bruno hears it.
        mark = desktop.mark()
        ana.run(lambda c: c.act(bot.choose(c.view)))
        entry = ana.c.log[-1]
        words = [w["word"] for w in entry["words"]] if entry.get("words") else []
        if words:
            heard = desktop.hear("Ana a posé", since=mark, timeout=20)
            assert words[0] in heard.text, heard
        desktop.hear("À vous de jouer !", since=mark, timeout=20)
        desktop.quiet()

        # 6. A refusal: two tiles the lexicon does not know; the alert names every word.
        view = page.view()
        refused, refused_words = keys.refused_lexio(view["board"], view["rack"])
        mark = desktop.mark()
        keys.place_lexio(refused)
        desktop.hear("Aperçu : ", since=mark)
        desktop.quiet()
        mark = desktop.mark()
        keys.press("Return")
        alert = desktop.hear("Le lexique ne reconnaît pas", since=mark, timeout=20)
        for w in refused_words:
            desktop.hear(w, since=mark)
        desktop.hear("C'est toujours votre tour", since=mark)
        desktop.note(f"the refusal: {alert.text}")
        desktop.quiet()
        mark = desktop.mark()
        keys.press("Escape")
        desktop.hear("Tous les jetons posés ce tour sont revenus sur le chevalet.", since=mark)
        desktop.quiet()

        # 7. The end: two rounds without a placement (R31). Bruno passes by Tab and Enter,
        # Ana by the protocol, until the fourth turn without a placement ends the game (the
        # pass that would end it asks first, "Annuler" focused: Shift+Tab to confirm).
        mark = desktop.mark()
        for _ in range(3):
            length = len(ana.c.log)
            keys.tab_to("#btn-pass")
            pressed = desktop.mark()
            keys.press("Return")
            page.wait(
                f"document.querySelector('#dlg-confirm').open || window.lexio.log.length > {length}"
            )
            if page.js("document.querySelector('#dlg-confirm').open"):
                desktop.hear("Annuler", since=mark)
                keys.tab_to("#confirm-ok", backwards=True)
                keys.press("Return")
            ana.wait_log(length + 1)
            desktop.hear("Bruno a passé.", since=mark)
            # The focus back on the board (the button went disabled): its cell at most, not
            # its whole row again.
            back = [u.text for u in desktop.said()[pressed:]]
            assert len(cells_said(back)) <= 1, back
            if ana.c.view.get("ending"):
                break
            mark = desktop.mark()
            ana.run(lambda c: c.pass_turn())
            if ana.c.view.get("ending"):
                break
            desktop.hear_in_order(["Ana a passé.", "À vous de jouer !"], since=mark)
        ending = ana.c.view["ending"]
        # The end's heading (focused: "Partie terminée.") and the live region's account.
        end = desktop.hear("Partie terminée.", since=mark, timeout=20)
        desktop.hear("Deux tours de table sans aucune pose", since=mark, timeout=20)
        final = ending["final_scores"]
        best = max(final)
        seats = ("Ana", "Bruno")
        winners = [name for name, score in zip(seats, final, strict=True) if score == best]
        said_end = " ".join(u.text for u in desktop.said()[desktop.said().index(end) :])
        assert "Deux tours de table sans aucune pose" in said_end, said_end
        if len(winners) == 1:
            assert f"Victoire de {winners[0]} !" in said_end, said_end
        for name, score in zip(("Ana", "Bruno"), final, strict=True):
            assert f"{name} {points(score)}" in said_end, said_end
        # The end's heading takes the focus as a heading, not as something "clickable" (a
        # click listener on the document made every focusable element so, issue 41).
        desktop.quiet()
        assert not [u for u in desktop.said() if "clickable" in u.text], said_end
