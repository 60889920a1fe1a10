"""What a side sees: M12 (privacy: own rack, counts of the rest, racks revealed at the end),
with the clock (M28–M30) and the reserve (M24)."""

from __future__ import annotations

import dataclasses

from mishqaq_positions import OPENED, A, L, accepted, place, position, words

from mishqaq_rules.actions import Pause, Resign
from mishqaq_rules.game import play
from mishqaq_rules.views import SideView, side_view

VIEW_FIELDS = {
    "side",
    "latin",
    "rack",
    "rack_counts",
    "bag_counts",
    "board",
    "turn",
    "banks",
    "flag_at",
    "pause",
    "pauses_left",
    "reserve_tries",
    "reserve_next_in",
    "reserve_max",
    "log",
    "ending",
}


def test_m12_a_view_has_exactly_the_public_fields_and_the_own_rack() -> None:
    assert {f.name for f in dataclasses.fields(SideView)} == VIEW_FIELDS
    game = position(OPENED, latin=["S", "E"], arabic=["ا", "ب", "ت"])
    for side in (L, A):
        view = side_view(game, side, 3.0)
        assert view.side is side and view.rack == game.rack(side)
        assert view.rack_counts == (2, 3) and view.bag_counts == (69, 69)
        assert view.board == game.board and view.log == game.log and view.ending is None


def test_m12_a_view_never_holds_the_other_rack_or_a_bags_order() -> None:
    game = position(OPENED, latin=["S", "E", "Q+"], arabic=["ظ", "غ", "ذ"])
    view = side_view(game, L, 0.0)
    values = [getattr(view, f.name) for f in dataclasses.fields(view)]
    secrets = [game.rack(A), *game.bags, list(game.rack(A))]
    assert not any(value == secret for value in values for secret in secrets)
    assert not any(t in view.rack for t in game.rack(A))


def test_m12_racks_are_revealed_at_the_end() -> None:
    game = position(OPENED, latin=["S", "E"], arabic=["ا", "ب"])
    over = accepted(play(game, A, Resign(), 5.0, {})).state
    ending = side_view(over, L, 6.0).ending
    assert ending is not None and ending.racks == over.racks


def test_m24_a_view_shows_only_its_own_reserve() -> None:
    game = position(OPENED, latin=["S"])
    spent = play(game, L, place((10, 4, "S")), 1.0, words(fr=[])).state
    assert side_view(spent, L, 1.0).reserve_tries == 9
    assert side_view(spent, A, 1.0).reserve_tries == 10
    later = side_view(spent, L, 2.0)
    assert (later.reserve_next_in, later.reserve_max) == (14.0, 10)


def test_m28_views_show_both_banks_the_mover_and_the_flag_instant() -> None:
    view = side_view(position(OPENED, turn=A), L, 30.0)
    assert view.turn is A and view.banks == (1800.0, 1770.0) and view.flag_at == 1800.0


def test_m30_views_show_the_pause_and_the_pauses_left() -> None:
    paused = accepted(play(position(OPENED), A, Pause(), 10.0, {})).state
    view = side_view(paused, L, 20.0)
    assert view.pause is not None and (view.pause.by, view.pause.until) == (A, 70.0)
    assert view.pauses_left == (3, 2) and view.flag_at is None


def test_views_after_the_end_stop_the_clock() -> None:
    over = accepted(play(position(OPENED), L, Resign(), 10.0, {})).state
    view = side_view(over, A, 500.0)
    assert view.banks == (1790.0, 1800.0) and view.flag_at is None and view.pause is None
