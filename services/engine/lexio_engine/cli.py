"""The ``lexio`` command line: ``lexio replay RECORD.json`` (record-format.md, and
mishqaq-record-format.md for a document whose ``format`` is ``mishqaq-record/1``) and
``lexio play URL --name NAME [--join CODE]`` (a terminal client of the gateway).

Replay runs the very rules code of a live table. For Lexio the default lexicon is the shipped
French list; for al-Mishqaq each side's is the shipped list of its id (``fr``/``en``, ``ar``),
opened when the replay first needs it. A record's own ``lexicon`` replaces the shipped list,
normalised like the real list.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from lexio_lexicon.catalog import open_list
from lexio_lexicon.normalise import normalise, normalise_for
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH, WordList, WordListError
from lexio_rules import Lexicon, WordSet
from lexio_rules.record import RecordError, parse_record, replay
from mishqaq_rules import record as mishqaq_record

EXIT_BAD_RECORD = 2
EXIT_LEXICON_UNAVAILABLE = 1


def _lexicon_for(words: Sequence[str] | None) -> Lexicon:
    if words is None:
        return WordList.load(DEFAULT_WORDLIST_PATH)
    return WordSet(n for w in words if (n := normalise(w)) is not None)


class _ShippedList:
    """A shipped list (``lexio_lexicon.catalog``), opened at its first look-up: a replay that
    never places a side's word never needs that side's list built."""

    def __init__(self, list_id: str) -> None:
        self._list_id = list_id
        self._words: WordList | None = None

    def unknown(self, words: Sequence[str]) -> Sequence[str]:
        if self._words is None:
            self._words = open_list(self._list_id)
        return self._words.unknown(words)


def _mishqaq_lexicons(record: mishqaq_record.Record) -> dict[str, Lexicon]:
    lexicons: dict[str, Lexicon] = {}
    for side, list_id in mishqaq_record.lexicon_ids(record).items():
        own = record.lexicon.get(side)
        if own is None:
            lexicons[list_id] = _ShippedList(list_id)
        else:
            normalised = (normalise_for(list_id, w) for w in own)
            lexicons[list_id] = WordSet(w for w in normalised if w is not None)
    return lexicons


def _bad_record(detail: str) -> int:
    print(json.dumps({"error": "bad_record", "detail": detail}), file=sys.stderr)
    return EXIT_BAD_RECORD


def _print(result: object) -> int:
    json.dump(result, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0


def _replay_mishqaq(document: object) -> int:
    try:
        record = mishqaq_record.parse_record(document)
    except mishqaq_record.RecordError as e:
        return _bad_record(str(e))
    try:
        result = mishqaq_record.replay(record, _mishqaq_lexicons(record))
    except WordListError as e:
        error = {"error": "lexicon_unavailable", "detail": str(e)}
        print(json.dumps(error), file=sys.stderr)
        return EXIT_LEXICON_UNAVAILABLE
    return _print(result)


def _replay(path: Path) -> int:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        return _bad_record(str(e))
    if isinstance(document, dict) and document.get("format") == mishqaq_record.FORMAT:
        return _replay_mishqaq(document)
    try:
        record = parse_record(document)
    except RecordError as e:
        return _bad_record(str(e))
    return _print(replay(record, _lexicon_for(record.lexicon)))


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["play"]:
        # The terminal client lives with the protocol's reference client.
        from lexio_client.terminal import main as play_main  # noqa: PLC0415

        return play_main(args_list[1:])
    parser = argparse.ArgumentParser(prog="lexio", description="Lexio command line")
    commands = parser.add_subparsers(dest="command", required=True)
    replay_cmd = commands.add_parser(
        "replay", help="replay a lexio-record/1 or mishqaq-record/1 file"
    )
    replay_cmd.add_argument("record", type=Path, help="the record (JSON)")
    commands.add_parser("play", help="play at a table from a terminal (lexio play --help)")
    args = parser.parse_args(args_list)
    if args.command == "replay":
        return _replay(args.record)
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
