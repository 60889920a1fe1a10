"""Deciding and applying actions: "is it legal?" apart from "apply it".

A turn goes in two steps so that the lexicon, which may live in another process, is consulted
between them and only for a placement whose form is legal:

1. :func:`examine` checks turn, form (R12–R14), rack and reserve (R20) — no lexicon.
2. :func:`conclude` takes the lexicon's answer (the unknown words) and applies the action.

:func:`play` does both with a local lexicon.

>>> from lexio_rules.state import new_game
>>> game = new_game(2, seed=1, now=0.0)
>>> outcome = play(game, 0, Pass(), now=1.0, lexicon=WordSet(()))
>>> outcome.accepted, outcome.state.turn, outcome.state.log[0].kind.value
(True, 1, 'pass')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from lexio_rules.actions import Action, Exchange, Pass, Place
from lexio_rules.placement import FormedMove, form_move
from lexio_rules.reasons import Reason
from lexio_rules.state import EndCause, Ending, EntryKind, GameState, LogEntry, WordScore, shuffled
from lexio_rules.tiles import RACK_SIZE, contains_tiles, rack_value, remove_tiles
from rules_core import lexicon as _lexicon

_T = TypeVar("_T")

# The lexicon as every game's rules see it: rules_core's, under this module's names too.
Lexicon = _lexicon.Lexicon
WordSet = _lexicon.WordSet


@dataclass(frozen=True, slots=True)
class Refusal:
    reason: Reason
    unknown_words: tuple[str, ...] = ()
    """For ``UNKNOWN_WORDS``: every refused word, main word first (R19)."""


@dataclass(frozen=True, slots=True)
class Examined:
    """An action that passed every check but the lexicon."""

    state: GameState
    seat: int
    action: Action
    now: float
    move: FormedMove | None = None

    @property
    def words_to_check(self) -> tuple[str, ...]:
        """The words the lexicon must know, main word first; none for an exchange or a pass."""
        if self.move is None:
            return ()
        return tuple(w.word for w in self.move.words)


@dataclass(frozen=True, slots=True)
class Accepted:
    state: GameState
    entry: LogEntry
    accepted = True


@dataclass(frozen=True, slots=True)
class Refused:
    """Nothing changed, except a try of the reserve after a refusal for unknown words (R20)."""

    state: GameState
    refusal: Refusal
    accepted = False


Outcome = Accepted | Refused


def examine(state: GameState, seat: int, action: Action, now: float) -> Examined | Refusal:
    """Every check that needs no lexicon, in the precedence order of record-format.md."""
    state.check_seat(seat)
    if state.over:
        return Refusal(Reason.GAME_OVER)
    if seat != state.turn:
        return Refusal(Reason.NOT_YOUR_TURN)
    match action:
        case Place():
            formed = form_move(state.board, state.racks[seat], action)
            if isinstance(formed, Reason):
                return Refusal(formed)
            if state.reserves[seat].available(now) <= 0:
                return Refusal(Reason.RESERVE_EMPTY)
            return Examined(state, seat, action, now, formed)
        case Exchange(tiles=tiles):
            if not contains_tiles(state.racks[seat], tiles):
                return Refusal(Reason.TILES_NOT_IN_RACK)
            if len(state.bag) < len(tiles):
                return Refusal(Reason.BAG_TOO_SMALL)
            return Examined(state, seat, action, now)
        case Pass():
            return Examined(state, seat, action, now)


def preview(state: GameState, seat: int, place: Place) -> FormedMove | Reason:
    """R25: what the placement would score, if its form holds. Never consults the lexicon,
    never the reserve, and promises nothing about acceptance."""
    state.check_seat(seat)
    if state.over:
        return Reason.GAME_OVER
    return form_move(state.board, state.racks[seat], place)


def conclude(examined: Examined, unknown: Iterable[str] = ()) -> Outcome:
    """Apply an examined action, given the words of its move that the lexicon does not know."""
    state, seat, now = examined.state, examined.seat, examined.now
    # R19 names the refused words in the move's order (main word first), whatever order the
    # lexicon answered in.
    unknown_set = frozenset(unknown)
    refused_words = tuple(dict.fromkeys(w for w in examined.words_to_check if w in unknown_set))
    if refused_words:
        reserves = list(state.reserves)
        reserves[seat] = reserves[seat].spend(now)
        spent = replace(state, reserves=tuple(reserves))
        return Refused(spent, Refusal(Reason.UNKNOWN_WORDS, refused_words))
    match examined.action:
        case Place():
            assert examined.move is not None
            return _apply_place(state, seat, examined.move, now)
        case Exchange(tiles=tiles):
            return _apply_exchange(state, seat, tiles, now)
        case Pass(cause=cause):
            entry = LogEntry(state.next_entry_number, seat, EntryKind.PASS, now, cause=cause)
            return _without_placement(state, entry, state.racks, state.bag, state.shuffles)


def play(state: GameState, seat: int, action: Action, now: float, lexicon: Lexicon) -> Outcome:
    """Examine, consult ``lexicon`` for a legal placement's words, conclude."""
    examined = examine(state, seat, action, now)
    if isinstance(examined, Refusal):
        return Refused(state, examined)
    words = examined.words_to_check
    return conclude(examined, lexicon.unknown(words) if words else ())


