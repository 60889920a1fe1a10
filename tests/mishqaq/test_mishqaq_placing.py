"""Placing: M14 (first placement), M17 (readable cells, P-runs), M18 (line, gap, main word),
M19 (cross words), M20 (reading directions), M21 (anchor), M22 (the mover's lexicon), M26 (a
blank for its owner and its opponent), and appendix D's first cases."""

from __future__ import annotations

import pytest
from mishqaq_positions import (
    OPENED,
    A,
    AcceptAll,
    Exploding,
    L,
    Recording,
    accepted,
    col_of,
    every,
    place,
    position,
    reason,
    refused,
    row_of,
    words,
    words_of,
)

from lexio_lexicon.catalog import open_list
from mishqaq_rules.actions import Place
from mishqaq_rules.game import Examined, examine, play
from mishqaq_rules.reasons import MalformedActionError, Reason
from mishqaq_rules.state import GameState

LATIN_RACK = ("C", "A", "T", "S", "E", "R+", "?")
CA_ROW = row_of(10, 1, ["C", "A"])  # Latin's first word, on its red square
ARABIC_WORD = row_of(10, 20, ["ك", "ت", "ب"], step=-1)


def latin_game(board: dict[tuple[int, int], str], table: str = "fr") -> GameState:
    return position({**ARABIC_WORD, **board}, latin=LATIN_RACK, table=table)


def checks_of(game: GameState, action: Place) -> list[tuple[str, tuple[str, ...]]]:
    examined = examine(game, game.turn, action, 1.0)
    assert isinstance(examined, Examined), examined
    assert examined.move is not None and examined.lexicon is not None
    return [(examined.lexicon, word.readings) for word in examined.move.words]


# --- appendix D: jump, touch, forced inclusion ----------------------------------------------


def test_m17_jump_through_the_opponents_bilingual_tile_makes_cart() -> None:
    """Appendix D: C A _ T with the Arabic bag's ر at _ reads CART, the own C and A anchoring it."""
    game = latin_game({**CA_ROW, (10, 3): "ر+"})
    outcome = play(game, L, place((10, 4, "T")), 1.0, words(fr=["CART"]))
    assert words_of(outcome) == [("CART", "across")]


def test_m17_jump_with_tiles_on_both_sides_of_the_bilingual_tile() -> None:
    game = latin_game({(10, 1): "C", (10, 3): "ر+"})
    outcome = play(game, L, place((10, 2, "A"), (10, 4, "T")), 1.0, words(fr=["CART"]))
    assert words_of(outcome) == [("CART", "across")]


def test_m17_opponent_monolingual_tile_is_opaque_the_run_stops_ca_slash_t() -> None:
    """Appendix D: with ش at _, the runs are CA and T: T alone is no word."""
    game = latin_game({**CA_ROW, (10, 3): "ش"})
    assert reason(game, place((10, 4, "T"))) is Reason.TOO_SHORT


def test_m18_an_opaque_cell_between_placed_tiles_is_a_gap() -> None:
    game = latin_game({(10, 1): "C", (10, 3): "ش"})
    assert reason(game, place((10, 2, "A"), (10, 4, "T"))) is Reason.GAP


def test_m21_a_run_cut_off_by_an_opaque_tile_has_no_anchor() -> None:
    game = latin_game({**CA_ROW, (10, 3): "ش"})
    assert reason(game, place((10, 4, "T"), (10, 5, "S"))) is Reason.NO_ANCHOR


def test_m17_touching_an_opponent_monolingual_tile_forms_no_word_with_it() -> None:
    """Appendix D: S placed between two ش in its column makes CATS and nothing else."""
    game = latin_game({**row_of(10, 1, ["C", "A", "T"]), (9, 4): "ش", (11, 4): "ش"})
    lexicon = Recording(["CATS"])
    outcome = play(game, L, place((10, 4, "S")), 1.0, every(lexicon))
    assert words_of(outcome) == [("CATS", "across")]
    assert lexicon.asked == [["CATS"]]


