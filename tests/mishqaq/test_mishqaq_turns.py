"""Turns: M11 (racks and draws), M13 (opening), M15 (what a turn is), M16 (pass), M24 (reserve),
M27 (swap), M34 (empty bag), M35 (dead position)."""

from __future__ import annotations

import typing
from collections import Counter
from dataclasses import replace

import pytest
from mishqaq_positions import (
    OPENED,
    A,
    AcceptAll,
    Exploding,
    L,
    accepted,
    every,
    place,
    position,
    rack_of,
    reason,
    refused,
    rules_ranks,
    tile,
    words,
)

from lexio_rules import reserve as lexio_reserve
from mishqaq_rules.actions import Action, Pass, Pause, Place, Resign, Resume, Swap, Timeout
from mishqaq_rules.board import PlacedTile
from mishqaq_rules.game import play
from mishqaq_rules.log import EndCause, EntryKind
from mishqaq_rules.opening import opener_of
from mishqaq_rules.reasons import Reason
from mishqaq_rules.sides import Side
from mishqaq_rules.state import GameState, new_game
from mishqaq_rules.tiles import Tile, bag_counts, rank

CA_ROW = {**OPENED}  # Latin C A P from its red square, Arabic ك ت ب from its own


def with_bags(game: GameState, latin: int | None = None, arabic: int | None = None) -> GameState:
    """The bags cut to these sizes."""
    sizes = (latin, arabic)
    bags = tuple(b if n is None else b[:n] for b, n in zip(game.bags, sizes, strict=True))
    return replace(game, bags=(bags[0], bags[1]))


# --- M11: racks -------------------------------------------------------------------------------


def test_m11_each_side_draws_6_from_its_own_bag_at_the_start() -> None:
    game = new_game(latin="fr", seed=1, now=0.0, opening=L)
    assert [len(r) for r in game.racks] == [6, 6]
    for side in (L, A):
        assert all(t.script is side for t in game.rack(side))
        assert Counter(game.rack(side)) + Counter(game.bag(side)) == bag_counts(side, "fr")


def test_m11_a_placement_draws_3_from_the_movers_bag_only() -> None:
    game = position(CA_ROW, latin=["S", "E", "E", "E", "E", "E"])
    before = game.bag(A)
    outcome = accepted(play(game, L, place((10, 4, "S")), 1.0, every(AcceptAll())))
    after = outcome.state
    assert list(after.rack(L)) == [*rack_of(L, "EEEEE"), *game.bag(L)[:3]]
    assert after.bag(L) == game.bag(L)[3:] and after.bag(A) == before
    assert outcome.entry.count == 3


def test_m11_a_pass_draws_3() -> None:
    outcome = accepted(play(position(CA_ROW), L, Pass(), 1.0, {}))
    assert len(outcome.state.rack(L)) == 9 and outcome.entry.count == 3


@pytest.mark.parametrize(("rack", "drawn"), [(9, 3), (10, 2), (11, 1), (12, 0)])
def test_m11_a_rack_holds_at_most_12(rack: int, drawn: int) -> None:
    """Appendix D: the rack cap of 12."""
    game = position(CA_ROW, latin=["E"] * rack)
    outcome = accepted(play(game, L, Pass(), 1.0, {}))
    assert len(outcome.state.rack(L)) == rack + drawn == min(12, rack + 3)
    assert outcome.entry.count == drawn


def test_m11_the_cap_applies_after_a_placement_too() -> None:
    game = position(CA_ROW, latin=["S", *["E"] * 11])
    outcome = accepted(play(game, L, place((10, 4, "S")), 1.0, every(AcceptAll())))
    assert len(outcome.state.rack(L)) == 12 and outcome.entry.count == 1


def test_m11_draws_are_limited_by_the_tiles_left_in_the_bag() -> None:
    game = with_bags(position(CA_ROW), latin=2)
    outcome = accepted(play(game, L, Pass(), 1.0, {}))
    assert len(outcome.state.rack(L)) == 8 and outcome.state.bag(L) == ()


# --- M34: empty bag ---------------------------------------------------------------------------


def test_m34_with_an_empty_bag_a_side_draws_nothing_and_never_from_the_other_bag() -> None:
    game = with_bags(position(CA_ROW, latin=["S", "E"]), latin=0)
    outcome = accepted(play(game, L, place((10, 4, "S")), 1.0, every(AcceptAll())))
    assert list(outcome.state.rack(L)) == [tile("E")]
    assert outcome.state.bag(A) == game.bag(A) and outcome.entry.count == 0


