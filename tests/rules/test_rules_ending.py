"""End of game: R30 (last tile with the bag empty), R31 (2×N turns without placement),
R32 (blanks, negative scores, ties, racks revealed, nothing after the end)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
import rules_positions
from rules_positions import OS, AcceptAll, Exploding, accepted, worth

from lexio_rules.actions import Action, Exchange, Pass, PassCause, Place
from lexio_rules.game import Refused, WordSet, final_reckoning, play, preview
from lexio_rules.reasons import Reason
from lexio_rules.state import EndCause, Ending, GameState


def position(racks: Sequence[str], bag: str = "", scores: Sequence[int] | None = None) -> GameState:
    """A new game with these racks; the bag is empty unless told otherwise."""
    game = rules_positions.position(racks, bag=bag)
    return game if scores is None else replace(game, scores=tuple(scores))


def ending_of(game: GameState) -> Ending:
    assert game.ending is not None
    return game.ending


# --- R30 --------------------------------------------------------------------------------------


def test_r30_last_tile_placed_with_the_bag_empty_ends_the_game() -> None:
    game = position(["OS", "KE?"])
    outcome = accepted(play(game, 0, OS, 5.0, AcceptAll()))
    assert outcome.entry.score == 2
    after = outcome.state
    assert after.over
    ending = ending_of(after)
    assert ending.cause is EndCause.RACK_EMPTIED
    assert ending.finisher == 0
    # Seat 1 holds K10 + E1 + blank 0 = 11: loses it; the finisher gains it.
    assert ending.adjustments == (11, -11)
    assert sum(ending.adjustments) == 0
    assert ending.final_scores == (13, -11)
    assert ending.winners == (0,)
    assert ending.racks == ("", "KE?")
    assert after.scores == (2, 0)  # running totals before the reckoning


def test_r30_finisher_gains_the_total_of_every_other_rack() -> None:
    game = position(["OS", "QA", "B?", "ZZ"], scores=[10, 20, 30, 0])
    ending = ending_of(accepted(play(game, 0, OS, 5.0, AcceptAll())).state)
    assert ending.adjustments == (9 + 3 + 20, -9, -3, -20)
    assert sum(ending.adjustments) == 0
    assert ending.final_scores == (10 + 2 + 32, 11, 27, -20)
    assert ending.winners == (0,)


def test_r30_the_game_goes_on_while_the_bag_holds_tiles() -> None:
    game = position(["OS", "KE?"], bag="E")
    after = accepted(play(game, 0, OS, 5.0, AcceptAll())).state
    assert not after.over
    assert after.racks[0] == "E"
    assert after.turn == 1


def test_r30_the_game_goes_on_while_the_finisher_keeps_a_tile() -> None:
    game = position(["OSA", "KE?"])
    after = accepted(play(game, 0, OS, 5.0, AcceptAll())).state
    assert not after.over
    assert after.racks[0] == "A"


def test_r30_ends_at_once_in_the_middle_of_a_round() -> None:
    game = position(["AAAAAAA", "OS", "EEEEEEE"])
    game = replace(game, turn=1)
    ending = ending_of(accepted(play(game, 1, OS, 5.0, AcceptAll())).state)
    assert ending.finisher == 1
    assert ending.adjustments == (-7, 14, -7)


def test_r30_final_reckoning_directly() -> None:
    ending = final_reckoning([10, 8], ["", "KE"], EndCause.RACK_EMPTIED, 0)
    assert ending.adjustments == (11, -11)
    assert ending.final_scores == (21, -3)
    assert ending.winners == (0,)


# --- R31 --------------------------------------------------------------------------------------


def no_placement_actions(game: GameState, i: int) -> Action:
    kinds: list[Action] = [Pass(), Pass(PassCause.CLOCK), Pass(PassCause.DISCONNECTED)]
    if i % 4 == 3:
        return Exchange(game.racks[game.turn][:1])
    return kinds[i % 3]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r31_ends_after_two_rounds_without_a_placement(players: int) -> None:
    racks = ["QZ", "AB?", "EEEE", "KW"][:players]
    game = position(racks, bag="IIIIIIIIII", scores=[5 * i for i in range(players)])
    for i in range(2 * players - 1):
        game = accepted(
            play(game, game.turn, no_placement_actions(game, i), float(i), Exploding())
        ).state
        assert not game.over, i
        assert game.turns_without_placement == i + 1
    game = accepted(play(game, game.turn, Pass(), 99.0, Exploding())).state
    assert game.over
    ending = ending_of(game)
    assert ending.cause is EndCause.NO_PLACEMENT
    assert ending.finisher is None
    assert ending.racks == game.racks
    expected = tuple(-worth(r) for r in game.racks)
    assert ending.adjustments == expected
    assert sum(ending.adjustments) == -sum(worth(r) for r in game.racks)
    assert ending.final_scores == tuple(s + a for s, a in zip(game.scores, expected, strict=True))
    assert all(a <= 0 for a in ending.adjustments)  # nobody gains anything


def test_r31_a_placement_restarts_the_count() -> None:
    game = position(["OSAAAAA", "EEEEEEE"], bag="IIIIIIIIII")
    game = accepted(play(game, 0, Pass(), 1.0, Exploding())).state
    game = accepted(play(game, 1, Pass(), 2.0, Exploding())).state
    game = accepted(play(game, 0, Pass(), 3.0, Exploding())).state
    assert game.turns_without_placement == 3
    game = accepted(play(game, 1, Place.of((6, 6, "E"), (6, 7, "E")), 4.0, AcceptAll())).state
    assert game.turns_without_placement == 0
    for i in range(3):
        game = accepted(play(game, game.turn, Pass(), 5.0 + i, Exploding())).state
    assert not game.over
    game = accepted(play(game, game.turn, Pass(), 9.0, Exploding())).state
    assert game.over


def test_r31_refused_actions_are_not_turns() -> None:
    game = position(["OSAAAAA", "EEEEEEE"], bag="II")
    for i in range(3):
        game = accepted(play(game, game.turn, Pass(), float(i), Exploding())).state
    # Seat 1 to play: a refused placement, a refused exchange, a wrong-seat pass.
    game = play(game, 1, Place.of((6, 6, "E"), (6, 7, "E")), 4.0, WordSet([])).state
    game = play(game, 1, Exchange("EEE"), 4.0, Exploding()).state
    game = play(game, 0, Pass(), 4.0, Exploding()).state
    assert not game.over
    assert game.turns_without_placement == 3
    game = accepted(play(game, 1, Pass(), 5.0, Exploding())).state
    assert game.over


# --- R32 --------------------------------------------------------------------------------------


def test_r32_a_blank_left_on_a_rack_costs_nothing() -> None:
    ending = final_reckoning([4, 4], ["??", "?A"], EndCause.NO_PLACEMENT, None)
    assert ending.adjustments == (0, -1)
    assert ending.final_scores == (4, 3)
    finished = final_reckoning([4, 4], ["", "??"], EndCause.RACK_EMPTIED, 0)
    assert finished.adjustments == (0, 0)


def test_r32_a_score_can_become_negative() -> None:
    ending = final_reckoning([3, 0], ["QZ", "E"], EndCause.NO_PLACEMENT, None)
    assert ending.final_scores == (-15, -1)
    assert ending.winners == (1,)


@pytest.mark.parametrize(
    ("scores", "racks", "winners"),
    [
        ([5, 5, 3], ["A", "E", ""], (0, 1)),
        ([1, 1], ["", ""], (0, 1)),
        ([7, 2, 7, 7], ["", "", "", "A"], (0, 2)),
        ([0, 0, 0], ["E", "A", "I"], (0, 1, 2)),
    ],
)
def test_r32_a_tie_shares_the_victory(
    scores: list[int], racks: list[str], winners: tuple[int, ...]
) -> None:
    assert final_reckoning(scores, racks, EndCause.NO_PLACEMENT, None).winners == winners


def test_r32_tie_after_an_r30_ending_in_play() -> None:
    game = position(["OS", "E", "KE"], scores=[0, 14, 2])
    ending = ending_of(accepted(play(game, 0, OS, 1.0, AcceptAll())).state)
    # Seat 0: 0 + 2 + (1 + 11) = 14; seat 1: 14 - 1 = 13; seat 2: 2 - 11 = -9.
    assert ending.final_scores == (14, 13, -9)
    assert ending.winners == (0,)
    game = position(["OS", "E", "KE"], scores=[0, 15, 2])
    tied = ending_of(accepted(play(game, 0, OS, 1.0, AcceptAll())).state)
    assert tied.final_scores == (14, 14, -9)
    assert tied.winners == (0, 1)


def test_r32_every_rack_is_revealed_at_the_end() -> None:
    game = position(["QZ", "AB?", "KW"], bag="EEEE")
    for i in range(6):
        game = accepted(play(game, game.turn, Pass(), float(i), Exploding())).state
    assert ending_of(game).racks == ("QZ", "AB?", "KW")


def ended_games() -> list[GameState]:
    by_r30 = accepted(play(position(["OS", "KE?"]), 0, OS, 1.0, AcceptAll())).state
    by_r31 = position(["OSEEEEE", "KE?"], bag="AAAA")
    for i in range(4):
        by_r31 = accepted(play(by_r31, by_r31.turn, Pass(), float(i), Exploding())).state
    return [by_r30, by_r31]


@pytest.mark.parametrize("which", [0, 1])
def test_r32_after_the_end_every_action_is_game_over(which: int) -> None:
    game = ended_games()[which]
    assert game.over
    actions: list[Action] = [
        Pass(),
        Pass(PassCause.CLOCK),
        Exchange("K"),
        Exchange("QQQQ"),
        Place.of((7, 6, "E"), (8, 6, "E")),
        Place.of((0, 0, "E")),
        Place(()),
    ]
    for seat in range(game.players):
        for action in actions:
            outcome = play(game, seat, action, 100.0, Exploding())
            assert isinstance(outcome, Refused)
            assert outcome.refusal.reason is Reason.GAME_OVER
            assert outcome.state == game
        assert preview(game, seat, Place.of((7, 6, "E"), (8, 6, "E"))) is Reason.GAME_OVER


def test_r32_ending_racks_are_the_racks_after_the_last_action() -> None:
    # The end of R31 comes right after an exchange: the revealed rack is the new one.
    game = position(["OSEEEEE", "KAAAAAA"], bag="IIII")
    for action in (Pass(), Pass(), Pass()):
        game = accepted(play(game, game.turn, action, 1.0, Exploding())).state
    game = accepted(play(game, 1, Exchange("K"), 2.0, Exploding())).state
    ending = ending_of(game)
    assert ending.racks == game.racks
    assert ending.racks[1] == "AAAAAAI"
    assert ending.adjustments == (-7, -7)
