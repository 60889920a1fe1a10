"""Simulated players for bench/load.py: real WebSockets, the reference client, real moves.

One worker process holds a share of the tables. Each table is four (or N) :class:`GatewayClient`
seats on one shared aiohttp session: the first creates the table, the others join by its code,
the host starts, and each seat plays on its turn after a think time: a move found by the bot
from its own view (board + rack), sometimes an exchange or a pass, sometimes first a refused
placement on purpose (one letter changed, so a word is unknown: R19/R20), and sometimes a
drop of the connection and a resume with the token and the last sequence number seen. When a
game ends the host asks for a rematch and the others join its code, until the run's end; then
the games in play are finished (played on without thinking, or passed to their end, R31).

A share of the tables (``Plan.mishqaq_share``) plays al-Mishqaq instead: two seats, each side's
moves found by :class:`~lexio_client.mishqaq_bot.MishqaqBot` with a search budget, sometimes
a pass, racing to a try; finished by a resignation (``finish="pass"``). Their latencies are
reported apart, as ``mishqaq:<kind>``.

What is measured, client side: from sending ``act`` to this seat's own ``view`` of the result
(the turn latency), from sending to the last seat's ``view`` (fan-out), refusals, seating
(create/join/start); everything unexpected is an error (an ``error`` frame, an unexpected
refusal, a time-out).

A connection *lost* (a replica killed, not a seat's own deliberate drop) is survived as a
browser would (issue 27): the seat reconnects with lexio_client's backoff, each try at the next
of ``Plan.urls`` (a load balancer without stickiness), resumes with its token and last seq, and
sends again with the same id the action whose answer it did not get; ``unavailable`` answers
(a store or lobby away: nothing changed) are retried with the same id after the backoff. What
is checked on the way (see :class:`Results`): no acknowledged move missing from the seat's log,
none applied twice, no seq seen with two different entries, no turn logged twice.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import copy
import gc
import hashlib
import inspect
import itertools
import json
import multiprocessing
import random
import resource
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
from load_scripts import Book, Script, book_key, load_book, record_script, save_book

import lexio_rules
from lexio_client import Backoff, GatewayClient, ServerError
from lexio_client.bot import Bot
from lexio_client.client import Frame
from lexio_client.mishqaq_bot import MishqaqBot
from lexio_lexicon.catalog import open_list
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH
from lexio_rules import Place, TilePlacement, WordSet, form_move
from lexio_rules.placement import FormedMove
from lexio_rules.tiles import BLANK

T = TypeVar("T")

FRAMES_KEPT = 4
"""A seat keeps only its last frames: a soak would otherwise hold every frame it received, and
a big heap makes the generator's own garbage collections long pauses (measured as latency)."""


SEARCH_TRIES = 2_000
"""Placements tried before the bot exchanges or passes. The reference bot tries 20,000: in
late games, where most searches find nothing, that made the move finder 0.6 core of the
machine in the 30-minute soak and its pauses part of the latency measured."""


class QuickBot(Bot):
    """The reference bot on the load generator's search budget, which can also misspell a move.

    Its search is :class:`Bot`'s, :func:`lexio_rules.legal_placements` (candidate words from an
    anagram index, so a move costs a few milliseconds even on two cores shared with the
    services), but it gives up after :data:`SEARCH_TRIES` placements.
    """

    def __init__(self, words: Iterable[str], seed: int) -> None:
        # misspelt() counts on the bot knowing every word of up to 7 letters, and no longer.
        super().__init__(words, seed, max_length=7)

    def with_seed(self, seed: int) -> QuickBot:
        twin = copy.copy(self)
        twin.rng = random.Random(seed)
        return twin

    def find(self, board: str, rack: str, tries: int = SEARCH_TRIES) -> Place | None:
        return super().find(board, rack, tries)

    def misspelt(self, board: str, rack: str, place: Place) -> Place | None:
        """The placement with one letter changed to another tile of the rack so that the move
        is well formed but one of its words is unknown (all its words ≤ 7 letters, so "not in
        the bot's list" means "not in the lexicon")."""
        used = [t.letter for t in place.tiles]
        spare = list(rack)
        for letter in used:
            if letter in spare:
                spare.remove(letter)
        options = sorted(set(spare) - {BLANK})
        self.rng.shuffle(options)
        for i in self.rng.sample(range(len(place.tiles)), len(place.tiles)):
            tile = place.tiles[i]
            if tile.blank:
                continue
            for letter in options:
                if letter == tile.letter:
                    continue
                tiles = list(place.tiles)
                tiles[i] = TilePlacement(tile.row, tile.col, letter, False)
                wrong = Place(tuple(tiles))
                formed = form_move(board, rack, wrong)
                if (
                    isinstance(formed, FormedMove)
                    and all(len(w.word) <= 7 for w in formed.words)
                    and not self.knows(w.word for w in formed.words)
                ):
                    return wrong
        return None


_RACING_LISTS: dict[str, Any] = {}


def racing_list(list_id: str) -> Any:
    """The list the lexicon service holds, memory-mapped once per generator process."""
    if list_id not in _RACING_LISTS:
        _RACING_LISTS[list_id] = open_list(list_id)
    return _RACING_LISTS[list_id]


def load_bot() -> QuickBot:
    return QuickBot(DEFAULT_WORDLIST_PATH.read_text(encoding="ascii").split(), 0)


def place_action(place: Place) -> dict[str, Any]:
    tiles = [
        {"row": t.row, "col": t.col, "letter": t.letter, "blank": t.blank} for t in place.tiles
    ]
    return {"place": {"tiles": tiles}}


