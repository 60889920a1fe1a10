"""A game replayed from its seed: the state at its start and after each entry of its log.

The stored state keeps only the present, but the seed fixes the bag's first order (R4) and
each reshuffle (R26), and the log plus :attr:`GameState.exchanged` say every action: played
again through the rules a live table uses, they give back every rack at every step. The
replay must reach the stored state; if it does not, or if the state lacks what it needs (an
exchange stored before ``exchanged`` existed), :class:`ReviewUnavailableError`: a review shows
the game as it was or not at all.

>>> from lexio_rules.actions import Exchange, Pass
>>> from lexio_rules.game import WordSet, play
>>> from lexio_rules.state import new_game
>>> game = new_game(2, seed=4, now=0.0)
>>> game = play(game, 0, Exchange(game.racks[0][:2]), now=5.0, lexicon=WordSet(())).state
>>> game = play(game, 1, Pass(), now=9.0, lexicon=WordSet(())).state
>>> history = replay_history(game)
>>> len(history.states), history.instants, history.final == game
(3, (5.0, 5.0, 9.0), True)
>>> history.states[1].racks[0] == game.racks[0]
True
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from lexio_rules.actions import Action, Exchange, Pass, PassCause, Place
from lexio_rules.game import Accepted, Refusal, conclude, examine
from lexio_rules.reasons import MalformedActionError, ReviewUnavailableError
from lexio_rules.state import EntryKind, GameState, LogEntry, new_game
from lexio_rules.views import SeatView, seat_view

__all__ = ["History", "replay_history"]


@dataclass(frozen=True, slots=True)
class History:
    """Every state of one game: ``states[0]`` at its start, ``states[i]`` after log entry
    ``i``; ``instants[i]`` is when that state began (an entry's ``at``)."""

    states: tuple[GameState, ...]
    instants: tuple[float, ...]

    @property
    def final(self) -> GameState:
        return self.states[-1]

    @property
    def entries(self) -> tuple[LogEntry, ...]:
        return self.final.log

    def seat_views(self, seat: int) -> tuple[SeatView, ...]:
        """What ``seat`` saw at the start and after each entry, each at that instant and
        without the log (the caller has it once): its own rack, counts of the others', and
        every rack only in the last one if the game ended (R6, R32)."""
        return tuple(
            replace(seat_view(state, seat, now), log=())
            for state, now in zip(self.states, self.instants, strict=True)
        )


def replay_history(state: GameState) -> History:
    """Play ``state``'s whole log again from its seed; :class:`ReviewUnavailableError` unless
    every entry is accepted as logged and the last state is ``state``.

    The start's instant is not stored: the first entry's stands for it (its turn's clock in
    the first view is then an approximation). Refusals are not logged, so the replay's
    anti-probing reserves (R20) stay full: they are the one part of ``state`` not compared.
    """
    if state.log_offset:
        raise ReviewUnavailableError("the state was read without its earlier log entries")
    exchanges = sum(1 for e in state.log if e.kind is EntryKind.EXCHANGE)
    if exchanges != len(state.exchanged):
        raise ReviewUnavailableError(
            f"{exchanges} exchanges in the log, {len(state.exchanged)} kept: "
            "a state stored before exchanges were kept"
        )
    start = state.log[0].at if state.log else state.turn_started_at
    current = new_game(state.players, state.seed, start, state.turn_seconds)
    states, instants = [current], [start]
    returned = iter(state.exchanged)
    for entry in state.log:
        current = _replayed(current, entry, returned)
        states.append(current)
        instants.append(entry.at)
    if replace(current, reserves=state.reserves) != state:
        raise ReviewUnavailableError("the replay from the seed does not reach the stored state")
    return History(tuple(states), tuple(instants))


def _replayed(state: GameState, entry: LogEntry, returned: Iterator[str]) -> GameState:
    """``state`` after ``entry``, applied through the rules without a lexicon (a logged
    placement was accepted; its words were judged then)."""
    examined = examine(state, entry.seat, _action_of(entry, returned), entry.at)
    if isinstance(examined, Refusal):
        raise ReviewUnavailableError(
            f"entry {entry.number} is refused on replay: {examined.reason.value}"
        )
    outcome = conclude(examined)
    if not isinstance(outcome, Accepted) or outcome.entry != entry:
        raise ReviewUnavailableError(f"entry {entry.number} does not replay as logged")
    return outcome.state


def _action_of(entry: LogEntry, returned: Iterator[str]) -> Action:
    match entry.kind:
        case EntryKind.PLACE:
            return Place(entry.tiles)
        case EntryKind.EXCHANGE:
            tiles = next(returned)
            if len(tiles) != entry.count:
                raise ReviewUnavailableError(
                    f"entry {entry.number} exchanged {entry.count} tiles, {len(tiles)} kept"
                )
            try:
                return Exchange(tiles)
            except MalformedActionError as e:
                raise ReviewUnavailableError(f"entry {entry.number}: {e}") from None
        case EntryKind.PASS:
            return Pass(entry.cause or PassCause.PLAYER)
