"""Deciding actions: "is it legal?" apart from "apply it".

A placement goes in two steps so that the lexicon, which may live in another process, is
consulted between them and only for a placement whose form is legal:

1. :func:`examine` checks the game's end and the flag, the turn, the pause, the form
   (M14, M17–M21), the rack and the reserve (M24) — no lexicon. What the lexicon must then
   judge is :attr:`Examined.readings`, in the list :attr:`Examined.lexicon`: every reading of
   every word (each word's own in ``Examined.move.words``).
2. :func:`conclude` takes the readings the lexicon does not know and applies the action.

:func:`play` does both with local lexicons.

>>> from mishqaq_rules.state import new_game
>>> game = new_game(latin="fr", seed=1, now=0.0, opening=Side.LATIN)
>>> outcome = play(game, Side.LATIN, Pass(), now=4.0, lexicons={})
>>> outcome.accepted, outcome.state.turn, outcome.entry.kind.value, outcome.entry.count
(True, <Side.ARABIC: 'arabic'>, 'pass', 3)
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from mishqaq_rules import transitions
from mishqaq_rules.actions import Action, Pass, Pause, Place, Resign, Resume, Swap, Timeout
from mishqaq_rules.board import on_board
from mishqaq_rules.log import EntryKind, LogEntry, WordPlay
from mishqaq_rules.placement import FormedMove, FormedWord, form_move
from mishqaq_rules.reasons import ClockRefusal, LexiconUnavailableError, Reason
from mishqaq_rules.sides import Side, with_side
from mishqaq_rules.state import GameState
from mishqaq_rules.tiles import Tile
from rules_core.lexicon import Lexicon, WordSet

__all__ = [
    "Accepted",
    "Examined",
    "Lexicon",
    "Outcome",
    "Refusal",
    "Refused",
    "WordSet",
    "conclude",
    "examine",
    "play",
]


@dataclass(frozen=True, slots=True)
class Refusal:
    reason: Reason | ClockRefusal
    unknown_words: tuple[str, ...] = ()
    """For ``UNKNOWN_WORDS``: every unknown word, main word first, a column top→bottom."""
    flagged: GameState | None = None
    """The action came at or after the mover's flag instant (M29): the game is over by flag,
    and this is the state that records it, to keep although the action is refused."""


@dataclass(frozen=True, slots=True)
class Examined:
    """An action that passed every check but the lexicon."""

    state: GameState
    side: Side
    action: Action
    now: float
    move: FormedMove | None = None
    swap_tile: Tile | None = None
    """For a swap: the rack tile that takes the blank's place."""

    @property
    def lexicon(self) -> str | None:
        """The list that judges this action's words (M22); None when there are none."""
        return None if self.move is None else self.state.lexicon_for(self.side)

    @property
    def readings(self) -> tuple[str, ...]:
        """Every reading of every word, each once: one batched look-up in :attr:`lexicon`."""
        if self.move is None:
            return ()
        return tuple(dict.fromkeys(r for w in self.move.words for r in w.readings))


@dataclass(frozen=True, slots=True)
class Accepted:
    state: GameState
    entries: tuple[LogEntry, ...]
    """The log entries this action added, in order (a pause's end, the action's, a result)."""
    accepted = True

    @property
    def entry(self) -> LogEntry:
        """The action's own entry (for a flag, the result)."""
        return next(e for e in self.entries if e.kind is not EntryKind.PAUSE_EXPIRED)


@dataclass(frozen=True, slots=True)
class Refused:
    """Nothing changed, except a try of the reserve after unknown words (M24) or the end by
    flag recorded (M29): then ``state_changed`` is true and ``state`` must be kept."""

    state: GameState
    refusal: Refusal
    state_changed: bool = False
    accepted = False

    @classmethod
    def of(cls, state: GameState, refusal: Refusal) -> Refused:
        """The outcome of a refusal from :func:`examine` of an action on ``state``."""
        if refusal.flagged is not None:
            return cls(refusal.flagged, refusal, True)
        return cls(state, refusal)


Outcome = Accepted | Refused


