"""A finished game replayed from its seed, its options and its public log (issue 26).

al-Mishqaq has no hidden exchange: the opening draw and both bags' order follow from the seed,
every accepted action is in the log with its instant, so the state after each entry follows
from the seed, the Latin list and the log, through the very functions a live table uses. The
one option the state does not keep is each side's starting bank (M3); it is what the log's
instants and the final clock say it was (:func:`starting_banks`).

What the log cannot give back: a placement refused for unknown words spends a try of the
side's reserve (M24) and is not logged. The replay's reserves are therefore full throughout,
and the final state is compared with the stored one without them (:func:`replay_history`).

>>> from mishqaq_rules.actions import Pass, Resign
>>> from mishqaq_rules.game import play
>>> from mishqaq_rules.state import new_game
>>> game = new_game(latin="fr", seed=4, now=100.0, banks=(1200.0, 1500.0))
>>> for t in (110.0, 130.0, 135.0, 170.0):
...     game = play(game, game.turn, Pass(), now=t, lexicons={}).state
>>> game = play(game, game.turn, Resign(), now=171.0, lexicons={}).state
>>> history = replay_history(game)
>>> len(history.steps) == len(game.log) + 1, history.banks
(True, (1200.0, 1500.0))
>>> history.steps[-1].state == game
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from mishqaq_rules.actions import Action, Pass, Pause, Place, Resign, Resume, Swap, Timeout
from mishqaq_rules.clock import Clock
from mishqaq_rules.game import Accepted, Examined, Refusal, conclude, examine
from mishqaq_rules.log import EndCause, EntryKind, LogEntry
from mishqaq_rules.reasons import MishqaqError
from mishqaq_rules.sides import Side
from mishqaq_rules.state import GameState, new_game
from mishqaq_rules.transitions import settled

__all__ = [
    "GameNotOverError",
    "History",
    "HistoryStep",
    "NotReplayableError",
    "replay_history",
    "starting_banks",
]

# A bank no game reaches: the clock is run with it only to measure the time each side used.
_MEASURING_BANK: Final = 1e7
# The lobby offers banks in whole seconds; a measured bank within this of a whole millisecond
# is that millisecond (the sums of the log's instants carry float rounding, far below it).
_BANK_SNAP: Final = 1e-4


class GameNotOverError(MishqaqError):
    """The game has no ending yet: there is nothing to review."""


class NotReplayableError(MishqaqError):
    """The stored game does not follow from its seed and log (the message says where)."""


@dataclass(frozen=True, slots=True)
class HistoryStep:
    """The state after one log entry (``entry`` None: the start, before entry 1), at ``at``:
    the entry's instant, when the clocks stood as the state says."""

    entry: LogEntry | None
    at: float
    state: GameState


@dataclass(frozen=True, slots=True)
class History:
    banks: tuple[float, float]
    """Each side's starting bank (Latin, Arabic), as measured."""
    steps: tuple[HistoryStep, ...]
    """The start, then one step per log entry (``len(log) + 1``); the last is the final state."""


def _measured(bank: float) -> float:
    snapped = round(bank, 3)
    return snapped if abs(bank - snapped) < _BANK_SNAP else bank


def starting_banks(log: Sequence[LogEntry], final: Clock) -> tuple[float, float]:
    """Each side's bank at the start: what it has left in ``final`` plus the time the log says
    it used, measured by running a clock of huge banks through the log's clock events (M28–M30).
    """
    opening = log[0]
    if opening.kind is not EntryKind.OPENING or opening.side is None:
        raise NotReplayableError("log[0]: not the opening")
    clock = Clock.start((_MEASURING_BANK, _MEASURING_BANK), opening.at)
    mover = opening.side
    for entry in log[1:]:
        at, kind = entry.at, entry.kind
        clock = clock.settled(at)
        if kind in (EntryKind.PLACE, EntryKind.PASS):
            clock = clock.charged(mover, at)
            mover = mover.other
        elif kind is EntryKind.PAUSE and entry.side is not None:
            clock = clock.paused(entry.side, mover, at)
        elif kind is EntryKind.RESUME:
            clock = clock.resumed(at)
        elif kind is EntryKind.RESIGN or (
            kind is EntryKind.RESULT and entry.cause is EndCause.FLAG
        ):
            clock = clock.charged(mover, at)
    used = [_MEASURING_BANK - b for b in clock.banks]
    return (_measured(final.banks[0] + used[0]), _measured(final.banks[1] + used[1]))


