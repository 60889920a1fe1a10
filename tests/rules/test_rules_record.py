"""The game record lexio-record/1 and its replay (record-format.md)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from lexio_rules.game import WordSet
from lexio_rules.record import Record, RecordError, parse_record, replay

EXAMPLE_INPUT: dict[str, Any] = json.loads(
    """
{
  "format": "lexio-record/1",
  "players": ["Ana", "Bruno"],
  "lexicon": ["TABLE", "BLE", "ETE", "EUT"],
  "moves": [
  {"player": 0, "rack": "TABLEUS", "place": {"row": 6, "col": 2, "dir": "across", "word": "TABLE"}},
  {"player": 1, "rack": "?LEEZWK", "place": {"row": 4, "col": 6, "dir": "down",   "word": "ZOO"}},
  {"player": 1, "rack": "?LEEZWK", "place": {"row": 4, "col": 6, "dir": "down",   "word": "bLE"}},
  {"player": 0, "exchange": "US"},
  {"player": 1, "pass": true}
  ]
}
"""
)

# The example output of record-format.md, with the board rows it abbreviates written out.
EXAMPLE_OUTPUT = {
    "moves": [
        {"index": 0, "player": 0, "status": "accepted", "kind": "place",
         "words": [{"word": "TABLE", "score": 7}], "bingo": False, "score": 7},
        {"index": 1, "player": 1, "status": "refused", "kind": "place",
         "reason": "occupied_mismatch"},
        {"index": 2, "player": 1, "status": "accepted", "kind": "place",
         "words": [{"word": "BLE", "score": 2}], "bingo": False, "score": 2},
        {"index": 3, "player": 0, "status": "accepted", "kind": "exchange", "count": 2},
        {"index": 4, "player": 1, "status": "accepted", "kind": "pass"},
    ],
    "scores": [7, 2],
    "board": [
        "##.........##",
        "##.........##",
        ".............",
        ".............",
        "......b......",
        "......L......",
        "..TABLE......",
        ".............",
        ".............",
        ".............",
        ".............",
        "##.........##",
        "##.........##",
    ],
}  # fmt: skip


def run(document: dict[str, Any], lexicon: list[str] | None = None) -> dict[str, Any]:
    record = parse_record(document)
    words = lexicon if lexicon is not None else list(record.lexicon or ())
    return replay(record, WordSet(words))


def doc(moves: list[dict[str, Any]], players: int = 2, **extra: Any) -> dict[str, Any]:
    return {
        "format": "lexio-record/1",
        "players": ["Ana", "Bruno", "Chloé", "Driss"][:players],
        "moves": moves,
        **extra,
    }


def place(
    player: int, row: int, col: int, direction: str, word: str, **extra: Any
) -> dict[str, Any]:
    return {
        "player": player,
        "place": {"row": row, "col": col, "dir": direction, "word": word},
        **extra,
    }


def test_record_example_reproduces_the_documented_output_exactly() -> None:
    result = run(EXAMPLE_INPUT)
    assert result == EXAMPLE_OUTPUT
    # And it is plain JSON.
    assert json.loads(json.dumps(result)) == EXAMPLE_OUTPUT


def test_record_parse_reads_the_example() -> None:
    record = parse_record(EXAMPLE_INPUT)
    assert isinstance(record, Record)
    assert record.players == ("Ana", "Bruno")
    assert record.lexicon == ("TABLE", "BLE", "ETE", "EUT")
    assert [m.kind for m in record.moves] == ["place", "place", "place", "exchange", "pass"]
    assert record.moves[0].rack == "TABLEUS"
    assert record.moves[3].exchange == "US"
    assert record.moves[3].rack is None


def test_record_r19_unknown_words_every_word_main_first() -> None:
    moves = [
        place(0, 6, 2, "across", "TABLE", rack="TABLEUS"),
        place(1, 7, 3, "across", "SI", rack="SIEEEEE"),
    ]
    result = run(doc(moves), lexicon=["TABLE"])
    assert result["moves"][1] == {
        "index": 1,
        "player": 1,
        "status": "refused",
        "kind": "place",
        "reason": "unknown_words",
        "unknown_words": ["SI", "AS", "BI"],
    }
    assert result["scores"] == [7, 0]


def test_record_r14_accepted_move_lists_every_word_with_its_score() -> None:
    moves = [
        place(0, 6, 2, "across", "TABLE", rack="TABLEUS"),
        place(1, 7, 3, "across", "SI", rack="SIEEEEE"),
    ]
    result = run(doc(moves), lexicon=["TABLE", "SI", "AS", "BI"])
    assert result["moves"][1] == {
        "index": 1,
        "player": 1,
        "status": "accepted",
        "kind": "place",
        "words": [
            {"word": "SI", "score": 4},
            {"word": "AS", "score": 2},
            {"word": "BI", "score": 6},
        ],
        "bingo": False,
        "score": 12,
    }
    assert result["scores"] == [7, 12]


def test_record_r24_bingo_flag_and_bonus() -> None:
    moves = [place(0, 6, 0, "across", "ABCDEFG", rack="ABCDEFG")]
    result = run(doc(moves), lexicon=["ABCDEFG"])
    assert result["moves"][0]["bingo"] is True
    assert result["moves"][0]["score"] == 16 + 30
    assert result["scores"] == [46, 0]


def test_record_r19_a_refused_move_changes_nothing_and_the_player_retries() -> None:
    moves = [
        place(0, 6, 5, "across", "OS", rack="OSEEEEE"),
        place(0, 6, 5, "across", "OS", rack="OSEEEEE"),
    ]
    result = run(doc(moves), lexicon=[])
    assert [m["reason"] for m in result["moves"]] == ["unknown_words", "unknown_words"]
    assert result["board"][6] == "............."
    assert result["scores"] == [0, 0]


def test_record_r20_eleventh_unknown_words_refusal_is_reserve_empty() -> None:
    moves = [place(0, 6, 5, "across", "OS", rack="OSEEEEE") for _ in range(12)]
    result = run(doc(moves), lexicon=[])
    reasons = [m["reason"] for m in result["moves"]]
    assert reasons == ["unknown_words"] * 10 + ["reserve_empty"] * 2
    assert result["moves"][9]["unknown_words"] == ["OS"]
    assert "unknown_words" not in result["moves"][10]


def test_record_r20_reserve_empty_even_for_a_valid_word() -> None:
    moves = [place(0, 6, 5, "across", "SO", rack="OSEEEEE") for _ in range(10)]
    moves.append(place(0, 6, 5, "across", "OS", rack="OSEEEEE"))
    result = run(doc(moves), lexicon=["OS"])
    assert result["moves"][10]["reason"] == "reserve_empty"


def test_record_r20_form_refusals_do_not_use_the_reserve() -> None:
    moves = [place(0, 6, 3, "across", "OS", rack="OSEEEEE") for _ in range(15)]
    moves.append(place(0, 6, 5, "across", "OS", rack="OSEEEEE"))
    result = run(doc(moves), lexicon=["OS"])
    assert [m["reason"] for m in result["moves"][:15]] == ["first_move_off_source"] * 15
    assert result["moves"][15]["status"] == "accepted"


def test_record_r10_not_your_turn() -> None:
    moves = [
        {"player": 1, "pass": True},
        {"player": 0, "pass": True},
        {"player": 0, "pass": True},
    ]
    result = run(doc(moves))
    assert [(m["status"], m.get("reason")) for m in result["moves"]] == [
        ("refused", "not_your_turn"),
        ("accepted", None),
        ("refused", "not_your_turn"),
    ]


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        (place(0, 6, 11, "across", "OSE", rack="OSEEEEE"), "off_board"),  # past the edge
        (place(0, 0, 1, "down", "OSE", rack="OSEEEEE"), "off_board"),  # starts on a wall
        (place(0, 6, 6, "across", "QZ", rack="OSEEEEE"), "tiles_not_in_rack"),
        (place(0, 6, 4, "across", "OS", rack="OSEEEEE"), "first_move_off_source"),
        (place(0, 6, 6, "across", "O", rack="OSEEEEE"), "too_short"),
        (place(0, 6, 6, "across", "oS", rack="OSEEEEE"), "tiles_not_in_rack"),  # no blank
        (place(0, 6, 0, "across", "EEEEEEEE", rack="EEEEEEE"), "too_many_tiles"),
    ],
)
def test_record_refusal_reasons_on_an_empty_board(move: dict[str, Any], reason: str) -> None:
    result = run(doc([move]), lexicon=["OSE", "OS", "QZ", "O", "EEEEEEEE"])
    assert result["moves"][0]["status"] == "refused"
    assert result["moves"][0]["reason"] == reason


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        (place(1, 6, 2, "across", "TABLE", rack="TABLEUS"), "no_new_tile"),
        (place(1, 6, 2, "across", "TABLEAU", rack="AUEEEEE"), "accepted"),
        (place(1, 6, 1, "across", "STABLE", rack="SEEEEEE"), "accepted"),
        (place(1, 6, 2, "across", "FABLE", rack="FEEEEEE"), "occupied_mismatch"),
        (place(1, 9, 9, "across", "OS", rack="OSEEEEE"), "not_touching"),
        (place(1, 7, 2, "across", "OS", rack="EEEEEEE"), "tiles_not_in_rack"),
    ],
)
def test_record_refusal_reasons_after_a_first_word(move: dict[str, Any], reason: str) -> None:
    moves = [place(0, 6, 2, "across", "TABLE", rack="TABLEUS"), move]
    result = run(doc(moves), lexicon=["TABLE", "TABLEAU", "STABLE", "OS", "TO", "AS"])
    second = result["moves"][1]
    assert second.get("reason", second["status"]) == reason


def test_record_r15_blank_word_letter_lower_case() -> None:
    moves = [place(0, 6, 5, "across", "oS", rack="?SEEEEE")]
    result = run(doc(moves), lexicon=["OS"])
    assert result["moves"][0]["words"] == [{"word": "OS", "score": 1}]
    assert result["board"][6] == ".....oS......"


def test_record_without_racks_skips_rack_checks() -> None:
    moves = [place(0, 6, 5, "across", "KZ"), place(1, 5, 6, "down", "AZE")]
    result = run(doc(moves), lexicon=["KZ", "AZE"])
    assert [m["status"] for m in result["moves"]] == ["accepted", "accepted"]
    assert result["scores"] == [20, 12]


def test_record_r26_exchange_with_bag_too_small() -> None:
    moves = [
        {"player": 0, "rack": "OSEEEEE", "exchange": "OSE", "bag": 2},
        {"player": 0, "rack": "OSEEEEE", "exchange": "OS", "bag": 2},
    ]
    result = run(doc(moves))
    assert result["moves"][0]["reason"] == "bag_too_small"
    assert result["moves"][1] == {
        "index": 1,
        "player": 0,
        "status": "accepted",
        "kind": "exchange",
        "count": 2,
    }


def test_record_r26_exchange_of_tiles_not_in_the_rack() -> None:
    result = run(doc([{"player": 0, "rack": "OSEEEEE", "exchange": "QZ"}]))
    assert result["moves"][0]["reason"] == "tiles_not_in_rack"


def test_record_r30_ending_with_final_racks() -> None:
    moves = [
        place(0, 6, 2, "across", "TABLE", rack="TABLEUS"),
        place(1, 7, 3, "across", "SI", rack="SIEEEEE"),
        place(0, 5, 6, "down", "SE", rack="S", bag=0),
        {"player": 1, "pass": True},
    ]
    result = run(doc(moves, final_racks=["", "KE?"]), lexicon=["TABLE", "SI", "AS", "BI", "SE"])
    assert [m["status"] for m in result["moves"][:3]] == ["accepted"] * 3
    assert result["moves"][3] == {
        "index": 3,
        "player": 1,
        "status": "refused",
        "kind": "pass",
        "reason": "game_over",
    }
    # TABLE 7; SI 12; SE 2. Seat 1 holds K10 + E1 + blank = 11: 7 + 2 + 11 = 20; 12 - 11 = 1.
    assert result["scores"] == [9, 12]
    assert result["ended"] is True
    assert result["final_scores"] == [20, 1]
    assert result["winners"] == [0]


def test_record_no_r30_ending_while_the_bag_holds_tiles_or_the_rack_keeps_some() -> None:
    moves = [
        place(0, 6, 5, "across", "OS", rack="OS", bag=3),
        place(1, 6, 6, "down", "SE", rack="EA", bag=0),
    ]
    result = run(doc(moves, final_racks=["", "A"]), lexicon=["OS", "SE"])
    assert [m["status"] for m in result["moves"]] == ["accepted", "accepted"]
    assert "ended" not in result
    assert "final_scores" not in result


def test_record_r32_winners_and_a_tie_with_several_winners() -> None:
    moves = [place(0, 6, 5, "across", "OS", rack="OS", bag=0)]
    result = run(doc(moves, players=3, final_racks=["", "A", "BE"]), lexicon=["OS"])
    # Seat 0: 2 + 1 + 4 = 7; seat 1: -1; seat 2: -4.
    assert result["final_scores"] == [7, -1, -4]
    assert result["winners"] == [0]
    moves = [place(0, 6, 5, "across", "OS", rack="OS", bag=0)]
    result = run(doc(moves, players=3, final_racks=["", "", ""]), lexicon=["OS"])
    assert result["final_scores"] == [2, 0, 0]
    passes = [{"player": i % 2, "pass": True} for i in range(4)]
    both = run(doc(passes, final_racks=["E", "A"]))
    assert both["final_scores"] == [-1, -1]
    assert both["winners"] == [0, 1]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_record_r31_ending_from_the_entries(players: int) -> None:
    racks = ["QZ", "AB?", "EEEE", "KW"][:players]
    moves: list[dict[str, Any]] = [
        {"player": i % players, "pass": True} for i in range(2 * players - 1)
    ]
    not_yet = run(doc(moves, players=players, final_racks=racks))
    assert "ended" not in not_yet
    moves.append({"player": (2 * players - 1) % players, "pass": True})
    moves.append({"player": 0, "pass": True})
    result = run(doc(moves, players=players, final_racks=racks))
    assert result["ended"] is True
    expected = [-18, -4, -4, -20][:players]
    assert result["final_scores"] == expected
    assert result["winners"] == [i for i, s in enumerate(expected) if s == max(expected)]
    assert result["moves"][-1]["reason"] == "game_over"
    assert result["scores"] == [0] * players


def test_record_r31_exchanges_count_as_no_placement() -> None:
    moves: list[dict[str, Any]] = [
        {"player": 0, "exchange": "Q"},
        {"player": 1, "pass": True},
        {"player": 0, "pass": True},
        {"player": 1, "exchange": "A"},
    ]
    result = run(doc(moves, final_racks=["EEE", "A"]))
    assert result["ended"] is True
    assert result["final_scores"] == [-3, -1]
    assert result["winners"] == [1]


# --- parse_record refusals ----------------------------------------------------------------------


def broken(**changes: Any) -> dict[str, Any]:
    document = copy.deepcopy(EXAMPLE_INPUT)
    document.update(changes)
    return document


def with_move(move: Any) -> dict[str, Any]:
    document = copy.deepcopy(EXAMPLE_INPUT)
    document["moves"] = [move]
    return document


BAD_DOCUMENTS: list[tuple[str, Any]] = [
    ("not an object", ["lexio-record/1"]),
    ("no format", {k: v for k, v in EXAMPLE_INPUT.items() if k != "format"}),
    ("wrong format", broken(format="lexio-record/2")),
    ("format case", broken(format="LEXIO-RECORD/1")),
    ("one player", broken(players=["Ana"])),
    ("five players", broken(players=["A", "B", "C", "D", "E"])),
    ("players not strings", broken(players=["Ana", 2])),
    ("players not a list", broken(players="Ana,Bruno")),
    ("moves not a list", broken(moves={"0": {"player": 0, "pass": True}})),
    ("lexicon not strings", broken(lexicon=["TABLE", 3])),
    ("final racks wrong length", broken(final_racks=["", "", ""])),
    ("final racks bad letters", broken(final_racks=["", "ké"])),
    ("move not an object", with_move("pass")),
    ("place and pass", with_move({"player": 0, "pass": True, "place": {
        "row": 6, "col": 5, "dir": "across", "word": "OS"}})),
    ("exchange and pass", with_move({"player": 0, "pass": True, "exchange": "A"})),
    ("no kind", with_move({"player": 0})),
    ("player out of range", with_move({"player": 2, "pass": True})),
    ("player negative", with_move({"player": -1, "pass": True})),
    ("player a string", with_move({"player": "0", "pass": True})),
    ("player a bool", with_move({"player": True, "pass": True})),
    ("pass false", with_move({"player": 0, "pass": False})),
    ("rack bad letters", with_move({"player": 0, "pass": True, "rack": "abc"})),
    ("rack digits", with_move({"player": 0, "pass": True, "rack": "AB1"})),
    ("exchange empty", with_move({"player": 0, "exchange": ""})),
    ("exchange lower case", with_move({"player": 0, "exchange": "us"})),
    ("negative bag", with_move({"player": 0, "pass": True, "bag": -1})),
    ("bad dir", with_move({"player": 0, "place": {
        "row": 6, "col": 5, "dir": "diagonal", "word": "OS"}})),
    ("row not int", with_move({"player": 0, "place": {
        "row": "6", "col": 5, "dir": "across", "word": "OS"}})),
    ("word with accent", with_move({"player": 0, "place": {
        "row": 6, "col": 5, "dir": "across", "word": "ÉTÉ"}})),
    ("word with hyphen", with_move({"player": 0, "place": {
        "row": 6, "col": 5, "dir": "across", "word": "O-S"}})),
    ("word empty", with_move({"player": 0, "place": {
        "row": 6, "col": 5, "dir": "across", "word": ""}})),
    ("place not an object", with_move({"player": 0, "place": "OS"})),
]  # fmt: skip


@pytest.mark.parametrize(
    "document", [d for _, d in BAD_DOCUMENTS], ids=[n for n, _ in BAD_DOCUMENTS]
)
def test_record_parse_rejects_bad_documents(document: Any) -> None:
    with pytest.raises(RecordError):
        parse_record(document)


@pytest.mark.parametrize(
    "word",
    [
        "ıS",  # U+0131 dotless i: upper() is "I"
        "Oſ",  # U+017F long s: upper() is "S"
        "Oﬆ",  # U+FB06 ligature st: upper() is "ST"
        "ＯＳ",  # full-width letters
    ],
)
def test_record_parse_rejects_word_letters_outside_a_to_z(word: str) -> None:
    """record-format.md: a placed word is letters A–Z (lower case for a blank newly placed).
    Non-ASCII letters whose upper case happens to be A–Z are not letters A–Z."""
    document = doc([place(0, 6, 5, "across", word)])
    with pytest.raises(RecordError):
        parse_record(document)


def test_record_parse_accepts_the_optional_fields() -> None:
    document = doc(
        [{"player": 0, "rack": "?AB", "bag": 0, "exchange": "?"}, {"player": 1, "pass": True}],
        final_racks=["A", "?"],
    )
    record = parse_record(document)
    assert record.lexicon is None
    assert record.final_racks == ("A", "?")
    assert (record.moves[0].rack, record.moves[0].bag, record.moves[0].exchange) == ("?AB", 0, "?")
