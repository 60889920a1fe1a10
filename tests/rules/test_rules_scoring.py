"""Scoring: R21 (values, letter and word cells), R22 (bonus pays once), R23 (crossings),
R24 (seven tiles), R25 (preview)."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import replace

import pytest
from rules_positions import AcceptAll, N, TileSpec, accepted, board_with, position, word_at

from lexio_rules.actions import Pass, Place
from lexio_rules.board import EMPTY_BOARD, Square, square_at
from lexio_rules.game import Refused, play, preview
from lexio_rules.placement import FormedMove, form_move
from lexio_rules.reasons import Reason
from lexio_rules.reserve import Reserve
from lexio_rules.state import GameState


class RejectAll:
    def unknown(self, words: Sequence[str]) -> list[str]:
        return list(words)


def scored(
    board: str, rack: str, tiles: Sequence[TileSpec]
) -> tuple[list[tuple[str, int]], int, bool]:
    """Play the tiles as seat 0 and give (words with scores, move score, bingo)."""
    outcome = accepted(
        play(position([rack, "EEEEEEE"], board), 0, Place.of(*tiles), 1.0, AcceptAll())
    )
    entry = outcome.entry
    assert outcome.state.scores[0] == entry.score
    return [(w.word, w.score) for w in entry.words], entry.score, entry.bingo


# --- R21 --------------------------------------------------------------------------------------


def test_r21_a_word_is_worth_the_sum_of_its_tiles() -> None:
    # T1 A1 B3 L1 E1 = 7 (row 6 holds no bonus).
    assert scored(EMPTY_BOARD, "TABLEUS", word_at(6, 2, "TABLE")) == ([("TABLE", 7)], 7, False)
    # W10 A1 X8 = 19.
    assert scored(EMPTY_BOARD, "WAXEEEE", word_at(4, 6, "WAX", False)) == ([("WAX", 19)], 19, False)


def test_r21_letter_double_multiplies_the_tile() -> None:
    # K on L2 (2,4), A below at (3,4): K10×2 + A1 = 21.
    assert scored(board_with([(3, 4, "A")]), "KEEEEEE", [(2, 4, "K")]) == ([("KA", 21)], 21, False)


def test_r21_letter_triple_multiplies_the_tile() -> None:
    # K on L3 (4,5), A below at (5,5): K10×3 + A1 = 31.
    assert scored(board_with([(5, 5, "A")]), "KEEEEEE", [(4, 5, "K")]) == ([("KA", 31)], 31, False)


def test_r21_word_double_multiplies_the_word() -> None:
    # K on W2 (1,2), A below: (10 + 1) × 2 = 22.
    assert scored(board_with([(2, 2, "A")]), "KEEEEEE", [(1, 2, "K")]) == ([("KA", 22)], 22, False)


def test_r21_word_triple_multiplies_the_word() -> None:
    # K on W3 (0,4), A below: (10 + 1) × 3 = 33.
    assert scored(board_with([(1, 4, "A")]), "KEEEEEE", [(0, 4, "K")]) == ([("KA", 33)], 33, False)


def test_r21_two_word_triples_multiply_each_other() -> None:
    # Row 0: A (old) at (0,3); Z on W3 (0,4), E, B, R, A on W3 (0,8).
    # A1 + Z10 + E1 + B3 + R1 + A1 = 17; × 3 × 3 = 153.
    board = board_with([(0, 3, "A")])
    tiles = word_at(0, 4, "ZEBRA")
    assert scored(board, "ZEBRAEE", tiles) == ([("AZEBRA", 153)], 153, False)


def test_r21_two_word_triples_multiply_each_other_in_a_column() -> None:
    # Column 12: W3 at (4,12) and (8,12). Q8 U1 I1 T1 E1 = 12; × 9 = 108.
    board = board_with([(3, 12, "S")])
    assert scored(board, "QUITEEE", word_at(4, 12, "QUITE", False)) == (
        [("SQUITE", (1 + 12) * 9)],
        117,
        False,
    )


def test_r21_two_word_doubles_multiply_each_other() -> None:
    # Row 10: W2 at (10,1) and (10,11). Old tiles ABCDE at (10,4..8) (their L2 cells at
    # (10,4) and (10,8) are already covered: no bonus). New H I J at (10,1..3), K L M at
    # (10,9..11): H4 I1 J8 + K10 L1 M2 = 26; old A1 B3 C2 D2 E1 = 9; (26 + 9) × 2 × 2 = 140.
    board = board_with(word_at(10, 4, "ABCDE"))
    tiles = [*word_at(10, 1, "HIJ"), *word_at(10, 9, "KLM")]
    assert scored(board, "HIJKLMZ", tiles) == ([("HIJABCDEKLM", 140)], 140, False)


def test_r21_no_line_of_the_board_holds_a_word_double_and_a_word_triple() -> None:
    """Why no test plays W2 × W3 = ×6: R9's layout never puts both in one row or column."""
    for i in range(N):
        row = {square_at(i, c) for c in range(N)}
        col = {square_at(r, i) for r in range(N)}
        for line in (row, col):
            assert not {Square.WORD_2, Square.WORD_3} <= line


