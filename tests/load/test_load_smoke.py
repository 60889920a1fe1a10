"""A short run of the load harness (bench/load.py) against the real services: no speed asserted.

A short run (10 s measured): four tables of four simulated players play whole Lexio games
without thinking (real moves found by the bot, exchanges, passes, refused misspelt moves,
dropped and resumed connections, rematches), and two tables of two play al-Mishqaq (both sides
racing to a try with the real fr and ar lists); after the window every game in play is played
to its end. The run must end with zero errors, every game started completed, and every service
still up without an error in its log. The 30-minute soak is ``bench/load.py soak`` (``make
soak``, kept out of the test run).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[2] / "bench"


# What both runs share: no thinking, a short ramp, every game played to its end, one worker.
COMMON = [
    "--think=0",
    "--ramp=1",
    "--warmup=1",
    "--finish=play",
    "--drain=30",
    "--workers=1",
    "--refuse-rate=0.05",
    "--no-floors",
    "--print-every=60",
    "--check",
]


def _load_run(tmp_path: Path, *options: str) -> dict[str, Any]:
    """``bench/load.py run`` with ``options``: its JSON report, once it has exited 0."""
    report_path = tmp_path / "report.json"
    command = [
        sys.executable,
        str(BENCH / "load.py"),
        "run",
        *options,
        *COMMON,
        f"--json={report_path}",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    report: dict[str, Any] = json.loads(report_path.read_text())
    return report


def test_a_short_load_run_has_no_error_and_completes_every_game(tmp_path: Path) -> None:
    report = _load_run(
        tmp_path,
        "--tables=6",
        "--mishqaq-share=0.34",
        "--players=4",
        # Flat out, 10 s already give some 80 games and 1,800 placements, far past every
        # threshold below; a longer window only cost the suite CPU (45 s: 64 s of CPU).
        "--duration=10",
        "--reconnect-rate=0.02",
    )
    clients = report["clients"]
    assert clients["error_count"] == 0, clients["errors"]
    assert report["service_errors"] == {}
    assert all(report["alive_at_end"].values())
    assert clients["games_started"] >= 6
    assert clients["games_by_game"]["lexio"] >= 4 and clients["games_by_game"]["mishqaq"] >= 2
    assert clients["games_completed"] == clients["games_started"]
    assert clients["games_abandoned"] == 0
    # The run did what a load run does: real moves and every kind of action, on purpose too.
    assert clients["actions"].get("place", 0) > 100
    assert clients["refusals"].get("unknown_words", 0) > 0
    assert clients["reconnects"] > 0
    assert clients["latency_ms"]["place"]["count"] > 0
    assert clients["actions"].get("mishqaq:place", 0) > 50
    assert clients["latency_ms"]["mishqaq:place"]["count"] > 0
    assert clients["end_causes"].get("try", 0) > 0


def test_players_replaying_a_book_follow_every_script_to_the_rules_result(tmp_path: Path) -> None:
    """The cheap generator (bench/load_scripts.py): games found ahead of time, replayed through
    a gateway that seeds each game by its table id. Every turn is the script's (no search),
    and every game ends with the final scores the rules gave when the book was made."""
    report = _load_run(
        tmp_path,
        "--tables=4",
        "--players=4",
        "--duration=15",
        "--book=4",
        f"--book-dir={tmp_path / 'books'}",
    )
    clients = report["clients"]
    assert clients["error_count"] == 0, clients["errors"]
    assert clients["games_completed"] == clients["games_started"] >= 4
    assert clients["script_misses"] == 0
    assert clients["script_steps"] == sum(clients["actions"].values()) > 100
    assert clients["refusals"].get("unknown_words", 0) > 0
