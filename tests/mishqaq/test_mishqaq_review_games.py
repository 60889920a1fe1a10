"""Issue 26 over many random games: a finished game replayed from its seed and log
(mishqaq_rules.history) and the record each side may keep (mishqaq_rules.side_record).

Each game is played by seeded random play through the rules (placements with blanks,
unknown words, swaps, passes, pauses that are ended or run out, resignations in or out of
turn, flags, dead positions, tries), at instants like a live table's. For every game and each
side:

- M12: the record holds no rack of the other side, at any step of the game (the
  hidden-information method: the other side's rack is collected from the truth at every step
  and searched for in the record), and the side's own racks are its racks in full;
- M23, M31 (try, resignation): the record's replay (what ``lexio replay`` runs) reaches the
  game's ending, winner and cause; M35 (dead position): its cause (a replay has no time, so
  its winner is a draw); M29 (flag): the replay does not end, as the format says a flag is
  live play only; every ending is stated in the record's ``ending``;
- the steps are that side's views of the live game, at each entry's instant.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from mishqaq_positions import ANY, NONE

from lexio_cli import main as cli
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
from mishqaq_rules.game import Accepted, play
from mishqaq_rules.history import (
    GameNotOverError,
    History,
    NotReplayableError,
    replay_history,
)
from mishqaq_rules.log import EndCause, EntryKind
from mishqaq_rules.record import parse_record
from mishqaq_rules.record import replay as replay_record
from mishqaq_rules.side_record import side_record
from mishqaq_rules.sides import Side
from mishqaq_rules.state import GameState, new_game
from mishqaq_rules.views import SideView, side_view

L, A = Side.LATIN, Side.ARABIC
N = 22
GAMES = 120
RED = {L: (10, 1), A: (10, 20)}
AHEAD = {L: (0, 1), A: (0, -1)}
LETTERS = {L: "EASTRIN", A: "امنلتيب"}
START = 1_764_650_000.25  # a live table's instants: Unix seconds with fractions


# --- random play --------------------------------------------------------------------------------


def random_place(state: GameState, side: Side, rng: random.Random, ahead: float) -> Place | None:
    """A line of rack tiles from next to one of ``side``'s tiles (its red square first),
    heading for the target column with probability ``ahead``."""
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
    dr, dc = AHEAD[side] if rng.random() < ahead else rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1)))
    rng.shuffle(rack)
    tiles: list[TilePlacement] = []
    k = 0 if first else 1
    want = rng.randint(2 if first else 1, min(6, len(rack)))
    while len(tiles) < want:
        r, c = row + dr * k, col + dc * k
        k += 1
        if not (0 <= r < N and 0 <= c < N):
            break
        if state.board.at(r, c) is not None:
            continue
        t = rack[len(tiles)]
        tiles.append(TilePlacement(r, c, t, rng.choice(LETTERS[side]) if t.blank else None))
    return Place(tuple(tiles)) if tiles else None


def random_swap(state: GameState, side: Side, rng: random.Random) -> Swap | None:
    """One of ``side``'s blanks swapped: half the time the tile the rules pick, half the time
    a rack tile of its letter named as the browser names the one dragged (maybe bilingual)."""
    blanks = [(r, c, t) for r, c, t in state.board.occupied() if t.tile.blank and t.owner is side]
    if not blanks:
        return None
    row, col, cell = rng.choice(blanks)
    fitting = [t for t in state.rack(side) if t.letter == cell.as_letter]
    if fitting and rng.random() < 0.5:
        return Swap(row, col, rng.choice(fitting))
    return Swap(row, col)


@dataclass(frozen=True)
class Played:
    """A finished game: its final state and the live states, each with the instant it was
    reached, after every accepted action (and a flag recorded by a refusal)."""

    final: GameState
    truths: tuple[tuple[GameState, float], ...]


def _action(state: GameState, rng: random.Random, plan: str) -> tuple[Side, Action, bool]:
    """(side, action, does the lexicon know every word?) for the game's ``plan`` (``blocked``:
    both sides only pass, the way to a dead position)."""
    mover = state.turn
    if plan == "blocked":
        return mover, Pass(), True
    roll = rng.random()
    if roll < 0.04:
        return (
            mover.other,
            rng.choice((Pause(), Resume(), Resign() if plan == "resign" else Pass())),
            True,
        )
    if roll < 0.09:
        return mover, rng.choice((Pause(), Resume())), True
    if roll < 0.16:
        swap = random_swap(state, mover, rng)
        if swap is not None:
            return mover, swap, True
    if roll < 0.8:
        placed = random_place(state, mover, rng, 0.85 if plan == "try" else 0.3)
        if placed is not None:
            return mover, placed, rng.random() < 0.85
    return mover, Pass(), True


def play_game(seed: int) -> Played:
    """One random game to its end; its plan picks the ending it heads for (try, resign, flag,
    dead position), though another may come first."""
    rng = random.Random(seed)
    plan = ("try", "resign", "flag", "dead", "try", "resign")[seed % 6]
    bank = 90.0 if plan == "flag" else rng.choice((1200.0, 1500.0, 1800.0))
    now = START + rng.random() * 1000
    state = new_game(
        latin=rng.choice(("fr", "en")),
        seed=rng.randrange(2**32),
        now=now,
        banks=(bank, rng.choice((bank, 2100.0))),
    )
    truths = [(state, now)]
    blocked_after = rng.randint(0, 30)
    for move in range(400):
        side: Side
        action: Action
        if plan == "dead" and move == blocked_after:
            plan = "blocked"
        now += rng.choice((0.0, 0.37, 1.5, 3.25, 7.0, 12.5, 61.0))
        if plan == "resign" and move > 12 and rng.random() < 0.08:
            side, action, knows = rng.choice((L, A)), Resign(), True
        elif plan == "flag" and move > 6 and rng.random() < 0.15:
            now += 200.0
            side, action, knows = state.turn, rng.choice((Timeout(), Pass())), True
        else:
            side, action, knows = _action(state, rng, plan)
        outcome = play(state, side, action, now, ANY if knows else NONE)
        if isinstance(outcome, Accepted) or outcome.refusal.flagged is not None:
            after = outcome.state if isinstance(outcome, Accepted) else outcome.refusal.flagged
            assert after is not None
            truths.append((after, after.log[-1].at))
            state = after
        else:
            state = outcome.state  # a spent reserve try (M24)
        if state.over:
            # The stored form, as the engine keeps it between calls.
            return Played(
                GameState.from_dict(json.loads(json.dumps(state.to_dict()))), tuple(truths)
            )
    resigned = play(state, state.turn, Resign(), now + 1, ANY)
    assert isinstance(resigned, Accepted)
    return Played(resigned.state, (*truths, (resigned.state, now + 1)))


@dataclass(frozen=True)
class Checked:
    played: Played
    history: History
    records: dict[Side, dict[str, Any]]


@pytest.fixture(scope="module")
def games() -> list[Checked]:
    checked = []
    for seed in range(GAMES):
        played = play_game(seed)
        history = replay_history(played.final)
        checked.append(Checked(played, history, {s: side_record(history, s) for s in (L, A)}))
    return checked


# --- the tests ----------------------------------------------------------------------------------


def test_the_random_games_reach_every_ending_with_swaps_blanks_and_pauses(
    games: list[Checked],
) -> None:
    causes = Counter(g.played.final.ending.cause for g in games if g.played.final.ending)
    assert set(causes) == set(EndCause), causes
    kinds = Counter(e.kind for g in games for e in g.played.final.log)
    for kind in (EntryKind.SWAP, EntryKind.PAUSE, EntryKind.RESUME, EntryKind.PAUSE_EXPIRED):
        assert kinds[kind] > 0, kind
    blanks = sum(t.tile.blank for g in games for e in g.played.final.log for t in e.tiles)
    assert blanks > 0


def test_a_finished_game_replays_from_its_seed_and_log(games: list[Checked]) -> None:
    """Everything follows from the seed, the options and the public log (the reserves aside:
    an unknown-words refusal is not logged)."""
    for g in games:
        final = g.played.final
        assert len(g.history.steps) == len(final.log) + 1
        assert g.history.steps[-1].state.to_dict() | {"reserves": None} == final.to_dict() | {
            "reserves": None
        }
        assert [s.entry for s in g.history.steps[1:]] == list(final.log)
        assert [s.at for s in g.history.steps[1:]] == [e.at for e in final.log]


def _without_reserve(view: SideView) -> SideView:
    return replace(view, reserve_tries=0, reserve_next_in=0.0)


def test_the_steps_are_each_sides_views_of_the_live_game(games: list[Checked]) -> None:
    """After the last entry each live action logged, the step is the live state as the table
    held it, seen by each side at that entry's instant (clocks as they stood then)."""
    compared = 0
    for g in games:
        by_length = {len(s.log): (s, at) for s, at in g.played.truths}
        for step in g.history.steps[1:]:
            truth = by_length.get(len(step.state.log))
            if truth is None:
                continue
            state, at = truth
            assert step.at == at
            for side in (L, A):
                assert _without_reserve(side_view(step.state, side, at)) == _without_reserve(
                    side_view(state, side, at)
                )
            compared += 1
    assert compared > 1000


