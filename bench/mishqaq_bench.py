"""al-Mishqaq rules benchmark: one placement validated, in-process.

A mid-game 22×22 board is built by seeded self-play (both sides growing their networks from
their red squares, about 40 placements). Then sample placements that are legal in form are
timed through the live path: examine (turn, pause, form M17–M21, rack, reserve), one batched
look-up of every reading in an in-memory lexicon holding the words, conclude (board, rack,
draw, clock, log).

Then the same placements go through the real ``lexio-engine`` process's one contract
(``lexio.game.v1.Engine``, ``Act`` with the game ``mishqaq``: the state's bytes and the
placement's JSON in, the step's JSON views out), which asks the real ``lexio-lexicon`` process
(the shipped fr, en and ar lists) in one batched call: the round trip a gateway sees. Words of
the self-play are random, so most are refused ``unknown_words`` — the same work (form, one
look-up, conclude) as an accepted one.

Run: ``.venv/bin/python bench/mishqaq_bench.py`` (about 20 s). Target: in-process p50 ≤ 100 µs.
"""

from __future__ import annotations

import json
import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import grpc
from benchlib import ServiceProcess, lexicon_process, machine, percentiles_us

from lexio.game.v1 import game_pb2 as pb
from lexio.game.v1 import game_pb2_grpc
from lexio_engine.mishqaq import codec
from mishqaq_rules import (
    RED_SQUARES,
    SIZE,
    Examined,
    GameState,
    Pass,
    Place,
    Refusal,
    Side,
    TilePlacement,
    WordSet,
    conclude,
    examine,
    new_game,
)

SEED = 2026
MID_GAME_PLACEMENTS = 40
SAMPLES = 300
ROUNDS = 30
GRPC_ROUNDS = 5
GRPC_CONCURRENCY = 8


class AnyWord:
    """Self-play only: every reading is a word."""

    def unknown(self, words: object) -> list[str]:
        return []


def candidate(state: GameState, rng: random.Random) -> Place | None:
    """A random line of 1–4 rack tiles next to one of the mover's tiles (or from the red square)."""
    side = state.turn
    rack = list(state.rack(side))
    if not rack:
        return None
    if state.first_placement_due(side):
        anchors = [RED_SQUARES[side]]
    else:
        anchors = [(r, c) for r, c, t in state.board.occupied() if t.owner is side]
    row, col = rng.choice(anchors)
    dr, dc = rng.choice(((0, 1), (0, -1), (1, 0), (-1, 0)))
    start = 0 if state.first_placement_due(side) else 1
    rng.shuffle(rack)
    tiles: list[TilePlacement] = []
    for k in range(start, start + rng.randint(1, min(4, len(rack)))):
        r, c = row + dr * k, col + dc * k
        if not (0 <= r < SIZE and 0 <= c < SIZE) or state.board.at(r, c) is not None:
            break
        tile = rack[len(tiles)]
        as_letter = rng.choice("EAST" if side is Side.LATIN else "امنل") if tile.blank else None
        tiles.append(TilePlacement(r, c, tile, as_letter))
    return Place(tuple(tiles)) if tiles else None


def find_placement(state: GameState, rng: random.Random, tries: int = 500) -> Examined | None:
    for _ in range(tries):
        place = candidate(state, rng)
        if place is None:
            continue
        examined = examine(state, state.turn, place, state.clock.since)
        if isinstance(examined, Examined) and examined.move and not examined.move.is_try:
            return examined
    return None


def mid_game(rng: random.Random) -> GameState:
    state = new_game(latin="fr", seed=SEED, now=0.0, opening=Side.LATIN)
    placements = 0
    now = 0.0
    while placements < MID_GAME_PLACEMENTS:
        now += 1.0
        examined = find_placement(state, rng)
        if examined is None:
            outcome = conclude(_examined(state, Pass(), now))
        else:
            outcome = conclude(replace(examined, now=now), AnyWord().unknown(()))
            placements += 1
        state = outcome.state
        assert not state.over
    return state


def _examined(state: GameState, action: Pass, now: float) -> Examined:
    examined = examine(state, state.turn, action, now)
    assert not isinstance(examined, Refusal)
    return examined