def _action_of(entry: LogEntry, state: GameState) -> tuple[Side, Action]:
    """The action that logged ``entry`` (a flag's result: the table's timeout)."""
    side = entry.side
    match entry.kind:
        case EntryKind.PLACE if side is not None:
            return side, Place(entry.tiles)
        case EntryKind.SWAP if side is not None and len(entry.tiles) == 1:
            tile = entry.tiles[0]
            return side, Swap(tile.row, tile.col, tile.tile)
        case EntryKind.PASS if side is not None:
            return side, Pass()
        case EntryKind.PAUSE if side is not None:
            return side, Pause()
        case EntryKind.RESUME if side is not None:
            return side, Resume()
        case EntryKind.RESIGN if side is not None:
            return side, Resign()
        case EntryKind.RESULT if entry.cause is EndCause.FLAG:
            return state.turn, Timeout()
    raise NotReplayableError(f"log entry {entry.number}: no action logs a {entry.kind.value} here")


def _replayed(examined: Examined, entry: LogEntry) -> Accepted:
    """The examined action concluded with the lexicon's answer the log implies: the words
    logged were known (with the spellings logged), every other reading was not."""
    logged = {w.word: w.spellings for w in entry.words}
    unknown = [r for r in examined.readings if r not in logged]
    outcome = conclude(examined, unknown, logged)
    if not isinstance(outcome, Accepted):
        raise NotReplayableError(f"log entry {entry.number}: its words are refused on replay")
    return outcome


def _group_steps(before: GameState, outcome: Accepted) -> list[HistoryStep]:
    """One step per entry an action logged. A pause that ended by itself is logged first,
    closed at its own instant; an action that ended the game is shown before its result."""
    after = outcome.state
    steps = []
    for k, entry in enumerate(outcome.entries):
        logged = after.log[: len(before.log) + k + 1]
        if entry.kind is EntryKind.PAUSE_EXPIRED:
            state = replace(settled(before, entry.at), log=logged)
        elif k + 1 < len(outcome.entries):
            state = replace(after, log=logged, ending=None)
        else:
            state = after
        steps.append(HistoryStep(entry, entry.at, state))
    return steps


def _without_reserves(state: GameState) -> dict[str, object]:
    form = state.to_dict()
    del form["reserves"]
    return form


def replay_history(final: GameState) -> History:
    """Every state of a finished game, from its seed, its Latin list and its whole log
    (``final.log_offset`` 0), checked against ``final`` (all but the reserves).

    :class:`GameNotOverError` before the end; :class:`NotReplayableError` when the log does
    not follow from the seed (an entry the rules refuse, or a final state that differs).
    """
    if final.ending is None:
        raise GameNotOverError("the game has no ending yet")
    if final.log_offset != 0 or not final.log:
        raise NotReplayableError("the state does not hold its whole log")
    log = final.log
    opening = log[0]
    banks = starting_banks(log, final.clock)
    try:
        start = new_game(
            latin=final.latin,
            seed=final.seed,
            now=opening.at,
            banks=banks,
            opening=None if opening.draws else opening.side,
        )
    except MishqaqError as e:
        raise NotReplayableError(f"the start: {e}") from e
    if start.log[0] != opening:
        raise NotReplayableError("log entry 1: the seed draws another opening")
    steps = [
        HistoryStep(None, opening.at, replace(start, log=())),
        HistoryStep(opening, opening.at, start),
    ]
    state = start
    while len(state.log) < len(log):
        # The entries a pause's end logs first belong to the action after them.
        number = len(state.log) + 1
        entry = next(
            (e for e in log[number - 1 :] if e.kind is not EntryKind.PAUSE_EXPIRED), log[-1]
        )
        side, action = _action_of(entry, state)
        examined = examine(state, side, action, entry.at)
        if isinstance(examined, Refusal):
            raise NotReplayableError(
                f"log entry {entry.number}: refused on replay ({examined.reason.value})"
            )
        outcome = _replayed(examined, entry)
        if outcome.entries != log[number - 1 : number - 1 + len(outcome.entries)]:
            raise NotReplayableError(f"log entry {number}: the replay logs another entry")
        steps.extend(_group_steps(state, outcome))
        state = outcome.state
    if _without_reserves(state) != _without_reserves(final):
        raise NotReplayableError("the replay ends in another state than the stored one")
    return History(banks, tuple(steps))