def test_r21_blank_is_zero_even_on_a_letter_cell() -> None:
    # A blank K on L3 (4,5): 0 × 3 + A1 = 1.
    assert scored(board_with([(5, 5, "A")]), "?EEEEEE", [(4, 5, "K", True)]) == (
        [("KA", 1)],
        1,
        False,
    )


def test_r21_word_cell_under_a_blank_still_multiplies() -> None:
    # A blank B on W3 (0,4), O and S old below it: (0 + 1 + 1) × 3 = 6.
    board = board_with([(1, 4, "O"), (2, 4, "S")])
    assert scored(board, "?EEEEEE", [(0, 4, "B", True)]) == ([("BOS", 6)], 6, False)


def test_r21_letter_and_word_cells_in_one_word() -> None:
    # Column 4 from (0,4): new K on W3, old O at (1,4), new Z on L2 (2,4), new E at (3,4).
    # K10 + O1 + Z10×2 + E1 = 32; × 3 = 96.
    board = board_with([(1, 4, "O")])
    tiles = [(0, 4, "K"), (2, 4, "Z"), (3, 4, "E")]
    assert scored(board, "KZEEEEE", tiles) == ([("KOZE", 96)], 96, False)


# --- R22 --------------------------------------------------------------------------------------


def test_r22_word_bonus_pays_in_every_word_of_the_move() -> None:
    # Z on W3 (0,4) makes AZ (row) and ZE (column): (1 + 10) × 3 + (10 + 1) × 3 = 66.
    board = board_with([(0, 3, "A"), (1, 4, "E")])
    assert scored(board, "ZEEEEEE", [(0, 4, "Z")]) == ([("AZ", 33), ("ZE", 33)], 66, False)


def test_r22_letter_bonus_pays_in_every_word_of_the_move() -> None:
    # Z on L3 (4,5) makes AZ (row) and ZE (column): (1 + 30) + (30 + 1) = 62.
    board = board_with([(4, 4, "A"), (5, 5, "E")])
    assert scored(board, "ZEEEEEE", [(4, 5, "Z")]) == ([("AZ", 31), ("ZE", 31)], 62, False)


def test_r22_letter_bonus_in_main_and_cross_word_of_a_long_move() -> None:
    # Row 4, new Z on L3 (4,5) and E on (4,6); old A above (3,5): ZE main, AZ cross.
    # ZE: 10×3 + 1 = 31; AZ (down from (3,5)): 1 + 10×3 = 31.
    board = board_with([(3, 5, "A")])
    words, score, _ = scored(board, "ZEEEEEE", [(4, 5, "Z"), (4, 6, "E")])
    assert words == [("ZE", 31), ("AZ", 31)]
    assert score == 62


