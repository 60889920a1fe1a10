"""Reason precedence (record-format.md): when several reasons apply, the first listed wins.

game_over, not_your_turn, off_board, occupied_mismatch, not_in_line, gap, no_new_tile,
too_many_tiles, tiles_not_in_rack, first_move_off_source, too_short, not_touching,
reserve_empty, unknown_words; for an exchange bag_too_small.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
import rules_positions
from rules_positions import OS, TABLE_BOARD, Exploding, TileSpec

from lexio_rules.actions import Action, Exchange, Pass, Place
from lexio_rules.board import EMPTY_BOARD
from lexio_rules.game import Lexicon, Refused, WordSet, play
from lexio_rules.reasons import Reason
from lexio_rules.reserve import Reserve
from lexio_rules.state import GameState


def position(
    racks: Sequence[str] = ("OSAAAAA", "EEEEEEE"),
    board: str = EMPTY_BOARD,
    bag: str = "IIIIIIIIII",
    empty_reserve: bool = False,
) -> GameState:
    game = rules_positions.position(racks, board=board, bag=bag)
    if empty_reserve:
        game = replace(game, reserves=tuple(Reserve(0, 0.0) for _ in racks))
    return game


def reason(
    game: GameState, action: Action, seat: int = 0, lexicon: Lexicon | None = None
) -> Reason:
    """The refusal's reason; unless told otherwise, the lexicon must not even be asked."""
    outcome = play(game, seat, action, 0.0, Exploding() if lexicon is None else lexicon)
    assert isinstance(outcome, Refused), outcome
    return outcome.refusal.reason


def ended() -> GameState:
    game = position(["OS", "KE?"], bag="")
    outcome = play(game, 0, OS, 0.0, WordSet(["OS"]))
    assert outcome.state.over
    return outcome.state


def test_precedence_game_over_before_not_your_turn() -> None:
    game = ended()
    assert game.turn == 0  # the turn never moved on
    assert reason(game, Pass(), seat=1) is Reason.GAME_OVER
    assert reason(game, Place.of((0, 0, "K")), seat=1) is Reason.GAME_OVER


def test_precedence_not_your_turn_before_every_form_reason() -> None:
    game = position()
    assert reason(game, Place.of((0, 0, "Q")), seat=1) is Reason.NOT_YOUR_TURN
    assert reason(game, Exchange("QQQQ"), seat=1) is Reason.NOT_YOUR_TURN


@pytest.mark.parametrize(
    ("board", "tiles", "expected"),
    [
        # off_board beats occupied_mismatch (one tile on a wall, one on a tile).
        (TABLE_BOARD, [(6, 6, "O"), (1, 1, "S")], Reason.OFF_BOARD),
        # off_board beats not_in_line and tiles_not_in_rack.
        (EMPTY_BOARD, [(0, 0, "Q"), (5, 5, "Z")], Reason.OFF_BOARD),
        # occupied_mismatch beats not_in_line.
        (TABLE_BOARD, [(6, 6, "O"), (8, 8, "S")], Reason.OCCUPIED_MISMATCH),
        # not_in_line beats gap.
        (EMPTY_BOARD, [(6, 4, "O"), (6, 6, "S"), (8, 8, "A")], Reason.NOT_IN_LINE),
        # gap beats too_many_tiles (eight tiles with a hole).
        (EMPTY_BOARD, [(6, c, "A") for c in (0, 1, 2, 3, 4, 5, 6, 8)], Reason.GAP),
        # gap beats tiles_not_in_rack and first_move_off_source.
        (EMPTY_BOARD, [(2, 2, "Q"), (2, 4, "Z")], Reason.GAP),
        # too_many_tiles beats tiles_not_in_rack.
        (EMPTY_BOARD, [(6, c, "Q") for c in range(8)], Reason.TOO_MANY_TILES),
        # tiles_not_in_rack beats first_move_off_source.
        (EMPTY_BOARD, [(2, 2, "Q"), (2, 3, "Z")], Reason.TILES_NOT_IN_RACK),
        # first_move_off_source beats too_short (one tile, off the source).
        (EMPTY_BOARD, [(6, 5, "O")], Reason.FIRST_MOVE_OFF_SOURCE),
        (EMPTY_BOARD, [(6, 6, "O")], Reason.TOO_SHORT),
        # too_short beats not_touching (one lone tile far from the others).
        (TABLE_BOARD, [(10, 10, "O")], Reason.TOO_SHORT),
        (TABLE_BOARD, [(10, 10, "O"), (10, 9, "S")], Reason.NOT_TOUCHING),
    ],
)
def test_precedence_of_form_reasons(board: str, tiles: list[TileSpec], expected: Reason) -> None:
    game = position(board=board)
    assert reason(game, Place.of(*tiles)) is expected


def test_precedence_no_new_tile() -> None:
    assert reason(position(board=TABLE_BOARD), Place(())) is Reason.NO_NEW_TILE


@pytest.mark.parametrize(
    ("board", "tiles", "expected"),
    [
        (EMPTY_BOARD, [(6, 4, "O"), (6, 5, "S")], Reason.FIRST_MOVE_OFF_SOURCE),
        (EMPTY_BOARD, [(6, 6, "O")], Reason.TOO_SHORT),
        (TABLE_BOARD, [(10, 10, "O"), (10, 9, "S")], Reason.NOT_TOUCHING),
        (TABLE_BOARD, [(7, 2, "Q"), (7, 3, "S")], Reason.TILES_NOT_IN_RACK),
        (TABLE_BOARD, [(7, 2, "O"), (7, 3, "S")], Reason.RESERVE_EMPTY),
        (EMPTY_BOARD, [(6, 6, "O"), (6, 7, "S")], Reason.RESERVE_EMPTY),
    ],
)
def test_precedence_form_reasons_before_reserve_empty_before_unknown_words(
    board: str, tiles: list[TileSpec], expected: Reason
) -> None:
    game = position(board=board, empty_reserve=True)
    assert reason(game, Place.of(*tiles)) is expected


def test_precedence_unknown_words_last_for_a_placement() -> None:
    game = position()
    assert (
        reason(game, Place.of((6, 6, "O"), (6, 7, "S")), lexicon=WordSet([]))
        is Reason.UNKNOWN_WORDS
    )


def test_precedence_exchange_tiles_not_in_rack_before_bag_too_small() -> None:
    game = position(bag="I")
    assert reason(game, Exchange("QZ")) is Reason.TILES_NOT_IN_RACK
    assert reason(game, Exchange("OS")) is Reason.BAG_TOO_SMALL
