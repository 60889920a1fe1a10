"""The ``mishqaq-record/1`` of a finished game for one side (issue 26, M12).

Written from the game's :class:`~mishqaq_rules.history.History`: the Latin list, the side that
opened (the opening draw is not replayed), and every accepted placement, swap, pass and
resignation in the log's order. The side's own moves carry its rack before them in full; the
other side's never do, not even at the end (M12: a player saw only the other rack's size
during play, and the record is what they may keep).

A record cannot write the clock (pauses, the flag of M29) and its replay gives a dead position
(M35) no time, so a top-level ``ending`` states how the game really ended: ``winner``
(``latin``, ``arabic`` or null for a draw) and ``cause``, as the replay's ``result`` writes
them. The replay ignores it; it is there for the reader, and it is what a replay of a try or a
resignation reaches too (docs/records.md).

>>> from mishqaq_rules.game import play
>>> from mishqaq_rules.actions import Pass, Resign
>>> from mishqaq_rules.history import replay_history
>>> from mishqaq_rules.state import new_game
>>> game = new_game(latin="fr", seed=4, now=0.0, opening=Side.LATIN)
>>> game = play(game, Side.LATIN, Pass(), now=5.0, lexicons={}).state
>>> game = play(game, Side.LATIN, Resign(), now=9.0, lexicons={}).state
>>> record = side_record(replay_history(game), Side.ARABIC)
>>> [sorted(m) for m in record["moves"]], record["ending"]
([['pass', 'side'], ['resign', 'side']], {'winner': 'arabic', 'cause': 'resign'})
"""

from __future__ import annotations

from typing import Any

from mishqaq_rules.history import History
from mishqaq_rules.log import EntryKind, LogEntry
from mishqaq_rules.record import FORMAT
from mishqaq_rules.sides import Side
from mishqaq_rules.state import GameState

__all__ = ["side_record"]


def _tiles(entry: LogEntry) -> list[dict[str, Any]]:
    placed = []
    for t in entry.tiles:
        cell: dict[str, Any] = {"row": t.row, "col": t.col, "tile": t.tile.text}
        if t.as_letter is not None:
            cell["as"] = t.as_letter
        placed.append(cell)
    return placed


def _move(entry: LogEntry, before: GameState, side: Side) -> dict[str, Any] | None:
    """The record's entry for a log entry, or None for what a record does not hold (the
    opening, pauses, the result)."""
    mover = entry.side
    if mover is None:
        return None
    move: dict[str, Any] = {"side": mover.value}
    if mover is side:
        move["rack"] = [t.text for t in before.rack(side)]
    match entry.kind:
        case EntryKind.PLACE:
            move["place"] = _tiles(entry)
        case EntryKind.SWAP:
            tile = entry.tiles[0]
            # The tile is public (the live log showed it) and decides what the opponent may read
            # through the cell: a replay that chose another could read a different word.
            move["swap"] = {"row": tile.row, "col": tile.col, "tile": tile.tile.text}
        case EntryKind.PASS:
            move["pass"] = True
        case EntryKind.RESIGN:
            move["resign"] = True
        case _:
            return None
    return move


def side_record(history: History, side: Side) -> dict[str, Any]:
    """The record document (decoded JSON) of ``history``'s game as ``side`` may keep it."""
    final = history.steps[-1].state
    ending = final.ending
    assert ending is not None, "a history is of a finished game"
    opening = history.steps[1].entry
    assert opening is not None and opening.side is not None
    moves = []
    for previous, step in zip(history.steps, history.steps[1:], strict=False):
        if step.entry is None:
            continue
        move = _move(step.entry, previous.state, side)
        if move is not None:
            moves.append(move)
    return {
        "format": FORMAT,
        "latin": final.latin,
        "opening": opening.side.value,
        "moves": moves,
        "ending": {
            "winner": None if ending.winner is None else ending.winner.value,
            "cause": ending.cause.value,
        },
    }
