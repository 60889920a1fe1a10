"""The search for placements (lexio_rules.search) against the rules: R12–R15 over real games.

Whatever it yields must be a move the rules accept with the shipped French list: checked with
``form_move`` and with ``play`` against a lexicon holding the list as read from its file, never
through the index the search itself consults. Positions come from whole games played with the
search (seeded: the same games every run).
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
from lexio_words import french_index, french_words

import lexio_rules.search
from lexio_rules import (
    Accepted,
    Exchange,
    FormedMove,
    GameState,
    Pass,
    Place,
    WordIndex,
    WordSet,
    form_move,
    legal_placements,
    new_game,
    play,
)
from lexio_rules.board import CENTRE, EMPTY_BOARD, SIZE
from lexio_rules.placement import FormedWord
from lexio_rules.reasons import Reason
from lexio_rules.tiles import BLANK

GAMES = 4
TRIES = 2_000
PER_POSITION = 8
"""Placements checked in each position of the real games."""


@functools.cache
def lexicon() -> WordSet:
    return WordSet(french_words())


@dataclass(frozen=True)
class Position:
    game: int
    state: GameState

    @property
    def board(self) -> str:
        return self.state.board

    @property
    def rack(self) -> str:
        return self.state.racks[self.state.turn]


@functools.cache
def real_games() -> tuple[Position, ...]:
    """Every position met in whole games of 2 to 4 players, each move the search's first."""
    positions = []
    for game in range(GAMES):
        rng = random.Random(game)
        state = new_game(2 + game % 3, seed=1000 + game, now=0.0)
        while not state.over:
            positions.append(Position(game, state))
            rack = state.racks[state.turn]
            place = next(
                legal_placements(state.board, rack, french_index(), rng, tries=TRIES), None
            )
            action: Place | Exchange | Pass
            if place is not None:
                action = place
            elif len(state.bag) >= len(rack):
                action = Exchange(rack)
            else:
                action = Pass()
            outcome = play(state, state.turn, action, now=state.turn_started_at, lexicon=lexicon())
            assert isinstance(outcome, Accepted), outcome
            state = outcome.state
    return tuple(positions)


def checked_words(board: str, rack: str, place: Place) -> tuple[FormedWord, ...]:
    """The placement's words, once the rules have accepted its form and the list its words."""
    formed = form_move(board, rack, place)
    assert isinstance(formed, FormedMove), (formed, place)
    unknown = [w.word for w in formed.words if w.word not in french_words()]
    assert not unknown, (unknown, place)
    return formed.words


def assert_legal(state: GameState, place: Place) -> None:
    checked_words(state.board, state.racks[state.turn], place)
    outcome = play(state, state.turn, place, now=state.turn_started_at, lexicon=lexicon())
    assert isinstance(outcome, Accepted), (outcome, place)


def placements(board: str, rack: str, seed: int, tries: int = TRIES) -> Iterator[Place]:
    return legal_placements(board, rack, french_index(), random.Random(seed), tries=tries)


def covers(place: Place, cell: tuple[int, int]) -> bool:
    return cell in {(t.row, t.col) for t in place.tiles}


# --- the games themselves ----------------------------------------------------------------------


def test_real_games_are_long_enough_to_test_on() -> None:
    positions = real_games()
    assert len({p.game for p in positions}) == GAMES
    late = [p for p in positions if sum(ch.isalpha() for ch in p.board) >= 60]
    assert len(positions) >= 100 and len(late) >= 10
    assert any(BLANK in p.rack for p in positions)


# --- R12–R14: everything yielded is a legal move ------------------------------------------------


def test_r12_r14_every_placement_yielded_in_real_games_is_accepted() -> None:
    yielded = 0
    for number, position in enumerate(real_games()):
        found = list(
            itertools.islice(placements(position.board, position.rack, number), PER_POSITION)
        )
        assert len(set(found)) == len(found), "a placement yielded twice"
        for place in found:
            assert_legal(position.state, place)
        yielded += len(found)
    assert yielded >= 4 * len(real_games())


def test_r12_r14_racks_with_a_blank_in_real_positions_yield_only_accepted_moves() -> None:
    """The positions again with a blank on the rack instead of its last tile."""
    blanks_used = 0
    for number, position in enumerate(real_games()[::3]):
        rack = position.rack[:-1] + BLANK
        racks = list(position.state.racks)
        racks[position.state.turn] = rack
        state = replace(position.state, racks=tuple(racks))
        for place in itertools.islice(placements(state.board, rack, number), PER_POSITION):
            assert_legal(state, place)
            blanks_used += any(t.blank for t in place.tiles)
    assert blanks_used >= 20


