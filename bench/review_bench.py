"""Review of a finished game (issue 26): what a player's review costs the engine.

Lexio: 30 finished games of 2–4 players played from their seeds to their end by the review
tests' own generator (tests/support/lexio_review_games.py: exchanges, blanks, both endings).
al-Mishqaq: one game of seeded self-play (mishqaq_bench's mid-game, 40 placements), then a
resignation. Each game is reviewed, every seat, in-process (the rules' replay from the seed,
the record and the steps) and through the real ``lexio-engine`` process's one contract
(``lexio.game.v1.Engine``, ``Review``: the state's bytes in, the record and every step's view
out as JSON), sequentially over loopback.

Run: ``.venv/bin/python bench/review_bench.py`` (about 30 s).
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

import grpc
from benchlib import engine_process, lexicon_process, machine, percentiles_us
from mishqaq_bench import SEED, mid_game

from lexio.game.v1 import game_pb2 as pb
from lexio.game.v1 import game_pb2_grpc
from lexio_engine.lexio import codec as lexio_codec
from lexio_engine.mishqaq import codec as mishqaq_codec
from lexio_rules.review import review as lexio_review
from mishqaq_rules import Examined, Resign, Side, conclude, examine
from mishqaq_rules import GameState as MishqaqState
from mishqaq_rules.history import replay_history
from mishqaq_rules.side_record import side_record

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))
from lexio_review_games import PlayedGame, play_random_game

LEXIO_GAMES = 30
ROUNDS = 5


def mishqaq_finished() -> MishqaqState:
    state = mid_game(random.Random(SEED))
    examined = examine(state, state.turn, Resign(), state.clock.since + 1.0)
    assert isinstance(examined, Examined)
    resigned = conclude(examined)
    assert resigned.state.over
    return resigned.state


def _line(what: str, samples_ns: list[int], unit: str = "ms") -> str:
    p50, p99 = percentiles_us(samples_ns)
    count = len(samples_ns)
    return f"{what}: p50 {p50 / 1000:.2f} {unit}, p99 {p99 / 1000:.2f} {unit} ({count} reviews)"


def main() -> None:
    games: list[PlayedGame] = [play_random_game(seed) for seed in range(LEXIO_GAMES)]
    mishqaq = mishqaq_finished()
    entries = [len(g.final.log) for g in games]
    print(f"machine: {machine()}")
    print(
        f"Lexio: {LEXIO_GAMES} games, {sum(len(g.players) for g in games)} seats, "
        f"{min(entries)}–{max(entries)} log entries; al-Mishqaq: 1 game, {len(mishqaq.log)} entries"
    )

    in_process: list[int] = []
    record_bytes: list[int] = []
    for _ in range(ROUNDS):
        for game in games:
            for seat in range(len(game.players)):
                began = time.perf_counter_ns()
                seat_review = lexio_review(game.final, seat, game.players)
                in_process.append(time.perf_counter_ns() - began)
                record_bytes.append(len(json.dumps(seat_review.record)))
    print(_line("Lexio in-process (replay + record + steps)", in_process))
    print(f"Lexio record: median {sorted(record_bytes)[len(record_bytes) // 2]} bytes of JSON")

    mishqaq_in_process: list[int] = []
    for _ in range(ROUNDS * 10):
        for side in Side:
            began = time.perf_counter_ns()
            side_record(replay_history(mishqaq), side)
            mishqaq_in_process.append(time.perf_counter_ns() - began)
    print(_line("al-Mishqaq in-process (replay + record)", mishqaq_in_process))

    lexicon = lexicon_process()
    engine = engine_process(lexicon.address)
    try:
        with grpc.insecure_channel(engine.address) as channel:
            stub = game_pb2_grpc.EngineStub(channel)
            requests = [
                pb.ReviewRequest(
                    game="lexio",
                    table=pb.Table(
                        state=lexio_codec.state_to_pb(g.final).SerializeToString(), options=b"{}"
                    ),
                    seat=seat,
                    players=list(g.players),
                )
                for g in games
                for seat in range(len(g.players))
            ]
            lexio_timings: list[int] = []
            reply_bytes: list[int] = []
            for _ in range(ROUNDS):
                for request in requests:
                    began = time.perf_counter_ns()
                    reply = stub.Review(request, timeout=30)
                    lexio_timings.append(time.perf_counter_ns() - began)
                    reply_bytes.append(reply.ByteSize())
            # The table's default options: the host (seat 0) plays Latin, seat 1 Arabic.
            table = pb.Table(
                state=mishqaq_codec.state_to_pb(mishqaq).SerializeToString(), options=b"{}"
            )
            mishqaq_timings: list[int] = []
            for _ in range(ROUNDS * 10):
                for seat in (0, 1):
                    began = time.perf_counter_ns()
                    mishqaq_reply = stub.Review(
                        pb.ReviewRequest(
                            game="mishqaq", table=table, seat=seat, players=["Ana", "Bruno"]
                        ),
                        timeout=30,
                    )
                    mishqaq_timings.append(time.perf_counter_ns() - began)
    finally:
        engine.stop()
        lexicon.stop()
    print("== gRPC Review over loopback (the engine process) ==")
    print(_line("Lexio", lexio_timings))
    print(f"Lexio ReviewReply: median {sorted(reply_bytes)[len(reply_bytes) // 2]} bytes")
    print(_line("al-Mishqaq", mishqaq_timings))
    print(f"al-Mishqaq ReviewReply: {mishqaq_reply.ByteSize()} bytes")


if __name__ == "__main__":
    main()