def main() -> None:
    rng = random.Random(SEED)
    state = mid_game(rng)
    tiles_on_board = sum(1 for _ in state.board.occupied())
    samples: list[Place] = []
    words: set[str] = set()
    for _ in range(SAMPLES * 20):
        examined = find_placement(state, rng, tries=1)
        if examined is not None:
            assert isinstance(examined.action, Place)
            samples.append(examined.action)
            # Every word known by its first reading (a column read top→bottom).
            assert examined.move is not None
            words.update(word.readings[0] for word in examined.move.words)
        if len(samples) == SAMPLES:
            break
    lexicon = WordSet(words)
    side, now = state.turn, state.clock.since + 5.0
    timings: list[int] = []
    accepted = 0
    for _ in range(ROUNDS):
        for place in samples:
            started = time.perf_counter_ns()
            checked = examine(state, side, place, now)
            assert isinstance(checked, Examined)
            outcome = conclude(checked, lexicon.unknown(checked.readings))
            timings.append(time.perf_counter_ns() - started)
            accepted += outcome.accepted
    p50, p99 = percentiles_us(timings)
    print(f"machine: {machine()}")
    print(
        f"mid-game board: {tiles_on_board} tiles; {len(samples)} sample placements "
        f"({sum(len(p.tiles) for p in samples) / len(samples):.1f} tiles each), "
        f"{accepted / len(timings):.0%} accepted"
    )
    print(f"validated placement (examine + look-up + conclude): p50 {p50:.1f} µs, p99 {p99:.1f} µs")
    bench_grpc(state, samples, now)


def _placement(place: Place) -> bytes:
    """A placement as the browser sends it (``as``: what a blank stands for)."""
    tiles: list[dict[str, object]] = []
    for t in place.tiles:
        tile: dict[str, object] = {"row": t.row, "col": t.col, "tile": t.tile.text}
        if t.as_letter:
            tile["as"] = t.as_letter
        tiles.append(tile)
    return json.dumps({"place": {"tiles": tiles}}, ensure_ascii=False).encode()


def bench_grpc(state: GameState, samples: list[Place], now: float) -> None:
    # The table's options as the lobby fixes them by default: the host (seat 0) plays Latin.
    seat = 0 if state.turn is Side.LATIN else 1
    table = pb.Table(state=codec.state_to_pb(state).SerializeToString(), options=b"{}")
    requests = [
        pb.ActRequest(game="mishqaq", table=table, seat=seat, action=_placement(p), now=now)
        for p in samples
    ]
    lexicon = lexicon_process()
    engine = ServiceProcess(
        "lexio-engine",
        "lexio.mishqaq.v1.Engine",
        {
            "PORT_VAR": "LEXIO_ENGINE_PORT",
            "LEXIO_ENGINE_METRICS_PORT": "-1",
            "LEXIO_LEXICON_ADDRESS": lexicon.address,
        },
    )
    try:
        with grpc.insecure_channel(engine.address) as channel:
            stub = game_pb2_grpc.EngineStub(channel)
            for request in requests[:20]:  # warm the channel and both processes
                stub.Act(request, timeout=10)
            timings: list[int] = []
            outcomes: dict[str, int] = {}
            started = time.perf_counter()
            for _ in range(GRPC_ROUNDS):
                for request in requests:
                    began = time.perf_counter_ns()
                    reply = stub.Act(request, timeout=10)
                    timings.append(time.perf_counter_ns() - began)
                    key = "accepted" if reply.accepted else json.loads(reply.refusal)["reason"]
                    outcomes[key] = outcomes.get(key, 0) + 1
            rate = len(timings) / (time.perf_counter() - started)
            with ThreadPoolExecutor(GRPC_CONCURRENCY) as pool:
                work = requests * GRPC_ROUNDS
                began_all = time.perf_counter()
                list(pool.map(lambda r: stub.Act(r, timeout=10), work))
                concurrent_rate = len(work) / (time.perf_counter() - began_all)
    finally:
        engine.stop()
        lexicon.stop()
    p50, p99 = percentiles_us(timings)
    print(
        f"lexicon start → SERVING (fr, en, ar): {lexicon.ready_seconds:.2f} s "
        f"(interpreter start-up included)"
    )
    print("== gRPC Act over loopback (engine process → lexicon process) ==")
    print(f"outcomes: {outcomes}")
    print(
        f"sequential, {len(timings)} calls: p50 {p50:7.1f} µs  p99 {p99:7.1f} µs  "
        f"{rate:6.0f} placements/s"
    )
    print(f"{GRPC_CONCURRENCY} client threads: {concurrent_rate:6.0f} placements/s")


if __name__ == "__main__":
    main()
