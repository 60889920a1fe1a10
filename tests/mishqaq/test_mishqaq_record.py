"""The record ``mishqaq-record/1`` and its replay (mishqaq-record-format.md), in-process: the
format's own example, two whole games of this suite, rack checks, the reserve without regain,
and malformed records naming the faulty field."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from lexio_lexicon.normalise import normalise_for
from mishqaq_rules.game import Lexicon, WordSet
from mishqaq_rules.record import Record, RecordError, lexicon_ids, parse_record, replay

RECORDS = Path(__file__).parent.parent / "records"


def load(name: str) -> Any:
    return json.loads((RECORDS / name).read_text(encoding="utf-8"))


def own_lexicons(record: Record) -> dict[str, Lexicon]:
    """The record's lists, normalised as the real lists are (appendix C)."""
    ids = lexicon_ids(record)
    return {
        ids[side]: WordSet(n for w in listed if (n := normalise_for(ids[side], w)) is not None)
        for side, listed in record.lexicon.items()
    }


def replayed(document: Any) -> dict[str, Any]:
    record = parse_record(document)
    return replay(record, own_lexicons(record))


@pytest.mark.parametrize(
    "name", ["mishqaq-record-example", "mishqaq-game-try", "mishqaq-game-resign"]
)
def test_records_replay_to_exactly_their_expected_output(name: str) -> None:
    assert replayed(load(f"{name}.json")) == load(f"{name}.expected.json")


def record(*moves: dict[str, Any], latin: list[str] | None = None, **fields: Any) -> dict[str, Any]:
    return {
        "format": "mishqaq-record/1",
        "latin": "fr",
        "opening": "latin",
        "lexicon": {
            "latin": latin if latin is not None else ["CA", "CAT", "CATS"],
            "arabic": ["كتب"],
        },
        "moves": list(moves),
        **fields,
    }


def cells(*specs: tuple[int, int, str] | tuple[int, int, str, str]) -> list[dict[str, Any]]:
    out = []
    for spec in specs:
        cell: dict[str, Any] = {"row": spec[0], "col": spec[1], "tile": spec[2]}
        if len(spec) == 4:
            cell["as"] = spec[3]
        out.append(cell)
    return out


CA = {"side": "latin", "place": cells((10, 1, "C"), (10, 2, "A"))}
KTB = {"side": "arabic", "place": cells((10, 20, "ك"), (10, 19, "ت"), (10, 18, "ب"))}


def outcomes(document: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(m["status"], m.get("reason")) for m in replayed(document)["moves"]]


def test_rack_checks_apply_only_when_the_rack_is_given() -> None:
    with_rack = {**CA, "rack": ["C", "E", "E"]}
    assert outcomes(record(with_rack)) == [("refused", "tiles_not_in_rack")]
    assert outcomes(record(CA)) == [("accepted", None)]


def test_a_recorded_rack_may_not_exceed_the_cap_or_the_bag() -> None:
    with pytest.raises(RecordError, match=r"^moves\[0\]\.rack: more than 12 tiles"):
        parse_record(record({**CA, "rack": ["E"] * 13}))
    with pytest.raises(RecordError, match=r"^moves\[0\]\.rack: 2 × Z\+, the latin bag holds 1"):
        parse_record(record({**CA, "rack": ["Z+", "Z+"]}))


def test_the_reserve_never_regains_a_try_in_a_replay() -> None:
    """M24: ten unknown-word refusals, then even a valid placement is reserve_empty."""
    bad = {"side": "latin", "place": cells((10, 1, "C"), (10, 2, "Q"))}
    moves: list[dict[str, Any]] = [bad] * 10 + [CA, {"side": "latin", "pass": True}]
    assert outcomes(record(*moves)) == [("refused", "unknown_words")] * 10 + [
        ("refused", "reserve_empty"),
        ("accepted", None),
    ]


