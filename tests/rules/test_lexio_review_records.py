"""A finished game's record for one seat (issue 26, record-format.md "A record downloaded by one
player"), over many random games: it replays to the game's end (R11, R30, R31, R32) and holds
nothing that seat did not see during play (R6, R27)."""

from __future__ import annotations

import contextlib
import functools
import io
import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hidden_info import strings_in
from lexio_review_games import (
    FORM_GAMES,
    WORD_GAMES,
    AcceptAll,
    French,
    PlayedGame,
    play_random_game,
    random_games,
)

from lexio_cli import main as cli
from lexio_rules import EndCause, EntryKind, GameState, Lexicon, PassCause, review
from lexio_rules.record import RecordError, parse_record, replay


def _record(game: PlayedGame, seat: int) -> dict[str, Any]:
    """The seat's record as a reader gets it: through JSON text."""
    document: dict[str, Any] = json.loads(json.dumps(review(game.final, seat, game.players).record))
    return document


@functools.cache
def _seat_records() -> tuple[tuple[PlayedGame, int, dict[str, Any]], ...]:
    """Every seat's record of every random game, made once (tests only read them)."""
    return tuple(
        (game, seat, _record(game, seat))
        for game in random_games()
        for seat in range(len(game.players))
    )


def _lexicon(game: PlayedGame) -> Lexicon:
    return French() if game.words else AcceptAll()


def test_the_random_games_reach_every_case() -> None:
    """The games are not vacuous: both endings, 2 to 4 players, exchanges, blanks, every cause
    of a pass, refusals a review never sees, and bingos."""
    seen: Counter[str] = Counter()
    games = random_games()
    assert len(games) == FORM_GAMES + WORD_GAMES
    for game in games:
        final = game.final
        assert final.ending is not None
        seen[final.ending.cause.value] += 1
        seen[f"{len(game.players)} players"] += 1
        seen["refusals"] += game.refusals
        seen["blanks"] += sum(ch.islower() for ch in final.board)
        for entry in final.log:
            seen[entry.kind.value] += 1
            seen["bingo"] += entry.bingo
            if entry.cause is not None:
                seen[entry.cause.value] += 1
    for case in (
        *(c.value for c in EndCause),
        *(f"{n} players" for n in (2, 3, 4)),
        *(k.value for k in EntryKind),
        *(c.value for c in PassCause),
        "refusals",
        "blanks",
        "bingo",
    ):
        assert seen[case] >= 5, (case, seen)


def test_r11_r30_r31_r32_each_seats_record_replays_to_the_games_end() -> None:
    """(a) lexio_rules.record.replay, which `lexio replay` runs, of every seat's record: every
    entry accepted as it was played, the same board and scores, the same ending, final scores
    and winners."""
    checked = 0
    for game, seat, document in _seat_records():
        final, ending = game.final, game.final.ending
        assert ending is not None
        result = replay(parse_record(document), _lexicon(game))
        moves = result["moves"]
        assert [m["status"] for m in moves] == ["accepted"] * len(final.log), (game.seed, seat)
        for move, entry in zip(moves, final.log, strict=True):
            assert (move["player"], move["kind"]) == (entry.seat, entry.kind.value)
            if entry.kind is EntryKind.PLACE:
                assert move["score"] == entry.score
                assert [w["word"] for w in move["words"]] == [w.word for w in entry.words]
            if entry.kind is EntryKind.EXCHANGE:
                assert move["count"] == entry.count
        assert "".join(result["board"]) == final.board
        assert result["scores"] == list(final.scores)
        assert result["ended"] is True
        assert result["final_scores"] == list(ending.final_scores)
        assert result["winners"] == list(ending.winners)
        checked += 1
    assert checked == sum(len(g.players) for g in random_games())


def _public_reveals(final: GameState) -> set[tuple[int, str]]:
    """Racks a seat placed whole (its next placement used every tile): the board shows them."""
    shown: set[tuple[int, str]] = set()
    for entry in final.log:
        if entry.kind is EntryKind.PLACE:
            shown.add((entry.seat, "".join(sorted(t.rack_tile for t in entry.tiles))))
    return shown


