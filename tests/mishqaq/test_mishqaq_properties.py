"""Property-based tests over random games (hypothesis).

(a) M7/M11/M27 conservation: each bag's 75 tiles (blanks included) are always in that bag,
    its side's rack or on the board as that side's tiles.
(b) M24/M29 a refused action changes nothing but the side's reserve (after unknown words) and
    the end by flag (an action at or after the flag instant).
(c) M17 a word's cell is read only if it holds one of the mover's tiles or an opponent's
    non-blank bilingual tile; each word is a maximal run (checked against a reader written
    here from the rules text).
(d) M23 a try is reported exactly when a new own tile lands in the target column.
(e) M12 views never hold the other side's rack or a bag's order.
(f) the stored form round-trips through JSON at every step.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st
from mishqaq_positions import ANY, NONE, RULES_BLANKS, A, L, rules_bag

from mishqaq_rules.actions import (
    Action,
    Pass,
    Pause,
    Place,
    Resign,
    Resume,
    Swap,
    TilePlacement,
    Timeout,
)
from mishqaq_rules.board import PlacedTile
from mishqaq_rules.game import Accepted, Outcome, Refused, play
from mishqaq_rules.log import Direction, EndCause, EntryKind, WordPlay
from mishqaq_rules.reasons import Reason
from mishqaq_rules.sides import Side
from mishqaq_rules.state import GameState, new_game
from mishqaq_rules.tiles import Tile
from mishqaq_rules.views import side_view

N = 22
# M5, M6 from the rules text.
RED = {L: (10, 1), A: (10, 20)}
TARGET = {L: 20, A: 1}
LETTERS = {L: "EASTRIN", A: "امنلتيب"}


# --- an independent reader and tile count, from the rules text --------------------------------


def reads(cell: PlacedTile | None, side: Side) -> str | None:
    """M17: own tile → its letter (a blank its declared one); opponent's non-blank bilingual
    tile → its letter in the mover's script; anything else opaque."""
    if cell is None:
        return None
    if cell.tile.script is side:
        return cell.as_letter if cell.tile.letter is None else cell.tile.letter
    return cell.tile.partner


def rules_bag_multiset(side: Side, latin: str) -> Counter[str]:
    """Appendix A by primary letter; '?' blanks."""
    counts = Counter(rules_bag(latin if side is L else "ar"))
    counts["?"] = RULES_BLANKS
    return counts


def tiles_of(state: GameState, side: Side) -> Counter[str]:
    letters = [t.letter or "?" for t in (*state.bag(side), *state.rack(side))]
    letters += [c.tile.letter or "?" for _, _, c in state.board.occupied() if c.owner is side]
    return Counter(letters)


def step_of(word: WordPlay) -> tuple[int, int]:
    if word.direction is Direction.ACROSS:
        return (0, 1) if word.script is L else (0, -1)
    return (1, 0) if word.direction is Direction.DOWN else (-1, 0)


# --- random play -------------------------------------------------------------------------------


def random_place(state: GameState, side: Side, rng: random.Random) -> Place | None:
    """A line of rack tiles from next to one of ``side``'s tiles (from its red square first),
    heading for its target half the time."""
    rack = list(state.rack(side))
    if not rack:
        return None
    first = state.first_placement_due(side)
    anchors = (
        [RED[side]] if first else [(r, c) for r, c, t in state.board.occupied() if t.owner is side]
    )
    if not anchors:
        return None
    row, col = rng.choice(anchors)
    ahead = (0, 1) if side is L else (0, -1)
    dr, dc = ahead if rng.random() < 0.5 else rng.choice(((0, 1), (0, -1), (1, 0), (-1, 0)))
    rng.shuffle(rack)
    tiles: list[TilePlacement] = []
    k = 0 if first else 1
    while len(tiles) < rng.randint(1, min(6, len(rack))):
        r, c = row + dr * k, col + dc * k
        k += 1
        if not (0 <= r < N and 0 <= c < N):
            break
        if state.board.at(r, c) is not None:
            continue
        t = rack[len(tiles)]
        tiles.append(TilePlacement(r, c, t, rng.choice(LETTERS[side]) if t.blank else None))
    return Place(tuple(tiles)) if tiles else None


def random_junk(state: GameState, side: Side, rng: random.Random) -> Place:
    rack = state.rack(side) or (Tile.parse("E") if side is L else Tile.parse("ا"),)
    cells = {(rng.randrange(-1, N + 1), rng.randrange(-1, N + 1)) for _ in range(rng.randint(0, 3))}
    tiles = []
    for r, c in cells:
        t = rng.choice(rack)
        tiles.append(TilePlacement(r, c, t, rng.choice(LETTERS[side]) if t.blank else None))
    return Place(tuple(tiles))


def random_action(state: GameState, rng: random.Random) -> tuple[Side, Action, bool]:
    """(side, action, lexicon knows every word?)."""
    side = state.turn if rng.random() < 0.9 else state.turn.other
    roll = rng.random()
    if roll < 0.6:
        placed = random_place(state, side, rng)
        if placed is not None:
            return side, placed, rng.random() < 0.85
    if roll < 0.7:
        return side, random_junk(state, side, rng), True
    if roll < 0.8:
        return side, Pass(), True
    if roll < 0.87:
        blanks = [(r, c) for r, c, t in state.board.occupied() if t.tile.blank]
        r, c = rng.choice(blanks) if blanks else (rng.randrange(N), rng.randrange(N))
        return side, Swap(r, c), True
    if roll < 0.95:
        return side, rng.choice((Pause(), Resume())), True
    if roll < 0.99:
        return side, Timeout(), True
    return side, Resign(), True


