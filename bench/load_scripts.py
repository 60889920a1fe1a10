"""Games found ahead of time, for simulated players that replay moves instead of searching.

A load generator that searches for each move on the machine it measures competes with the
services for the same cores (3.5–6.5 ms of CPU per action, docs/benchmarks.md). So before a
run, :func:`build_book` plays ``count`` whole games in-process with :mod:`lexio_rules` and the
players' own policy (the bot's placements, exchanges, passes, misspelt placements to be
refused), and the run's gateway (bench/load_gateway.py) gives each table the seed of one of
them, chosen from the table id by :func:`script_seed`. A seat then sends the move its script
holds for the turn it is at, after checking that its view is the one the script expects
(board and rack); if not (a pass the table made for a seat that was away, R28/R29), the seat
searches as before, and the run counts it (``script_misses``).

Books are cached in ``var/load-scripts/``, keyed by everything that decides their moves.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexio_rules import (
    Exchange,
    GameState,
    Pass,
    Place,
    TilePlacement,
    WordSet,
    new_game,
    play,
    seat_view,
)

BOOK_FORMAT = 1
"""Bump when what a book holds, or how it is played, changes: old caches are then ignored."""

Action = dict[str, Any]
Choose = Callable[[dict[str, Any]], tuple[Action, Action | None]]
"""A player's policy: (its view as the protocol sends it) → (the action, a misspelt placement
to be refused first, or None)."""


def script_seed(table_id: str, base: int, count: int) -> int:
    """The seed of the game a table plays: one of ``count`` seeds from ``base``, by table id.

    >>> script_seed("t-1", 1000, 8) == script_seed("t-1", 1000, 8)
    True
    >>> 1000 <= script_seed("t-2", 1000, 8) < 1008
    True
    """
    return base + zlib.crc32(table_id.encode()) % count


def board_key(board: str, rack: str) -> int:
    """What a step checks of the seat's view: the board and the rack (in any order)."""
    return zlib.crc32(f"{board}|{''.join(sorted(rack))}".encode())


@dataclass(frozen=True, slots=True)
class Step:
    seat: int
    key: int
    """:func:`board_key` of the seat's view before this step."""
    action: Action
    misspelt: Action | None = None


@dataclass(frozen=True, slots=True)
class Script:
    seed: int
    players: int
    steps: tuple[Step, ...]
    final_scores: tuple[int, ...]

    def step_for(self, entries: int, seat: int, board: str, rack: str) -> Step | None:
        """The step to play after ``entries`` log entries, if this is the position expected."""
        if entries >= len(self.steps):
            return None
        step = self.steps[entries]
        if step.seat != seat or step.key != board_key(board, rack):
            return None
        return step


@dataclass(frozen=True, slots=True)
class Book:
    base: int
    scripts: tuple[Script, ...]

    def for_table(self, table_id: str, players: int) -> Script | None:
        script = self.scripts[script_seed(table_id, self.base, len(self.scripts)) - self.base]
        return script if script.players == players else None


def _to_rules(action: Action) -> Place | Exchange | Pass:
    if "place" in action:
        return Place(
            tuple(
                TilePlacement(t["row"], t["col"], t["letter"], t["blank"])
                for t in action["place"]["tiles"]
            )
        )
    if "exchange" in action:
        return Exchange(action["exchange"]["tiles"])
    return Pass()


def record_script(seed: int, players: int, choose: Choose, lexicon: WordSet) -> Script:
    """One whole game played by ``choose`` for every seat, as the live table would play it."""
    now = 0.0
    state: GameState = new_game(players, seed, now=now)
    steps: list[Step] = []
    while not state.over:
        seat = state.turn
        view = seat_view(state, seat, now)
        action, misspelt = choose(
            {
                "board": view.board,
                "rack": view.rack,
                "bag_count": view.bag_count,
                "reserve_tries": view.reserve_tries,
            }
        )
        now += 1.0
        outcome = play(state, seat, _to_rules(action), now, lexicon)
        if not outcome.accepted:
            raise AssertionError(f"seed {seed}: the policy chose a refused action {action}")
        steps.append(Step(seat, board_key(view.board, view.rack), action, misspelt))
        state = outcome.state
    assert state.ending is not None
    return Script(seed, players, tuple(steps), tuple(state.ending.final_scores))


def book_key(parts: Iterable[object]) -> str:
    digest = hashlib.sha256(f"book/{BOOK_FORMAT}".encode())
    for part in parts:
        digest.update(b"\0" + str(part).encode())
    return digest.hexdigest()[:16]


def save_book(book: Book, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {
        "base": book.base,
        "scripts": [
            {
                "seed": s.seed,
                "players": s.players,
                "final_scores": list(s.final_scores),
                "steps": [[t.seat, t.key, t.action, t.misspelt] for t in s.steps],
            }
            for s in book.scripts
        ],
    }
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(body, separators=(",", ":")), encoding="utf-8")
    partial.replace(path)


def load_book(path: Path) -> Book:
    body = json.loads(path.read_text(encoding="utf-8"))
    return Book(
        body["base"],
        tuple(
            Script(
                s["seed"],
                s["players"],
                tuple(Step(seat, key, action, wrong) for seat, key, action, wrong in s["steps"]),
                tuple(s["final_scores"]),
            )
            for s in body["scripts"]
        ),
    )
