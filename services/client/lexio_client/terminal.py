"""``lexio play``: the protocol from a terminal, one line per command, for a person.

    lexio play http://127.0.0.1:8080 --name Ana            # opens a table, prints its code
    lexio play http://127.0.0.1:8080 --name Bruno --join K7QF3-XMP9R

Commands: ``start``, ``place ROW COL across|down WORD`` (0-based cells as in the record format;
the whole word, letters already on the board included; lower case = a blank), ``preview …``
(same arguments), ``exchange LETTERS`` (``?`` for a blank), ``pass``, ``board``, ``quit``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from lexio_client.client import Frame, GatewayClient, ServerError

SIZE = 13


def render(view: Frame) -> str:
    """The board, scores, turn and the seat's own rack as text."""
    board = view["board"]
    lines = ["    " + " ".join(f"{c:>2}" for c in range(SIZE))]
    for r in range(SIZE):
        cells = [board[r * SIZE + c] for c in range(SIZE)]
        lines.append(f"{r:>2}  " + " ".join(f"{ch:>2}" for ch in cells))
    lines.append(f"scores {view['scores']}  turn: seat {view['turn']}  bag {view['bag_count']}")
    lines.append(f"your rack: {view['rack']}")
    return "\n".join(lines)


def describe(frame: Frame) -> str | None:
    kind = frame["type"]
    if kind == "table":
        seats = ", ".join(s["name"] + (" (host)" if s["host"] else "") for s in frame["seats"])
        return (
            f"table {frame['state']} · code {frame['code']} · seats: {seats} · you: {frame['you']}"
        )
    if kind == "event":
        entry = frame["entry"]
        words = ", ".join(f"{w['word']} {w['score']}" for w in entry["words"])
        detail = words or (f"{entry['count']} tiles" if entry["kind"] == "exchange" else "")
        cause = f" ({entry['cause']})" if entry["kind"] == "pass" else ""
        return f"#{frame['seq']} seat {entry['seat']}: {entry['kind']}{cause} {detail}".rstrip()
    if kind in ("snapshot", "view"):
        text = render(frame["view"])
        ending = frame["view"].get("ending")
        if ending:
            text += (
                f"\nGAME OVER: final {ending['final_scores']}, winners {ending['winners']}"
                f", racks {ending['racks']}"
            )
        return text
    if kind in ("refused", "error"):
        refused: list[str] = frame.get("words") or []
        return f"{kind}: {frame.get('reason') or frame.get('code')} {' '.join(refused)}".rstrip()
    if kind == "preview":
        return (
            f"preview: {frame['score']} points"
            if frame["well_formed"]
            else (f"preview: {frame.get('reason')}")
        )
    if kind == "rematch":
        return f"{frame['host']} opened a new table: code {frame['code']}"
    return None


def tiles_for(board: str, args: list[str]) -> list[dict[str, Any]]:
    """``ROW COL across|down WORD`` → the new tiles (cells already holding the letter are kept)."""
    row, col, direction, word = int(args[0]), int(args[1]), args[2], args[3]
    dr, dc = (0, 1) if direction == "across" else (1, 0)
    tiles = []
    for i, ch in enumerate(word):
        r, c = row + i * dr, col + i * dc
        if 0 <= r < SIZE and 0 <= c < SIZE and board[r * SIZE + c].isalpha():
            continue
        tile: dict[str, Any] = {"row": r, "col": c, "letter": ch.upper()}
        if ch.islower():
            tile["blank"] = True
        tiles.append(tile)
    return tiles


async def _command(client: GatewayClient, line: str) -> bool:
    words = line.split()
    if not words:
        return True
    command, args = words[0].lower(), words[1:]
    try:
        if command == "quit":
            return False
        if command == "start":
            await client.start()
        elif command in ("place", "preview"):
            tiles = tiles_for(client.view["board"], args)
            if command == "place":
                await client.act({"place": {"tiles": tiles}})
            else:
                frame = await client.request(
                    {"type": "preview", "action": {"place": {"tiles": tiles}}}
                )
                print(describe(frame), flush=True)
        elif command == "exchange":
            await client.exchange(args[0].upper())
        elif command == "pass":
            await client.pass_turn()
        elif command == "board":
            print(render(client.view), flush=True)
        else:
            print(f"unknown command {command!r}", flush=True)
    except ServerError as e:
        print(describe(e.frame), flush=True)
    except (IndexError, ValueError, KeyError):
        print("usage: place ROW COL across|down WORD", flush=True)
    return True


async def play(url: str, name: str, code: str | None) -> int:
    async with GatewayClient.connect(url) as client:
        client.on_frame = lambda f: (text := describe(f)) and print(text, flush=True)
        if code:
            await client.join(code, name)
        else:
            await client.create(name)
        loop = asyncio.get_running_loop()
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line or not await _command(client, line):
                return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="lexio play", description=__doc__.splitlines()[0])
    parser.add_argument("url", help="the gateway, e.g. http://127.0.0.1:8080")
    parser.add_argument("--name", required=True, help="your display name")
    parser.add_argument("--join", metavar="CODE", help="join a table by its invite code")
    args = parser.parse_args(argv)
    try:
        return asyncio.run(play(args.url, args.name, args.join))
    except ServerError as e:
        print(describe(e.frame), file=sys.stderr)
        return 1