@dataclass
class Step:
    before: GameState
    side: Side
    action: Action
    now: float
    outcome: Outcome


def random_game(rng: random.Random, latin: str, steps: int = 120) -> Iterator[Step]:
    banks = (rng.choice((300.0, 1800.0)), rng.choice((300.0, 1800.0)))
    state = new_game(latin=latin, seed=rng.randrange(2**32), now=0.0, banks=banks)
    now = 0.0
    for _ in range(steps):
        now += rng.choice((0.0, 0.5, 3.0, 10.0, 20.0, 70.0))
        side, action, knows = random_action(state, rng)
        outcome = play(state, side, action, now, ANY if knows else NONE)
        yield Step(state, side, action, now, outcome)
        state = outcome.state
        if state.over and rng.random() < 0.7:
            return


# --- the properties ----------------------------------------------------------------------------


def check_conservation(state: GameState) -> None:
    for side in (L, A):
        assert tiles_of(state, side) == rules_bag_multiset(side, state.latin), side
        assert all(t.script is side for t in (*state.bag(side), *state.rack(side)))


def check_refusal(step: Step) -> None:
    assert isinstance(step.outcome, Refused)
    before, after, refusal = step.before, step.outcome.state, step.outcome.refusal
    if refusal.flagged is not None:
        assert after.ending is not None and after.ending.cause is EndCause.FLAG
        assert after.board == before.board and after.racks == before.racks
        assert after.bags == before.bags and step.outcome.state_changed
        return
    if refusal.reason is Reason.UNKNOWN_WORDS:
        assert after.reserves[step.side.index].available(step.now) == (
            before.reserves[step.side.index].available(step.now) - 1
        )
        other = step.side.other.index
        assert after.reserves[other] == before.reserves[other]
        assert after.board == before.board and after.racks == before.racks
        assert after.clock == before.clock and after.log == before.log
        return
    assert after == before and not step.outcome.state_changed


def check_words(step: Step) -> None:
    assert isinstance(step.outcome, Accepted) and isinstance(step.action, Place)
    board, side = step.outcome.state.board, step.side
    for word in step.outcome.entry.words:
        assert word.script is side
        cells = list(word.cells())
        for (r, c), letter in zip(cells, word.word, strict=True):
            cell = board.at(r, c)
            assert cell is not None
            assert cell.owner is side or (cell.tile.bilingual and not cell.tile.blank)
            assert reads(cell, side) == letter
        dr, dc = step_of(word)
        for r, c in ((cells[0][0] - dr, cells[0][1] - dc), (cells[-1][0] + dr, cells[-1][1] + dc)):
            if 0 <= r < N and 0 <= c < N:
                assert reads(board.at(r, c), side) is None, "a word is a maximal run"
    main = set(step.outcome.entry.words[0].cells())
    assert {(t.row, t.col) for t in step.action.tiles} <= main


def check_try(step: Step) -> bool:
    assert isinstance(step.outcome, Accepted) and isinstance(step.action, Place)
    reached = any(t.col == TARGET[step.side] for t in step.action.tiles)
    ending = step.outcome.state.ending
    tried = ending is not None and ending.cause is EndCause.TRY
    assert tried == reached
    if tried:
        assert ending is not None and ending.winner is step.side
    return tried


def check_views(state: GameState, now: float) -> None:
    for side in (L, A):
        view = side_view(state, side, now)
        secrets = [s for s in (state.rack(side.other), *state.bags) if s]
        for name in view.__dataclass_fields__:
            value = getattr(view, name)
            if name == "ending":
                continue  # racks are revealed at the end (M12)
            assert all(value != s and value != list(s) for s in secrets), name
        assert view.rack == state.rack(side)
        assert view.rack_counts == (len(state.racks[0]), len(state.racks[1]))
        assert view.bag_counts == (len(state.bags[0]), len(state.bags[1]))
        assert (view.ending is not None) == state.over


def run(rng: random.Random, latin: str) -> tuple[int, int]:
    """Every property along one random game; (accepted placements, tries)."""
    placements = tries = 0
    for step in random_game(rng, latin):
        after = step.outcome.state
        check_conservation(after)
        check_views(after, step.now)
        assert GameState.from_dict(json.loads(json.dumps(after.to_dict()))) == after
        if isinstance(step.outcome, Refused):
            check_refusal(step)
        elif isinstance(step.action, Place):
            placements += 1
            check_words(step)
            tries += check_try(step)
        if after.over:
            assert after.log[-1].kind is EntryKind.RESULT
    return placements, tries


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.sampled_from(["fr", "en"]))
def test_properties_hold_through_random_games(seed: int, latin: str) -> None:
    run(random.Random(seed), latin)


def test_random_games_do_place_and_reach_tries() -> None:
    """The properties above are not vacuous: seeded games place tiles and some end by a try."""
    placements = tries = 0
    for seed in range(40):
        p, t = run(random.Random(seed), "fr")
        placements, tries = placements + p, tries + t
    assert placements > 400 and tries > 0