def test_m17_forced_inclusion_of_an_opponent_bilingual_tile_in_line() -> None:
    """Appendix D: the Arabic bag's ن next in line is read N: the run is CATSN and must be valid."""
    game = latin_game({**row_of(10, 1, ["C", "A", "T"]), (10, 5): "ن+"})
    out = refused(play(game, L, place((10, 4, "S")), 1.0, words(fr=["CATS"])))
    assert out.refusal.unknown_words == ("CATSN",)
    assert words_of(play(game, L, place((10, 4, "S")), 1.0, words(fr=["CATSN"]))) == [
        ("CATSN", "across")
    ]


def test_m17_forced_inclusion_across_the_line_is_a_cross_word() -> None:
    game = latin_game({**row_of(10, 1, ["C", "A", "T"]), (9, 4): "ن+"})
    assert checks_of(game, place((10, 4, "S"))) == [("fr", ("CATS",)), ("fr", ("NS", "SN"))]
    outcome = play(game, L, place((10, 4, "S")), 1.0, words(fr=["CATS", "SN"]))
    assert words_of(outcome) == [("CATS", "across"), ("SN", "up")]


def test_m17_opponent_blank_is_opaque_even_declared_with_a_sound_pair() -> None:
    """M26: a blank is never jumped by the opponent, even standing for R (pair R/ر)."""
    game = position({**OPENED, (10, 17): "?R"}, arabic=["ا", "ا"], turn=A)
    assert reason(game, place((10, 16, "ا"))) is Reason.TOO_SHORT
    assert reason(game, place((10, 16, "ا"), (10, 15, "ا"))) is Reason.NO_ANCHOR


def test_m17_the_same_cell_with_a_bilingual_r_is_read_by_the_opponent() -> None:
    game = position({**OPENED, (10, 17): "R+"}, arabic=["ا"], turn=A)
    assert checks_of(game, place((10, 16, "ا"))) == [("ar", ("كتبرا",))]


def test_m26_own_blank_reads_as_its_declared_letter() -> None:
    game = latin_game({**CA_ROW, (10, 3): "?T"})
    assert words_of(play(game, L, place((10, 4, "S")), 1.0, words(fr=["CATS"]))) == [
        ("CATS", "across")
    ]


def test_m26_a_new_blank_reads_as_declared_and_must_be_of_the_owners_script() -> None:
    game = latin_game(CA_ROW)
    assert words_of(play(game, L, place((10, 3, "?", "B")), 1.0, words(fr=["CAB"]))) == [
        ("CAB", "across")
    ]
    with pytest.raises(MalformedActionError):
        place((10, 3, "?"))
    with pytest.raises(MalformedActionError):
        place((10, 3, "?", "é"))


# --- M14: first placement ---------------------------------------------------------------------


def test_m14_first_placement_off_the_red_square_is_refused() -> None:
    game = position(latin=LATIN_RACK)
    assert reason(game, place((5, 5, "C"), (5, 6, "A"))) is Reason.FIRST_MOVE_OFF_START


def test_m14_the_arabic_first_placement_must_cover_its_own_red_square() -> None:
    game = position(CA_ROW, arabic=["ك", "ت", "ب"], turn=A)
    assert reason(game, place((10, 19, "ك"), (10, 18, "ت"))) is Reason.FIRST_MOVE_OFF_START
    assert reason(game, place((10, 1, "ك"))) is Reason.OCCUPIED  # the opponent's red square


def test_m14_first_placement_needs_two_letters_and_no_anchor() -> None:
    game = position(latin=LATIN_RACK)
    assert reason(game, place((10, 1, "C"))) is Reason.TOO_SHORT
    outcome = play(game, L, place((10, 1, "C"), (10, 2, "A")), 1.0, words(fr=["CA"]))
    assert words_of(outcome) == [("CA", "across")]