def test_m34_with_an_empty_rack_only_a_pass_is_possible() -> None:
    game = with_bags(position(CA_ROW, latin=[]), latin=0)
    assert reason(game, place((10, 4, "S"))) is Reason.TILES_NOT_IN_RACK
    assert reason(game, Swap(10, 1)) is Reason.SWAP_INVALID
    assert accepted(play(game, L, Pass(), 1.0, {})).entry.count == 0


# --- M13: opening -----------------------------------------------------------------------------


def test_m13_ranks_are_the_rules_texts() -> None:
    for letter, expected in rules_ranks().items():
        assert rank(Tile.parse(letter)) == expected, letter
    for i, letter in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ", start=1):
        assert rank(Tile.parse(letter)) == i


@pytest.mark.parametrize(
    ("latin", "arabic", "opener"),
    [
        ("A", "ب", L),
        ("C", "ب", A),
        ("C", "ت", None),  # equal ranks: both redraw
        ("C", "ة", None),  # ة ranks as ت
        ("A", "ء", None),  # ء ranks as ا
        ("Z", "ى", L),  # ى ranks as ي (28)
        ("B+", "ا+", A),  # a bilingual tile ranks by its primary letter
        ("?", "ا", None),  # a blank on either side: both redraw
        ("A", "?", None),
    ],
)
def test_m13_the_lower_rank_opens_ties_and_blanks_redraw(
    latin: str, arabic: str, opener: Side | None
) -> None:
    assert opener_of(tile(latin, L), tile(arabic, A)) is opener


def test_m13_the_draw_is_logged_and_the_opener_moves_first() -> None:
    game = new_game(latin="fr", seed=4, now=0.0)
    (entry,) = game.log
    assert entry.kind is EntryKind.OPENING and entry.side is game.turn
    *redraws, (latin, arabic) = entry.draws
    assert opener_of(latin, arabic) is game.turn
    assert all(opener_of(a, b) is None for a, b in redraws)


def test_m13_a_tie_or_a_blank_redraws_until_one_side_opens() -> None:
    games = [new_game(latin="en", seed=s, now=0.0) for s in range(200)]
    redrawn = [g for g in games if len(g.log[0].draws) > 1]
    assert redrawn, "no redraw in 200 seeded draws (about 8.5 % expected)"
    for game in redrawn:
        *redraws, last = game.log[0].draws
        assert all(opener_of(a, b) is None for a, b in redraws)
        assert opener_of(*last) is game.turn


def test_m13_the_drawn_tiles_go_back_before_the_racks_are_dealt() -> None:
    game = new_game(latin="fr", seed=9, now=0.0)
    for side in (L, A):
        assert Counter(game.rack(side)) + Counter(game.bag(side)) == bag_counts(side, "fr")


def test_m13_the_seed_alone_decides_the_draw_and_the_bags() -> None:
    assert new_game(latin="fr", seed=5, now=0.0) == new_game(latin="fr", seed=5, now=0.0)
    assert new_game(latin="fr", seed=5, now=0.0).bags != new_game(latin="fr", seed=6, now=0.0).bags


def test_m13_with_the_opener_given_there_is_no_draw() -> None:
    game = new_game(latin="fr", seed=5, now=0.0, opening=A)
    assert game.turn is A and game.log[0].draws == () and game.log[0].side is A


def test_m13_measured_bias_the_latin_side_opens_about_59_percent() -> None:
    """Appendix A.6: 58.9 % (fr); a redraw on about 8.5 % of draws."""
    games = [new_game(latin="fr", seed=s, now=0.0) for s in range(2000)]
    latin_share = sum(g.turn is L for g in games) / len(games)
    rounds = [len(g.log[0].draws) for g in games]
    redraw_share = (sum(rounds) - len(rounds)) / sum(rounds)
    assert 0.55 <= latin_share <= 0.63
    assert 0.05 <= redraw_share <= 0.12


# --- M15, M16: what a turn is -----------------------------------------------------------------


def test_m15_the_actions_are_place_pass_swap_resign_pause_and_the_tables_timeout() -> None:
    """No exchange: the seed has none, a pass draws instead."""
    assert set(typing.get_args(Action)) == {Place, Pass, Swap, Resign, Pause, Resume, Timeout}


def test_m15_swaps_then_one_placement_in_the_same_turn() -> None:
    game = position({**CA_ROW, (11, 1): "?R"}, latin=["R", "S"])
    swapped = accepted(play(game, L, Swap(11, 1), 1.0, {})).state
    assert swapped.turn is L
    outcome = play(swapped, L, place((10, 4, "S")), 2.0, every(AcceptAll()))
    assert accepted(outcome).state.turn is A