def test_a_blank_on_the_board_is_written_with_its_letter_and_a_swap_takes_it_back() -> None:
    moves: list[dict[str, Any]] = [
        {"side": "latin", "place": cells((10, 1, "C"), (10, 2, "?", "A"))},
        {"side": "arabic", "pass": True},
        {"side": "latin", "rack": ["A", "A+"], "swap": {"row": 10, "col": 2}},
        {"side": "latin", "rack": ["S"], "swap": {"row": 10, "col": 1}},
    ]
    first = replayed(record(*moves[:1]))
    assert first["board"][10][:3] == ["", "C", "?A"] and "result" not in first
    done = replayed(record(*moves))
    assert [m["status"] for m in done["moves"]] == ["accepted", "accepted", "accepted", "refused"]
    assert done["moves"][3]["reason"] == "swap_invalid"
    assert done["board"][10][:3] == ["", "C", "A"]  # the monolingual A preferred (M27)


def test_a_swap_without_a_rack_is_given_a_tile_bearing_the_letter() -> None:
    moves: list[dict[str, Any]] = [
        {"side": "latin", "place": cells((10, 1, "C"), (10, 2, "?", "B"))},
        {"side": "arabic", "pass": True},
        {"side": "latin", "swap": {"row": 10, "col": 2}},
    ]
    done = replayed(record(*moves, latin=["CB"]))
    assert done["moves"][2]["status"] == "accepted"
    assert done["board"][10][2] == "B+"  # the French bag's only B is bilingual


@pytest.mark.parametrize("rack", [["A", "A+"], None], ids=["own rack", "no rack"])
@pytest.mark.parametrize("tile", ["A+", "A"])
def test_m27_a_swap_naming_its_tile_replays_with_that_tile(
    rack: list[str] | None, tile: str
) -> None:
    """Issue 36: a record from a review names the tile each swap put down (the live log showed
    it), and the replay puts that one, whatever it would have picked: a bilingual tile opens
    the cell to the other side, a monolingual one keeps it closed (M17), so a later word of the
    other side reads as it did at the table. Without a rack (the other side's swap), the replay
    gives the side a rack holding it."""
    swap: dict[str, Any] = {"side": "latin", "swap": {"row": 10, "col": 2, "tile": tile}}
    if rack is not None:
        swap["rack"] = rack
    moves: list[dict[str, Any]] = [
        {"side": "latin", "place": cells((10, 1, "C"), (10, 2, "?", "A"))},
        {"side": "arabic", "pass": True},
        swap,
    ]
    done = replayed(record(*moves))
    assert [m["status"] for m in done["moves"]] == ["accepted"] * 3
    assert done["board"][10][:3] == ["", "C", tile]


def test_m27_a_swap_naming_a_tile_its_rack_lacks_is_refused() -> None:
    moves: list[dict[str, Any]] = [
        {"side": "latin", "place": cells((10, 1, "C"), (10, 2, "?", "A"))},
        {"side": "arabic", "pass": True},
        {"side": "latin", "rack": ["A"], "swap": {"row": 10, "col": 2, "tile": "A+"}},
    ]
    done = replayed(record(*moves))
    assert done["moves"][2] == {
        "index": 2,
        "side": "latin",
        "status": "refused",
        "kind": "swap",
        "reason": "swap_invalid",
    }
    assert done["board"][10][2] == "?A"


def test_a_dead_position_in_a_replay_is_a_draw() -> None:
    """M35: entries carry no time, so both banks stay equal."""
    full = {"latin": ["E"] * 11 + ["A"], "arabic": ["ا"] * 10 + ["ل", "ل"]}  # M11: nothing drawn
    racks: list[dict[str, Any]] = [
        {"side": s, "pass": True, "rack": full[s]} for s in ("latin", "arabic")
    ] * 2
    assert replayed(record(*racks))["result"] == {"winner": None, "cause": "dead_position"}


def test_a_record_without_a_sides_list_uses_the_lexicon_given_for_it() -> None:
    document = record(CA, KTB)
    del document["lexicon"]["arabic"]
    parsed = parse_record(document)
    lexicons = {**own_lexicons(parsed), "ar": WordSet(["كتب"])}
    assert [m["status"] for m in replay(parsed, lexicons)["moves"]] == ["accepted", "accepted"]


def test_resign_is_accepted_from_either_side_at_any_moment() -> None:
    done = replayed(record({"side": "arabic", "resign": True}))
    assert done["moves"][0]["status"] == "accepted"
    assert done["result"] == {"winner": "latin", "cause": "resign"}