def test_m14_second_sides_first_placement_needs_no_contact_with_the_board() -> None:
    game = position(CA_ROW, arabic=["ك", "ت", "ب"], turn=A)
    outcome = play(
        game, A, place((10, 20, "ك"), (10, 19, "ت"), (10, 18, "ب")), 1.0, words(ar=["كتب"])
    )
    assert words_of(outcome) == [("كتب", "across")]


def test_m14_first_placement_may_be_vertical_through_the_red_square() -> None:
    game = position(latin=LATIN_RACK)
    outcome = play(game, L, place((9, 1, "C"), (10, 1, "A")), 1.0, words(fr=["CA"]))
    assert words_of(outcome) == [("CA", "down")]


def test_m21_second_placement_without_an_own_letter_in_its_main_word_is_refused() -> None:
    """Appendix D."""
    game = latin_game(CA_ROW)
    assert reason(game, place((5, 5, "A"), (5, 6, "S"))) is Reason.NO_ANCHOR


# --- M18: one line, gaps, the main word ---------------------------------------------------------


@pytest.mark.parametrize(
    "tiles",
    [
        [(11, 1, "A"), (12, 2, "S")],
        [(11, 1, "A"), (11, 2, "S"), (12, 2, "E")],
    ],
)
def test_m18_tiles_not_in_one_row_or_column_are_not_in_line(
    tiles: list[tuple[int, int, str]],
) -> None:
    assert reason(latin_game(CA_ROW), Place.of(*tiles)) is Reason.NOT_IN_LINE


def test_m18_an_empty_cell_between_placed_tiles_is_a_gap() -> None:
    assert reason(latin_game(CA_ROW), place((10, 3, "T"), (10, 5, "S"))) is Reason.GAP
    assert reason(latin_game(CA_ROW), place((11, 2, "T"), (13, 2, "S"))) is Reason.GAP


def test_m18_tiles_on_the_board_fill_the_gaps() -> None:
    game = latin_game(CA_ROW)
    outcome = play(game, L, place((9, 2, "T"), (11, 2, "S")), 1.0, words(fr=["TAS"]))
    assert words_of(outcome) == [("TAS", "down")]


def test_m18_an_empty_placement_has_no_new_tile() -> None:
    assert reason(latin_game(CA_ROW), Place(())) is Reason.NO_NEW_TILE


def test_m18_the_main_word_is_the_p_run_along_the_line_through_every_placed_tile() -> None:
    game = latin_game({**CA_ROW, (10, 5): "E"})
    outcome = play(game, L, place((10, 3, "T"), (10, 4, "S")), 1.0, words(fr=["CATSE"]))
    assert words_of(outcome) == [("CATSE", "across")]


def test_m18_single_tile_main_word_is_the_row_run_when_it_is_anchored() -> None:
    game = latin_game({**CA_ROW, (9, 3): "E"})  # own E above (10,3)
    lexicon = Recording(["CAT", "ET"])
    assert words_of(play(game, L, place((10, 3, "T")), 1.0, every(lexicon))) == [
        ("CAT", "across"),
        ("ET", "down"),
    ]
    out = refused(play(game, L, place((10, 3, "T")), 1.0, words(fr=[])))
    assert out.refusal.unknown_words == ("CAT", "ET")  # the row run named first


def test_m18_single_tile_main_word_is_the_column_when_the_row_run_is_not_anchored() -> None:
    """The row run S+ن has no own tile before this move; the column run A+S does."""
    game = latin_game({**CA_ROW, (11, 3): "ن+"})
    outcome = play(game, L, place((11, 2, "S")), 1.0, words(fr=["AS", "SN"]))
    assert words_of(outcome) == [("AS", "down"), ("SN", "across")]


def test_m18_single_tile_with_an_unanchored_row_run_and_no_column_is_no_anchor() -> None:
    game = latin_game({**CA_ROW, (5, 6): "ن+"})
    assert reason(game, place((5, 5, "S"))) is Reason.NO_ANCHOR


