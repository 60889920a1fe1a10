"""R4 (bag), R5 (values), R6 (racks), R33 (at most four players)."""

from __future__ import annotations

from collections import Counter

import pytest
from rules_positions import RULES_DISTRIBUTION, RULES_VALUES

from lexio_rules.reasons import InvalidSeatError
from lexio_rules.state import MAX_PLAYERS, MIN_PLAYERS, new_game, shuffled
from lexio_rules.tiles import (
    DISTRIBUTION,
    TILE_COUNT,
    VALUES,
    full_set,
    letter_value,
    rack_value,
)


def test_r4_distribution_is_exactly_the_decision() -> None:
    assert DISTRIBUTION == RULES_DISTRIBUTION
    letters = {t: n for t, n in DISTRIBUTION.items() if t != "?"}
    assert sorted(letters) == list("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    assert sum(letters.values()) == 100
    assert DISTRIBUTION["?"] == 2
    assert TILE_COUNT == 102
    assert DISTRIBUTION["E"] == 14
    assert max(letters.values()) == 14


@pytest.mark.parametrize("letter", list("QJXYKWZ"))
def test_r4_every_8_and_10_point_letter_is_single(letter: str) -> None:
    assert VALUES[letter] in (8, 10)
    assert DISTRIBUTION[letter] == 1


def test_r4_only_the_8_and_10_point_letters_are_worth_8_or_more() -> None:
    assert {t for t, v in VALUES.items() if v >= 8} == set("QJXYKWZ")


def test_r4_full_set_holds_102_tiles_of_the_distribution() -> None:
    tiles = full_set()
    assert len(tiles) == 102
    assert Counter(tiles) == Counter(RULES_DISTRIBUTION)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r4_new_game_racks_plus_bag_are_the_whole_distribution(players: int) -> None:
    game = new_game(players, seed=11, now=0.0)
    everything = "".join(game.racks) + game.bag
    assert len(everything) == 102
    assert Counter(everything) == Counter(RULES_DISTRIBUTION)
    assert game.board.count(".") == 153  # nothing on the board yet


def test_r4_shuffle_is_seedable_same_seed_same_bag() -> None:
    a = new_game(3, seed=2024, now=0.0)
    b = new_game(3, seed=2024, now=99.0)
    assert a.bag == b.bag
    assert a.racks == b.racks
    assert shuffled(full_set(), 5, 0) == shuffled(full_set(), 5, 0)


def test_r4_different_seeds_give_different_bags() -> None:
    games = [new_game(2, seed=s, now=0.0) for s in range(20)]
    orders = {"".join(g.racks) + g.bag for g in games}
    assert len(orders) == 20
    assert full_set() not in orders  # actually shuffled, not the sorted set


def test_r4_reshuffle_counter_changes_the_order() -> None:
    assert shuffled(full_set(), 5, 0) != shuffled(full_set(), 5, 1)
    assert Counter(shuffled(full_set(), 5, 1)) == Counter(full_set())


def test_r5_values_are_exactly_the_rules() -> None:
    assert VALUES == RULES_VALUES
    for letter, value in RULES_VALUES.items():
        assert letter_value(letter) == value


def test_r5_blank_and_blank_on_board_are_worth_zero() -> None:
    assert letter_value("?") == 0
    assert letter_value("k") == 0  # a blank standing for K on the board
    assert letter_value("K") == 10


def test_r5_rack_value_sums_values_and_a_blank_costs_nothing() -> None:
    assert rack_value("K?E") == 11
    assert rack_value("??") == 0
    assert rack_value("QJXYKWZ") == 8 * 3 + 10 * 4
    assert rack_value("") == 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r6_each_player_draws_seven_in_seat_order(players: int) -> None:
    game = new_game(players, seed=7, now=0.0)
    assert [len(r) for r in game.racks] == [7] * players
    assert len(game.bag) == 102 - 7 * players
    # The racks are drawn from the shuffled bag in seat order.
    order = shuffled(full_set(), 7, 0)
    assert "".join(game.racks) == order[: 7 * players]
    assert game.bag == order[7 * players :]
    assert game.scores == (0,) * players
    assert game.turn == 0


@pytest.mark.parametrize("players", [0, 1, 5, 6])
def test_r33_games_of_other_sizes_are_refused(players: int) -> None:
    with pytest.raises(InvalidSeatError):
        new_game(players, seed=1, now=0.0)


def test_r33_at_most_four_because_of_the_arithmetic() -> None:
    assert MIN_PLAYERS == 2
    assert MAX_PLAYERS == 4
    assert 4 * 21 == 84 <= TILE_COUNT < 5 * 21 == 105
    game = new_game(4, seed=3, now=0.0)
    assert len(game.bag) == 102 - 28