def place_from_action(action: dict[str, Any]) -> Place:
    return Place(
        tuple(
            TilePlacement(t["row"], t["col"], t["letter"], t["blank"])
            for t in action["place"]["tiles"]
        )
    )


@dataclass
class Plan:
    """What a worker is asked to do (every time is ``time.monotonic()``, shared by processes)."""

    url: str
    tables: list[int]
    total_tables: int
    players: int
    think: float
    start_at: float
    ramp: float
    measure_from: float
    stop_at: float
    hard_stop: float
    finish: str = "play"  # play | pass | none
    finish_think: float = 0.0
    rematch: bool = True
    refuse_rate: float = 0.03
    exchange_rate: float = 0.03
    pass_rate: float = 0.02
    reconnect_rate: float = 0.01
    seed: int = 1
    turn_timeout: float = 180.0
    mishqaq_share: float = 0.0
    """The share of the tables that play al-Mishqaq (every n-th table, evenly spread)."""
    mishqaq_budget: int = 150
    """Candidate placements an al-Mishqaq player judges per move (see MishqaqBot)."""
    book: str | None = None
    """A book of games found ahead of time (load_scripts): Lexio seats replay its moves."""
    urls: list[str] = field(default_factory=list)
    """The gateway replicas (empty: ``[url]``). Seat i of table n opens on
    ``urls[(n + i) % len(urls)]`` (``spread`` "seat"; "table": on ``urls[n % len(urls)]``),
    and after a lost connection tries the next ones in turn."""
    spread: str = "seat"
    """"seat": a balancer without stickiness (a table's seats on several replicas); "table":
    one that keeps a table's seats together (by the invitation's path, say)."""
    give_up_after: float = 60.0
    """How long a seat keeps trying to reconnect, or to be answered other than ``unavailable``."""

    @property
    def gateways(self) -> list[str]:
        return list(self.urls) or [self.url]

    def game_of(self, number: int) -> str:
        """Which game table ``number`` plays: al-Mishqaq for an even spread of the share."""
        share = self.mishqaq_share
        if share <= 0:
            return "lexio"
        return "mishqaq" if int((number + 1) * share) != int(number * share) else "lexio"


@dataclass
class Results:
    latency_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    fanout_ms: list[float] = field(default_factory=list)
    refusal_ms: list[float] = field(default_factory=list)
    seating_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    reconnect_ms: list[float] = field(default_factory=list)
    actions: Counter[str] = field(default_factory=Counter)
    actions_in_window: int = 0
    refusals: Counter[str] = field(default_factory=Counter)
    reconnects: int = 0
    errors: list[str] = field(default_factory=list)
    error_count: int = 0
    games_started: int = 0
    games_completed: int = 0
    games_abandoned: int = 0
    end_causes: Counter[str] = field(default_factory=Counter)
    games_by_game: Counter[str] = field(default_factory=Counter)
    table_passes: Counter[str] = field(default_factory=Counter)
    tables_done: int = 0
    bot_seconds: float = 0.0
    script_steps: int = 0
    """Moves replayed from the book."""
    script_misses: int = 0
    """Turns of a scripted game where the view was not the one expected (searched instead)."""
    loop_lag_ms: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0
    connection_losses: int = 0
    """Connections lost (not a seat's own drop) and resumed, each counted once."""
    loss_reconnect_ms: list[float] = field(default_factory=list)
    """From the moment a loss was seen to the seat resumed and caught up (all of them, not
    only the measuring window's: losses are the subject of the runs that cause them)."""
    loss_at: list[float] = field(default_factory=list)
    """When each of those losses was seen (time.monotonic(), as loss_reconnect_ms's order)."""
    resent_acts: int = 0
    """Acts sent again with their id after a loss (their answer had not come)."""
    acked_lost: int = 0
    """Acknowledged moves missing from the seat's log after it resumed (the entry at the
    ack's seq is not the seat's own, or there is none): must be 0."""
    applied_twice: int = 0
    """An act id acknowledged with two different seqs, or a seat's move logged twice in a
    row (one act, two entries): must be 0."""
    unavailable_retries: int = 0
    """Requests answered ``unavailable`` and sent again (same id) after the backoff."""
    duplicate_seqs: int = 0
    """A seq seen twice with different entries in a seat's log, or one turn passed twice by
    the table (R28/R29's clock, al-Mishqaq's result twice): must be 0."""
    broken: list[str] = field(default_factory=list)
    """Each broken guarantee above, said in full with the entries involved: never cut short
    as the errors are (the 2,000-table replica-kill run lost its one duplicate_seqs there)."""
    seating_retries: int = 0
    """create/join/rematch answers lost with the connection and done again (see Table)."""

    def error(self, what: str) -> None:
        self.error_count += 1
        if len(self.errors) < 50:
            self.errors.append(what[:300])

    def as_dict(self) -> dict[str, Any]:
        return {
            "latency_ms": dict(self.latency_ms),
            "fanout_ms": self.fanout_ms,
            "refusal_ms": self.refusal_ms,
            "seating_ms": dict(self.seating_ms),
            "reconnect_ms": self.reconnect_ms,
            "actions": dict(self.actions),
            "actions_in_window": self.actions_in_window,
            "refusals": dict(self.refusals),
            "reconnects": self.reconnects,
            "errors": self.errors,
            "error_count": self.error_count,
            "games_started": self.games_started,
            "games_completed": self.games_completed,
            "games_abandoned": self.games_abandoned,
            "end_causes": dict(self.end_causes),
            "games_by_game": dict(self.games_by_game),
            "table_passes": dict(self.table_passes),
            "tables_done": self.tables_done,
            "bot_seconds": self.bot_seconds,
            "script_steps": self.script_steps,
            "script_misses": self.script_misses,
            "loop_lag_ms": self.loop_lag_ms,
            "cpu_seconds": self.cpu_seconds,
            "connection_losses": self.connection_losses,
            "loss_reconnect_ms": self.loss_reconnect_ms,
            "loss_at": self.loss_at,
            "resent_acts": self.resent_acts,
            "acked_lost": self.acked_lost,
            "applied_twice": self.applied_twice,
            "unavailable_retries": self.unavailable_retries,
            "duplicate_seqs": self.duplicate_seqs,
            "broken": self.broken,
            "seating_retries": self.seating_retries,
        }