def broken(path: list[str | int], value: Any, base: dict[str, Any] | None = None) -> dict[str, Any]:
    document = copy.deepcopy(
        base or record(CA, KTB, {"side": "latin", "swap": {"row": 1, "col": 1}})
    )
    target: Any = document
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return document


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["format"], "lexio-record/1", 'format: not "mishqaq-record/1"'),
        (["latin"], "de", "latin: not one of fr, en"),
        (["opening"], "both", "opening: not latin or arabic"),
        (["lexicon"], ["CAT"], "lexicon: not an object"),
        (["lexicon", "latin"], "CAT", "lexicon.latin: not a list of words"),
        (["moves"], {}, "moves: not a list"),
        (["moves", 0], [], "moves[0]: not an object"),
        (["moves", 0, "side"], "greek", "moves[0].side: not latin or arabic"),
        (["moves", 0, "pass"], True, "moves[0]: not exactly one of place, pass, swap, resign"),
        (["moves", 0, "place"], KeyError, "moves[0]: not exactly one of place, pass, swap, resign"),
        (["moves", 0, "place"], "CA", "moves[0].place: not a list of tiles placed"),
        (["moves", 0, "place", 1, "row"], "ten", "moves[0].place[1].row: not an integer"),
        (["moves", 0, "place", 1, "col"], 2.0, "moves[0].place[1].col: not an integer"),
        (["moves", 0, "place", 1, "row"], True, "moves[0].place[1].row: not an integer"),
        (
            ["moves", 0, "place", 1, "tile"],
            "ش",
            "moves[0].place[1].tile: 'ش' is not a tile of the latin bag",
        ),
        (["moves", 0, "place", 1, "tile"], "E+", "moves[0].place[1].tile: 'E+' is not a tile"),
        (["moves", 0, "place", 1, "tile"], 5, "moves[0].place[1].tile: not a tile"),
        (["moves", 0, "place", 1, "as"], "A", "moves[0].place[1].as: only a blank carries as"),
        (["moves", 0, "place", 1, "col"], 1, "moves[0].place[1]: the same cell as place[0]"),
        (
            ["moves", 1, "place", 0, "tile"],
            "?",
            "moves[1].place[0].as: a blank must say what it stands for",
        ),
        (["moves", 0, "rack"], ["C", "ب"], "moves[0].rack[1]: 'ب' is not a tile of the latin bag"),
        (["moves", 0, "rack"], "CA", "moves[0].rack: not a list of tiles"),
        (["moves", 2, "swap"], [1, 1], "moves[2].swap: not an object"),
        (["moves", 2, "swap", "row"], "1", "moves[2].swap.row: not an integer"),
        (["moves", 2, "swap", "tile"], 5, "moves[2].swap.tile: not a tile"),
        (["moves", 2, "swap", "tile"], "ش", "moves[2].swap.tile: 'ش' is not a tile of the latin"),
        (["moves", 2, "swap", "tile"], "?", "moves[2].swap.tile: a blank is not swapped in"),
    ],
)
def test_a_malformed_record_names_the_field(
    path: list[str | int], value: Any, message: str
) -> None:
    with pytest.raises(RecordError) as raised:
        parse_record(broken(path, value))
    assert str(raised.value).startswith(message), raised.value


def test_a_blank_declaring_a_letter_of_the_other_script_names_its_as() -> None:
    document = record({"side": "latin", "place": cells((10, 1, "C"), (10, 2, "?", "ش"))})
    with pytest.raises(RecordError, match=r"^moves\[0\]\.place\[1\]\.as: "):
        parse_record(document)


@pytest.mark.parametrize("kind", ["pass", "resign"])
def test_pass_and_resign_must_be_true(kind: str) -> None:
    with pytest.raises(RecordError, match=rf"^moves\[0\]\.{kind}: not true"):
        parse_record(record({"side": "latin", kind: 1}))


def test_a_record_is_an_object() -> None:
    with pytest.raises(RecordError, match=r"^record: not an object"):
        parse_record([])


def test_an_off_board_cell_is_a_refusal_not_a_malformed_record() -> None:
    """off_board is one of the record's reasons: a cell can be stated off the board."""
    document = record({"side": "latin", "place": cells((10, 1, "C"), (10, 22, "A"))})
    assert outcomes(document) == [("refused", "off_board")]