def _other_racks(history: History, side: Side) -> set[str]:
    """Every rack the other side held, at every step of the truth, as JSON text."""
    return {
        json.dumps([t.text for t in step.state.rack(side.other)], ensure_ascii=False)
        for step in history.steps
        if step.state.rack(side.other)
    }


def test_m12_a_record_holds_no_rack_of_the_other_side(games: list[Checked]) -> None:
    for g in games:
        for side, record in g.records.items():
            text = json.dumps(record, ensure_ascii=False, separators=(", ", ": "))
            for rack in _other_racks(g.history, side):
                assert rack not in text, (side, rack)
            for move in record["moves"]:
                assert ("rack" in move) == (move["side"] == side.value), move


def test_m12_a_record_holds_the_sides_own_racks_in_full(games: list[Checked]) -> None:
    for g in games:
        for side, record in g.records.items():
            own = [m["rack"] for m in record["moves"] if "rack" in m]
            before = [
                [t.text for t in previous.state.rack(side)]
                for previous, step in zip(g.history.steps, g.history.steps[1:], strict=False)
                if step.entry is not None
                and step.entry.side is side
                and step.entry.kind
                in (EntryKind.PLACE, EntryKind.SWAP, EntryKind.PASS, EntryKind.RESIGN)
            ]
            assert own == before


