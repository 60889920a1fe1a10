"""Engine benchmark: one move validated and scored, in-process and over gRPC.

A "typical move" here is a real French word crossing a mid-game board (self-play reaches
one in a few moves), checked against the real shipped list: examine (form, rack, reserve),
the lexicon look-up, conclude (score, draw, log). Over gRPC the same moves go through the
real ``lexio-engine`` process's one contract (``lexio.game.v1.Engine``, ``Act`` with the game
``lexio``: the state's bytes and the move's JSON in, the step's JSON views out), which calls the
real ``lexio-lexicon`` process.

Run: ``.venv/bin/python bench/engine_bench.py`` (about half a minute).
"""

from __future__ import annotations

import json
import random
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
from benchlib import engine_process, lexicon_process, machine, percentiles_us
from selfplay import find_move

from lexio.game.v1 import game_pb2 as pb
from lexio.game.v1 import game_pb2_grpc
from lexio_engine.lexio import codec
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH, WordList
from lexio_rules import Examined, GameState, Place, conclude, examine, form_move, new_game, play

SEED = 2026
MID_GAME_MOVES = 12
SAMPLE_MOVES = 200
IN_PROCESS_ROUNDS = 50
GRPC_ROUNDS = 10
GRPC_CONCURRENCY = 8


def mid_game(words: list[str], lexicon: WordList) -> GameState:
    rng = random.Random(SEED)
    state = new_game(2, SEED, now=0.0)
    for _ in range(MID_GAME_MOVES):
        found = find_move(state, words, lexicon, rng)
        assert found is not None, "self-play found no move"
        ready, place = found
        state = play(ready, ready.turn, place, 0.0, lexicon).state
    return state


def sample_moves(
    state: GameState, words: list[str], lexicon: WordList
) -> list[tuple[GameState, Place]]:
    rng = random.Random(SEED + 1)
    moves = []
    for _ in range(SAMPLE_MOVES * 10):
        found = find_move(state, words, lexicon, rng)
        if found is not None:
            moves.append(found)
        if len(moves) == SAMPLE_MOVES:
            break
    return moves


def bench_in_process(moves: list[tuple[GameState, Place]], lexicon: WordList) -> None:
    full, form_only = [], []
    for _ in range(IN_PROCESS_ROUNDS):
        for state, place in moves:
            started = time.perf_counter_ns()
            examined = examine(state, state.turn, place, 0.0)
            assert isinstance(examined, Examined)
            conclude(examined, lexicon.unknown(examined.words_to_check))
            full.append(time.perf_counter_ns() - started)
            started = time.perf_counter_ns()
            form_move(state.board, state.racks[state.turn], place)
            form_only.append(time.perf_counter_ns() - started)
    p50, p99 = percentiles_us(full)
    f50, f99 = percentiles_us(form_only)
    rate = len(full) / (sum(full) / 1e9)
    print(f"== in-process, {len(moves)} moves × {IN_PROCESS_ROUNDS} rounds ==")
    print(
        f"validate + lexicon + score + apply: p50 {p50:6.1f} µs  p99 {p99:6.1f} µs  "
        f"{rate:8.0f} moves/s"
    )
    print(f"form + words + score only:          p50 {f50:6.1f} µs  p99 {f99:6.1f} µs")


def _placement(place: Place) -> bytes:
    """A placement as the browser sends it."""
    tiles = [
        {"row": t.row, "col": t.col, "letter": t.letter, "blank": t.blank} for t in place.tiles
    ]
    return json.dumps({"place": {"tiles": tiles}}).encode()


def bench_grpc(moves: list[tuple[GameState, Place]]) -> None:
    lexicon = lexicon_process()
    engine = engine_process(lexicon.address)
    try:
        # The stored state as the engine encodes it (Lexio's own bytes: the bench builds it
        # from its self-play) and each move as the browser sends it.
        requests = [
            pb.ActRequest(
                game="lexio",
                table=pb.Table(state=codec.state_to_pb(state).SerializeToString(), options=b"{}"),
                seat=state.turn,
                action=_placement(place),
                now=1.0,
            )
            for state, place in moves
        ]
        print(
            f"state: {len(requests[0].table.state)} bytes "
            f"(mid-game, {len(moves[0][0].log)} log entries)"
        )
        with grpc.insecure_channel(engine.address) as channel:
            stub = game_pb2_grpc.EngineStub(channel)
            for request in requests[:50]:
                stub.Act(request, timeout=10)  # warm-up
            samples = []
            started = time.perf_counter()
            for _ in range(GRPC_ROUNDS):
                for request in requests:
                    t0 = time.perf_counter_ns()
                    reply = stub.Act(request, timeout=10)
                    samples.append(time.perf_counter_ns() - t0)
                    assert reply.accepted, reply.refusal
            rate = len(samples) / (time.perf_counter() - started)
            p50, p99 = percentiles_us(samples)
            with ThreadPoolExecutor(GRPC_CONCURRENCY) as pool:
                work = requests * GRPC_ROUNDS
                started = time.perf_counter()
                list(pool.map(lambda r: stub.Act(r, timeout=10), work))
                concurrent_rate = len(work) / (time.perf_counter() - started)
    finally:
        engine.stop()
        lexicon.stop()
    print("== gRPC Act over loopback (engine process → lexicon process) ==")
    print(
        f"sequential, {len(samples)} calls: p50 {p50:7.1f} µs  p99 {p99:7.1f} µs  "
        f"{rate:6.0f} moves/s"
    )
    print(f"{GRPC_CONCURRENCY} client threads: {concurrent_rate:6.0f} moves/s")


def main() -> None:
    started = time.perf_counter()
    print(f"engine bench on {machine()}")
    lexicon = WordList.load(DEFAULT_WORDLIST_PATH)
    words = [
        w for w in DEFAULT_WORDLIST_PATH.read_text(encoding="ascii").split() if 2 <= len(w) <= 7
    ]
    state = mid_game(words, lexicon)
    moves = sample_moves(state, words, lexicon)
    tiles = sum(len(p.tiles) for _, p in moves) / len(moves)
    print(
        f"mid-game board after {MID_GAME_MOVES} moves; {len(moves)} sample moves, "
        f"{tiles:.1f} tiles each on average"
    )
    bench_in_process(moves, lexicon)
    bench_grpc(moves)
    print(f"(bench took {time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