def test_m16_pass_is_allowed_even_when_a_placement_exists() -> None:
    game = position(CA_ROW, latin=["S"])
    assert accepted(play(game, L, place((10, 4, "S")), 1.0, every(AcceptAll())))
    outcome = accepted(play(game, L, Pass(), 1.0, {}))
    assert outcome.state.turn is A and outcome.entry.kind is EntryKind.PASS


# --- M24: the anti-probing reserve ------------------------------------------------------------


def test_m24_the_reserve_is_lexios_policy_reused() -> None:
    game = new_game(latin="fr", seed=1, now=0.0)
    assert all(type(r) is lexio_reserve.Reserve for r in game.reserves)
    assert game.reserves[0].available(0.0) == lexio_reserve.RESERVE_MAX == 10


def test_m24_ten_unknown_word_refusals_then_even_a_valid_placement_is_reserve_empty() -> None:
    game = position(CA_ROW, latin=["S"])
    for i in range(10):
        out = refused(play(game, L, place((10, 4, "S")), 1.0, words(fr=[])))
        assert out.refusal.reason is Reason.UNKNOWN_WORDS and out.state_changed, i
        assert out.state.reserves[0].available(1.0) == 9 - i
        game = out.state
    assert reason(game, place((10, 4, "S"))) is Reason.RESERVE_EMPTY
    assert accepted(play(game, L, Pass(), 1.0, {}))  # pass, swap and resign stay possible


def test_m24_the_reserve_is_per_side() -> None:
    game = position(CA_ROW, latin=["S"])
    out = refused(play(game, L, place((10, 4, "S")), 1.0, words(fr=[])))
    assert out.state.reserves[1] == game.reserves[1]


def test_m24_a_try_comes_back_every_15_seconds() -> None:
    game = position(CA_ROW, latin=["S"])
    for _ in range(10):
        game = play(game, L, place((10, 4, "S")), 1.0, words(fr=[])).state
    assert reason(game, place((10, 4, "S")), now=15.9) is Reason.RESERVE_EMPTY
    outcome = play(game, L, place((10, 4, "S")), 16.0, words(fr=["CAPS"]))
    assert accepted(outcome)


def test_m24_form_refusals_do_not_use_the_reserve() -> None:
    game = position(CA_ROW, latin=["S"])
    for _ in range(20):
        assert reason(game, place((5, 5, "S"))) is Reason.TOO_SHORT
    assert game.reserves[0].available(1.0) == 10


# --- M27: swap --------------------------------------------------------------------------------


def swap_game(rack: list[str], board: dict[tuple[int, int], str] | None = None) -> GameState:
    return position({**CA_ROW, (11, 1): "?R", **(board or {})}, latin=rack)


def test_m27_swap_with_a_rack_r_returns_the_blank_undeclared() -> None:
    """Appendix D."""
    game = swap_game(["R", "S"])
    outcome = accepted(play(game, L, Swap(11, 1), 1.0, every(Exploding())))
    state = outcome.state
    assert state.board.at(11, 1) == PlacedTile(tile("R"))
    assert list(state.rack(L)) == [tile("S"), tile("?", L)]
    assert outcome.entry.kind is EntryKind.SWAP and outcome.entry.tiles[0].tile == tile("R")


def test_m27_swap_prefers_a_monolingual_tile() -> None:
    state = accepted(play(swap_game(["R+", "R"]), L, Swap(11, 1), 1.0, {})).state
    assert state.board.at(11, 1) == PlacedTile(tile("R"))
    assert list(state.rack(L)) == [tile("R+"), tile("?", L)]


def test_m27_swapping_in_a_bilingual_tile_opens_the_cell_to_the_opponent() -> None:
    state = accepted(play(swap_game(["R+"]), L, Swap(11, 1), 1.0, {})).state
    cell = state.board.at(11, 1)
    assert cell is not None and cell.reading(A) == "ر"


def test_m27_swap_names_the_rack_tile_to_use() -> None:
    game = swap_game(["R", "R+"])
    state = accepted(play(game, L, Swap(11, 1, tile("R+")), 1.0, {})).state
    assert state.board.at(11, 1) == PlacedTile(tile("R+"))
    assert reason(game, Swap(11, 1, tile("S"))) is Reason.SWAP_INVALID  # not the blank's letter
    assert reason(swap_game(["R"]), Swap(11, 1, tile("R+"))) is Reason.SWAP_INVALID  # not held


