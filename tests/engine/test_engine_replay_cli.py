"""`lexio replay` as installed by the set-up: the record-format.md example, exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RECORDS = Path(__file__).parent.parent / "records"
LEXIO = Path(sys.executable).with_name("lexio")


def _replay(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LEXIO), "replay", str(path)], capture_output=True, text=True, timeout=60, check=False
    )


def test_replay_reproduces_the_record_format_example_exactly() -> None:
    done = _replay(RECORDS / "record-format-example.json")
    assert done.returncode == 0, done.stderr
    expected = json.loads((RECORDS / "record-format-example.expected.json").read_text())
    assert json.loads(done.stdout) == expected


def test_replay_uses_the_shipped_french_lexicon_by_default() -> None:
    """R17/R19/R24 through the real list: a 7-tile TABLEAU, refusals naming whole words."""
    done = _replay(RECORDS / "default-lexicon-bingo.json")
    assert done.returncode == 0, done.stderr
    moves = json.loads(done.stdout)["moves"]
    assert moves[0] == {
        "index": 0,
        "player": 0,
        "status": "accepted",
        "kind": "place",
        "words": [{"word": "TABLEAU", "score": 9}],
        "bingo": True,
        "score": 39,
    }
    assert (moves[1]["reason"], moves[1]["unknown_words"]) == ("unknown_words", ["QTE"])
    # ZOO written at (3,9) runs into the U of TABLEAU: the word formed is ZOOU.
    assert moves[2]["unknown_words"] == ["ZOOU"]
    assert moves[3]["words"] == [{"word": "ZOU", "score": 12}]


def test_replay_of_a_bad_record_exits_2_with_a_json_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "lexio-record/1", "players": ["solo"], "moves": []}))
    done = _replay(bad)
    assert done.returncode == 2
    assert done.stdout == ""
    assert json.loads(done.stderr)["error"] == "bad_record"


def test_replay_of_a_missing_or_non_json_file_exits_2(tmp_path: Path) -> None:
    assert _replay(tmp_path / "absent.json").returncode == 2
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    assert _replay(garbage).returncode == 2