def test_r14_a_placement_whose_cross_word_is_unknown_is_never_yielded() -> None:
    # O S across on the source's row, N under the O: a U under the S makes SU down and NU across.
    board = list(EMPTY_BOARD)
    for (r, c), ch in {(6, 5): "O", (6, 6): "S", (7, 5): "N"}.items():
        board[r * SIZE + c] = ch
    after = "".join(board)
    rng = random.Random(0)
    without_nu = WordIndex.of(["OS", "SU", "ON"])
    assert list(legal_placements(after, "U", without_nu, rng)) == []
    with_nu = WordIndex.of(["OS", "SU", "ON", "NU"])
    (place,) = legal_placements(after, "U", with_nu, rng)
    assert place == Place.of((7, 6, "U"))
    assert [w.word for w in checked_words(after, "U", place)] in (["SU", "NU"], ["NU", "SU"])


def test_r12_a_word_running_into_a_board_tile_is_judged_whole() -> None:
    # S on the source, E three cells right of it: SOU laid across from the S runs into the E
    # and forms SOUE, kept only if SOUE is known; SOU laid down forms SOU.
    board = list(EMPTY_BOARD)
    board[6 * SIZE + 6] = "S"
    board[6 * SIZE + 9] = "E"
    after = "".join(board)
    down = Place.of((7, 6, "O"), (8, 6, "U"))
    across = Place.of((6, 7, "O"), (6, 8, "U"))
    found = set(legal_placements(after, "OU", WordIndex.of(["SOU", "SOUE"]), random.Random(3)))
    assert found == {down, across}
    assert form_words(after, "OU", across) == ["SOUE"]
    assert set(legal_placements(after, "OU", WordIndex.of(["SOU"]), random.Random(3))) == {down}


def test_r14_a_single_tile_may_make_a_word_through_several_board_tiles() -> None:
    # SEP on the board: a T after it makes SEPT (no candidate of the rack and one board letter).
    board = list(EMPTY_BOARD)
    for c, ch in enumerate("SEP", start=4):
        board[6 * SIZE + c] = ch
    after = "".join(board)
    found = set(legal_placements(after, "TKWQZJX", WordIndex.of(["SEPT"]), random.Random(2)))
    assert found == {Place.of((6, 7, "T"))}


def test_r14_the_last_tiles_of_a_rack_may_go_through_two_board_tiles() -> None:
    # A and E on the board with a cell between them: X and S make AXES through both.
    board = list(EMPTY_BOARD)
    board[6 * SIZE + 6] = "A"
    board[6 * SIZE + 8] = "E"
    after = "".join(board)
    found = set(legal_placements(after, "XS", WordIndex.of(["AXES"]), random.Random(4)))
    assert found == {Place.of((6, 7, "X"), (6, 9, "S"))}


def form_words(board: str, rack: str, place: Place) -> list[str]:
    formed = form_move(board, rack, place)
    assert isinstance(formed, FormedMove)
    return [w.word for w in formed.words]


# --- R13: the first move --------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_r13_on_an_empty_board_every_placement_covers_the_source(seed: int) -> None:
    rack = new_game(2, seed=seed, now=0.0).racks[0]
    found = list(itertools.islice(placements(EMPTY_BOARD, rack, seed), 40))
    assert found, rack
    for place in found:
        assert covers(place, CENTRE) and len(place.tiles) >= 2
        assert len({t.row for t in place.tiles}) == 1 or len({t.col for t in place.tiles}) == 1
        checked_words(EMPTY_BOARD, rack, place)


def test_r13_first_moves_go_across_through_the_source() -> None:
    """Down would be alike (R9: the layout is symmetric, no bonus on row 6 or column 6)."""
    found = list(itertools.islice(placements(EMPTY_BOARD, "AEIRSTN", 5), 40))
    assert len(found) == 40
    assert all({t.row for t in place.tiles} == {CENTRE[0]} for place in found)
    assert len({min(t.col for t in place.tiles) for place in found}) > 1


# --- R15: blanks -------------------------------------------------------------------------------