def test_m18_single_tile_with_no_run_of_two_is_too_short() -> None:
    assert reason(latin_game(CA_ROW), place((5, 5, "S"))) is Reason.TOO_SHORT


# --- M19: cross words -------------------------------------------------------------------------


def test_m19_cross_words_follow_the_main_word_in_the_order_of_the_placed_tiles() -> None:
    game = latin_game({**CA_ROW, (9, 3): "E", (11, 4): "E"})
    action = place((10, 4, "S"), (10, 3, "T"))
    assert checks_of(game, action) == [
        ("fr", ("CATS",)),
        ("fr", ("SE", "ES")),  # S's column, first placed tile
        ("fr", ("ET", "TE")),  # T's column
    ]
    outcome = play(game, L, action, 1.0, words(fr=["CATS", "SE", "ET"]))
    assert words_of(outcome) == [("CATS", "across"), ("SE", "down"), ("ET", "down")]


def test_m19_every_unknown_cross_word_is_named() -> None:
    game = latin_game({**CA_ROW, (9, 3): "E", (11, 4): "E"})
    out = refused(play(game, L, place((10, 3, "T"), (10, 4, "S")), 1.0, words(fr=["CATS"])))
    assert out.refusal.reason is Reason.UNKNOWN_WORDS
    assert out.refusal.unknown_words == ("ET", "SE")


# --- M20: directions --------------------------------------------------------------------------


def test_m20_vertical_both_ways_on_an_english_table_cat_read_upwards() -> None:
    """Appendix D, with the shipped English list: T-A-C top→bottom is CAT read upwards; TAC is
    not English."""
    game = latin_game(row_of(10, 1, ["C", "A", "T"]), table="en")
    action = place((11, 3, "A"), (12, 3, "C"))
    assert checks_of(game, action) == [("en", ("TAC", "CAT"))]
    outcome = play(game, L, action, 1.0, {"en": open_list("en")})
    assert words_of(outcome) == [("CAT", "up")]
    (word,) = accepted(outcome).entry.words
    assert (word.row, word.col) == (12, 3)  # its first letter, C, is the bottom cell


def test_m20_on_a_french_table_the_top_to_bottom_reading_tac_matches() -> None:
    """Appendix D, with the shipped French list: TAC is in it."""
    game = latin_game(row_of(10, 1, ["C", "A", "T"]), table="fr")
    outcome = play(game, L, place((11, 3, "A"), (12, 3, "C")), 1.0, {"fr": open_list("fr")})
    assert words_of(outcome) == [("TAC", "down")]


def test_m20_a_column_known_both_ways_is_logged_down() -> None:
    game = latin_game(row_of(10, 1, ["C", "A", "T"]))
    outcome = play(game, L, place((11, 3, "A"), (12, 3, "C")), 1.0, words(fr=["TAC", "CAT"]))
    assert words_of(outcome) == [("TAC", "down")]


def test_m20_an_unknown_column_is_named_top_to_bottom() -> None:
    game = latin_game(row_of(10, 1, ["C", "A", "T"]))
    out = refused(play(game, L, place((11, 3, "A"), (12, 3, "C")), 1.0, words(fr=[])))
    assert out.refusal.unknown_words == ("TAC",)


def test_m20_latin_rows_read_left_to_right() -> None:
    game = latin_game(CA_ROW)
    assert checks_of(game, place((10, 3, "T"))) == [("fr", ("CAT",))]


def test_m20_arabic_rows_read_right_to_left() -> None:
    game = position(OPENED, arabic=["ا"], turn=A)
    assert checks_of(game, place((10, 17, "ا"))) == [("ar", ("كتبا",))]
    outcome = play(game, A, place((10, 17, "ا")), 1.0, words(ar=["كتبا"]))
    (word,) = accepted(outcome).entry.words
    assert (word.word, word.direction.value, word.row, word.col) == ("كتبا", "across", 10, 20)