def _apply_place(state: GameState, seat: int, move: FormedMove, now: float) -> Accepted:
    rack = remove_tiles(state.racks[seat], (t.rack_tile for t in move.tiles))
    drawn = state.bag[: RACK_SIZE - len(rack)]  # R16
    rack += drawn
    racks = _with(state.racks, seat, rack)
    scores = _with(state.scores, seat, state.scores[seat] + move.score)
    entry = LogEntry(
        number=state.next_entry_number,
        seat=seat,
        kind=EntryKind.PLACE,
        at=now,
        words=tuple(WordScore(w.word, w.score, w.row, w.col, w.across) for w in move.words),
        tiles=move.tiles,
        score=move.score,
        bingo=move.bingo,
    )
    after = replace(
        state,
        board=move.board,
        racks=racks,
        bag=state.bag[len(drawn) :],
        scores=scores,
        turns_without_placement=0,
        log=(*state.log, entry),
    )
    if not rack:  # R30: the last tile placed with the bag empty.
        return Accepted(_ended(after, EndCause.RACK_EMPTIED, finisher=seat), entry)
    return Accepted(_next_turn(after, now), entry)


def _apply_exchange(state: GameState, seat: int, tiles: str, now: float) -> Accepted:
    # R26: draw first, then the returned tiles go back and the bag is reshuffled.
    drawn = state.bag[: len(tiles)]
    rack = remove_tiles(state.racks[seat], tiles) + drawn
    shuffles = state.shuffles + 1
    bag = shuffled(state.bag[len(tiles) :] + tiles, state.seed, shuffles)
    entry = LogEntry(state.next_entry_number, seat, EntryKind.EXCHANGE, now, count=len(tiles))
    kept = replace(state, exchanged=(*state.exchanged, tiles))
    return _without_placement(kept, entry, _with(state.racks, seat, rack), bag, shuffles)


def _without_placement(
    state: GameState, entry: LogEntry, racks: tuple[str, ...], bag: str, shuffles: int
) -> Accepted:
    after = replace(
        state,
        racks=racks,
        bag=bag,
        shuffles=shuffles,
        turns_without_placement=state.turns_without_placement + 1,
        log=(*state.log, entry),
    )
    if after.turns_without_placement >= 2 * state.players:  # R31
        return Accepted(_ended(after, EndCause.NO_PLACEMENT, finisher=None), entry)
    return Accepted(_next_turn(after, entry.at), entry)


def _next_turn(state: GameState, now: float) -> GameState:
    return replace(state, turn=(state.turn + 1) % state.players, turn_started_at=now)


def _ended(state: GameState, cause: EndCause, finisher: int | None) -> GameState:
    return replace(state, ending=final_reckoning(state.scores, state.racks, cause, finisher))


def final_reckoning(
    scores: Sequence[int], racks: Sequence[str], cause: EndCause, finisher: int | None
) -> Ending:
    """R30–R32: everyone loses what their rack is worth (a blank costs nothing); after R30 the
    finisher also gains what the others hold. Highest score wins; a tie shares the victory.

    >>> final_reckoning([10, 8], ["", "KE"], EndCause.RACK_EMPTIED, 0).final_scores
    (21, -3)
    """
    lost = [rack_value(r) for r in racks]
    adjustments = [-v for v in lost]
    if finisher is not None:
        adjustments[finisher] += sum(v for i, v in enumerate(lost) if i != finisher)
    final = tuple(s + a for s, a in zip(scores, adjustments, strict=True))
    best = max(final)
    return Ending(
        cause=cause,
        finisher=finisher,
        adjustments=tuple(adjustments),
        final_scores=final,
        winners=tuple(i for i, s in enumerate(final) if s == best),
        racks=tuple(racks),
    )


def _with(values: tuple[_T, ...], i: int, value: _T) -> tuple[_T, ...]:
    return (*values[:i], value, *values[i + 1 :])