def test_r22_a_bonus_pays_only_on_the_move_that_covers_it() -> None:
    lexicon = AcceptAll()
    game = position(["KEEEEEE", "SEEEEEE"], board=board_with([(1, 4, "A")]))
    first = accepted(play(game, 0, Place.of((0, 4, "K")), 1.0, lexicon))
    assert first.entry.score == 33  # (K10 + A1) × 3, W3 covered now
    # Seat 1 extends the row through the old K on W3: K10 + S1 = 11, no ×3.
    second = accepted(play(first.state, 1, Place.of((0, 5, "S")), 2.0, lexicon))
    assert [(w.word, w.score) for w in second.entry.words] == [("KS", 11)]
    # Nor does an old letter bonus pay again: Z old on L3 (4,5), E new below.
    board = board_with([(4, 5, "Z")])
    assert scored(board, "EEEEEEE", [(5, 5, "E")]) == ([("ZE", 11)], 11, False)


def test_r22_old_crossing_tile_pays_nothing_even_when_it_now_serves_two_words() -> None:
    # E old on the crossing (3,3) with B old above it; S new at (3,4) makes ES (row) only.
    board = board_with([(3, 3, "E"), (2, 3, "B")])
    assert scored(board, "SEEEEEE", [(3, 4, "S")]) == ([("ES", 2)], 2, False)
    # A new tile below it makes the column BES; the old crossing still pays nothing.
    assert scored(board, "SEEEEEE", [(4, 3, "S")]) == ([("BES", 5)], 5, False)


# --- R23 --------------------------------------------------------------------------------------


def test_r23_crossing_doubles_both_words_when_its_tile_serves_two_words() -> None:
    # Row 3: B (3,2), E on the crossing (3,3), D (3,4); A old at (2,3) above the crossing.
    # BED: (3 + 1 + 2) × 2 = 12; AE: (1 + 1) × 2 = 4.
    board = board_with([(2, 3, "A")])
    words, score, _ = scored(board, "BEDEEEE", word_at(3, 2, "BED"))
    assert words == [("BED", 12), ("AE", 4)]
    assert score == 16


def test_r23_crossing_doubles_only_when_tile_serves_two_words() -> None:
    # A old at (3,1); B, E new at (3,2), (3,3): the crossing tile serves only ABE.
    # ABE: 1 + 3 + 1 = 5, no doubling.
    board = board_with([(3, 1, "A")])
    assert scored(board, "BEEEEEE", word_at(3, 2, "BE")) == ([("ABE", 5)], 5, False)


def test_r23_crossing_pays_nothing_when_another_tile_makes_the_second_word() -> None:
    # B on the crossing (3,3), E at (3,4) under an old A at (2,4): the move makes BE and AE,
    # but the crossing tile serves only BE. BE: 3 + 1 = 4; AE: 1 + 1 = 2.
    board = board_with([(2, 4, "A")])
    assert scored(board, "BEEEEEE", word_at(3, 3, "BE")) == ([("BE", 4), ("AE", 2)], 6, False)


def test_r23_single_tile_on_a_crossing_with_two_words() -> None:
    # E on (9,9) between old A at (9,8) and old B at (8,9): AE (1+1)×2 = 4, BE (3+1)×2 = 8.
    board = board_with([(9, 8, "A"), (8, 9, "B")])
    assert scored(board, "EEEEEEE", [(9, 9, "E")]) == ([("AE", 4), ("BE", 8)], 12, False)


def test_r23_two_live_crossings_in_one_word() -> None:
    # Row 3 from (3,3) to (3,9): both crossings new, each with an old tile above it.
    # Main BCDEFGH: 3+2+2+1+4+3+4 = 19 × 2 × 2 = 76; AB down at col 3: (1+3)×2 = 8;
    # AH down at col 9: (1+4)×2 = 10; 7 tiles: +30. Total 124.
    board = board_with([(2, 3, "A"), (2, 9, "A")])
    words, score, bingo = scored(board, "BCDEFGH", word_at(3, 3, "BCDEFGH"))
    assert words == [("BCDEFGH", 76), ("AB", 8), ("AH", 10)]
    assert (score, bingo) == (124, True)