def test_r6_r27_a_seats_record_holds_no_other_rack_nor_other_exchanged_tiles() -> None:
    """(b) The hidden-information method: every other seat's rack at every step before the
    end and every other seat's exchanged tiles, taken from the truth, are looked for in the
    record's strings (the reveal, final_racks, left out); none is there. Only the seat's own
    moves carry a rack or exchanged tiles, and those are its truth in full."""
    secrets_checked = 0
    for game, seat, document in _seat_records():
        final = game.final
        reveals = _public_reveals(final)
        own: set[str] = set()
        theirs: set[str] = set()
        for state in game.states[:-1]:
            for other, rack in enumerate(state.racks):
                if other == seat:
                    own.add(rack)
                elif len(rack) >= 3 and (other, "".join(sorted(rack))) not in reveals:
                    theirs.add(rack)
        exchanges = [e for e in final.log if e.kind is EntryKind.EXCHANGE]
        for entry, tiles in zip(exchanges, final.exchanged, strict=True):
            (own if entry.seat == seat else theirs).add(tiles)
        secrets = {s for s in theirs if s not in own}
        # Any string may hold a rack; only the rack and exchange fields could hold short
        # ones (a placed word of two or three letters matching a rack is the board's news).
        values = strings_in({k: v for k, v in document.items() if k != "final_racks"})
        assert not {s for s in secrets if len(s) >= 4}.intersection(values), (game.seed, seat)
        rack_like = [
            v
            for m in document["moves"]
            for k in ("rack", "exchange")
            if isinstance(v := m.get(k), str)
        ]
        assert not secrets.intersection(rack_like), (game.seed, seat)
        for move in document["moves"]:
            if move["player"] != seat:
                assert "rack" not in move
                assert not isinstance(move.get("exchange", 0), str)
        # The rack and exchange fields hold the seat's own truth, in full, and nothing else.
        returned = iter(final.exchanged)
        for before, entry, move in zip(game.states[:-1], final.log, document["moves"], strict=True):
            given = next(returned) if entry.kind is EntryKind.EXCHANGE else None
            if entry.seat == seat:
                assert move["rack"] == before.racks[seat]
                assert move.get("exchange") == given
        secrets_checked += len(secrets)
    assert secrets_checked > 10_000


def test_r30_a_record_of_an_emptied_rack_ends_with_bag_0_and_the_reveal() -> None:
    for game, _seat, document in _seat_records():
        ending = game.final.ending
        assert ending is not None
        assert document["final_racks"] == list(ending.racks)
        with_bag = [i for i, m in enumerate(document["moves"]) if "bag" in m]
        if ending.cause is EndCause.RACK_EMPTIED:
            assert with_bag == [len(document["moves"]) - 1]
            assert document["moves"][-1]["bag"] == 0
            assert document["final_racks"][document["moves"][-1]["player"]] == ""
        else:
            assert with_bag == []


@pytest.mark.parametrize("players", [2, 4])
def test_record_sizes_stay_small(players: int) -> None:
    """A whole game's record for one seat is a few kilobytes (compact JSON, as the engine
    sends it)."""
    sizes = [
        len(json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode())
        for game, _seat, document in _seat_records()
        if len(game.players) == players
    ]
    assert sizes
    assert max(sizes) < 16_000


# lexio_rules.record: exchanges by count, the form a record takes for another seat (R27).


def _doc(moves: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"format": "lexio-record/1", "players": ["Ana", "Bruno"], "moves": moves, **extra}


def test_r27_an_exchange_by_count_replays_as_an_exchange_of_that_many_tiles() -> None:
    result = replay(
        parse_record(
            _doc(
                [
                    {"player": 0, "exchange": 3},
                    {"player": 1, "rack": "OSEEEEE", "exchange": "OS"},
                    {"player": 0, "exchange": 7},
                ]
            )
        ),
        AcceptAll(),
    )
    assert [(m["status"], m["kind"], m.get("count")) for m in result["moves"]] == [
        ("accepted", "exchange", 3),
        ("accepted", "exchange", 2),
        ("accepted", "exchange", 7),
    ]


