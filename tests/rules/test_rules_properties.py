"""Property-based tests over random games (hypothesis).

(a) R4/R16/R26 tile conservation: bag + racks + board always hold the 102 tiles of R4.
(b) R21–R24/R30/R31 score arithmetic: an accepted placement scores the sum of its words (each
    checked against an independent scorer written from the rules) plus 30 for seven tiles; the
    seat's total grows by exactly that; end adjustments sum to 0 (R30) or to minus the racks'
    value (R31).
(c) R19/R20 a refused action changes nothing (only the seat's reserve after unknown words).
"""

from __future__ import annotations

import random
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_positions import RULES_DISTRIBUTION, RULES_GRID, RULES_VALUES, AcceptAll, N, worth

from lexio_rules.actions import Action, Exchange, Pass, PassCause, Place, TilePlacement
from lexio_rules.game import Accepted, Outcome, Refused, final_reckoning, play
from lexio_rules.reasons import Reason
from lexio_rules.state import EndCause, EntryKind, GameState, new_game

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# R4 from the rules text, as a multiset of tiles.
DISTRIBUTION = Counter(RULES_DISTRIBUTION)

# R7/R9 from the rules grid, its row labels dropped: '##' walled, letters/words multipliers,
# 'X' crossing.
SQUARES = [token for line in RULES_GRID.strip().splitlines() for token in line.split()[1:]]
assert len(SQUARES) == N * N


def square(r: int, c: int) -> str:
    return SQUARES[r * N + c]


def playable(r: int, c: int) -> bool:
    return 0 <= r < N and 0 <= c < N and square(r, c) != "##"


def tile_multiset(game: GameState) -> Counter[str]:
    on_board = ["?" if ch.islower() else ch for ch in game.board if ch.isalpha()]
    return Counter("".join(game.racks) + game.bag + "".join(on_board))


# --- an independent scorer, written from R14 and R21–R24 ------------------------------------


def run_through(board: list[str], r: int, c: int, dr: int, dc: int) -> list[tuple[int, int]]:
    while playable(r - dr, c - dc) and board[(r - dr) * N + c - dc].isalpha():
        r, c = r - dr, c - dc
    cells = []
    while playable(r, c) and board[r * N + c].isalpha():
        cells.append((r, c))
        r, c = r + dr, c + dc
    return cells


def expected_words(before: str, tiles: Sequence[TilePlacement]) -> list[tuple[str, int]]:
    board = list(before)
    for t in tiles:
        board[t.row * N + t.col] = t.letter.lower() if t.blank else t.letter
    new = {(t.row, t.col) for t in tiles}
    ordered = sorted(new)
    if len(tiles) >= 2:
        across = len({r for r, _ in new}) == 1
    else:
        across = len(run_through(board, *ordered[0], 0, 1)) >= 2
    step = (0, 1) if across else (1, 0)
    other = (1, 0) if across else (0, 1)
    runs = [run_through(board, *ordered[0], *step)]
    runs += [run for cell in ordered if len(run := run_through(board, *cell, *other)) >= 2]

    def serves_two(r: int, c: int) -> bool:
        return len(run_through(board, r, c, 0, 1)) >= 2 and len(run_through(board, r, c, 1, 0)) >= 2

    words = []
    for run in runs:
        total, factor = 0, 1
        for r, c in run:
            ch = board[r * N + c]
            value = 0 if ch.islower() else RULES_VALUES[ch]
            if (r, c) in new:
                sq = square(r, c)
                value *= {"L2": 2, "L3": 3}.get(sq, 1)
                factor *= {"W2": 2, "W3": 3}.get(sq, 1)
                if sq == "X" and serves_two(r, c):
                    factor *= 2
            total += value
        words.append(("".join(board[r * N + c] for r, c in run).upper(), total * factor))
    return words


# --- random games ------------------------------------------------------------------------------


class Subset:
    """Knows a pseudo-random subset of all words, fixed by ``salt``."""

    def __init__(self, salt: int, percent: int) -> None:
        self.salt = salt
        self.percent = percent

    def unknown(self, words: Sequence[str]) -> list[str]:
        return [w for w in words if zlib.crc32(f"{self.salt}:{w}".encode()) % 100 >= self.percent]


@dataclass(frozen=True)
class Step:
    before: GameState
    seat: int
    action: Action
    now: float
    outcome: Outcome


