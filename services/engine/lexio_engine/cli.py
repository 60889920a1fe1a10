"""The ``lexio`` command line: ``lexio replay RECORD.json`` (record-format.md) and
``lexio play URL --name NAME [--join CODE]`` (a terminal client of the gateway).

Replay runs the very rules code of a live table. The default lexicon is the shipped French
list; a record's own ``lexicon`` replaces it, normalised like the real list.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from lexio_lexicon.normalise import normalise
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH, WordList
from lexio_rules import Lexicon, WordSet
from lexio_rules.record import RecordError, parse_record, replay

EXIT_BAD_RECORD = 2


def _lexicon_for(words: Sequence[str] | None) -> Lexicon:
    if words is None:
        return WordList.load(DEFAULT_WORDLIST_PATH)
    return WordSet(n for w in words if (n := normalise(w)) is not None)


def _replay(path: Path) -> int:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        record = parse_record(document)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecordError) as e:
        print(json.dumps({"error": "bad_record", "detail": str(e)}), file=sys.stderr)
        return EXIT_BAD_RECORD
    result = replay(record, _lexicon_for(record.lexicon))
    json.dump(result, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["play"]:
        # The terminal client lives with the protocol's reference client.
        from lexio_client.terminal import main as play_main  # noqa: PLC0415

        return play_main(args_list[1:])
    parser = argparse.ArgumentParser(prog="lexio", description="Lexio command line")
    commands = parser.add_subparsers(dest="command", required=True)
    replay_cmd = commands.add_parser("replay", help="replay a lexio-record/1 file")
    replay_cmd.add_argument("record", type=Path, help="the record (JSON)")
    commands.add_parser("play", help="play at a table from a terminal (lexio play --help)")
    args = parser.parse_args(args_list)
    if args.command == "replay":
        return _replay(args.record)
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
