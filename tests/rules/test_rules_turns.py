"""A turn: R10 (one action, seat order), R11 (the log), R17/R19 (the lexicon's verdict),
R20 (anti-probing reserve), R26 (exchange), R27 (pass), R28 (clock), R29 (disconnection)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import pytest
import rules_positions
from rules_positions import (
    OS,
    TABLE_BOARD,
    Exploding,
    Recording,
    accepted,
    board_with,
    refused,
)

from lexio_rules.actions import Action, Exchange, Pass, PassCause, Place
from lexio_rules.board import EMPTY_BOARD
from lexio_rules.game import Examined, Refusal, WordSet, conclude, examine, play
from lexio_rules.reasons import InvalidSeatError, MalformedActionError, Reason
from lexio_rules.reserve import REGAIN_SECONDS, RESERVE_MAX, Reserve
from lexio_rules.state import DEFAULT_TURN_SECONDS, EntryKind, GameState, WordScore, new_game


def position(
    racks: Sequence[str],
    board: str = EMPTY_BOARD,
    bag: str = "EEEEEEEEEEEEEEEEEEEE",
    now: float = 0.0,
) -> GameState:
    """As rules_positions.position, with a bag of twenty tiles unless told otherwise."""
    return rules_positions.position(racks, board=board, bag=bag, now=now)


# --- R10 --------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r10_turns_follow_seat_order(players: int) -> None:
    game = new_game(players, seed=4, now=0.0)
    lexicon = Exploding()
    seen = []
    for step in range(players + 1):
        seen.append(game.turn)
        for other in range(players):
            if other != game.turn:
                outcome = refused(play(game, other, Pass(), float(step), lexicon))
                assert outcome.refusal.reason is Reason.NOT_YOUR_TURN
                assert outcome.state == game
        game = accepted(play(game, game.turn, Pass(), float(step), lexicon)).state
    assert seen == [*range(players), 0]


def test_r10_one_action_per_turn() -> None:
    game = position(["OSAAAAA", "TEEEEEE"])
    after = accepted(play(game, 0, OS, 1.0, Recording())).state
    assert after.turn == 1
    for action in (Place.of((7, 6, "A")), Exchange("A"), Pass()):
        again = refused(play(after, 0, action, 2.0, Exploding()))
        assert again.refusal.reason is Reason.NOT_YOUR_TURN
        assert again.state == after


def test_r10_not_your_turn_for_every_kind_of_action() -> None:
    game = position(["OSAAAAA", "OSEEEEE"])
    for action in (OS, Exchange("E"), Pass(), Pass(PassCause.CLOCK)):
        outcome = refused(play(game, 1, action, 1.0, Exploding()))
        assert outcome.refusal.reason is Reason.NOT_YOUR_TURN
        assert outcome.state == game


@pytest.mark.parametrize("seat", [-1, 2, 7])
def test_r10_a_seat_the_game_does_not_have_is_an_error(seat: int) -> None:
    with pytest.raises(InvalidSeatError):
        play(position(["OSAAAAA", "OSEEEEE"]), seat, Pass(), 1.0, Exploding())


# --- R11 --------------------------------------------------------------------------------------


def test_r11_log_of_a_placement_has_words_positions_and_points() -> None:
    game = position(["SIAAAAA", "EEEEEEE"], board=TABLE_BOARD)
    move = accepted(play(game, 0, Place.of((7, 3, "S"), (7, 4, "I")), 12.5, Recording()))
    entry = move.entry
    assert move.state.log == (entry,)
    assert (entry.number, entry.seat, entry.kind, entry.at) == (1, 0, EntryKind.PLACE, 12.5)
    assert entry.words == (
        WordScore("SI", 4, 7, 3, True),
        WordScore("AS", 2, 6, 3, False),
        WordScore("BI", 6, 6, 4, False),
    )
    assert [(t.row, t.col, t.letter, t.blank) for t in entry.tiles] == [
        (7, 3, "S", False),
        (7, 4, "I", False),
    ]
    assert (entry.score, entry.bingo, entry.count, entry.cause) == (12, False, 0, None)


def test_r11_log_of_an_exchange_shows_only_the_count() -> None:
    game = position(["QZJAAAA", "EEEEEEE"], bag="EEEEEEEE")
    entry = accepted(play(game, 0, Exchange("QZJ"), 3.0, Exploding())).entry
    assert (entry.number, entry.seat, entry.kind, entry.count) == (1, 0, EntryKind.EXCHANGE, 3)
    assert entry.words == ()
    assert entry.tiles == ()
    assert entry.score == 0
    text = repr(entry)
    for letter in "QZJ":
        assert letter not in text  # nothing in the entry names the tiles given back


@pytest.mark.parametrize("cause", list(PassCause))
def test_r11_log_of_a_pass_shows_who_passed_and_why(cause: PassCause) -> None:
    game = position(["OSAAAAA", "EEEEEEE"])
    first = accepted(play(game, 0, OS, 1.0, Recording())).state
    entry = accepted(play(first, 1, Pass(cause), 9.0, Exploding())).entry
    assert (entry.number, entry.seat, entry.kind, entry.cause) == (2, 1, EntryKind.PASS, cause)
    assert entry.at == 9.0
    assert (entry.words, entry.tiles, entry.score, entry.count) == ((), (), 0, 0)


def test_r11_a_state_read_without_its_past_log_numbers_on_from_it() -> None:
    """The engine service reads a state without its past log (``log_offset`` counts it)."""
    game = replace(position(["OSAAAAA", "EEEEEEE"]), log_offset=41)
    after = accepted(play(game, 0, OS, 1.0, Recording()))
    assert after.entry.number == 42
    assert after.state.log == (after.entry,)
    assert after.state.log_offset == 41
    entry = accepted(play(after.state, 1, Pass(), 2.0, Exploding())).entry
    assert entry.number == 43


def test_r11_log_numbers_entries_and_refusals_add_nothing() -> None:
    game = position(["OSAAAAA", "EEEEEEE"])
    game = refused(play(game, 0, OS, 1.0, Recording(known=[]))).state
    game = refused(play(game, 0, Place.of((0, 4, "A")), 1.0, Exploding())).state
    assert game.log == ()
    game = accepted(play(game, 0, OS, 2.0, Recording())).state
    game = accepted(play(game, 1, Pass(), 3.0, Exploding())).state
    game = accepted(play(game, 0, Exchange("A"), 4.0, Exploding())).state
    assert [(e.number, e.seat, e.kind) for e in game.log] == [
        (1, 0, EntryKind.PLACE),
        (2, 1, EntryKind.PASS),
        (3, 0, EntryKind.EXCHANGE),
    ]


# --- R17 / R19 ----------------------------------------------------------------------------------


def test_r17_a_word_is_valid_iff_the_lexicon_holds_it() -> None:
    game = position(["OSAAAAA", "EEEEEEE"])
    assert accepted(play(game, 0, OS, 1.0, WordSet(["OS"]))).state.scores == (2, 0)
    no = refused(play(game, 0, OS, 1.0, WordSet(["SO", "OSE", "os"])))
    assert no.refusal == Refusal(Reason.UNKNOWN_WORDS, ("OS",))


def test_r17_the_lexicon_is_asked_only_for_a_placement_with_a_legal_form() -> None:
    game = position(["OSAAAAA", "EEEEEEE"])
    lexicon = Recording()
    refused(play(game, 0, Place.of((6, 4, "O"), (6, 5, "S")), 1.0, lexicon))
    assert lexicon.calls == []
    accepted(play(game, 0, OS, 1.0, lexicon))
    assert lexicon.calls == [("OS",)]


def test_r19_every_unknown_word_named_main_first_then_cross_words() -> None:
    game = position(["SIAAAAA", "EEEEEEE"], board=TABLE_BOARD)
    # Given out of order: the words still come main word first, then board order.
    place = Place.of((7, 4, "I"), (7, 3, "S"))
    assert refused(play(game, 0, place, 1.0, WordSet([]))).refusal == Refusal(
        Reason.UNKNOWN_WORDS, ("SI", "AS", "BI")
    )
    assert refused(play(game, 0, place, 1.0, WordSet(["SI"]))).refusal == Refusal(
        Reason.UNKNOWN_WORDS, ("AS", "BI")
    )
    assert refused(play(game, 0, place, 1.0, WordSet(["AS", "BI"]))).refusal == Refusal(
        Reason.UNKNOWN_WORDS, ("SI",)
    )
    assert refused(play(game, 0, place, 1.0, WordSet(["AS"]))).refusal == Refusal(
        Reason.UNKNOWN_WORDS, ("SI", "BI")
    )


def test_r19_vertical_main_word_then_cross_words_top_to_bottom() -> None:
    # N E T down column 6 from (5,6); O old at (5,5) and U old at (7,5) make ON and UT.
    game = position(["NETAAAA", "EEEEEEE"], board=board_with([(5, 5, "O"), (7, 5, "U")]))
    place = Place.of((7, 6, "T"), (5, 6, "N"), (6, 6, "E"))
    outcome = refused(play(game, 0, place, 1.0, WordSet(["NE", "TE"])))
    assert outcome.refusal == Refusal(Reason.UNKNOWN_WORDS, ("NET", "ON", "UT"))


def test_r19_a_refused_placement_changes_nothing_but_one_try() -> None:
    game = position(["SIAAAAA", "EEEEEEE"], board=TABLE_BOARD, now=100.0)
    outcome = refused(play(game, 0, Place.of((7, 3, "S"), (7, 4, "I")), 130.0, WordSet([])))
    after = outcome.state
    assert after.board == game.board
    assert after.racks == game.racks
    assert after.bag == game.bag
    assert after.scores == game.scores
    assert after.log == game.log
    assert after.turn == 0
    assert after.turns_without_placement == game.turns_without_placement
    assert after.reserves[1] == game.reserves[1]
    assert after.reserves[0].available(130.0) == 9
    assert replace(after, reserves=game.reserves) == game


def test_r19_after_a_refusal_it_is_still_that_players_turn_and_the_clock_runs() -> None:
    game = position(["SIAAAAA", "EEEEEEE"], board=TABLE_BOARD, now=100.0)
    place = Place.of((7, 3, "S"), (7, 4, "I"))
    after = refused(play(game, 0, place, 150.0, WordSet([]))).state
    assert after.turn_started_at == 100.0
    assert after.turn_deadline == 100.0 + 120.0
    other = refused(play(after, 1, Pass(), 151.0, Exploding()))
    assert other.refusal.reason is Reason.NOT_YOUR_TURN
    retry = accepted(play(after, 0, place, 152.0, Recording()))
    assert retry.state.turn == 1
    assert retry.state.turn_started_at == 152.0
    assert retry.state.scores == (12, 0)


def test_r19_examine_then_conclude_with_the_lexicons_answer() -> None:
    game = position(["SIAAAAA", "EEEEEEE"], board=TABLE_BOARD)
    examined = examine(game, 0, Place.of((7, 3, "S"), (7, 4, "I")), 1.0)
    assert isinstance(examined, Examined)
    assert examined.words_to_check == ("SI", "AS", "BI")
    no = refused(conclude(examined, ["AS", "BI"]))
    assert no.refusal == Refusal(Reason.UNKNOWN_WORDS, ("AS", "BI"))
    yes = accepted(conclude(examined, []))
    assert yes.state.scores == (12, 0)
    passing = examine(game, 0, Pass(), 1.0)
    assert isinstance(passing, Examined)
    assert passing.words_to_check == ()


# --- R20 --------------------------------------------------------------------------------------


def spend_all(game: GameState, now: float, count: int) -> GameState:
    for _ in range(count):
        game = refused(play(game, 0, OS, now, WordSet([]))).state
    return game


def test_r20_reserve_starts_full_with_ten_tries() -> None:
    assert RESERVE_MAX == 10
    assert REGAIN_SECONDS == 15.0
    game = new_game(3, seed=1, now=0.0)
    assert all(r.available(0.0) == 10 for r in game.reserves)


def test_r20_each_unknown_word_refusal_spends_one_try() -> None:
    game = position(["OSAAAAA", "EEEEEEE"])
    for spent in range(1, 11):
        outcome = refused(play(game, 0, OS, 0.0, WordSet([])))
        assert outcome.refusal.reason is Reason.UNKNOWN_WORDS
        game = outcome.state
        assert game.reserves[0].available(0.0) == 10 - spent
    lexicon = Recording()
    eleventh = refused(play(game, 0, OS, 0.0, lexicon))
    assert eleventh.refusal == Refusal(Reason.RESERVE_EMPTY)
    assert lexicon.calls == []
    assert eleventh.state == game


def test_r20_a_try_comes_back_every_fifteen_seconds() -> None:
    game = position(["OSAAAAA", "EEEEEEE"])
    once = spend_all(game, 0.0, 1)
    assert once.reserves[0].available(14.9) == 9
    assert once.reserves[0].available(15.0) == 10
    empty = spend_all(game, 0.0, 10)
    reserve = empty.reserves[0]
    assert [reserve.available(t) for t in (0.0, 14.9, 15.0, 29.9, 30.0, 135.0, 150.0)] == [
        0, 0, 1, 1, 2, 9, 10,
    ]  # fmt: skip


def test_r20_regain_is_capped_at_ten() -> None:
    empty = spend_all(position(["OSAAAAA", "EEEEEEE"]), 0.0, 10)
    assert empty.reserves[0].available(10_000.0) == 10
    once = spend_all(position(["OSAAAAA", "EEEEEEE"]), 0.0, 1)
    assert once.reserves[0].available(1_000.0) == 10


def test_r20_regained_try_is_usable_then_empty_again() -> None:
    empty = spend_all(position(["OSAAAAA", "EEEEEEE"]), 0.0, 10)
    assert refused(play(empty, 0, OS, 14.0, Exploding())).refusal.reason is Reason.RESERVE_EMPTY
    used = refused(play(empty, 0, OS, 15.0, WordSet([])))
    assert used.refusal.reason is Reason.UNKNOWN_WORDS
    assert used.state.reserves[0].available(15.0) == 0
    again = refused(play(used.state, 0, OS, 16.0, Exploding()))
    assert again.refusal.reason is Reason.RESERVE_EMPTY
    # At 15 s the valid move is accepted with the regained try.
    assert accepted(play(empty, 0, OS, 15.0, WordSet(["OS"]))).state.scores == (2, 0)


def test_r20_accepted_move_gives_no_try_back() -> None:
    game = spend_all(position(["OSAAAAA", "EEEEEEE"]), 0.0, 7)
    assert game.reserves[0].available(0.0) == 3
    after = accepted(play(game, 0, OS, 0.0, WordSet(["OS"]))).state
    assert after.reserves == game.reserves
    assert after.reserves[0].available(0.0) == 3


def test_r20_with_an_empty_reserve_a_valid_placement_is_refused_unasked() -> None:
    game = position(["OSAAAAA", "EEEEEEE"])
    game = replace(game, reserves=(Reserve(0, 0.0), Reserve.full()))
    outcome = refused(play(game, 0, OS, 0.0, Exploding()))
    assert outcome.refusal == Refusal(Reason.RESERVE_EMPTY)
    assert outcome.state == game
    assert examine(game, 0, OS, 0.0) == Refusal(Reason.RESERVE_EMPTY)


def test_r20_with_an_empty_reserve_exchange_and_pass_remain_possible() -> None:
    game = position(["OSAAAAA", "EEEEEEE"])
    game = replace(game, reserves=(Reserve(0, 0.0), Reserve(0, 0.0)))
    exchanged = accepted(play(game, 0, Exchange("OS"), 1.0, Exploding()))
    assert exchanged.entry.kind is EntryKind.EXCHANGE
    passed = accepted(play(exchanged.state, 1, Pass(), 2.0, Exploding()))
    assert passed.entry.kind is EntryKind.PASS


def test_r20_form_refusals_do_not_use_the_reserve() -> None:
    game = position(["OSAAAAA", "EEEEEEE"], board=TABLE_BOARD)
    bad = [
        Place.of((7, 2, "O"), (8, 3, "S")),  # not_in_line
        Place.of((7, 3, "O"), (7, 5, "S")),  # gap
        Place.of((9, 9, "O"), (9, 10, "S")),  # not_touching
        Place.of((0, 0, "O")),  # off_board
        Place.of((7, 2, "Q"), (7, 3, "S")),  # tiles_not_in_rack
        Place.of((6, 6, "O"), (6, 7, "S")),  # occupied_mismatch
        Place(()),  # no_new_tile
    ]
    for place in bad:
        outcome = refused(play(game, 0, place, 0.0, Exploding()))
        assert outcome.refusal.reason is not Reason.UNKNOWN_WORDS
        assert outcome.state == game
    assert game.reserves[0].available(0.0) == 10


def test_r20_the_reserve_is_each_players_own() -> None:
    game = position(["OSAAAAA", "EEEEEEE"])
    game = spend_all(game, 0.0, 4)
    game = accepted(play(game, 0, OS, 0.0, WordSet(["OS"]))).state
    out = refused(play(game, 1, Place.of((7, 6, "E")), 0.0, WordSet([])))
    assert out.state.reserves[0].available(0.0) == 6
    assert out.state.reserves[1].available(0.0) == 9


# --- R26 --------------------------------------------------------------------------------------


def test_r26_exchange_draws_first_then_returns_and_reshuffles() -> None:
    game = position(["QZJAAAA", "EEEEEEE"], bag="EEEEEIII")
    after = accepted(play(game, 0, Exchange("QZJ"), 1.0, Exploding())).state
    # The three drawn are the first three of the bag; the returned tiles are not among them.
    assert after.racks[0] == "AAAA" + "EEE"
    assert Counter(after.bag) == Counter("EEIIIQZJ")
    assert len(after.bag) == len(game.bag)
    assert after.shuffles == game.shuffles + 1


def test_r26_nobody_redraws_the_tiles_they_return_even_with_a_tiny_bag() -> None:
    game = position(["QZJAAAA", "EEEEEEE"], bag="EEE")
    after = accepted(play(game, 0, Exchange("QZJ"), 1.0, Exploding())).state
    assert Counter(after.racks[0]) == Counter("AAAAEEE")
    assert Counter(after.bag) == Counter("QZJ")


def test_r26_bag_is_reshuffled_and_tiles_conserved() -> None:
    game = new_game(2, seed=9, now=0.0)
    give = game.racks[0][:3]
    after = accepted(play(game, 0, Exchange(give), 1.0, Exploding())).state
    assert len(after.bag) == len(game.bag)
    assert after.racks[0] == game.racks[0][3:] + game.bag[:3]
    assert Counter(after.bag) == Counter(game.bag[3:] + give)
    assert after.bag != game.bag[3:] + give  # not merely put back at the end
    assert after.bag != give + game.bag[3:]
    before_all = Counter("".join(game.racks) + game.bag)
    assert Counter("".join(after.racks) + after.bag) == before_all


def test_r26_exchange_of_a_blank() -> None:
    game = position(["?ABCDEF", "EEEEEEE"], bag="KKK")
    after = accepted(play(game, 0, Exchange("?"), 1.0, Exploding())).state
    assert after.racks[0] == "ABCDEF" + "K"
    assert Counter(after.bag) == Counter("KK?")


def test_r26_exchange_the_whole_rack() -> None:
    game = position(["ABCDEFG", "EEEEEEE"], bag="HIJKLMNOP")
    entry = accepted(play(game, 0, Exchange("GFEDCBA"), 1.0, Exploding()))
    assert entry.entry.count == 7
    assert entry.state.racks[0] == "HIJKLMN"
    assert Counter(entry.state.bag) == Counter("OPABCDEFG")


@pytest.mark.parametrize("tiles", ["", "ABCDEFGH", "ab", "É", "1"])
def test_r26_exchange_of_1_to_7_rack_tiles_only(tiles: str) -> None:
    with pytest.raises(MalformedActionError):
        Exchange(tiles)


@pytest.mark.parametrize("tiles", ["QQ", "K", "?", "AAAAAAA"])
def test_r26_exchange_of_tiles_not_in_the_rack(tiles: str) -> None:
    game = position(["QABCDEF", "EEEEEEE"])
    outcome = refused(play(game, 0, Exchange(tiles), 1.0, Exploding()))
    assert outcome.refusal == Refusal(Reason.TILES_NOT_IN_RACK)
    assert outcome.state == game


@pytest.mark.parametrize(("bag", "give"), [("EE", "QZJ"), ("", "A"), ("EEEEEE", "QZJAAAA")])
def test_r26_bag_too_small(bag: str, give: str) -> None:
    game = position(["QZJAAAA", "EEEEEEE"], bag=bag)
    outcome = refused(play(game, 0, Exchange(give), 1.0, Exploding()))
    assert outcome.refusal == Refusal(Reason.BAG_TOO_SMALL)
    assert outcome.state == game


def test_r26_exchange_allowed_when_the_bag_holds_exactly_as_many() -> None:
    game = position(["QZJAAAA", "EEEEEEE"], bag="EE")
    after = accepted(play(game, 0, Exchange("QZ"), 1.0, Exploding())).state
    assert after.racks[0] == "JAAAAEE"
    assert Counter(after.bag) == Counter("QZ")


# --- R27 --------------------------------------------------------------------------------------


def test_r27_pass_is_allowed_even_when_a_placement_is_possible() -> None:
    game = position(["OSAAAAA", "EEEEEEE"])
    assert accepted(play(game, 0, OS, 1.0, WordSet(["OS"]))).accepted
    after = accepted(play(game, 0, Pass(), 1.0, Exploding())).state
    assert after.turn == 1
    assert after.scores == (0, 0)
    assert after.racks == game.racks
    assert after.bag == game.bag
    assert after.board == game.board
    assert after.turns_without_placement == 1


def test_r27_exchange_scores_nothing_and_ends_the_turn() -> None:
    game = replace(position(["OSAAAAA", "EEEEEEE"]), scores=(5, 3))
    after = accepted(play(game, 0, Exchange("AA"), 1.0, Exploding())).state
    assert after.scores == (5, 3)
    assert after.turn == 1
    assert after.board == game.board
    assert after.turns_without_placement == 1


# --- R28 / R29 ------------------------------------------------------------------------------------


def test_r28_default_turn_is_120_seconds_and_configurable() -> None:
    assert DEFAULT_TURN_SECONDS == 120.0
    game = new_game(2, seed=1, now=10.0)
    assert (game.turn_started_at, game.turn_seconds, game.turn_deadline) == (10.0, 120.0, 130.0)
    quick = new_game(2, seed=1, now=10.0, turn_seconds=45.0)
    assert quick.turn_deadline == 55.0
    for bad in (0.0, -1.0):
        with pytest.raises(ValueError):
            new_game(2, seed=1, now=0.0, turn_seconds=bad)


def test_r28_deadline_restarts_with_each_turn() -> None:
    game = new_game(2, seed=1, now=0.0, turn_seconds=60.0)
    game = accepted(play(game, 0, Pass(), 37.0, Exploding())).state
    assert (game.turn_started_at, game.turn_deadline) == (37.0, 97.0)
    game = accepted(play(game, 1, Exchange(game.racks[1][:1]), 50.5, Exploding())).state
    assert game.turn_deadline == 110.5


def test_r28_timeout_the_table_passes_for_the_player() -> None:
    game = position(["OSAAAAA", "EEEEEEE"])
    outcome = accepted(play(game, 0, Pass(PassCause.CLOCK), 120.0, Exploding()))
    entry = outcome.entry
    assert (entry.kind, entry.cause, entry.seat) == (EntryKind.PASS, PassCause.CLOCK, 0)
    after = outcome.state
    assert after.turn == 1
    assert after.turn_started_at == 120.0
    assert after.turn_deadline == 240.0
    assert after.racks == game.racks  # no word was looked for on the player's behalf
    assert after.board == game.board
    assert after.scores == (0, 0)
    assert after.turns_without_placement == 1


def test_r28_timeouts_count_as_turns_without_placement() -> None:
    game = position(["OSAAAAA", "EEEEEEE"])
    for step in range(3):
        game = accepted(
            play(game, game.turn, Pass(PassCause.CLOCK), 120.0 * step, Exploding())
        ).state
    assert not game.over
    game = accepted(play(game, 1, Pass(PassCause.CLOCK), 480.0, Exploding())).state
    assert game.over


def test_r29_disconnected_the_table_passes_and_the_seat_keeps_its_rack() -> None:
    game = position(["OSAAAAA", "KEEEEEE"])
    game = accepted(play(game, 0, OS, 1.0, WordSet(["OS"]))).state
    outcome = accepted(play(game, 1, Pass(PassCause.DISCONNECTED), 6.0, Exploding()))
    assert (outcome.entry.cause, outcome.entry.seat) == (PassCause.DISCONNECTED, 1)
    after = outcome.state
    assert after.racks[1] == "KEEEEEE"
    assert after.turn == 0
    assert after.turns_without_placement == 1
    assert after.board == game.board
    assert after.log[:-1] == game.log
    # Coming back, the seat plays on from the current board.
    back = accepted(play(after, 0, Pass(), 7.0, Exploding())).state
    assert accepted(play(back, 1, Place.of((7, 6, "E")), 8.0, WordSet(["SE"]))).accepted


def test_r29_disconnection_passes_count_for_r31() -> None:
    game = position(["OSAAAAA", "EEEEEEE", "IIIIIII"])
    actions: list[Action] = [Pass(PassCause.DISCONNECTED), Pass(), Pass(PassCause.CLOCK)] * 2
    for i, action in enumerate(actions):
        assert not game.over
        game = accepted(play(game, game.turn, action, float(i), Exploding())).state
    assert game.over