def test_m12_the_steps_show_the_other_rack_only_in_the_final_reveal(
    games: list[Checked],
) -> None:
    for g in games:
        for side in (L, A):
            for step in g.history.steps:
                view = side_view(step.state, side, step.at)
                assert view.rack == step.state.rack(side)
                assert (
                    view.ending is None
                    or step is g.history.steps[-1]
                    or (step.entry is not None and step.entry.kind is EntryKind.RESULT)
                )


def _replayed(record: dict[str, Any]) -> dict[str, Any]:
    return replay_record(parse_record(json.loads(json.dumps(record))), ANY)


def _same_board(replayed: list[list[str]], played: Played) -> bool:
    """The replay's board is the game's, cell for cell: a swap's cell included, since the
    record names the tile the swap put there (M27)."""
    return replayed == played.final.board.rows()


@pytest.mark.parametrize("cause", [EndCause.TRY, EndCause.RESIGN])
def test_m23_m31_the_record_replays_to_the_same_ending(
    games: list[Checked], cause: EndCause
) -> None:
    """M23 a try, M31 a resignation: lexio replay of either side's record reaches the game's
    winner and cause, every move accepted, on the same final board."""
    ended = [g for g in games if g.played.final.ending and g.played.final.ending.cause is cause]
    assert len(ended) >= 10
    for g in ended:
        final = g.played.final
        assert final.ending is not None
        for record in g.records.values():
            result = _replayed(record)
            assert all(m["status"] == "accepted" for m in result["moves"]), result["moves"]
            winner = None if final.ending.winner is None else final.ending.winner.value
            assert result["result"] == {"winner": winner, "cause": cause.value}
            assert record["ending"] == result["result"]
            assert _same_board(result["board"], g.played)


def test_m35_a_dead_position_replays_to_its_cause_and_states_its_winner(
    games: list[Checked],
) -> None:
    """A record has no time, so its replay's dead position is a draw (mishqaq_rules.record);
    the record's ``ending`` states who had more time left."""
    dead = [
        g
        for g in games
        if g.played.final.ending and g.played.final.ending.cause is EndCause.DEAD_POSITION
    ]
    assert len(dead) >= 10
    for g in dead:
        final = g.played.final
        assert final.ending is not None
        for record in g.records.values():
            result = _replayed(record)
            assert all(m["status"] == "accepted" for m in result["moves"])
            assert result["result"] == {"winner": None, "cause": "dead_position"}
            assert _same_board(result["board"], g.played)
            winner = None if final.ending.winner is None else final.ending.winner.value
            assert record["ending"] == {"winner": winner, "cause": "dead_position"}


def test_m29_a_flag_is_stated_in_the_record_and_not_replayed(games: list[Checked]) -> None:
    """The format: a flag is live play only. The replay plays every move and does not end;
    the record's ``ending`` says the flag fell and who won."""
    flagged = [
        g for g in games if g.played.final.ending and g.played.final.ending.cause is EndCause.FLAG
    ]
    assert len(flagged) >= 10
    for g in flagged:
        final = g.played.final
        assert final.ending is not None and final.ending.winner is not None
        for record in g.records.values():
            result = _replayed(record)
            assert all(m["status"] == "accepted" for m in result["moves"])
            assert "result" not in result
            assert _same_board(result["board"], g.played)
            assert record["ending"] == {"winner": final.ending.winner.value, "cause": "flag"}


