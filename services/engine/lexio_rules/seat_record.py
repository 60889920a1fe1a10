"""The ``lexio-record/1`` document of a finished game for one seat (record-format.md, "A record
downloaded by one player").

It holds what that seat saw during play and nothing more: its own rack before each of its
entries and the tiles of its exchanges; for everyone else, their placements (public: the
board shows them, R11) without any rack and their exchanges as counts (R27); the racks of
every seat only in ``final_racks``, the end-of-game reveal (R32). A game ended by R30 carries
``"bag": 0`` on its last entry, whose player's final rack is empty. ``lexio replay`` of the
document reaches the game's final scores, winners and ending.

>>> from lexio_rules.actions import Exchange, Pass
>>> from lexio_rules.game import WordSet, play
>>> from lexio_rules.history import replay_history
>>> from lexio_rules.state import new_game
>>> game = new_game(2, seed=4, now=0.0)
>>> game = play(game, 0, Exchange(game.racks[0][:2]), now=1.0, lexicon=WordSet(())).state
>>> for now in range(2, 5):  # three passes: R31 ends the game
...     game = play(game, game.turn, Pass(), now=float(now), lexicon=WordSet(())).state
>>> record = seat_record(replay_history(game), 1, ["Ana", "Bruno"])
>>> record["moves"][:2]  # Ana's exchange as a count; Bruno's own rack
[{'player': 0, 'exchange': 2}, {'player': 1, 'rack': 'VNNRREU', 'pass': True}]
>>> record["final_racks"] == list(game.racks)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from lexio_rules.board import index
from lexio_rules.history import History
from lexio_rules.reasons import GameNotOverError, InvalidSeatError
from lexio_rules.record import FORMAT
from lexio_rules.state import EndCause, EntryKind, GameState, LogEntry

__all__ = ["seat_record"]


def seat_record(history: History, seat: int, players: Sequence[str]) -> dict[str, Any]:
    """The record of ``history``'s game for ``seat``, as a JSON-ready document; ``players``
    are the names in seat order. :class:`GameNotOverError` before the end: only a finished
    game has a record."""
    final = history.final
    final.check_seat(seat)
    if len(players) != final.players or not all(isinstance(p, str) for p in players):
        raise InvalidSeatError(f"{len(players)} names given for a game of {final.players}")
    if final.ending is None:
        raise GameNotOverError("the game has not ended")
    moves = [_move(before, after, seat) for before, after in pairwise(history.states)]
    if final.ending.cause is EndCause.RACK_EMPTIED:
        moves[-1]["bag"] = 0  # R30: the replay sees the last tile placed with the bag empty.
    return {
        "format": FORMAT,
        "players": list(players),
        "moves": moves,
        "final_racks": list(final.ending.racks),
    }


def _move(before: GameState, after: GameState, seat: int) -> dict[str, Any]:
    entry = after.log[-1]
    mine = entry.seat == seat
    move: dict[str, Any] = {"player": entry.seat}
    if mine:
        move["rack"] = before.racks[seat]
    match entry.kind:
        case EntryKind.PLACE:
            move["place"] = _placement(before.board, entry)
        case EntryKind.EXCHANGE:
            # R27: the table saw how many tiles, never which; the seat knows its own.
            move["exchange"] = after.exchanged[-1] if mine else entry.count
        case EntryKind.PASS:
            move["pass"] = True
    return move


def _placement(board: str, entry: LogEntry) -> dict[str, Any]:
    """The entry's main word as the record writes it: from its first letter to its last, a
    lower-case letter for a blank newly placed, the letters already on ``board`` as they are
    (upper case)."""
    main = entry.words[0]
    new = {(t.row, t.col): t.board_char for t in entry.tiles}
    dr, dc = (0, 1) if main.across else (1, 0)
    cells = [(main.row + i * dr, main.col + i * dc) for i in range(len(main.word))]
    word = "".join(new.get((r, c)) or board[index(r, c)].upper() for r, c in cells)
    direction = "across" if main.across else "down"
    return {"row": main.row, "col": main.col, "dir": direction, "word": word}