def test_m20_arabic_columns_read_either_way() -> None:
    game = position(OPENED, arabic=["ا"], turn=A)
    outcome = play(game, A, place((11, 18, "ا")), 1.0, words(ar=["اب"]))
    assert words_of(outcome) == [("اب", "up")]


# --- M21: anchor ------------------------------------------------------------------------------


def test_m21_an_opponents_bilingual_tile_is_no_anchor() -> None:
    game = latin_game({**CA_ROW, (5, 5): "ر+"})
    assert reason(game, place((5, 6, "A"), (5, 7, "T"))) is Reason.NO_ANCHOR


def test_m21_a_word_parallel_to_ones_own_word_without_sharing_a_tile_is_no_anchor() -> None:
    game = latin_game(row_of(10, 1, ["C", "A", "T"]))
    assert reason(game, place((11, 1, "A"), (11, 2, "S"), (11, 3, "E"))) is Reason.NO_ANCHOR


def test_m21_cross_words_need_not_be_anchored() -> None:
    """T's column run is T + the opponent's bilingual ن: valid, not anchored, accepted."""
    game = latin_game({**CA_ROW, (11, 3): "ن+"})
    outcome = play(game, L, place((10, 3, "T")), 1.0, words(fr=["CAT", "TN"]))
    assert words_of(outcome) == [("CAT", "across"), ("TN", "down")]


def test_m21_an_own_blank_already_on_the_board_is_an_anchor() -> None:
    game = latin_game({**CA_ROW, (8, 5): "?S"})
    outcome = play(game, L, place((9, 5, "E")), 1.0, words(fr=["SE"]))
    assert words_of(outcome) == [("SE", "down")]


# --- M22: the mover's lexicon only ------------------------------------------------------------


@pytest.mark.parametrize("table", ["fr", "en"])
def test_m22_latin_words_go_to_the_tables_latin_list(table: str) -> None:
    game = latin_game(CA_ROW, table=table)
    assert checks_of(game, place((10, 3, "T"))) == [(table, ("CAT",))]


def test_m22_arabic_words_go_to_the_arabic_list() -> None:
    game = position(OPENED, arabic=["ا"], turn=A, table="en")
    assert checks_of(game, place((10, 17, "ا"))) == [("ar", ("كتبا",))]


def test_m22_runs_as_the_opponent_reads_them_are_not_checked() -> None:
    """Latin's R+ next to the Arabic word makes a run كتبر for Arabic: nobody asks about it."""
    game = latin_game({**CA_ROW, **col_of(17, 8, ["C", "A"])})
    latin = Recording(["CAR"])
    outcome = play(game, L, place((10, 17, "R+")), 1.0, {"fr": latin, "ar": Exploding()})
    assert words_of(outcome) == [("CAR", "down")]
    assert latin.asked == [["CAR", "RAC"]]


def test_m22_words_already_on_the_board_are_never_checked_again() -> None:
    game = latin_game(row_of(10, 1, ["C", "A", "T"]))
    lexicon = Recording(["CATS"])
    play(game, L, place((10, 4, "S")), 1.0, every(lexicon))
    assert lexicon.asked == [["CATS"]]


def test_m22_a_move_is_judged_in_one_batched_look_up() -> None:
    game = latin_game({**CA_ROW, (9, 3): "E", (11, 4): "E"})
    lexicon = AcceptAll()
    play(game, L, place((10, 3, "T"), (10, 4, "S")), 1.0, every(lexicon))
    assert lexicon.asked == [["CATS", "ET", "TE", "SE", "ES"]]


def test_m22_readings_are_normalised_letters() -> None:
    game = position(OPENED, arabic=["ة", "ى", "ء"], turn=A)
    examined = examine(game, A, place((10, 17, "ة")), 1.0)
    assert isinstance(examined, Examined)
    assert examined.readings == ("كتبة",) and examined.lexicon == "ar"
