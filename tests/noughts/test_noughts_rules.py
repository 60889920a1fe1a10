"""Noughts and crosses' rules (services/engine/noughts_rules/RULES.md): each test names the
rule ids it checks, N1–N12."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noughts_rules import (
    LINES,
    STATE_FORMAT,
    Accepted,
    Action,
    EndCause,
    EntryKind,
    GameState,
    InvalidSeatError,
    MalformedActionError,
    Mark,
    MarkCell,
    Reason,
    Refused,
    Resign,
    StateFormatError,
    examine,
    new_game,
    play,
    seat_view,
)
from rules_core import RulesError

RULES = Path(__file__).resolve().parents[2] / "services" / "engine" / "noughts_rules"


def accepted(state: GameState, seat: int, action: Action, now: float = 1.0) -> Accepted:
    outcome = play(state, seat, action, now)
    assert isinstance(outcome, Accepted), outcome
    return outcome


def refused(state: GameState, seat: int, action: Action) -> Reason:
    outcome = play(state, seat, action, 1.0)
    assert isinstance(outcome, Refused), outcome
    assert outcome.state is state and not outcome.state_changed  # N8: nothing changes
    return outcome.refusal.reason


def marks(*cells: tuple[int, int], start: GameState | None = None) -> GameState:
    """The game after ``cells`` marked in turn, X first, each at its index as instant."""
    state = start or new_game()
    for i, (row, col) in enumerate(cells):
        state = accepted(state, state.turn, MarkCell(row, col), now=float(i)).state
    return state


# N1, N2, N3 --------------------------------------------------------------------------------


def test_n2_n3_a_new_game_is_an_empty_board_with_x_to_move() -> None:
    game = new_game()
    assert game.board.rows() == (("",) * 3,) * 3
    assert (game.turn, game.mover, game.log, game.ending) == (0, Mark.X, (), None)


def test_n1_seat_0_plays_x_and_seat_1_plays_o() -> None:
    game = marks((0, 0), (2, 2))
    assert game.board.at(0, 0) is Mark.X and game.board.at(2, 2) is Mark.O
    assert [seat_view(game, s).mark for s in (0, 1)] == [Mark.X, Mark.O]


@pytest.mark.parametrize("seat", [-1, 2, True, 0.0, "0"])
def test_n1_a_seat_the_game_does_not_have_is_bad_input(seat: Any) -> None:
    with pytest.raises(InvalidSeatError) as caught:
        examine(new_game(), seat, MarkCell(0, 0), 1.0)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, RulesError)
    with pytest.raises(InvalidSeatError):
        seat_view(new_game(), seat)


def test_n3_turns_alternate_x_first() -> None:
    game = new_game()
    assert refused(game, 1, MarkCell(0, 0)) is Reason.NOT_YOUR_TURN
    game = marks((1, 1))
    assert game.turn == 1
    assert refused(game, 0, MarkCell(0, 0)) is Reason.NOT_YOUR_TURN
    game = marks((0, 0), start=game)
    assert game.turn == 0


# N4 ----------------------------------------------------------------------------------------


def test_n4_a_mark_goes_on_the_named_cell_and_passes_the_turn() -> None:
    outcome = accepted(new_game(), 0, MarkCell(2, 1), now=7.5)
    assert outcome.state.board.rows()[2] == ("", "X", "")
    assert outcome.state.turn == 1 and not outcome.state.over
    (entry,) = outcome.entries
    assert (entry.kind, entry.seat, entry.cell, entry.at) == (EntryKind.MARK, 0, (2, 1), 7.5)


@pytest.mark.parametrize(("row", "col"), [(1.0, 1), (1, True), ("1", 1), (None, 0)])
def test_n4_a_cell_that_is_not_two_integers_cannot_be_stated(row: Any, col: Any) -> None:
    with pytest.raises(MalformedActionError):
        MarkCell(row, col)


# N5, N6 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("line", LINES, ids=[f"line{i}" for i in range(len(LINES))])
@pytest.mark.parametrize("winner", [0, 1])
def test_n5_three_in_a_line_wins_at_once(line: tuple[tuple[int, int], ...], winner: int) -> None:
    """Every row, column and diagonal, for X and for O: the loser's marks go where they make
    no line of their own."""
    others = [c for c in ((r, c) for r in range(3) for c in range(3)) if c not in line]
    loser_cells = _no_line(others, 3 if winner == 1 else 2)
    order: list[tuple[int, int]] = []
    for i in range(3):
        if winner == 1:
            order.append(loser_cells[i])
        order.append(line[i])
        if winner == 0 and i < 2:
            order.append(loser_cells[i])
    game = marks(*order[:-1])
    last = accepted(game, winner, MarkCell(*order[-1]), now=42.0)
    assert [e.kind for e in last.entries] == [EntryKind.MARK, EntryKind.RESULT]
    ending = last.state.ending
    assert ending is not None and last.entries[1].ending == ending
    assert (ending.winner, ending.cause, ending.at, set(ending.line)) == (
        winner,
        EndCause.LINE,
        42.0,
        set(line),
    )
    assert refused(last.state, 1 - winner, MarkCell(*others[-1])) is Reason.GAME_OVER


def _no_line(cells: list[tuple[int, int]], count: int) -> list[tuple[int, int]]:
    """``count`` of ``cells`` that hold no line of three between them."""
    for start in range(len(cells)):
        chosen = (cells[start:] + cells[:start])[:count]
        if not any(set(line) <= set(chosen) for line in LINES):
            return chosen
    raise AssertionError("no such cells")


def test_n6_a_full_board_without_a_line_is_a_draw() -> None:
    # X O X / X O O / O X X
    game = marks((0, 0), (0, 1), (0, 2), (1, 1), (1, 0), (1, 2), (2, 1), (2, 0))
    assert not game.over
    last = accepted(game, 0, MarkCell(2, 2), now=9.0)
    assert last.state.board.full
    ending = last.state.ending
    assert ending is not None
    assert (ending.winner, ending.cause, ending.draw, ending.line) == (
        None,
        EndCause.FULL_BOARD,
        True,
        (),
    )


def test_n5_n6_a_ninth_mark_that_makes_a_line_wins_rather_than_draws() -> None:
    # X O X / O X O / O X X: the ninth mark, X at (2, 2), fills the board and a diagonal.
    game = marks((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (2, 1), (2, 0))
    assert not game.over
    last = accepted(game, 0, MarkCell(2, 2))
    ending = last.state.ending
    assert last.state.board.full and ending is not None
    assert (ending.winner, ending.cause, ending.line) == (
        0,
        EndCause.LINE,
        ((0, 0), (1, 1), (2, 2)),
    )


# N7 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 1])
def test_n7_resigning_in_or_out_of_turn_gives_the_other_the_game(seat: int) -> None:
    game = marks((1, 1))  # O to move: seat 1 resigns in turn, seat 0 out of turn
    outcome = accepted(game, seat, Resign(), now=3.0)
    assert [e.kind for e in outcome.entries] == [EntryKind.RESIGN, EntryKind.RESULT]
    assert outcome.entries[0].seat == seat and outcome.entries[1].number == 3
    ending = outcome.state.ending
    assert ending is not None and (ending.winner, ending.cause) == (1 - seat, EndCause.RESIGN)
    assert outcome.state.board == game.board  # nothing else changes
    assert refused(outcome.state, 1 - seat, Resign()) is Reason.GAME_OVER


# N8 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("row", "col"), [(3, 0), (0, 3), (-1, 1), (1, -1), (2**31 - 1, 0)])
def test_n8_off_board(row: int, col: int) -> None:
    assert refused(new_game(), 0, MarkCell(row, col)) is Reason.OFF_BOARD


def test_n8_occupied() -> None:
    game = marks((1, 1))
    assert refused(game, 1, MarkCell(1, 1)) is Reason.OCCUPIED
    game = marks((0, 0), start=game)
    assert refused(game, 0, MarkCell(0, 0)) is Reason.OCCUPIED


def test_n8_precedence_game_over_then_turn_then_board_then_cell() -> None:
    game = marks((1, 1))
    # Not your turn comes before off the board and before occupied.
    assert refused(game, 0, MarkCell(5, 5)) is Reason.NOT_YOUR_TURN
    assert refused(game, 0, MarkCell(1, 1)) is Reason.NOT_YOUR_TURN
    over = accepted(game, 0, Resign()).state
    # Game over comes before everything, for either seat, a resignation included.
    for seat in (0, 1):
        for action in (MarkCell(1, 1), MarkCell(9, 9), MarkCell(0, 0), Resign()):
            assert refused(over, seat, action) is Reason.GAME_OVER
    assert [r.value for r in Reason] == ["game_over", "not_your_turn", "off_board", "occupied"]


# N9, N10, N11 ------------------------------------------------------------------------------


def test_n9_the_log_numbers_every_entry_from_one_and_stamps_each_action() -> None:
    game = marks((0, 0), (1, 0), (0, 1), (1, 1), (0, 2))
    assert [(e.number, e.kind, e.at) for e in game.log] == [
        (1, EntryKind.MARK, 0.0),
        (2, EntryKind.MARK, 1.0),
        (3, EntryKind.MARK, 2.0),
        (4, EntryKind.MARK, 3.0),
        (5, EntryKind.MARK, 4.0),
        (6, EntryKind.RESULT, 4.0),
    ]
    assert [e.seat for e in game.log] == [0, 1, 0, 1, 0, None]
    assert game.log[-1].ending == game.ending


def test_n10_n11_both_seats_see_everything_and_the_ending_stays() -> None:
    game = marks((0, 0), (1, 0), (0, 1), (1, 1), (0, 2))
    views = [seat_view(game, s) for s in (0, 1)]
    assert [(v.seat, v.mark) for v in views] == [(0, Mark.X), (1, Mark.O)]
    for view in views:
        assert (view.board, view.turn, view.log, view.ending) == (
            game.board,
            game.turn,
            game.log,
            game.ending,
        )
    assert game.ending is not None and game.ending.line == ((0, 0), (0, 1), (0, 2))


# N12 ---------------------------------------------------------------------------------------


def test_n12_a_state_reads_back_as_it_was_written() -> None:
    for game in (
        new_game(),
        marks((1, 1), (0, 0)),
        marks((0, 0), (1, 0), (0, 1), (1, 1), (0, 2)),
        accepted(marks((2, 2)), 0, Resign()).state,
    ):
        plain = game.to_dict()
        assert plain["format"] == STATE_FORMAT == "noughts-state/1"
        assert GameState.from_dict(plain) == game


def _spoilt(**changes: Any) -> dict[str, Any]:
    plain = marks((0, 0), (1, 1)).to_dict()
    plain.update(changes)
    return plain


@pytest.mark.parametrize(
    "plain",
    [
        pytest.param([], id="not-an-object"),
        pytest.param(_spoilt(format="noughts-state/2"), id="other-format"),
        pytest.param(_spoilt(format=None), id="no-format"),
        pytest.param({k: v for k, v in _spoilt().items() if k != "board"}, id="no-board"),
        pytest.param(_spoilt(board=[""] * 8), id="eight-cells"),
        pytest.param(_spoilt(board=["x"] + [""] * 8), id="not-a-mark"),
        pytest.param(_spoilt(turn=1), id="turn-against-the-board"),
        pytest.param(_spoilt(board=["X", "X", "X", "", "O"] + [""] * 4), id="too-many-x"),
        pytest.param(_spoilt(turn=True), id="turn-a-bool"),
        pytest.param(_spoilt(log={}), id="log-not-a-list"),
        pytest.param(
            _spoilt(log=[{"number": 2, "kind": "mark", "at": 0, "seat": 0, "cell": [0, 0]}]),
            id="log-misnumbered",
        ),
        pytest.param(
            _spoilt(log=[{"number": 1, "kind": "mark", "at": 0, "seat": 0}]), id="mark-no-cell"
        ),
        pytest.param(
            _spoilt(log=[{"number": 1, "kind": "mark", "at": 0, "seat": 0, "cell": [3, 0]}]),
            id="cell-off-board",
        ),
        pytest.param(
            _spoilt(ending={"winner": 2, "cause": "line", "at": 0, "line": []}), id="winner-2"
        ),
        pytest.param(
            _spoilt(ending={"winner": None, "cause": "flag", "at": 0, "line": []}), id="cause"
        ),
        pytest.param(
            _spoilt(ending={"winner": None, "cause": "resign", "at": "0", "line": []}), id="at"
        ),
    ],
)
def test_n12_a_state_that_does_not_hold_together_is_unreadable(plain: Any) -> None:
    with pytest.raises(StateFormatError):
        GameState.from_dict(plain)


# The package -------------------------------------------------------------------------------


def test_the_rules_import_the_kernel_the_standard_library_and_nothing_else() -> None:
    imported: set[str] = set()
    for path in RULES.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module.split(".")[0])
    assert "rules_core" in imported
    assert imported <= {*sys.stdlib_module_names, "__future__", "rules_core", "noughts_rules"}


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(-1, 3), st.integers(-1, 3)), max_size=14))
def test_n3_n5_n6_n8_any_sequence_of_tries_keeps_the_game_whole(
    tries: list[tuple[int, int, int]],
) -> None:
    """Whatever is tried: X leads O by 0 or 1 mark and the mover is that lead (N3); a
    refusal changes nothing (N8); the game ends exactly when a line or a full board appears
    (N5, N6), and the state reads back as written (N12)."""
    game = new_game()
    for seat, row, col in tries:
        outcome = play(game, seat, MarkCell(row, col), 1.0)
        if isinstance(outcome, Refused):
            assert outcome.state == game
            continue
        game = outcome.state
        x, o = game.board.count(Mark.X), game.board.count(Mark.O)
        assert game.turn == x - o and x - o in (0, 1)
        lines = [m for m in Mark if game.board.line_of(m) is not None]
        assert game.over == (bool(lines) or game.board.full)
        assert len(lines) <= 1
        assert GameState.from_dict(game.to_dict()) == game