def random_place(rng: random.Random, game: GameState, seat: int) -> Action:
    rack = game.racks[seat]
    if not rack:
        return Pass()
    board = game.board
    count = rng.randint(1, len(rack))
    tiles = rng.sample(rack, count)
    across = rng.random() < 0.5
    dr, dc = (0, 1) if across else (1, 0)
    occupied = [(i // N, i % N) for i, ch in enumerate(board) if ch.isalpha()]
    cells: list[tuple[int, int]] = []
    if not occupied:
        start = 6 - rng.randint(0, min(count, 7) - 1)
        cells = [(6 + (i + start - 6) * dr, 6 + (i + start - 6) * dc) for i in range(count)]
    else:
        r, c = rng.choice(occupied)
        direction = rng.choice((1, -1))
        while len(cells) < count:
            r, c = r + dr * direction, c + dc * direction
            if not playable(r, c):
                break
            if board[r * N + c] == ".":
                cells.append((r, c))
    roll = rng.random()
    if roll < 0.02:
        return Place(())
    if roll < 0.05:
        # Eight tiles in a row: one more than a rack holds.
        r0, c0 = rng.randint(0, N - 1), rng.randint(0, N - 8)
        cells = [(r0, c0 + i) for i in range(8)]
        tiles = [*tiles, *rng.choices(LETTERS, k=8 - len(tiles))]
    elif not cells or roll < 0.1:
        # A careless placement: scattered at random, often illegal.
        cells = [(rng.randint(-1, N), rng.randint(-1, N)) for _ in range(len(tiles))]
    elif roll < 0.15:
        # A careless line anywhere: may touch nothing, overlap tiles or run off the board.
        r0, c0 = rng.randint(0, N - 1), rng.randint(0, N - 1)
        cells = [(r0 + i * dr, c0 + i * dc) for i in range(len(tiles))]
    elif roll < 0.25:
        cells[rng.randrange(len(cells))] = (rng.randint(-1, N), rng.randint(-1, N))
    if len(set(cells)) != len(cells):
        return Pass()
    placements = []
    for (r, c), tile in zip(cells, tiles, strict=False):
        letter = rng.choice(LETTERS) if rng.random() < 0.05 else tile  # perhaps not on the rack
        if letter == "?":
            placements.append(TilePlacement(r, c, rng.choice(LETTERS), blank=True))
        else:
            placements.append(TilePlacement(r, c, letter))
    return Place(tuple(placements))


def random_action(rng: random.Random, game: GameState, seat: int, pass_rate: float) -> Action:
    roll = rng.random()
    if roll < pass_rate:
        return Pass(rng.choice(list(PassCause)))
    if roll < pass_rate + 0.1:
        rack = game.racks[seat]
        if rng.random() < 0.1 or not rack:
            return Exchange("".join(rng.choices(LETTERS + "?", k=rng.randint(1, 7))))
        return Exchange("".join(rng.sample(rack, rng.randint(1, len(rack)))))
    return random_place(rng, game, seat)


def scattered_start(rng: random.Random, game: GameState) -> GameState:
    """Some tiles taken from the bag and dropped anywhere on the board (still 102 in all), so
    that moves soon reach the bonus cells and the crossings."""
    count = rng.randint(5, 25)
    empty = [(r, c) for r in range(N) for c in range(N) if playable(r, c)]
    board = list(game.board)
    for (r, c), tile in zip(rng.sample(empty, count), game.bag, strict=False):
        board[r * N + c] = rng.choice(LETTERS).lower() if tile == "?" else tile
    return replace(game, board="".join(board), bag=game.bag[count:])


def random_game(rng: random.Random, short_bag: bool, steps: int) -> Iterator[Step]:
    players = rng.randint(2, 4)
    game = new_game(players, seed=rng.randrange(2**32), now=0.0)
    if rng.random() < 0.5:
        game = scattered_start(rng, game)
    if short_bag:
        game = replace(game, bag=game.bag[: rng.randint(0, 10)])
    kind = rng.random()
    lexicon: AcceptAll | Subset
    if kind < 0.5:
        lexicon = AcceptAll()
    elif kind < 0.85:
        lexicon = Subset(rng.randrange(1000), rng.randint(30, 90))
    else:
        lexicon = Subset(rng.randrange(1000), rng.randint(0, 10))  # refuses nearly everything
    pass_rate = rng.choice((0.02, 0.1, 0.4))
    ticks = (0.0,) if rng.random() < 0.3 else (0.0, 0.0, 1.0, 2.0, 7.5, 20.0)  # frozen clock or not
    now = 0.0
    for _ in range(steps):
        now += rng.choice(ticks)
        seat = game.turn if rng.random() < 0.9 else rng.randrange(players)
        action = random_action(rng, game, seat, pass_rate)
        outcome = play(game, seat, action, now, lexicon)
        yield Step(game, seat, action, now, outcome)
        if game.over:
            return
        game = outcome.state


# A seed for the game's own generator: each example is a whole random game, reproducible
# from the seed hypothesis reports.
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@SETTINGS
@given(seed=SEEDS)
def test_r4_r16_r26_tiles_are_conserved_along_random_games(seed: int) -> None:
    for step in random_game(random.Random(seed), short_bag=False, steps=150):
        after = step.outcome.state
        assert sum(tile_multiset(after).values()) == 102
        assert tile_multiset(after) == DISTRIBUTION
        assert all(len(r) <= 7 for r in after.racks)


@SETTINGS
@given(seed=SEEDS, short_bag=st.booleans())
def test_r21_r24_r30_r31_score_arithmetic_along_random_games(seed: int, short_bag: bool) -> None:
    for step in random_game(random.Random(seed), short_bag=short_bag, steps=150):
        before, outcome = step.before, step.outcome
        if not isinstance(outcome, Accepted):
            continue
        entry, after = outcome.entry, outcome.state
        if entry.kind is EntryKind.PLACE:
            assert isinstance(step.action, Place)
            words = [(w.word, w.score) for w in entry.words]
            assert words == expected_words(before.board, step.action.tiles)
            seven = len(entry.tiles) == 7
            assert entry.bingo is seven
            assert entry.score == sum(s for _, s in words) + (30 if seven else 0)
            assert after.scores[step.seat] == before.scores[step.seat] + entry.score
        else:
            assert entry.score == 0
            assert after.scores[step.seat] == before.scores[step.seat]
        assert all(
            after.scores[i] == before.scores[i] for i in range(before.players) if i != step.seat
        )
        if after.ending is not None:
            ending = after.ending
            assert ending.racks == after.racks
            assert ending.final_scores == tuple(
                s + a for s, a in zip(after.scores, ending.adjustments, strict=True)
            )
            best = max(ending.final_scores)
            assert ending.winners == tuple(
                i for i, s in enumerate(ending.final_scores) if s == best
            )
            if ending.cause is EndCause.RACK_EMPTIED:
                assert entry.kind is EntryKind.PLACE
                assert after.racks[step.seat] == "" and after.bag == ""
                assert ending.finisher == step.seat
                assert sum(ending.adjustments) == 0
                others = sum(worth(r) for i, r in enumerate(after.racks) if i != step.seat)
                assert ending.adjustments[step.seat] == others
            else:
                assert after.turns_without_placement == 2 * after.players
                assert ending.finisher is None
                assert sum(ending.adjustments) == -sum(worth(r) for r in after.racks)
                assert ending.adjustments == tuple(-worth(r) for r in after.racks)


@SETTINGS
@given(seed=SEEDS, short_bag=st.booleans())
def test_r19_r20_refused_actions_change_nothing(seed: int, short_bag: bool) -> None:
    for step in random_game(random.Random(seed), short_bag=short_bag, steps=150):
        before, outcome = step.before, step.outcome
        if not isinstance(outcome, Refused):
            continue
        if outcome.refusal.reason is Reason.UNKNOWN_WORDS:
            assert outcome.refusal.unknown_words
            assert replace(outcome.state, reserves=before.reserves) == before
            for i, (old, new) in enumerate(
                zip(before.reserves, outcome.state.reserves, strict=True)
            ):
                if i == step.seat:
                    assert new.available(step.now) == old.available(step.now) - 1
                else:
                    assert new == old
        else:
            assert outcome.refusal.unknown_words == ()
            assert outcome.state == before
            if before.over:
                assert outcome.refusal.reason is Reason.GAME_OVER


@settings(max_examples=200, deadline=None)
@given(
    scores=st.lists(st.integers(-50, 300), min_size=2, max_size=4),
    data=st.data(),
)
def test_r30_r31_r32_final_reckoning_arithmetic(scores: list[int], data: st.DataObject) -> None:
    players = len(scores)
    rack = st.text(alphabet=LETTERS + "?", max_size=7)
    racks = data.draw(st.lists(rack, min_size=players, max_size=players))
    finisher = data.draw(st.none() | st.integers(0, players - 1))
    if finisher is None:
        ending = final_reckoning(scores, racks, EndCause.NO_PLACEMENT, None)
        assert ending.adjustments == tuple(-worth(r) for r in racks)
        assert sum(ending.adjustments) == -sum(worth(r) for r in racks)
    else:
        racks[finisher] = ""
        ending = final_reckoning(scores, racks, EndCause.RACK_EMPTIED, finisher)
        assert sum(ending.adjustments) == 0
        for i, r in enumerate(racks):
            if i != finisher:
                assert ending.adjustments[i] == -worth(r)
    assert ending.final_scores == tuple(
        s + a for s, a in zip(scores, ending.adjustments, strict=True)
    )
    best = max(ending.final_scores)
    assert ending.winners == tuple(i for i, s in enumerate(ending.final_scores) if s == best)
    assert ending.racks == tuple(racks)


def test_properties_generator_reaches_every_kind_of_outcome() -> None:
    """The generator is not vacuous: across a fixed set of games it produces accepted
    placements (with and without seven tiles), exchanges, passes, both endings and refusals
    of many kinds."""
    seen: Counter[str] = Counter()
    for seed in range(60):
        for short_bag in (False, True):
            for step in random_game(random.Random(seed), short_bag=short_bag, steps=120):
                outcome = step.outcome
                if isinstance(outcome, Accepted):
                    seen[outcome.entry.kind.value] += 1
                    seen["bingo"] += outcome.entry.bingo
                    if outcome.state.ending is not None:
                        seen[outcome.state.ending.cause.value] += 1
                else:
                    seen[outcome.refusal.reason.value] += 1
    for kind in ("place", "exchange", "pass", "rack_emptied", "no_placement", "bingo"):
        assert seen[kind] > 0, (kind, seen)
    for reason in Reason:
        if reason is not Reason.NO_NEW_TILE:
            assert seen[reason.value] > 0, (reason, seen)
