"""`lexio replay` of al-Mishqaq records, as installed by the set-up: the format's example and
this suite's two whole games exactly, the shipped Latin lists when a record brings none, and a
malformed record → exit 2, nothing on stdout, the faulty field named on stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

RECORDS = Path(__file__).parent.parent / "records"
LEXIO = Path(sys.executable).with_name("lexio")


def replay(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LEXIO), "replay", str(path)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )


def written(tmp_path: Path, document: Any) -> Path:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "name", ["mishqaq-record-example", "mishqaq-game-try", "mishqaq-game-resign"]
)
def test_replay_reproduces_the_record_exactly(name: str) -> None:
    done = replay(RECORDS / f"{name}.json")
    assert done.returncode == 0, done.stderr
    expected = json.loads((RECORDS / f"{name}.expected.json").read_text(encoding="utf-8"))
    assert json.loads(done.stdout) == expected


def test_without_its_own_lexicon_a_record_uses_the_shipped_lists(tmp_path: Path) -> None:
    """M39 through the real English list: CAT across, then T-A-C read upwards (M20); the
    Arabic side only passes and resigns, so its list is never opened."""
    document = {
        "format": "mishqaq-record/1",
        "latin": "en",
        "opening": "latin",
        "moves": [
            {
                "side": "latin",
                "place": [
                    {"row": 10, "col": c, "tile": t} for c, t in ((1, "C"), (2, "A"), (3, "T"))
                ],
            },
            {"side": "arabic", "pass": True},
            {
                "side": "latin",
                "place": [{"row": 11, "col": 3, "tile": "A"}, {"row": 12, "col": 3, "tile": "Q"}],
            },
            {
                "side": "latin",
                "place": [{"row": 11, "col": 3, "tile": "A"}, {"row": 12, "col": 3, "tile": "C"}],
            },
            {"side": "arabic", "resign": True},
        ],
    }
    done = replay(written(tmp_path, document))
    assert done.returncode == 0, done.stderr
    moves = json.loads(done.stdout)["moves"]
    assert moves[0]["words"] == [{"word": "CAT", "direction": "across"}]
    assert (moves[2]["reason"], moves[2]["unknown_words"]) == ("unknown_words", ["TAQ"])
    assert moves[3]["words"] == [{"word": "CAT", "direction": "up"}]
    assert json.loads(done.stdout)["result"] == {"winner": "latin", "cause": "resign"}


@pytest.mark.parametrize(
    ("path", "value", "named"),
    [
        (["moves", 0, "place", 0, "row"], "ten", "moves[0].place[0].row"),
        (["moves", 1, "place", 2, "tile"], "X", "moves[1].place[2].tile"),
        (["moves", 0, "rack", 4], "ب", "moves[0].rack[4]"),
        (["opening"], None, "opening"),
        (["lexicon", "arabic"], "كتب", "lexicon.arabic"),
    ],
)
def test_a_malformed_record_exits_2_naming_the_field(
    tmp_path: Path, path: list[str | int], value: Any, named: str
) -> None:
    document = json.loads((RECORDS / "mishqaq-record-example.json").read_text(encoding="utf-8"))
    target: Any = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    done = replay(written(tmp_path, document))
    assert done.returncode == 2
    assert done.stdout == ""
    error = json.loads(done.stderr)
    assert error["error"] == "bad_record" and error["detail"].startswith(named + ":"), error


def test_a_mishqaq_record_that_is_not_json_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": "mishqaq-record/1", "moves": [', encoding="utf-8")
    done = replay(path)
    assert done.returncode == 2 and done.stdout == ""