class UnexpectedError(Exception):
    pass


class GhostSeatError(Exception):
    """A join was applied but its answer (the seat's token) was lost with the connection: the
    table holds a seat nobody can play, so its seating starts again at a new table."""


_TURN_KINDS = frozenset({"place", "exchange", "swap", "pass"})
_SIDES = {"latin": 0, "arabic": 1}
_DIGESTED = ("number", "kind", "seat", "side", "cause", "score", "count", "words", "at")
_ANYONE = 254
"""The actor of an entry that ends a move of either side (al-Mishqaq's ``result``)."""


def _actor(entry: Frame) -> int:
    if entry.get("kind") == "result":
        return _ANYONE
    who = entry.get("seat", entry.get("side"))
    if isinstance(who, int):
        return who
    return _SIDES.get(str(who), 255)


_SILENT = frozenset({"event", "ack", "pong"})


class Seat:
    """One simulated person: a client, and a wake-up on every frame it receives."""

    def __init__(self, table: Table, index: int, client: GatewayClient) -> None:
        self.table = table
        self.index = index
        self.client = client
        self.name = f"T{table.number}-{index}"
        plan = table.plan
        self.urls = plan.gateways
        self.backoff = Backoff(
            rng=random.Random((plan.seed * 1_000_003 + table.number) * 16 + index)
        )
        """Each seat its own draws: the seats of a dead replica do not retry in step."""
        self.deliberate = False
        """In its own drop-and-resume (``Table._reconnect``): that close is no loss."""
        self.background: asyncio.Task[None] | None = None
        """The recovery started when the connection was lost."""
        self.lost_at: float | None = None
        self._recovering = asyncio.Lock()
        self._acts = itertools.count(1)
        self.acks: dict[str, int] = {}
        """This game's acknowledged act ids and their seq."""
        self.digests = array.array("q")
        """A digest of each entry of this game's log, by seq - 1 (the client keeps only its
        last frames and entries)."""
        self.actors = bytearray()
        self.last_turn: tuple[int, bool] | None = None
        """(actor, made by a player) of the log's last turn entry."""
        self.resending = False
        """The act being sent was sent before, and its answer lost with the connection."""
        self.changed = asyncio.Event()
        self.rematch_code: str | None = None
        self.views = 0
        self.view_seq = -1
        """The seq of the last view or snapshot: ``client.seq`` follows the events, which
        arrive before the view of the same seq (so ``client.view`` may still be the old one)."""
        self.entries = 0
        """The game's log entries this seat has heard of (where a script is at)."""
        client.on_frame = self._on_frame
        client.on_close = self._on_close

    def _on_close(self) -> None:
        if not self.deliberate and not self.table.closing:
            if self.lost_at is None:
                self.lost_at = time.perf_counter()
            # A browser reconnects at once, whatever its player is doing; a seat whose table
            # is busy elsewhere (seating another seat) would otherwise wait to be needed.
            if self.background is None or self.background.done():
                self.background = asyncio.create_task(self._recover_in_background())
        self.changed.set()

    async def _recover_in_background(self) -> None:
        # A failure is said by the next wait of this seat, which tries again and raises.
        with contextlib.suppress(UnexpectedError):
            await self.recover()

    def _on_frame(self, frame: Frame) -> None:
        kind = frame["type"]
        if len(self.client.log) > 2 * FRAMES_KEPT:
            del self.client.log[:-FRAMES_KEPT]
        if kind == "error":
            # ``unavailable`` (nothing changed) is retried by whoever asked, or, answering a
            # resume, followed by the catch-up once the store is back: not an error.
            if frame.get("code") != "unavailable":
                self.table.results.error(f"{self.name}: error frame {frame}")
        elif kind == "rematch":
            self.rematch_code = frame["code"]
        elif kind == "view":
            self.views += 1
            self.view_seq = frame["seq"]
            self.table.view_seen(frame["seq"])
        elif kind == "snapshot":
            self.view_seq = frame["seq"]
            log = frame["view"].get("log", ())
            for entry in log:
                self.entries = max(self.entries, int(entry.get("number", 0)))
            if len(log) == frame["seq"]:
                for seq, entry in enumerate(log, 1):
                    self._logged(seq, entry)
        elif kind == "seated":
            self.view_seq = -1
            self.entries = 0
            self.acks, self.actors, self.last_turn = {}, bytearray(), None
            self.digests = array.array("q")
        elif kind == "event":
            entry = frame.get("entry") or {}
            if "number" in entry:
                self.entries = max(self.entries, int(entry["number"]))
            self._logged(frame["seq"], entry)
        # What a seat waits for comes with a view, a snapshot, a table or a rematch frame: an
        # event (it precedes the view of its seq) or an ack wakes nobody.
        if kind not in _SILENT:
            self.changed.set()

    def _logged(self, seq: int, entry: Frame) -> None:
        """Keep a digest of the game's entry ``seq``; a seq seen again must hold the same
        entry, and no turn may be logged twice in a row."""
        # Public fields only: a snapshot's log and the events may differ in what else they say.
        digest = hash(json.dumps([entry.get(k) for k in _DIGESTED], sort_keys=True))
        known = len(self.digests)
        if seq <= known:
            if self.digests[seq - 1] != digest:
                self.table.flag("duplicate_seqs", seq, f"{self.name} saw it again as {entry}")
            return
        if seq != known + 1:
            return  # a gap: the client ignores it too, a snapshot follows
        actor = _actor(entry)
        self.digests.append(digest)
        self.actors.append(min(actor, 255))
        kind = entry.get("kind")
        by_player = entry.get("cause") in ("player", None, "unspecified")
        if kind in _TURN_KINDS:
            if self.last_turn is not None and self.last_turn[0] == actor:
                # The same seat (or side) twice in a row: one act applied twice, or the table's
                # clock passing one turn twice.
                by_players = by_player and self.last_turn[1]
                what = "applied_twice" if by_players else "duplicate_seqs"
                self.table.flag(what, seq, f"{self.name}: seat {actor} again, {entry}")
            self.last_turn = (actor, by_player)
        elif kind == "result":
            if self.last_turn is not None and self.last_turn[0] == _ANYONE:
                self.table.flag("duplicate_seqs", seq)
            self.last_turn = (_ANYONE, False)
        if self.index == 0:
            if kind == "pass" and entry.get("cause") not in ("player", None):
                self.table.results.table_passes[entry["cause"]] += 1
            elif kind == "result" and entry.get("cause") == "flag":
                self.table.results.table_passes["flag"] += 1

    def _mine(self) -> int:
        if self.table.game == "mishqaq":
            return _SIDES.get(str(self.client.view.get("side")), 255)
        return self.me

    def acked(self, action_id: str, seq: int) -> None:
        """An ``ack``: the same id answered before must have had the same seq."""
        earlier = self.acks.get(action_id)
        if earlier is not None and earlier != seq:
            self.table.flag("applied_twice", seq)
        self.acks[action_id] = seq

    def check_acks(self) -> None:
        """Every acknowledged move of this game the seat's view has passed is its own entry."""
        mine = self._mine()
        for seq in self.acks.values():
            if seq > self.view_seq:
                continue  # its view has not come yet
            if seq > len(self.digests) or self.actors[seq - 1] not in (mine, _ANYONE):
                self.table.flag("acked_lost", seq)

    def next_act_id(self) -> str:
        return f"{self.name}-a{next(self._acts)}"

    @property
    def lost(self) -> bool:
        return self.client.closed.is_set() and not self.deliberate

    async def recover(self) -> None:
        """After a lost connection: reconnect with the client's backoff over the replicas,
        resume (token + last seq) and catch up; then check the acknowledged moves."""
        async with self._recovering:
            if self.client.connected:
                return  # another wait of this seat already recovered it
            results = self.table.results
            lost_at = self.lost_at or time.perf_counter()
            self.table.pending.clear()  # views seen late: no fan-out sample
            try:
                await self.client.reconnect(
                    self.urls, backoff=self.backoff, give_up_after=self.table.plan.give_up_after
                )
            except (ServerError, OSError, aiohttp.ClientError, TimeoutError) as e:
                raise UnexpectedError(
                    f"{self.name}: not resumed after a lost connection: {type(e).__name__}: {e}"
                ) from None
            results.connection_losses += 1
            took = time.perf_counter() - lost_at
            results.loss_reconnect_ms.append(took * 1000)
            # On time.monotonic(), the harness's clock: load.py gives each loss to its fault.
            results.loss_at.append(time.monotonic() - took)
            self.lost_at = None
            self.check_acks()

    async def until(self, predicate: Callable[[], bool], timeout: float, what: str) -> None:
        """Wait until ``predicate()`` holds, re-checked on each frame this seat receives and
        when its connection ends (a lost connection is recovered first; its time is not
        counted in ``timeout``). (One timer per wait: a wake-up every second for each of
        thousands of waiting seats was most of the generator's CPU.)"""
        if predicate():
            return
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout) as limit:
                while not predicate():
                    if self.lost:
                        when = limit.when()
                        limit.reschedule(None)  # the reconnection has its own limits
                        began = loop.time()
                        await self.recover()
                        if when is not None:
                            limit.reschedule(when + loop.time() - began)
                        continue
                    self.changed.clear()
                    await self.changed.wait()
        except TimeoutError:
            raise UnexpectedError(f"{self.name}: no {what} after {timeout:.0f} s") from None

    @property
    def me(self) -> int:
        return int(self.client.table.get("you", self.index))