def test_r27_after_an_exchange_by_count_that_players_racks_are_not_checked() -> None:
    """The replay no longer knows which tiles that player holds: a recorded rack that lacks
    the tiles placed is not held against it (record-format.md)."""
    moves: list[dict[str, Any]] = [
        {"player": 0, "exchange": 2},
        {"player": 1, "pass": True},
        {
            "player": 0,
            "rack": "EEEEEEE",
            "place": {"row": 6, "col": 5, "dir": "across", "word": "OS"},
        },
    ]
    result = replay(parse_record(_doc(moves)), AcceptAll())
    assert result["moves"][2]["status"] == "accepted"
    # Without the exchange by count the same rack is checked.
    alone = replay(parse_record(_doc([moves[2]])), AcceptAll())
    assert alone["moves"][0]["reason"] == "tiles_not_in_rack"


def test_r26_an_exchange_by_count_of_more_than_a_rack_or_the_bag_is_refused() -> None:
    result = replay(
        parse_record(_doc([{"player": 0, "exchange": 8}, {"player": 0, "exchange": 2, "bag": 1}])),
        AcceptAll(),
    )
    assert [m.get("reason") for m in result["moves"]] == ["too_many_tiles", "bag_too_small"]


@pytest.mark.parametrize("count", [0, -2, True, 2.0])
def test_an_exchange_count_must_be_a_positive_integer(count: Any) -> None:
    with pytest.raises(RecordError):
        parse_record(_doc([{"player": 0, "exchange": count}]))


# --- each seat's downloaded record through `lexio replay` (issue 36) ---------------------------

SLOW_FORM_GAMES = range(FORM_GAMES, FORM_GAMES + 240)
"""The slow suite's games of legal form: seeds after the default run's, so the two add up."""


def _lexio_replay(record: dict[str, Any], path: Path) -> dict[str, Any]:
    """``lexio replay`` (its ``main``, in this process) of ``record`` written to ``path``."""
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status = cli.main(["replay", str(path)])
    assert status == 0, (status, record)
    result: dict[str, Any] = json.loads(printed.getvalue())
    return result


def _as_downloaded(game: PlayedGame, seat: int) -> dict[str, Any]:
    """The seat's record as the review route serves it, with, for a game of legal form, the
    words its table accepted as the record's ``lexicon`` (any other word is then refused); a
    game of French words replays on the shipped list, as a player's download would."""
    document = _record(game, seat)
    if not game.words:
        document["lexicon"] = sorted({w.word for e in game.final.log for w in e.words})
    return document


def check_downloaded_records_replay(games: Iterable[PlayedGame], tmp_path: Path) -> int:
    """Every seat's record of every game: every entry accepted, the live board, scores, end,
    final scores and winners. Returns how many records it replayed."""
    replayed = 0
    for game in games:
        final, ending = game.final, game.final.ending
        assert ending is not None
        for seat in range(len(game.players)):
            result = _lexio_replay(_as_downloaded(game, seat), tmp_path / "record.json")
            where = (game.seed, game.words, seat)
            assert [m["status"] for m in result["moves"]] == ["accepted"] * len(final.log), where
            assert "".join(result["board"]) == final.board, where
            assert result["scores"] == list(final.scores), where
            assert result["ended"] is True, where
            assert result["final_scores"] == list(ending.final_scores), where
            assert result["winners"] == list(ending.winners), where
            replayed += 1
    return replayed


def test_r11_r30_r31_r32_each_seats_downloaded_record_replays_with_lexio_replay(
    tmp_path: Path,
) -> None:
    """The default run's games (:func:`random_games`), each seat's record through the command."""
    assert check_downloaded_records_replay(random_games(), tmp_path) == sum(
        len(g.players) for g in random_games()
    )


@pytest.mark.slow
def test_r11_r30_r31_r32_two_hundred_more_games_records_replay_with_lexio_replay(
    tmp_path: Path,
) -> None:
    games = [play_random_game(seed) for seed in SLOW_FORM_GAMES]
    assert len(games) >= 200
    assert check_downloaded_records_replay(games, tmp_path) >= 2 * len(games)