@pytest.mark.parametrize(
    ("row", "col", "why"),
    [
        (11, 1, "no rack tile bears R"),
        (10, 1, "an own tile, not a blank"),
        (12, 1, "an empty cell"),
        (9, 20, "the opponent's blank"),
        (22, 1, "off the board"),
    ],
)
def test_m27_swap_invalid(row: int, col: int, why: str) -> None:
    game = swap_game(["S", "E"], board={(9, 20): "?ر"})
    assert reason(game, Swap(row, col)) is Reason.SWAP_INVALID, why


def test_m27_only_on_ones_own_turn() -> None:
    game = replace(swap_game(["R"]), turn=A)
    assert reason(game, Swap(11, 1), side=L) is Reason.NOT_YOUR_TURN


def test_m27_the_opponent_cannot_swap_even_holding_a_tile_bearing_the_letter() -> None:
    game = position({**CA_ROW, (11, 1): "?R"}, arabic=["ر+"], turn=A)
    assert reason(game, Swap(11, 1)) is Reason.SWAP_INVALID


def test_m27_a_swap_does_not_end_the_turn_draw_or_count_as_a_pass() -> None:
    game = replace(swap_game(["R"]), idle_passes=2)
    state = accepted(play(game, L, Swap(11, 1), 5.0, {})).state
    assert state.turn is L and state.idle_passes == 2 and state.bags == game.bags
    assert state.clock == game.clock


def test_m27_the_swapped_blank_can_be_played_again_with_a_new_letter() -> None:
    state = accepted(play(swap_game(["R"]), L, Swap(11, 1), 1.0, {})).state
    outcome = play(state, L, place((10, 4, "?", "S")), 2.0, words(fr=["CAPS"]))
    assert accepted(outcome).state.board.at(10, 4) == PlacedTile(tile("?", L), "S")


# --- M35: dead position -----------------------------------------------------------------------


def blocked(latin: list[str] | None = None, arabic: list[str] | None = None) -> GameState:
    """Both bags empty: every pass draws nothing."""
    game = position(CA_ROW, latin=latin or ["E"], arabic=arabic or ["ا"])
    return with_bags(game, latin=0, arabic=0)


def passes(game: GameState, times: list[float]) -> GameState:
    for now in times:
        game = accepted(play(game, game.turn, Pass(), now, {})).state
    return game


def test_m35_four_passes_drawing_nothing_end_the_game_more_time_left_wins() -> None:
    """Appendix D: Latin used 20 s, Arabic 50 s: Latin wins."""
    state = passes(blocked(), [10.0, 30.0, 40.0, 70.0])
    assert state.ending is not None
    assert (state.ending.cause, state.ending.winner) == (EndCause.DEAD_POSITION, L)
    assert state.log[-1].kind is EntryKind.RESULT


def test_m35_the_arabic_side_wins_with_more_time_left() -> None:
    state = passes(replace(blocked(), turn=A), [30.0, 31.0, 40.0, 41.0])
    assert state.ending is not None and state.ending.winner is L
    state = passes(replace(blocked(), turn=A), [1.0, 31.0, 32.0, 62.0])
    assert state.ending is not None and state.ending.winner is A


def test_m35_equal_time_to_the_second_is_a_draw() -> None:
    """Latin 1779.6 s left, Arabic 1779.5 s: equal to the second."""
    state = passes(blocked(), [10.2, 20.4, 30.6, 40.9])
    assert state.ending is not None
    assert (state.ending.cause, state.ending.winner) == (EndCause.DEAD_POSITION, None)
    assert state.log[-1].winner is None


def test_m35_three_passes_are_not_enough() -> None:
    state = passes(blocked(), [1.0, 2.0, 3.0])
    assert not state.over and state.idle_passes == 3


def test_m35_a_full_rack_draws_nothing_too() -> None:
    game = position(CA_ROW, latin=["E"] * 12, arabic=["ا"] * 12)
    state = passes(game, [1.0, 2.0, 3.0, 4.0])
    assert state.ending is not None and state.ending.cause is EndCause.DEAD_POSITION


def test_m35_a_pass_that_draws_or_a_placement_resets_the_count() -> None:
    game = with_bags(position(CA_ROW, latin=["S"], arabic=["ا"]), arabic=0)
    state = passes(game, [1.0, 2.0, 3.0, 4.0])  # Latin's passes draw
    assert not state.over and state.idle_passes == 1
    state = passes(blocked(arabic=["ا"]), [1.0, 2.0, 3.0])
    state = accepted(play(state, A, place((10, 17, "ا")), 4.0, every(AcceptAll()))).state
    assert state.idle_passes == 0
    state = passes(state, [5.0, 6.0, 7.0])
    assert not state.over