class Table:
    def __init__(
        self,
        plan: Plan,
        number: int,
        session: aiohttp.ClientSession,
        bot: QuickBot,
        results: Results,
        *,
        executor: ThreadPoolExecutor,
        book: Book | None = None,
    ) -> None:
        self.plan = plan
        self.number = number
        self.session = session
        self.bot = bot.with_seed(plan.seed * 1_000_003 + number)
        self.rng = random.Random(plan.seed * 7_919 + number)
        self.results = results
        self.game = plan.game_of(number)
        self.players = 2 if self.game == "mishqaq" else plan.players
        self.racers: dict[str, MishqaqBot] = {}
        if self.game == "mishqaq":
            for side, list_id in (("latin", "fr"), ("arabic", "ar")):
                self.racers[side] = MishqaqBot(
                    racing_list(list_id), plan.seed * 1_000_003 + number, plan.mishqaq_budget
                )
        self.seats: list[Seat] = []
        self.pending: dict[int, tuple[float, int]] = {}
        self.book = book if self.game == "lexio" else None
        self.script: Script | None = None
        """The game this table replays, once it is started (its seed comes from the table id)."""
        self.stage = "not started"
        """What the table was doing last (said with an error)."""
        self.executor = executor
        self.flagged: set[tuple[str, int, int]] = set()
        """(what, game, seq) already counted: each seat sees the same log."""
        self.game_number = 0
        self.closing = False
        """The table is over: its seats' closes are no losses."""

    def flag(self, what: str, seq: int, detail: str = "") -> None:
        """Count a broken guarantee once for the table, whichever seats saw it."""
        key = (what, self.game_number, seq)
        if key in self.flagged:
            return
        self.flagged.add(key)
        setattr(self.results, what, getattr(self.results, what) + 1)
        said = f"T{self.number}: {what} at seq {seq} (game {self.game_number})"
        self.results.error(said)
        self.results.broken.append(f"{said}; {detail}" if detail else said)

    # Fan-out: from an act to the last seat's view of it ----------------------------------

    def view_seen(self, seq: int) -> None:
        entry = self.pending.get(seq)
        if entry is None:
            return
        sent, seen = entry
        seen += 1
        if seen >= len(self.seats):
            del self.pending[seq]
            if sent >= self.plan.measure_from and sent < self.plan.stop_at:
                self.results.fanout_ms.append((time.perf_counter() - sent) * 1000)
        else:
            self.pending[seq] = (sent, seen)

    # The table's life --------------------------------------------------------------------

    @property
    def stopping(self) -> bool:
        return time.monotonic() >= self.plan.stop_at

    def _measured(self, started: float) -> bool:
        return self.plan.measure_from <= started < self.plan.stop_at

    async def run(self) -> None:
        plan = self.plan
        offset = plan.ramp * self.number / max(1, plan.total_tables)
        await asyncio.sleep(max(0.0, plan.start_at + offset - time.monotonic()))
        try:
            urls = plan.gateways
            for i in range(self.players):
                url = urls[(self.number + (i if plan.spread == "seat" else 0)) % len(urls)]
                client = GatewayClient(self.session, url, None, keep_frames=FRAMES_KEPT)
                seat = Seat(self, i, client)
                self.seats.append(seat)
                await self._open(seat)
            code = await self._create()
            while True:
                try:
                    await self._seat_others(code)
                except GhostSeatError:
                    self.results.seating_retries += 1
                    code = await self._new_seating()
                    continue
                await self._start()
                await self._play_game()
                if self.stopping or not plan.rematch:
                    break
                code = await self._rematch()
            self.results.tables_done += 1
        except (
            UnexpectedError,
            ServerError,
            ConnectionError,
            TimeoutError,
            aiohttp.ClientError,
        ) as e:
            self.results.error(f"T{self.number} ({self.stage}): {type(e).__name__}: {e}")
        finally:
            self.closing = True
            for seat in self.seats:
                if seat.background is not None:
                    seat.background.cancel()
                with contextlib.suppress(Exception):
                    await seat.client.close()

    # Seating through losses and ``unavailable`` -------------------------------------------
    #
    # An ``unavailable`` answer changed nothing: the same request is sent again after the
    # seat's backoff. A connection lost before the answer: ``start`` is asked again unless
    # the resumed table says it started (a second start would only be refused); ``create``,
    # ``join`` and ``rematch`` have no id dedup in the protocol, so the seat tells by its
    # token: if the ``seated`` answer came, the resume carries on; if not, a lost ``create``
    # or ``rematch`` is replaced by a new ``create`` (a table made and never answered is
    # left to the lobby's expiry), and a lost ``join`` asks the lobby (``lookup``) how many
    # are seated: one more than before means the join was applied to a seat nobody can
    # play (no token), and the table's seating starts again at a new table (GhostSeatError).

    async def _retry_unavailable(self, seat: Seat, attempt: int, what: str) -> None:
        self.results.unavailable_retries += 1
        if attempt * 15 > self.plan.give_up_after:
            raise UnexpectedError(f"{seat.name}: {what} still unavailable")
        await asyncio.sleep(seat.backoff.delay(attempt))

    async def _answered(
        self,
        seat: Seat,
        what: str,
        request: Callable[[], Awaitable[T]],
        after_loss: Callable[[], Awaitable[bool]],
    ) -> T | None:
        """``request``'s answer, asked again after each ``unavailable`` (and the backoff).
        After a lost connection the seat recovers, then ``after_loss`` says whether the
        request is settled without its answer (True: None is returned) or to be asked again.
        Any other refusal raises ServerError."""
        for attempt in itertools.count():
            try:
                return await request()
            except ServerError as e:
                if e.code != "unavailable":
                    raise
                await self._retry_unavailable(seat, attempt, what)
            except ConnectionError:
                await seat.recover()
                if await after_loss():
                    return None
        raise AssertionError("unreachable")

    async def _open(self, seat: Seat) -> None:
        try:
            await seat.client.open()
        except (OSError, aiohttp.ClientError, TimeoutError):
            seat.lost_at = seat.lost_at or time.perf_counter()
            with contextlib.suppress(Exception):
                await seat.client.drop()  # a socket opened but never welcomed
            await seat.recover()

    async def _create(self) -> str:
        self.stage = "create"
        host = self.seats[0]
        before = host.client.token
        t0 = time.perf_counter()

        async def after_loss() -> bool:
            if host.client.token != before:
                return True  # seated before the loss: the resume brought its table
            self.results.seating_retries += 1
            return False

        await self._answered(
            host, "create", lambda: host.client.create(host.name, game=self.game), after_loss
        )
        self.results.seating_ms["create"].append((time.perf_counter() - t0) * 1000)
        return str(host.client.table["code"])

    async def _join(self, seat: Seat, code: str) -> None:
        before = seat.client.token

        async def after_loss() -> bool:
            if seat.client.token != before:
                return True
            invitation = await self._lookup(seat, code)
            if int(invitation["seated"]) > seat.index:
                raise GhostSeatError(seat.name) from None
            self.results.seating_retries += 1
            return False

        await self._answered(seat, "join", lambda: seat.client.join(code, seat.name), after_loss)

    async def _lookup(self, seat: Seat, code: str) -> Frame:
        async def ask_again() -> bool:
            return False

        invitation = await self._answered(
            seat, "lookup", lambda: seat.client.lookup(code), ask_again
        )
        assert invitation is not None
        return invitation

    async def _new_seating(self) -> str:
        """Every seat on a new connection without a seat, and a new table (see above)."""
        self.stage = "new seating"
        for seat in self.seats:
            seat.deliberate = True
            try:
                await seat.client.drop()
            finally:
                seat.deliberate = False
            seat.client.token = None
            await self._open(seat)
        return await self._create()

    async def _seat_others(self, code: str) -> None:
        self.stage = "join"
        for seat in self.seats[1:]:
            t0 = time.perf_counter()
            await self._join(seat, code)
            self.results.seating_ms["join"].append((time.perf_counter() - t0) * 1000)
        host = self.seats[0]
        await host.until(
            lambda: len(host.client.table.get("seats", ())) == len(self.seats), 30, "full table"
        )

    async def _start(self) -> None:
        self.stage = "start"
        self.game_number += 1
        t0 = time.perf_counter()
        host = self.seats[0]
        asked = False

        async def start() -> None:
            try:
                await host.client.start()
            except ServerError as e:
                if e.code != "game_started" or not asked:
                    raise
                # else the first start was applied before the loss

        async def after_loss() -> bool:
            nonlocal asked
            asked = True
            return host.client.table.get("state") == "started"

        await self._answered(host, "start", start, after_loss)
        await host.until(lambda: bool(host.client.view), 30, "snapshot")
        for seat in self.seats[1:]:
            await seat.until(lambda s=seat: bool(s.client.view), 30, "snapshot")  # type: ignore[misc]
        self.results.seating_ms["start"].append((time.perf_counter() - t0) * 1000)
        self.results.games_started += 1

    async def _rematch(self) -> str:
        self.stage = "rematch"
        host = self.seats[0]
        for seat in self.seats:
            seat.rematch_code = None
        t0 = time.perf_counter()
        before = host.client.token
        unanswered = False

        async def after_loss() -> bool:
            nonlocal unanswered
            unanswered = host.client.token == before
            return True

        seated = await self._answered(host, "rematch", host.client.rematch, after_loss)
        if unanswered:
            # No ``seated``: whether the rematch table exists or not, the host has no token
            # for it. A new table, which the others join by its code instead.
            self.results.seating_retries += 1
            return await self._create()
        if seated is None:  # seated, then lost: the resume brought the new table
            seated = {"table_id": host.client.table["table_id"], "code": host.client.table["code"]}
        await host.until(
            lambda: host.client.table.get("table_id") == seated["table_id"], 30, "table"
        )
        self.results.seating_ms["rematch"].append((time.perf_counter() - t0) * 1000)
        code = str(seated["code"])
        for seat in self.seats[1:]:
            await seat.until(lambda s=seat: s.rematch_code is not None, 30, "rematch offer")  # type: ignore[misc]
        return code

    async def _play_game(self) -> None:
        if self.book is not None:
            self.script = self.book.for_table(
                str(self.seats[0].client.table["table_id"]), self.players
            )
        tasks = [asyncio.create_task(self._player(seat)) for seat in self.seats]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
        endings = [seat.client.view.get("ending") for seat in self.seats]
        if any(e is None for e in endings):
            self.results.games_abandoned += 1
            return
        if self.game == "lexio":
            finals = {tuple(e["final_scores"]) for e in endings if e is not None}
            if len(finals) != 1:
                raise UnexpectedError(
                    f"T{self.number}: seats disagree on the final scores {finals}"
                )
            if self.script is not None and finals != {self.script.final_scores}:
                # Replayed move for move: the services must reach the rules' own result.
                raise UnexpectedError(
                    f"T{self.number}: final scores {finals} after replaying seed "
                    f"{self.script.seed}, which ends {self.script.final_scores}"
                )
        elif any(e != endings[0] for e in endings):
            raise UnexpectedError(f"T{self.number}: seats disagree on the ending {endings}")
        self.results.games_completed += 1
        self.results.games_by_game[self.game] += 1
        first = endings[0]
        assert first is not None
        self.results.end_causes[first["cause"]] += 1

    async def _think(self) -> None:
        plan = self.plan
        if self.stopping:
            # Finishing: a shorter think, still spread, so the end is no burst of every table.
            await asyncio.sleep(plan.finish_think * self.rng.uniform(0.5, 1.5))
            return
        pause = plan.think * self.rng.uniform(0.5, 1.5)
        # Not cut short at the stop: every table waking at once would be a burst.
        await asyncio.sleep(pause)

    async def _player(self, seat: Seat) -> None:
        plan = self.plan
        client = seat.client

        def my_turn(view: dict[str, Any]) -> bool:
            if self.game == "mishqaq":
                return bool(view["turn"] == view["side"])
            return bool(view["turn"] == seat.me)

        def my_turn_or_over() -> bool:
            view = client.view
            if not view or seat.view_seq < client.seq:
                return False
            return view.get("ending") is not None or my_turn(view)

        while True:
            await seat.until(my_turn_or_over, plan.turn_timeout, "turn")
            if client.view.get("ending") is not None:
                return
            if self.stopping and plan.finish == "none":
                return
            await self._think()
            if client.view.get("ending") is not None or not my_turn(client.view):
                continue  # the table passed for us meanwhile (clock)
            await self._turn(seat)
            if (
                not self.stopping
                and client.view.get("ending") is None
                and self.rng.random() < plan.reconnect_rate
            ):
                await self._reconnect(seat)

    def _choose(
        self, view: dict[str, Any], entries: int
    ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """(the action to play, a misspelt placement to be refused first or None), for the
        turn after ``entries`` log entries."""
        plan = self.plan
        started = time.perf_counter()
        try:
            if self.game == "mishqaq":
                return self._race(view), None
            if self.stopping and plan.finish == "pass":
                self.script = None
                return {"pass_turn": {}}, None
            if self.script is not None:
                step = self.script.step_for(entries, view["seat"], view["board"], view["rack"])
                if step is not None:
                    self.results.script_steps += 1
                    wrong = step.misspelt if view["reserve_tries"] >= 3 else None
                    return step.action, wrong
                self.results.script_misses += 1
                self.script = None  # off the script: the rest of the game is searched
            return choose_lexio(self.bot, self.rng, plan, view)
        finally:
            self.results.bot_seconds += time.perf_counter() - started

    def _race(self, view: dict[str, Any]) -> dict[str, Any]:
        """An al-Mishqaq move: the side's racer's placement, sometimes a pass; to finish, resign
        (a game played out by passes alone takes eight turns to its dead position)."""
        if self.stopping and self.plan.finish == "pass":
            return {"resign": {}}
        if self.rng.random() < self.plan.pass_rate:
            return {"pass_turn": {}}
        return self.racers[view["side"]].choose(view) or {"pass_turn": {}}

    async def _turn(self, seat: Seat) -> None:
        client = seat.client
        # The search runs on the worker's bot thread: on the event loop, a 50 ms search would
        # delay every other seat's frames and show up as their latency.
        if self.script is not None and self.game == "lexio":
            # A replayed move costs microseconds: no hop to the bot's thread.
            action, wrong = self._choose(client.view, seat.entries)
        else:
            action, wrong = await asyncio.get_running_loop().run_in_executor(
                self.executor, self._choose, dict(client.view), seat.entries
            )
        if wrong is not None:
            self.stage = f"{seat.name} misspelt place at seq {client.seq}"
            views_before = seat.views
            started = time.perf_counter()
            try:
                await self._send_act(seat, wrong)
                raise UnexpectedError(f"{seat.name}: a misspelt move was accepted: {wrong}")
            except ServerError as e:
                if seat.resending and e.frame.get("reason") in ("not_your_turn", "game_over"):
                    return  # not applied before the loss, and the table's clock moved on since
                if e.frame["type"] != "refused" or e.code != "unknown_words":
                    raise UnexpectedError(f"{seat.name}: wrong refusal {e.frame}") from None
                self.results.refusals[e.code] += 1
                if self._measured(started):
                    self.results.refusal_ms.append((time.perf_counter() - started) * 1000)
            # The refusal's view (reserve spent) follows the refused frame: wait for it, so
            # the real move below is judged on the current state.
            await seat.until(lambda: seat.views > views_before, 10, "view after refusal")
        kind = next(iter(action))
        self.stage = f"{seat.name} {kind} at seq {client.seq}"
        expected = client.seq + 1
        started = time.perf_counter()
        self.pending = {s: v for s, v in self.pending.items() if s >= client.seq}
        self.pending[expected] = (started, 0)
        try:
            ack, resent = await self._send_act(seat, action)
        except ServerError as e:
            self.pending.pop(expected, None)
            if seat.resending and e.frame.get("reason") in ("not_your_turn", "game_over"):
                return  # not applied before the loss, and the table's clock moved on since
            raise UnexpectedError(f"{seat.name}: {kind} refused: {e.frame}") from None
        await seat.until(lambda: seat.view_seq >= ack["seq"], 30, "own view")
        seat.check_acks()
        elapsed = (time.perf_counter() - started) * 1000
        if ack["seq"] != expected:
            self.pending.pop(expected, None)
        label = kind if self.game == "lexio" else f"{self.game}:{kind}"
        self.results.actions[label] += 1
        if self._measured(started) and not resent:  # a resent act's time is a reconnection's
            self.results.latency_ms[label].append(elapsed)
            self.results.actions_in_window += 1

    async def _send_act(self, seat: Seat, action: dict[str, Any]) -> tuple[Frame, bool]:
        """(the ``ack``, whether it was sent more than once). A loss before the answer: the
        seat recovers and sends the act again with its id (applied once, whichever replica);
        ``unavailable``: again after the backoff. A refusal raises ServerError."""
        action_id = seat.next_act_id()
        frame = {"type": "act", "action": action, "id": action_id}
        seat.resending = False

        async def send_again() -> bool:
            self.results.resent_acts += 1
            seat.resending = True
            return False

        ack = await self._answered(seat, "act", lambda: seat.client.request(frame), send_again)
        assert ack is not None
        seat.acked(action_id, ack["seq"])
        return ack, seat.resending

    async def _reconnect(self, seat: Seat) -> None:
        """Drop the connection (no goodbye), come back within a second, resume by token."""
        client = seat.client
        self.pending.clear()  # a seat away would see those views late: no fan-out sample
        self.stage = f"{seat.name} reconnect after seq {client.seq}"
        seat.deliberate = True
        try:
            await client.drop()
            await asyncio.sleep(self.rng.uniform(0.05, 1.0))
            started = time.perf_counter()
            await client.open()
        except (ServerError, OSError, aiohttp.ClientError, TimeoutError):
            # Its replica died meanwhile, or the store is away: a loss like any other.
            seat.lost_at = time.perf_counter()
            seat.deliberate = False
            with contextlib.suppress(Exception):
                await client.drop()
            await seat.recover()
            return
        finally:
            seat.deliberate = False
        self.results.reconnects += 1
        if self._measured(started):
            self.results.reconnect_ms.append((time.perf_counter() - started) * 1000)


@dataclass(frozen=True)
class Policy:
    """How often a simulated Lexio player does something other than its best placement."""

    pass_rate: float = 0.02
    exchange_rate: float = 0.03
    refuse_rate: float = 0.03


def choose_lexio(
    bot: QuickBot, rng: random.Random, plan: Plan | Policy, view: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A simulated person's Lexio move from its view: sometimes a pass or an exchange, else
    the bot's placement (or its exchange or pass when it finds none), and sometimes first the
    same placement misspelt, to be refused (R19/R20). The book's games are played by this
    too (load_scripts.record_script)."""
    roll = rng.random()
    rack = view["rack"]
    if roll < plan.pass_rate:
        return {"pass_turn": {}}, None
    if roll < plan.pass_rate + plan.exchange_rate and view["bag_count"] >= len(rack) > 0:
        count = rng.randint(1, min(3, len(rack)))
        return {"exchange": {"tiles": "".join(rng.sample(rack, count))}}, None
    action = bot.choose(view)
    wrong = None
    if "place" in action and rng.random() < plan.refuse_rate and view["reserve_tries"] >= 3:
        misspelt = bot.misspelt(view["board"], rack, place_from_action(action))
        wrong = place_action(misspelt) if misspelt else None
    return action, wrong


_BOOK_BOT: list[QuickBot] = []


def _book_worker_start() -> None:
    _BOOK_BOT.append(load_bot())


def _record(seed: int, players: int, policy: Policy) -> Script:
    bot = _BOOK_BOT[0].with_seed(seed)
    rng = random.Random(seed * 7_919)
    words = WordSet(DEFAULT_WORDLIST_PATH.read_text(encoding="ascii").split())
    return record_script(seed, players, lambda view: choose_lexio(bot, rng, policy, view), words)


def build_book(
    directory: Path, *, count: int, base: int, players: int, policy: Policy, workers: int = 2
) -> Path:
    """The book of ``count`` games from seed ``base`` (load_scripts), played in ``workers``
    processes, or the cached one that the same inputs made before."""
    rules = Path(lexio_rules.__file__).parent
    sources = [
        DEFAULT_WORDLIST_PATH,
        Path(__file__),
        Path(inspect.getfile(Bot)),
        *rules.glob("*.py"),
    ]
    key = book_key(
        [count, base, players, policy, SEARCH_TRIES]
        + [hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(sources)]
    )
    path = directory / f"book-{key}.json"
    if path.exists():
        return path
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_book_worker_start) as pool:
        scripts = list(
            pool.map(_record, range(base, base + count), [players] * count, [policy] * count)
        )
    save_book(Book(base, tuple(scripts)), path)
    return path


async def _loop_lag(results: Results, until: float) -> None:
    """How late the worker's own event loop wakes up: when it is busy, client-side latency
    includes the generator's queueing, and this says by how much."""
    while time.monotonic() < until:
        before = time.perf_counter()
        await asyncio.sleep(0.1)
        results.loop_lag_ms.append((time.perf_counter() - before - 0.1) * 1000)


async def run_tables(plan: Plan, bot: QuickBot | None = None) -> Results:
    bot = bot or load_bot()
    # The bot's word index is ~10^6 objects that live as long as the process: out of the
    # collector's sight, full collections stay short (they were 0.1–1 s pauses of the loop).
    # Thousands of clients then grow the old generation: it is never collected (as in the
    # gateway, lexio_gateway.server), where a young collection and a freeze every 10 s were
    # ~10 % of the generator's CPU at 2,000 tables; a bounded run keeps its little cyclic
    # garbage instead.
    gc.collect()
    gc.freeze()
    gc.set_threshold(700, 10, 1_000_000)
    results = Results()
    # The loop thread takes the GIL back from the bot thread within 1 ms (default 5 ms).
    sys.setswitchinterval(0.001)
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bot")
    book = load_book(Path(plan.book)) if plan.book else None
    connector = aiohttp.TCPConnector(limit=0, force_close=False)
    async with aiohttp.ClientSession(connector=connector) as session:
        tables = [
            Table(plan, n, session, bot, results, executor=executor, book=book) for n in plan.tables
        ]
        lag = asyncio.create_task(_loop_lag(results, plan.stop_at))
        tasks = [asyncio.create_task(t.run()) for t in tables]
        _, late = await asyncio.wait(tasks, timeout=max(1.0, plan.hard_stop - time.monotonic()))
        for task in late:
            task.cancel()
        if late:
            results.error(f"{len(late)} tables still running at the hard stop")
            await asyncio.wait(late, timeout=10)
        lag.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await lag
    executor.shutdown(wait=False, cancel_futures=True)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    results.cpu_seconds = usage.ru_utime + usage.ru_stime
    return results
