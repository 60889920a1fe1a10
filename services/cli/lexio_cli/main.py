"""The ``lexio`` command line: ``lexio replay RECORD.json`` and ``lexio play URL --name NAME
[--join CODE]`` (a terminal client of the gateway).

Replay hands a record to the game whose record format its ``format`` names, among the games
this build ships (:data:`lexio_engine.games.GAMES`); the game replays it through the very
rules code of a live table and its shipped lexicons (or the record's own). A record that is
not valid exits 2, a lexicon that cannot be opened 1, each with a JSON error on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from lexio_cli.lists import ShippedLists
from lexio_engine.games import GAMES
from rules_core import LexiconUnavailableError, RecordError

EXIT_BAD_RECORD = 2
EXIT_LEXICON_UNAVAILABLE = 1

#: Each record format this build replays, and the game's replay.
_REPLAYS = {g.record_format: g.replay for g in GAMES if g.record_format and g.replay}


def _error(error: str, detail: str, code: int) -> int:
    print(json.dumps({"error": error, "detail": detail}), file=sys.stderr)
    return code


def _replay(path: Path) -> int:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        return _error("bad_record", str(e), EXIT_BAD_RECORD)
    found = document.get("format") if isinstance(document, dict) else None
    replay = _REPLAYS.get(found) if isinstance(found, str) else None
    if replay is None:
        formats = ", ".join(f'"{f}"' for f in _REPLAYS)
        return _error("bad_record", f"format must be one of {formats}", EXIT_BAD_RECORD)
    try:
        result = replay(document, ShippedLists())
    except RecordError as e:
        return _error("bad_record", str(e), EXIT_BAD_RECORD)
    except LexiconUnavailableError as e:
        return _error("lexicon_unavailable", str(e), EXIT_LEXICON_UNAVAILABLE)
    json.dump(result, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["play"]:
        # Imported when asked: a replay needs none of the client.
        from lexio_client.terminal import main as play_main  # noqa: PLC0415

        return play_main(args_list[1:])
    parser = argparse.ArgumentParser(prog="lexio", description="Lexio command line")
    commands = parser.add_subparsers(dest="command", required=True)
    replay_cmd = commands.add_parser("replay", help=f"replay a game record ({', '.join(_REPLAYS)})")
    replay_cmd.add_argument("record", type=Path, help="the record (JSON)")
    commands.add_parser("play", help="play at a table from a terminal (lexio play --help)")
    args = parser.parse_args(args_list)
    if args.command == "replay":
        return _replay(args.record)
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