def test_r15_a_blank_stands_for_the_letter_a_word_lacks() -> None:
    # No French word is made of these letters alone; with a blank, some are.
    rack = "KWXJQZ"
    assert list(placements(EMPTY_BOARD, rack, 0)) == []
    found = list(placements(EMPTY_BOARD, rack + BLANK, 0))
    assert found
    for place in found:
        (blank,) = [t for t in place.tiles if t.blank]
        assert blank.letter not in rack
        assert covers(place, CENTRE)
        checked_words(EMPTY_BOARD, rack + BLANK, place)


def test_r15_a_blank_completes_a_word_through_a_board_tile() -> None:
    board = list(EMPTY_BOARD)
    for c, ch in enumerate("TABLE", start=4):
        board[6 * SIZE + c] = ch
    after = "".join(board)
    rack = "QQQQQQ"  # nothing to place
    assert list(placements(after, rack, 1)) == []
    found = list(placements(after, "QQQQQ" + BLANK, 1))
    assert found
    for place in found:
        assert [t.blank for t in place.tiles].count(True) == 1
        checked_words(after, "QQQQQ" + BLANK, place)


def test_r15_two_blanks_on_a_rack_find_moves_too() -> None:
    rack = "KWXJQ??"
    found = list(itertools.islice(placements(EMPTY_BOARD, rack, 2), 20))
    assert found
    for place in found:
        checked_words(EMPTY_BOARD, rack, place)


# --- tries -------------------------------------------------------------------------------------


def test_tries_bound_the_placements_laid_and_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each try lays its word at most twice (across, down) and judges each with form_move."""
    laid = judged = 0
    real_lay = lexio_rules.search._lay

    def counting_lay(*args: Any, **kwargs: Any) -> Place | None:
        nonlocal laid
        laid += 1
        return real_lay(*args, **kwargs)

    def counting_form_move(board: str, rack: str | None, place: Place) -> FormedMove | Reason:
        nonlocal judged
        judged += 1
        return form_move(board, rack, place)

    monkeypatch.setattr(lexio_rules.search, "_lay", counting_lay)
    monkeypatch.setattr(lexio_rules.search, "form_move", counting_form_move)
    positions = real_games()[:: max(1, len(real_games()) // 20)]
    most = 0
    for number, position in enumerate(positions):
        for tries in (0, 1, 7, 50, 400):
            laid = judged = 0
            for _ in placements(position.board, position.rack, number, tries=tries):
                pass
            assert judged <= laid <= 2 * tries, (tries, laid, judged)
            most = max(most, laid)
    assert most > 2 * 50  # the bound was reached at least once


def test_the_sieve_drops_only_placements_the_rules_refuse(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search's quick look at the words a placement makes, before ``form_move``, changes
    nothing it yields: the same placements, in the same order, as without it."""
    positions = real_games()[::4]
    sieved = [list(placements(p.board, p.rack, n, tries=300)) for n, p in enumerate(positions)]
    monkeypatch.setattr(lexio_rules.search, "_sieve", lambda *args, **kwargs: True)
    unsieved = [list(placements(p.board, p.rack, n, tries=300)) for n, p in enumerate(positions)]
    assert sieved == unsieved
    assert sum(map(len, sieved)) >= len(positions)


def test_more_tries_find_what_fewer_found_and_then_more() -> None:
    position = real_games()[len(real_games()) // 2]
    few = list(placements(position.board, position.rack, 7, tries=10))
    many = list(placements(position.board, position.rack, 7, tries=5_000))
    assert many[: len(few)] == few
    assert len(many) > len(few)


def test_the_same_seed_finds_the_same_placements() -> None:
    position = real_games()[len(real_games()) // 3]
    first = list(placements(position.board, position.rack, 11, tries=3_000))
    again = list(placements(position.board, position.rack, 11, tries=3_000))
    assert first == again and first


def test_an_empty_rack_finds_nothing() -> None:
    assert list(placements(real_games()[5].board, "", 0)) == []


# --- the index ---------------------------------------------------------------------------------


def test_the_index_keeps_the_words_that_can_be_formed() -> None:
    index = french_index()
    assert index.max_length == SIZE
    assert index.words == {w for w in french_words() if len(w) <= SIZE}
    assert all(len(w) <= 8 for group in index.anagrams.values() for w in group)
    assert max(map(len, index.words)) == SIZE
    short = WordIndex.of(french_words(), max_length=7)
    assert short.words == {w for w in french_words() if len(w) <= 7}
    assert {w for group in short.anagrams.values() for w in group} == short.words