def test_r23_blank_on_a_live_crossing_still_doubles() -> None:
    # Blank E on (3,3) with old A at (3,2) and old B at (2,3): AE (1+0)×2 = 2, BE (3+0)×2 = 6.
    board = board_with([(3, 2, "A"), (2, 3, "B")])
    assert scored(board, "?EEEEEE", [(3, 3, "E", True)]) == ([("AE", 2), ("BE", 6)], 8, False)


# --- R24 --------------------------------------------------------------------------------------


def test_r24_seven_tiles_earn_thirty_more() -> None:
    # A1 B3 C2 D2 E1 F4 G3 = 16, +30 = 46.
    words, score, bingo = scored(EMPTY_BOARD, "ABCDEFG", word_at(6, 0, "ABCDEFG"))
    assert words == [("ABCDEFG", 16)]
    assert (score, bingo) == (46, True)


def test_r24_bonus_added_after_multiplications_never_multiplied() -> None:
    # Row 1 from W2 (1,2) to W2 (1,10), old A, E at (1,5), (1,6), seven new tiles.
    # K10 B3 C2 A1 E1 D2 F4 G3 H4 = 30; × 2 × 2 = 120; + 30 = 150.
    board = board_with([(1, 5, "A"), (1, 6, "E")])
    tiles = [*word_at(1, 2, "KBC"), *word_at(1, 7, "DFGH")]
    words, score, bingo = scored(board, "KBCDFGH", tiles)
    assert words == [("KBCAEDFGH", 120)]
    assert (score, bingo) == (150, True)


@pytest.mark.parametrize(("count", "plain_sum"), [(2, 4), (3, 6), (4, 8), (5, 9), (6, 13)])
def test_r24_fewer_than_seven_tiles_earn_no_bonus(count: int, plain_sum: int) -> None:
    rack = "ABCDEFG"  # A1 B3 C2 D2 E1 F4 G3
    words, score, bingo = scored(EMPTY_BOARD, rack, word_at(6, 6, rack[:count]))
    assert words == [(rack[:count], plain_sum)]
    assert (score, bingo) == (plain_sum, False)


def test_r24_a_single_tile_earns_no_bonus() -> None:
    assert scored(board_with([(6, 6, "A")]), "SEEEEEE", [(6, 7, "S")]) == ([("AS", 2)], 2, False)


def test_r24_placing_the_last_three_tiles_earns_no_bonus() -> None:
    game = position(["OSU", "KEEEEEE"], bag="")
    move = accepted(play(game, 0, Place.of(*word_at(6, 5, "OSU")), 1.0, AcceptAll()))
    assert move.entry.bingo is False
    assert move.entry.score == 3
    assert move.state.scores[0] == 3
    assert move.state.over  # the rack emptied with the bag empty (R30)


def test_r24_seven_tiles_with_the_bag_empty_earn_the_bonus_and_end() -> None:
    game = position(["ABCDEFG", "K"], bag="")
    move = accepted(play(game, 0, Place.of(*word_at(6, 0, "ABCDEFG")), 1.0, AcceptAll()))
    assert move.entry.bingo is True
    assert move.entry.score == 46
    assert move.state.ending is not None
    assert move.state.ending.final_scores == (46 + 10, -10)


# --- R25 --------------------------------------------------------------------------------------


def preview_move(game: GameState, place: Place) -> FormedMove:
    formed = preview(game, 0, place)
    assert isinstance(formed, FormedMove), formed
    return formed


def test_r25_preview_gives_the_score_play_would_give() -> None:
    game = position(["BEDEEEE", "EEEEEEE"], board=board_with([(2, 3, "A")]))
    place = Place.of(*word_at(3, 2, "BED"))
    formed = preview_move(game, place)
    assert [(w.word, w.score) for w in formed.words] == [("BED", 12), ("AE", 4)]
    assert formed.score == 16
    assert formed.bingo is False
    assert accepted(play(game, 0, place, 1.0, AcceptAll())).entry.score == formed.score


