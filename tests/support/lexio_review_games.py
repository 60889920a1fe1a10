"""Random Lexio games played to their end through the rules, for the review tests (issue 26).

Each game starts from :func:`lexio_rules.new_game` (a review replays it from its seed, so no
position is set by hand) and keeps the truth a review must agree with: every state, at the
start and after each log entry. Two kinds of play:

- ``words=False``: any placement of legal form, judged by a lexicon that knows every word, so
  that the bag empties and a player places their last tile (R30) as often as play stalls (R31);
- ``words=True``: real French words found by :func:`lexio_rules.legal_placements` in the
  shipped list (slower), whose records ``lexio replay`` replays with its default lexicon.

Both exchange (R26/R27), pass for every cause (R27–R29), place blanks (R15), and now and then
have a placement refused for unknown words (R20: a try spent, nothing logged) and an action
out of turn, which a review never sees.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass

from lexio_words import french_index, french_words

from lexio_rules import (
    Action,
    Exchange,
    FormedMove,
    GameState,
    Pass,
    PassCause,
    Place,
    TilePlacement,
    WordSet,
    form_move,
    legal_placements,
    new_game,
    play,
)
from lexio_rules.board import SIZE, index, on_board
from lexio_rules.tiles import BLANK, LETTERS

NAMES = ("Ana", "Bruno", "Chloé", "دانة")
START = 1_700_000_000.0


class AcceptAll:
    """A lexicon that knows every word."""

    def unknown(self, words: Sequence[str]) -> list[str]:
        return []


class French:
    """The shipped French list, as the engine's lexicon service judges with it."""

    def unknown(self, words: Sequence[str]) -> list[str]:
        known = french_words()
        return [w for w in words if w not in known]


@dataclass(frozen=True)
class PlayedGame:
    seed: int
    words: bool
    players: tuple[str, ...]
    states: tuple[GameState, ...]
    """The truth: the start, then the state after each log entry (``len(log) + 1``)."""
    refusals: int
    """Placements refused for unknown words along the way (R20: tries spent, nothing logged)."""

    @property
    def final(self) -> GameState:
        return self.states[-1]


def _random_form(rng: random.Random, game: GameState, rack: str) -> Place | None:
    """A placement of legal form (R12–R14) of some of ``rack``'s tiles, found by trying lines
    from cells beside the board's tiles; ``None`` if the tries find none."""
    board = game.board
    filled = [i for i, ch in enumerate(board) if ch.isalpha()]
    for _ in range(40):
        count = rng.randint(1, len(rack))
        tiles = rng.sample(rack, count)
        across = rng.random() < 0.5
        dr, dc = (0, 1) if across else (1, 0)
        if filled:
            r, c = divmod(rng.choice(filled), SIZE)
            r, c = r + rng.choice((-1, 0, 1)), c + rng.choice((-1, 0, 1))
            r, c = r - dr * rng.randint(0, count - 1), c - dc * rng.randint(0, count - 1)
        else:
            r, c = 6 - dr * rng.randint(0, count - 1), 6 - dc * rng.randint(0, count - 1)
        placed: list[TilePlacement] = []
        while len(placed) < count and on_board(r, c):
            if board[index(r, c)] == ".":
                tile = tiles[len(placed)]
                if tile == BLANK:
                    placed.append(TilePlacement(r, c, rng.choice(LETTERS), blank=True))
                else:
                    placed.append(TilePlacement(r, c, tile))
            r, c = r + dr, c + dc
        if not placed:
            continue
        place = Place(tuple(placed))
        if isinstance(form_move(board, rack, place), FormedMove):
            return place
    return None


def choose_action(rng: random.Random, game: GameState, words: bool, stalled: bool) -> Action:
    seat = game.turn
    rack = game.racks[seat]
    roll = rng.random()
    if rack and len(game.bag) >= len(rack) and (roll < 0.07 or (stalled and roll < 0.4)):
        return Exchange("".join(rng.sample(rack, rng.randint(1, len(rack)))))
    if stalled or roll < 0.12:
        return Pass(rng.choice(list(PassCause)))
    if words:
        found = next(legal_placements(game.board, rack, french_index(), rng, tries=3000), None)
    else:
        found = _random_form(rng, game, rack)
    return found or Pass()


def play_random_game(seed: int, *, words: bool = False) -> PlayedGame:
    """A whole game from ``seed`` (players, bag and choices), played to its end."""
    rng = random.Random(seed)
    players = rng.randint(2, 4)
    lexicon = French() if words else AcceptAll()
    stall_at = rng.choice((None, None, rng.randint(4, 40)))  # then only passes and exchanges
    now = START
    game = new_game(players, seed=rng.randrange(2**32), now=now, turn_seconds=60.0)
    states = [game]
    refusals = 0
    turns = 0
    while not game.over:
        now += rng.choice((0.0, 1.0, 2.5, 7.0, 59.0))
        if rng.random() < 0.03:  # out of turn: refused, nothing changes
            other = (game.turn + 1) % players
            assert not play(game, other, Pass(), now, lexicon).accepted
        action = choose_action(rng, game, words, stall_at is not None and turns >= stall_at)
        spare = game.reserves[game.turn].available(now) > 1
        if isinstance(action, Place) and spare and rng.random() < 0.05:
            probe = play(game, game.turn, action, now, WordSet(()))  # R20: a try spent
            if not probe.accepted and probe.state != game:
                refusals += 1
                game = probe.state
        outcome = play(game, game.turn, action, now, lexicon)
        assert outcome.accepted, (seed, action, outcome)
        game = outcome.state
        states.append(game)
        turns += 1
    return PlayedGame(seed, words, NAMES[:players], tuple(states), refusals)


#: How many games of each kind :func:`random_games` plays.
FORM_GAMES = 200
WORD_GAMES = 4


@functools.cache
def random_games() -> tuple[PlayedGame, ...]:
    """:data:`FORM_GAMES` games of legal form and :data:`WORD_GAMES` of French words, played
    once per test session (seeds 0, 1, …)."""
    form = tuple(play_random_game(seed) for seed in range(FORM_GAMES))
    words = tuple(play_random_game(seed, words=True) for seed in range(WORD_GAMES))
    return form + words
