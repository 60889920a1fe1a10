"""What each seat sees (R6, R11, R20, R28, R32): its own rack, only counts of the others and
of the bag, the public record; every rack only after the end."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import replace

import pytest
from rules_positions import accepted

from lexio_rules.actions import Exchange, Pass, Place
from lexio_rules.game import WordSet, play
from lexio_rules.reasons import InvalidSeatError
from lexio_rules.state import GameState, new_game
from lexio_rules.views import SeatView, all_views, seat_view

# Racks with letters no other rack, nor the bag, nor the board uses, so that a substring
# check is meaningful.
RACKS = ("OSQZJXK", "VVFFHHW", "MMPPCCY")
BAG = "GGLLNNRRTTUUDDBB"


def position() -> GameState:
    game = new_game(3, seed=8, now=0.0)
    return replace(game, racks=RACKS, bag=BAG)


def serialised(view: SeatView) -> list[str]:
    return [repr(view), str(view), str(dataclasses.asdict(view))]


def secrets_of(game: GameState, seat: int) -> list[str]:
    """Strings a seat must not find in its view before the end."""
    others = [r for i, r in enumerate(game.racks) if i != seat and r]
    return [*others, *("".join(sorted(r)) for r in others), game.bag, game.bag[:6]]


def test_r6_a_view_holds_own_rack_and_only_counts_of_the_others() -> None:
    game = position()
    for seat in range(3):
        view = seat_view(game, seat, now=0.0)
        assert view.seat == seat
        assert view.rack == RACKS[seat]
        assert view.rack_counts == (7, 7, 7)
        assert view.bag_count == len(BAG)
        assert view.board == game.board
        assert view.scores == (0, 0, 0)
        assert view.turn == 0
        assert view.turn_deadline == 120.0
        assert view.ending is None
        field_names = {f.name for f in dataclasses.fields(view)}
        assert not field_names & {"racks", "bag", "seed", "shuffles"}


def test_r6_serialised_views_never_show_another_rack_or_the_bag() -> None:
    game = position()
    lexicon = WordSet(["OS", "QOS"])
    states = [game]
    game = accepted(play(game, 0, Place.of((6, 5, "O"), (6, 6, "S")), 1.0, lexicon)).state
    states.append(game)
    game = accepted(play(game, 1, Exchange("VFH"), 2.0, lexicon)).state  # VFH back in the bag
    states.append(game)
    game = accepted(play(game, 2, Pass(), 3.0, lexicon)).state
    states.append(game)
    for state in states:
        assert not state.over
        for seat in range(3):
            view = seat_view(state, seat, now=4.0)
            for text in serialised(view):
                assert state.racks[seat] in text  # the check can find a rack
                for secret in secrets_of(state, seat):
                    assert secret not in text, (seat, secret)


def test_r6_r11_exchanged_tiles_appear_in_no_other_seats_view() -> None:
    game = position()
    game = accepted(play(game, 0, Exchange("QZJ"), 1.0, WordSet([]))).state
    assert sorted(game.racks[0]) == sorted("OSXK" + BAG[:3])
    for seat in (1, 2):
        for text in serialised(seat_view(game, seat, now=1.0)):
            for letter in "QZJ":
                assert letter not in text
    # The public log says how many.
    assert seat_view(game, 1, now=1.0).log[-1].count == 3


def test_r6_counts_follow_the_game() -> None:
    game = position()
    game = accepted(play(game, 0, Place.of((6, 5, "O"), (6, 6, "S")), 1.0, WordSet(["OS"]))).state
    view = seat_view(game, 2, now=1.0)
    assert view.rack_counts == (7, 7, 7)
    assert view.bag_count == len(BAG) - 2
    assert view.scores == (2, 0, 0)
    assert view.turn == 1
    assert view.turn_deadline == 121.0
    assert [w.word for w in view.log[0].words] == ["OS"]
    short = replace(game, racks=("AB", "C", ""), bag="")
    assert seat_view(short, 0, now=1.0).rack_counts == (2, 1, 0)
    assert seat_view(short, 0, now=1.0).bag_count == 0


def test_r20_a_view_shows_the_seats_own_reserve() -> None:
    game = position()
    for _ in range(3):
        game = play(game, 0, Place.of((6, 5, "O"), (6, 6, "S")), 10.0, WordSet([])).state
    mine = seat_view(game, 0, now=12.0)
    assert (mine.reserve_tries, mine.reserve_max) == (7, 10)
    assert mine.reserve_next_in == 13.0
    theirs = seat_view(game, 1, now=12.0)
    assert (theirs.reserve_tries, theirs.reserve_next_in) == (10, 0.0)


def test_r32_after_the_end_every_rack_is_revealed_to_every_seat() -> None:
    game = replace(position(), racks=("OS", "VVFFHHW", "MMPPCCY"), bag="")
    game = accepted(play(game, 0, Place.of((6, 5, "O"), (6, 6, "S")), 1.0, WordSet(["OS"]))).state
    assert game.over
    views = all_views(game, now=2.0)
    assert [v.seat for v in views] == [0, 1, 2]
    for view in views:
        assert view.ending is not None
        assert view.ending.racks == ("", "VVFFHHW", "MMPPCCY")
        text = repr(view)
        assert "VVFFHHW" in text
        assert "MMPPCCY" in text


@pytest.mark.parametrize("seat", [-1, 3])
def test_r6_no_view_for_a_seat_the_game_does_not_have(seat: int) -> None:
    with pytest.raises(InvalidSeatError):
        seat_view(position(), seat, now=0.0)


def test_r6_all_views_are_the_seat_views() -> None:
    game = position()
    assert all_views(game, now=3.0) == tuple(seat_view(game, s, now=3.0) for s in range(3))


def rack_strings(views: Sequence[SeatView]) -> list[str]:
    return [v.rack for v in views]


def test_r6_each_seat_sees_only_itself_in_all_views() -> None:
    assert rack_strings(all_views(position(), now=0.0)) == list(RACKS)