def test_r25_preview_never_consults_a_lexicon() -> None:
    # It takes none: there is nothing to probe the lexicon with.
    assert list(inspect.signature(preview).parameters) == ["state", "seat", "place"]
    assert list(inspect.signature(form_move).parameters) == ["board", "rack", "place"]
    # Words no lexicon holds are previewed all the same.
    game = position(["QZJXKWY", "EEEEEEE"])
    formed = preview_move(game, Place.of(*word_at(6, 3, "QZJX")))
    assert formed.words[0].word == "QZJX"
    assert formed.score == 8 + 10 + 8 + 8


def test_r25_preview_does_not_spend_the_reserve_and_changes_nothing() -> None:
    game = position(["BEDEEEE", "EEEEEEE"], board=board_with([(2, 3, "A")]))
    before = replace(game)
    place = Place.of(*word_at(3, 2, "BED"))
    for _ in range(20):
        preview_move(game, place)
    assert game == before
    assert game.reserves[0].available(1.0) == 10
    refused = play(game, 0, place, 1.0, RejectAll())
    assert isinstance(refused, Refused)
    assert refused.state.reserves[0].available(1.0) == 9  # only the real refusal spent one


def test_r25_preview_works_with_an_empty_reserve() -> None:
    game = position(["BEDEEEE", "EEEEEEE"], board=board_with([(2, 3, "A")]))
    game = replace(game, reserves=(Reserve(0, 1.0), Reserve(0, 1.0)))
    place = Place.of(*word_at(3, 2, "BED"))
    assert preview_move(game, place).score == 16
    lexicon = AcceptAll()
    outcome = play(game, 0, place, 1.0, lexicon)
    assert isinstance(outcome, Refused)
    assert outcome.refusal.reason is Reason.RESERVE_EMPTY
    assert lexicon.calls == 0


@pytest.mark.parametrize(
    ("tiles", "reason"),
    [
        ([(6, 5, "B"), (6, 7, "E")], Reason.GAP),
        ([(6, 4, "B"), (6, 5, "E")], Reason.FIRST_MOVE_OFF_SOURCE),
        ([(6, 6, "B")], Reason.TOO_SHORT),
        ([(6, 6, "B"), (7, 7, "E")], Reason.NOT_IN_LINE),
        ([(0, 0, "B"), (0, 1, "E")], Reason.OFF_BOARD),
        ([(6, 6, "Q"), (6, 7, "E")], Reason.TILES_NOT_IN_RACK),
    ],
)
def test_r25_preview_of_a_malformed_move_gives_the_form_reason(
    tiles: list[TileSpec], reason: Reason
) -> None:
    game = position(["BEDEEEE", "EEEEEEE"])
    assert preview(game, 0, Place.of(*tiles)) is reason


def test_r25_preview_promises_nothing_about_acceptance() -> None:
    game = position(["BEDEEEE", "EEEEEEE"], board=board_with([(2, 3, "A")]))
    place = Place.of(*word_at(3, 2, "BED"))
    assert preview_move(game, place).score == 16
    outcome = play(game, 0, place, 1.0, RejectAll())
    assert isinstance(outcome, Refused)
    assert outcome.refusal.reason is Reason.UNKNOWN_WORDS


def test_r25_preview_after_the_end_is_game_over() -> None:
    game = position(["OS", "EEEEEEE"], bag="")
    ended = accepted(play(game, 0, Place.of((6, 6, "O"), (6, 7, "S")), 1.0, AcceptAll())).state
    assert ended.over
    assert preview(ended, 1, Place.of((7, 6, "E"))) is Reason.GAME_OVER
    passed = play(ended, 1, Pass(), 2.0, AcceptAll())
    assert isinstance(passed, Refused)