def examine(state: GameState, side: Side, action: Action, now: float) -> Examined | Refusal:
    """Every check that needs no lexicon: the game's end (a fallen flag included), the clock,
    the turn, then the record format's precedence for a placement or a swap."""
    if state.ending is not None:
        return Refusal(Reason.GAME_OVER)
    clock = state.clock
    if now >= clock.flag_at(state.turn):
        if isinstance(action, Timeout):
            return Examined(state, side, action, now)
        return Refusal(Reason.GAME_OVER, flagged=transitions.flag_fall(state))
    match action:
        case Resign():
            return Examined(state, side, action, now)
        case Pause():
            if clock.paused_at(now):
                return Refusal(ClockRefusal.ALREADY_PAUSED)
            if clock.pauses_left[side.index] <= 0:
                return Refusal(ClockRefusal.NO_PAUSE_LEFT)
            return Examined(state, side, action, now)
        case Resume():
            if not clock.paused_at(now):
                return Refusal(ClockRefusal.NOT_PAUSED)
            assert clock.pause is not None
            if clock.pause.by is not side:
                return Refusal(ClockRefusal.NOT_THE_PAUSER)
            return Examined(state, side, action, now)
        case Timeout():
            return Refusal(ClockRefusal.FLAG_NOT_FALLEN)
    if side is not state.turn:
        return Refusal(Reason.NOT_YOUR_TURN)
    if clock.paused_at(now):
        return Refusal(ClockRefusal.PAUSED)
    match action:
        case Place():
            formed = form_move(state.board, side, state.rack(side), action)
            if isinstance(formed, Reason):
                return Refusal(formed)
            if state.reserves[side.index].available(now) <= 0:
                return Refusal(Reason.RESERVE_EMPTY)
            return Examined(state, side, action, now, move=formed)
        case Swap():
            tile = _swap_tile(state, side, action)
            if tile is None:
                return Refusal(Reason.SWAP_INVALID)
            return Examined(state, side, action, now, swap_tile=tile)
        case Pass():
            return Examined(state, side, action, now)


def _swap_tile(state: GameState, side: Side, swap: Swap) -> Tile | None:
    """M27: the rack tile that may take the place of ``side``'s blank at the swap's cell."""
    if not on_board(swap.row, swap.col):
        return None
    cell = state.board.at(swap.row, swap.col)
    if cell is None or cell.owner is not side or not cell.tile.blank:
        return None
    rack = state.rack(side)
    if swap.tile is not None:
        fits = swap.tile in rack and swap.tile.letter == cell.as_letter
        return swap.tile if fits else None
    fitting = [t for t in rack if t.letter == cell.as_letter]
    # A monolingual tile keeps the cell closed to the opponent, as the blank kept it.
    fitting.sort(key=lambda t: t.bilingual)
    return fitting[0] if fitting else None


def conclude(
    examined: Examined,
    unknown: Collection[str] = (),
    spellings: Mapping[str, Sequence[str]] | None = None,
) -> Outcome:
    """Apply an examined action, given the readings its words' lexicon does not know.

    ``spellings``, when given, maps accepted readings to their dictionary spellings; they go
    into the log entry (M37). A word is refused when none of its readings is known (M20).
    """
    state, side, now, action = examined.state, examined.side, examined.now, examined.action
    move = examined.move
    if move is not None:
        unknown_set = frozenset(unknown)
        refused = tuple(
            dict.fromkeys(
                w.readings[0] for w in move.words if all(r in unknown_set for r in w.readings)
            )
        )
        if refused:
            reserve = state.reserves[side.index].spend(now)
            spent = replace(state, reserves=with_side(state.reserves, side, reserve))
            return Refused(spent, Refusal(Reason.UNKNOWN_WORDS, refused), state_changed=True)
        words = tuple(_word_play(w, side, unknown_set, spellings) for w in move.words)
        after = transitions.place(state, side, move, words, now)
    else:
        match action:
            case Pass():
                after = transitions.pass_turn(state, side, now)
            case Swap(row=row, col=col):
                assert examined.swap_tile is not None
                after = transitions.swap(state, side, (row, col), examined.swap_tile, now)
            case Resign():
                after = transitions.resign(state, side, now)
            case Pause():
                after = transitions.pause(state, side, now)
            case Resume():
                after = transitions.resume(state, side, now)
            case Timeout():
                after = transitions.flag_fall(state)
            case Place():
                raise AssertionError("a placement is examined with its move")
    return Accepted(after, after.log[len(state.log) :])


def _word_play(
    word: FormedWord,
    side: Side,
    unknown: frozenset[str],
    spellings: Mapping[str, Sequence[str]] | None,
) -> WordPlay:
    """The word as the log keeps it: the first reading that is known (top→bottom if both)."""
    reading = next(i for i, r in enumerate(word.readings) if r not in unknown)
    text = word.readings[reading]
    row, col = word.first_cell(reading, side)
    found = tuple(spellings.get(text, ())) if spellings is not None else ()
    return WordPlay(text, word.direction(reading), side, row, col, found)


def play(
    state: GameState, side: Side, action: Action, now: float, lexicons: Mapping[str, Lexicon]
) -> Outcome:
    """Examine, ask the mover's lexicon (``lexicons`` by list id: fr, en, ar) about a legal
    placement's readings in one call, conclude."""
    examined = examine(state, side, action, now)
    if isinstance(examined, Refusal):
        return Refused.of(state, examined)
    if examined.lexicon is None:
        return conclude(examined)
    lexicon = lexicons.get(examined.lexicon)
    if lexicon is None:
        raise LexiconUnavailableError(f"no lexicon {examined.lexicon!r} at this table")
    return conclude(examined, lexicon.unknown(examined.readings))
