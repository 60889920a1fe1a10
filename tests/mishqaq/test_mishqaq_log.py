"""The log (M37): the opening draw, accepted moves with their words (direction, script,
spellings), swaps, passes (how many drawn, never which), pauses, resignation, result."""

from __future__ import annotations

from dataclasses import replace

from mishqaq_positions import OPENED, A, L, accepted, place, position, row_of, words

from mishqaq_rules.actions import Pass, Pause, Resign, Resume, Swap
from mishqaq_rules.game import Examined, conclude, examine, play
from mishqaq_rules.log import Direction, EndCause, EntryKind
from mishqaq_rules.sides import Side
from mishqaq_rules.state import new_game


def test_m37_the_opening_draw_is_the_first_entry() -> None:
    game = new_game(latin="fr", seed=2, now=0.0)
    entry = game.log[0]
    assert (entry.number, entry.kind, entry.side) == (1, EntryKind.OPENING, game.turn)
    assert entry.draws and all(a.script is L and b.script is A for a, b in entry.draws)


def test_m37_a_placement_logs_tiles_cells_and_each_word_with_direction_and_script() -> None:
    game = position({**OPENED, (9, 4): "ن+"}, latin=["S"])
    outcome = accepted(play(game, L, place((10, 4, "S")), 3.0, words(fr=["CAPS", "SN"])))
    entry = outcome.entry
    assert (entry.number, entry.kind, entry.side, entry.at, entry.count) == (
        2,
        EntryKind.PLACE,
        L,
        3.0,
        3,
    )
    assert [(t.row, t.col, t.tile.text) for t in entry.tiles] == [(10, 4, "S")]
    assert [(w.word, w.direction, w.script, w.row, w.col) for w in entry.words] == [
        ("CAPS", Direction.ACROSS, L, 10, 1),
        ("SN", Direction.UP, L, 10, 4),
    ]


def test_m37_the_dictionary_spellings_given_to_conclude_are_kept() -> None:
    """A servicer's path: examine, one batched look-up, conclude with the spellings (C.3)."""
    game = position(
        row_of(10, 20, ["ا", "م"], step=-1) | row_of(10, 1, ["C", "A"]), arabic=["ن"], turn=A
    )
    examined = examine(game, A, place((10, 18, "ن")), 2.0)
    assert isinstance(examined, Examined)
    assert examined.readings == ("امن",)
    spellings = {"امن": ["أمن", "آمن", "إمن", "امن"]}
    outcome = accepted(conclude(examined, unknown=[], spellings=spellings))
    (word,) = outcome.entry.words
    assert word.spellings == ("أمن", "آمن", "إمن", "امن") and word.script is A


def test_m37_without_spellings_the_words_carry_none() -> None:
    game = position(OPENED, latin=["S"])
    outcome = accepted(play(game, L, place((10, 4, "S")), 3.0, words(fr=["CAPS"])))
    assert outcome.entry.words[0].spellings == ()


def test_m37_a_pass_says_how_many_tiles_were_drawn_never_which() -> None:
    entry = accepted(play(position(OPENED), L, Pass(), 1.0, {})).entry
    assert (entry.kind, entry.count, entry.tiles, entry.draws) == (EntryKind.PASS, 3, (), ())


def test_m37_swaps_pauses_resumes_resignation_and_result_are_logged_in_order() -> None:
    state = position({**OPENED, (11, 1): "?R"}, latin=["R"])
    for side, action, now in (
        (L, Swap(11, 1), 1.0),
        (A, Pause(), 2.0),
        (A, Resume(), 3.0),
        (L, Pause(), 4.0),
        (L, Resign(), 100.0),
    ):
        state = accepted(play(state, side, action, now, {})).state
    assert [(e.number, e.kind, e.side, e.at) for e in state.log[1:]] == [
        (2, EntryKind.SWAP, L, 1.0),
        (3, EntryKind.PAUSE, A, 2.0),
        (4, EntryKind.RESUME, A, 3.0),
        (5, EntryKind.PAUSE, L, 4.0),
        (6, EntryKind.PAUSE_EXPIRED, L, 64.0),
        (7, EntryKind.RESIGN, L, 100.0),
        (8, EntryKind.RESULT, None, 100.0),
    ]
    assert (state.log[-1].winner, state.log[-1].cause) == (A, EndCause.RESIGN)


def test_m37_entries_number_on_after_a_past_log_held_elsewhere() -> None:
    game = replace(position(OPENED), log=(), log_offset=40)
    entry = accepted(play(game, L, Pass(), 1.0, {})).entry
    assert entry.number == 41


def test_the_servicer_path_gives_the_same_outcome_as_play() -> None:
    game = position(OPENED, latin=["S"])
    action = place((10, 4, "S"))
    examined = examine(game, Side.LATIN, action, 3.0)
    assert isinstance(examined, Examined)
    assert examined.move is not None
    assert [(examined.lexicon, w.readings) for w in examined.move.words] == [("fr", ("CAPS",))]
    assert conclude(examined, unknown=["CAPS"]) == play(game, L, action, 3.0, words(fr=[]))
    assert conclude(examined, unknown=[]) == play(game, L, action, 3.0, words(fr=["CAPS"]))
