"""A short run of the load harness (bench/load.py) against the real services: no speed asserted.

A one-minute run (45 s measured): four tables of four simulated players play whole Lexio games
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

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_a_short_load_run_has_no_error_and_completes_every_game(tmp_path: Path) -> None:
    report_path = tmp_path / "report.json"
    command = [
        sys.executable,
        str(BENCH / "load.py"),
        "run",
        "--tables=6",
        "--mishqaq-share=0.34",
        "--players=4",
        "--think=0",
        "--ramp=1",
        "--warmup=1",
        "--duration=45",
        "--finish=play",
        "--drain=30",
        "--workers=1",
        "--reconnect-rate=0.02",
        "--refuse-rate=0.05",
        "--no-floors",
        "--print-every=60",
        f"--json={report_path}",
        "--check",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    report = json.loads(report_path.read_text())
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
    report_path = tmp_path / "report.json"
    command = [
        sys.executable,
        str(BENCH / "load.py"),
        "run",
        "--tables=4",
        "--players=4",
        "--think=0",
        "--ramp=1",
        "--warmup=1",
        "--duration=15",
        "--finish=play",
        "--drain=30",
        "--workers=1",
        "--book=4",
        "--refuse-rate=0.05",
        f"--book-dir={tmp_path / 'books'}",
        "--no-floors",
        "--print-every=60",
        f"--json={report_path}",
        "--check",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    clients = json.loads(report_path.read_text())["clients"]
    assert clients["error_count"] == 0, clients["errors"]
    assert clients["games_completed"] == clients["games_started"] >= 4
    assert clients["script_misses"] == 0
    assert clients["script_steps"] == sum(clients["actions"].values()) > 100
    assert clients["refusals"].get("unknown_words", 0) > 0
