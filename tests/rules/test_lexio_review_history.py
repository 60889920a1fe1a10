"""A finished game replayed from its seed for its review (issue 26): every state of the game
again (R4, R26), each seat's views step by step (R6, R32), the tiles of exchanges kept in the
state and nowhere else (R27), and the errors of a review that cannot be given."""

from __future__ import annotations

import dataclasses
from dataclasses import replace

import pytest
from lexio_review_games import NAMES, PlayedGame, play_random_game, random_games

from lexio_rules import (
    EntryKind,
    Exchange,
    GameNotOverError,
    GameState,
    InvalidSeatError,
    Pass,
    ReviewUnavailableError,
    SeatView,
    WordSet,
    new_game,
    play,
    replay_history,
    review,
    seat_view,
)
from lexio_rules.seat_record import seat_record


def _as_played(view: SeatView) -> SeatView:
    """A view without its reserve: refusals spend tries (R20) and are not logged, so a
    review's reserve is not the one of play."""
    return replace(view, log=(), reserve_tries=0, reserve_next_in=0.0)


def _exchanging(games: tuple[PlayedGame, ...]) -> list[PlayedGame]:
    return [g for g in games if g.final.exchanged]


def test_r4_r26_the_replay_from_the_seed_gives_back_every_state_of_the_game() -> None:
    for game in random_games():
        final = game.final
        history = replay_history(final)
        assert len(history.states) == len(final.log) + 1 == len(game.states)
        assert history.instants == (final.log[0].at, *(e.at for e in final.log))
        for k, (replayed, truth) in enumerate(zip(history.states, game.states, strict=True)):
            expected = replace(truth, reserves=replayed.reserves)
            if k == 0:  # the start's instant is not stored: the first entry's stands for it
                expected = replace(expected, turn_started_at=final.log[0].at)
            assert replayed == expected, (game.seed, k)
        assert history.final == replace(final, reserves=history.final.reserves)


def test_r6_r32_the_steps_are_the_seats_views_step_by_step() -> None:
    """(c) At the start and after each entry, at that entry's instant: the seat's own rack,
    the others' counts, never another rack until the ending's reveal, without the log."""
    exact = 0
    for game in random_games():
        final = game.final
        instants = (final.log[0].at, *(e.at for e in final.log))
        for seat in range(len(game.players)):
            steps = review(final, seat, game.players).steps
            assert len(steps) == len(final.log) + 1
            for k, (step, truth, now) in enumerate(zip(steps, game.states, instants, strict=True)):
                live = seat_view(truth, seat, now)
                if k == 0:
                    live = replace(live, turn_deadline=now + final.turn_seconds)
                assert step.log == ()
                assert _as_played(step) == _as_played(live), (game.seed, seat, k)
                assert step.rack == truth.racks[seat]
                assert (step.ending is not None) is (k == len(final.log))
            if game.refusals == 0:  # then the reserves are those of play too
                assert steps[1:] == tuple(
                    replace(seat_view(s, seat, now), log=())
                    for s, now in zip(game.states[1:], instants[1:], strict=True)
                )
                exact += 1
            assert steps[-1].ending is not None
            assert steps[-1].ending.racks == final.racks  # R32: the reveal, at the end only
    assert exact > 100


def test_r27_an_exchange_keeps_its_tiles_in_the_state_and_in_no_view() -> None:
    game = new_game(3, seed=12, now=0.0)
    rack = game.racks[0]
    game = play(game, 0, Exchange(rack[:3]), now=1.0, lexicon=WordSet(())).state
    game = play(game, 1, Pass(), now=2.0, lexicon=WordSet(())).state
    game = play(game, 2, Exchange("".join(game.racks[2][-1])), now=3.0, lexicon=WordSet(())).state
    assert game.exchanged == (rack[:3], new_game(3, seed=12, now=0.0).racks[2][-1])
    assert [e.count for e in game.log if e.kind is EntryKind.EXCHANGE] == [3, 1]
    assert "exchanged" not in {f.name for f in dataclasses.fields(SeatView)}
    refused = play(game, 0, Exchange("QQQQ"), now=4.0, lexicon=WordSet(()))
    assert not refused.accepted and refused.state.exchanged == game.exchanged


def test_review_unavailable_for_a_state_stored_before_exchanges_were_kept() -> None:
    """Item 1 of the brief: exchange entries in the log, fewer ``exchanged``."""
    games = _exchanging(random_games())
    assert len(games) > 50
    for game in games:
        final = game.final
        for kept in ((), final.exchanged[1:], final.exchanged[:-1]):
            old = replace(final, exchanged=kept)
            with pytest.raises(ReviewUnavailableError):
                review(old, 0, game.players)


def _tampered(final: GameState) -> list[tuple[str, GameState]]:
    assert final.ending is not None
    first, *rest = final.exchanged
    other = "".join("E" if t != "E" else "A" for t in first)
    entry = next(e for e in final.log if e.kind is EntryKind.PLACE)
    log = tuple(replace(e, score=e.score + 1) if e is entry else e for e in final.log)
    return [
        ("other exchanged tiles", replace(final, exchanged=(other, *rest))),
        ("a score", replace(final, scores=(final.scores[0] + 1, *final.scores[1:]))),
        ("a rack", replace(final, racks=(final.racks[0] + "E", *final.racks[1:]))),
        ("the bag", replace(final, bag=final.bag + "E")),
        ("the board", replace(final, board="A" + final.board[1:])),
        ("the seed", replace(final, seed=final.seed + 1)),
        ("an entry's score", replace(final, log=log)),
        ("the ending", replace(final, ending=replace(final.ending, winners=(9,)))),
        ("the log's start", replace(final, log=final.log[1:], log_offset=1)),
    ]


def test_review_unavailable_when_the_replay_does_not_reach_the_stored_state() -> None:
    """Item 2 of the brief: never a wrong record."""
    checked = 0
    for game in _exchanging(random_games())[:40]:
        for what, state in _tampered(game.final):
            try:
                review(state, 0, game.players)
            except ReviewUnavailableError:
                checked += 1
            else:
                pytest.fail(f"a review of game {game.seed} with {what} changed")
    assert checked == 40 * 9


def test_no_review_nor_record_of_a_game_in_play() -> None:
    for game in random_games()[:30]:
        for state in game.states[:-1:7]:
            with pytest.raises(GameNotOverError):
                review(state, 0, game.players)
            with pytest.raises(GameNotOverError):
                seat_record(replay_history(state), 0, game.players)


def test_r6_no_review_for_a_seat_or_names_the_game_does_not_have() -> None:
    game = play_random_game(3)
    final, players = game.final, game.players
    for seat in (-1, len(players)):
        with pytest.raises(InvalidSeatError):
            review(final, seat, players)
    for names in ((), (*players, "Zoé"), players[:-1]):
        with pytest.raises(InvalidSeatError):
            review(final, 0, names)
    assert set(players) <= set(NAMES)