def test_m13_the_record_names_the_side_the_seeds_draw_chose(games: list[Checked]) -> None:
    for g in games:
        opening = g.played.final.log[0]
        assert opening.draws and opening.side is not None
        for record in g.records.values():
            assert record["opening"] == opening.side.value
            assert record["latin"] == g.played.final.latin


def test_a_game_not_over_has_no_history() -> None:
    game = new_game(latin="fr", seed=1, now=START)
    with pytest.raises(GameNotOverError):
        replay_history(game)


def test_a_log_that_does_not_follow_from_the_seed_is_not_replayable() -> None:
    played = play_game(1)
    other_seed = replace(played.final, seed=played.final.seed + 1)
    with pytest.raises(NotReplayableError):
        replay_history(other_seed)
    # A state whose past log was left out cannot be replayed either.
    with pytest.raises(NotReplayableError):
        replay_history(replace(played.final, log=played.final.log[3:], log_offset=3))


# --- each side's downloaded record through `lexio replay` (issue 36) ---------------------------

SLOW_GAMES = range(GAMES, GAMES + 240)
"""The slow suite's games: seeds after the default run's, so that the two add up."""


def _words_the_table_knew(final: GameState) -> dict[str, list[str]]:
    """Every word the live table accepted, by the side that played it: as a record's
    ``lexicon``, a replay that forms any other word (a swap's cell read otherwise, say) has it
    refused, as the live lexicon would have refused it."""
    words: dict[str, set[str]] = {L.value: set(), A.value: set()}
    for entry in final.log:
        for word in entry.words:
            words[word.script.value].add(word.word)
    return {side: sorted(known) for side, known in words.items()}


def _lexio_replay(record: dict[str, Any], path: Path) -> dict[str, Any]:
    """``lexio replay`` (its ``main``, in this process) of ``record`` written to ``path``."""
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status = cli.main(["replay", str(path)])
    assert status == 0, (status, record)
    result: dict[str, Any] = json.loads(printed.getvalue())
    return result


def _expected_result(final: GameState) -> dict[str, Any] | None:
    """What a replay reaches (docs/records.md): a try or a resignation as played; a dead
    position as a draw (no time in a replay); a flag not at all (live play only)."""
    ending = final.ending
    assert ending is not None
    if ending.cause is EndCause.FLAG:
        return None
    if ending.cause is EndCause.DEAD_POSITION:
        return {"winner": None, "cause": "dead_position"}
    return {
        "winner": None if ending.winner is None else ending.winner.value,
        "cause": ending.cause.value,
    }


def check_downloaded_records_replay(seeds: range, tmp_path: Path) -> Counter[EndCause]:
    """Each side's record of each game, as the review route serves it (JSON text), replayed by
    ``lexio replay`` with the words the live table knew: every entry accepted, the live
    result, the live board cell for cell."""
    causes: Counter[EndCause] = Counter()
    for seed in seeds:
        final = play_game(seed).final
        assert final.ending is not None
        causes[final.ending.cause] += 1
        history = replay_history(final)
        known = _words_the_table_knew(final)
        for side in (L, A):
            downloaded = json.loads(json.dumps(side_record(history, side), ensure_ascii=False))
            result = _lexio_replay(downloaded | {"lexicon": known}, tmp_path / "record.json")
            refused = [m for m in result["moves"] if m["status"] != "accepted"]
            assert not refused, (seed, side, refused)
            assert len(result["moves"]) == len(downloaded["moves"]), (seed, side)
            assert result.get("result") == _expected_result(final), (seed, side)
            assert result["board"] == final.board.rows(), (seed, side)
    return causes


def test_m12_m23_m27_m31_each_sides_downloaded_record_replays_to_the_live_game(
    tmp_path: Path,
) -> None:
    """The default run's sample: every ending among its games, a swap in several."""
    causes = check_downloaded_records_replay(range(GAMES), tmp_path)
    assert set(causes) == set(EndCause), causes


@pytest.mark.slow
def test_m12_m23_m27_m31_two_hundred_more_games_records_replay_to_the_live_game(
    tmp_path: Path,
) -> None:
    causes = check_downloaded_records_replay(SLOW_GAMES, tmp_path)
    assert len(SLOW_GAMES) >= 200 and set(causes) == set(EndCause), causes
