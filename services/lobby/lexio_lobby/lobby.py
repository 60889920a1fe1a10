"""The lobby's logic: games, tables, codes and seats, for any game, behind any store.

This is where the contract's promises are kept, in plain typed Python (the gRPC servicer only
translates). Every change is read → :mod:`lexio_lobby.model` transition → compare-and-set write,
retried if another call changed the table in between, so concurrent calls (in one process, or in
several processes sharing a store) never lose an update or seat two players in one place.

Invite codes are guessable only at the rate :mod:`lexio_lobby.ratelimit` allows, and every call
that answers anything about a code (JoinTable, LookupCode) spends the same per-caller budget:
a lookup is worth as much to a guesser as a join, so a separate budget would double the rate.

Time is injected (``clock``, seconds since the epoch) so expiry is testable without waiting.
Idle expiry is applied when a table is read — an open table whose last change is ``code_ttl``
seconds old reads as closed (reason expired) — and persisted by :meth:`Lobby.sweep`, which also
purges long-closed tables and recounts tables for the metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Protocol, TypeVar

from lexio_lobby import model, options
from lexio_lobby.codes import InvalidCodeError, new_code, parse_code, redact
from lexio_lobby.games import GameSpec
from lexio_lobby.model import (
    CloseReason,
    Invitation,
    LobbyError,
    Reason,
    Seat,
    Table,
    TableState,
)
from lexio_lobby.names import InvalidNameError, clean_name, valid_player_id
from lexio_lobby.ratelimit import Admission, JoinLimiter
from lexio_lobby.store import StoreUnavailableError, TableStore

log = logging.getLogger(__name__)

R = TypeVar("R")

#: Compare-and-set attempts before giving up with "conflict" (a table has at most a few
#: dozen seats, so real contention ends long before this).
MAX_WRITE_ATTEMPTS: Final = 10
#: Fresh codes tried when one collides with a stored code (at ~49 bits, essentially never).
MAX_CODE_ATTEMPTS: Final = 5
#: Tables expired per store round trip in a sweep, and round trips per sweep.
SWEEP_BATCH: Final = 500
SWEEP_MAX_BATCHES: Final = 20

DEFAULT_CODE_TTL: Final = 24 * 3600.0
DEFAULT_CLOSED_RETENTION: Final = 24 * 3600.0


class Readiness(Protocol):
    async def ready(self, name: str) -> bool: ...


def new_table_id() -> str:
    """128 random bits, URL-safe: not a secret (it admits no one) but never guessable."""
    return secrets.token_urlsafe(16)


@dataclass(frozen=True)
class SweepResult:
    expired: int
    purged: int
    counts: dict[TableState, int]


class Lobby:
    """Create, join, leave, start, close and read tables of the registered games."""

    def __init__(
        self,
        *,
        store: TableStore,
        games: Sequence[GameSpec],
        readiness: Readiness,
        limiter: JoinLimiter,
        code_ttl: float = DEFAULT_CODE_TTL,
        closed_retention: float = DEFAULT_CLOSED_RETENTION,
        clock: Callable[[], float] = time.time,
        code_factory: Callable[[], str] = new_code,
    ) -> None:
        self._store = store
        self._games = {game.name: game for game in games}
        self._readiness = readiness
        self._limiter = limiter
        self.code_ttl = code_ttl
        self._closed_retention = closed_retention
        self._clock = clock
        self._new_code = code_factory

    # -- reads -----------------------------------------------------------------------------

    def _effective(self, table: Table, now: float) -> Table:
        """The table as callers must see it: an idle open table reads as expired."""
        if table.idle_expired(now, self.code_ttl):
            return model.expire(table, table.updated_at + self.code_ttl)
        return table

    def expires_at(self, table: Table) -> float:
        """When an open table's code stops working if nothing changes; 0 otherwise."""
        return table.updated_at + self.code_ttl if table.state is TableState.OPEN else 0.0

    async def get(self, table_id: str, player_id: str = "") -> tuple[Table, str | None]:
        """The table, and its canonical code if ``player_id`` is seated at it while open."""
        stored = await self._store.get(table_id)
        if stored is None:
            raise LobbyError(Reason.UNKNOWN_TABLE)
        table = self._effective(stored, self._clock())
        seated = bool(player_id) and table.seat_of(player_id) is not None
        return table, table.code if seated and table.state is TableState.OPEN else None

    async def games(self) -> list[tuple[GameSpec, bool]]:
        """Every registered game with its readiness, checked concurrently."""
        specs = list(self._games.values())
        ready = await asyncio.gather(*(self._readiness.ready(spec.name) for spec in specs))
        return list(zip(specs, ready, strict=True))

    # -- changes ---------------------------------------------------------------------------

    async def _change(
        self,
        load: Callable[[], Awaitable[Table | None]],
        missing: Reason,
        transition: Callable[[Table, float], tuple[Table, R]],
    ) -> tuple[Table, R]:
        """Read, apply ``transition`` to the effective table, compare-and-set, retry."""
        for _ in range(MAX_WRITE_ATTEMPTS):
            stored = await load()
            if stored is None:
                raise LobbyError(missing)
            now = self._clock()
            after, result = transition(self._effective(stored, now), now)
            if after == stored or await self._store.replace(after, stored.version):
                return after, result
        raise LobbyError(Reason.CONFLICT)

    async def create(
        self,
        game: str,
        player_id: str,
        display_name: str,
        requested: Mapping[str, object] | None = None,
    ) -> tuple[Table, str]:
        """Open a table with the creator as host; returns it and its canonical code.

        ``requested`` are the host's option picks (``str`` or ``int`` values; anything else,
        None included, is the wrong type); the table gets them with every other registered
        option at its default."""
        host = self._seat(player_id, display_name)
        spec = self._games.get(game)
        if spec is None:
            raise LobbyError(Reason.UNKNOWN_GAME)
        try:
            table_options = options.resolve(spec.options, requested or {})
        except options.InvalidOptionError as e:
            registered = any(option.name == e.name for option in spec.options)
            log.info(
                "create refused: invalid option",
                # A name the game does not register is the caller's text: bounded, marked.
                extra={"game": game, "option": e.name if registered else f"?{e.name[:32]}"},
            )
            raise LobbyError(Reason.INVALID_OPTION) from None
        if not await self._readiness.ready(game):
            log.warning("create refused: game not ready", extra={"game": game})
            raise LobbyError(Reason.GAME_UNAVAILABLE)
        for _ in range(MAX_CODE_ATTEMPTS):
            now = self._clock()
            table = model.new_table(
                table_id=new_table_id(),
                code=self._new_code(),
                game=spec.name,
                min_seats=spec.min_seats,
                max_seats=spec.max_seats,
                host=Seat(host.player_id, host.display_name, now),
                now=now,
                options=table_options,
            )
            if await self._store.insert(table):
                log.info(
                    "table created",
                    # Options are not secrets (every joiner sees them); the code is.
                    extra={
                        "table_id": table.table_id,
                        "game": game,
                        "options": dict(table_options),
                    },
                )
                return table, table.code
            log.warning("code or table id collision, drawing again")
        raise LobbyError(Reason.CONFLICT)

    async def join(
        self, invite_code: str, player_id: str, display_name: str, caller: str
    ) -> tuple[Table, int, bool]:
        """Seat a player by code: (table, seat index, already seated).

        The caller's rate limit is checked first of all, so a limited caller learns nothing,
        not even whether the code is well formed.
        """
        async with self._code_attempt("join", caller):
            seat = self._seat(player_id, display_name)
            code = self._parse_code(invite_code)

            def transition(table: Table, now: float) -> tuple[Table, tuple[int, bool]]:
                if table.close_reason is CloseReason.EXPIRED:
                    raise LobbyError(Reason.UNKNOWN_CODE)
                after, index, already = model.join(
                    table, Seat(seat.player_id, seat.display_name, now), now
                )
                return after, (index, already)

            with self._unknown_code_logged("join", code):
                table, (index, already) = await self._change(
                    lambda: self._store.find_by_code(code), Reason.UNKNOWN_CODE, transition
                )
        if not already:
            log.info("player seated", extra={"table_id": table.table_id, "seat": index})
        return table, index, already

    async def lookup(self, invite_code: str, caller: str) -> Invitation:
        """What a code leads to, before joining: game, options, counts and state.

        Under the join limit (the same budget, the same counting): it tells a guesser exactly
        what a join attempt would. Read-only: a lookup never keeps a table alive.
        """
        async with self._code_attempt("lookup", caller):
            code = self._parse_code(invite_code)
            with self._unknown_code_logged("lookup", code):
                stored = await self._store.find_by_code(code)
                if stored is None:
                    raise LobbyError(Reason.UNKNOWN_CODE)
                table = self._effective(stored, self._clock())
                if table.close_reason is CloseReason.EXPIRED:
                    raise LobbyError(Reason.UNKNOWN_CODE)
            if table.state is TableState.CLOSED:
                raise LobbyError(Reason.TABLE_CLOSED)
        return model.invitation(table)

    @contextlib.asynccontextmanager
    async def _code_attempt(self, action: str, caller: str) -> AsyncIterator[None]:
        """One attempt with an invite code under the caller's limit (see
        :mod:`lexio_lobby.ratelimit`): refused at once when over it; otherwise counted, and
        refunded unless the block fails with ``unknown_code``."""
        admission = await self._limiter.admit(caller)
        if not admission.allowed:
            log.warning(
                f"{action} refused: rate limited",
                extra={"caller": caller, "retry_after_s": round(admission.retry_after, 1)},
            )
            raise LobbyError(Reason.RATE_LIMITED, retry_after=admission.retry_after)
        counted = False
        try:
            yield
        except LobbyError as e:
            counted = e.reason is Reason.UNKNOWN_CODE
            raise
        finally:
            if not counted:
                await self._refund(caller, admission)

    @staticmethod
    @contextlib.contextmanager
    def _unknown_code_logged(action: str, code: str) -> Iterator[None]:
        """Log an ``unknown_code`` refusal, with the code redacted (it is a secret)."""
        try:
            yield
        except LobbyError as e:
            if e.reason is Reason.UNKNOWN_CODE:
                log.info(f"{action} refused: unknown code", extra={"code": redact(code)})
            raise

    @staticmethod
    def _parse_code(invite_code: str) -> str:
        try:
            return parse_code(invite_code)
        except InvalidCodeError:
            raise LobbyError(Reason.INVALID_CODE) from None

    async def _refund(self, caller: str, admission: Admission) -> None:
        """Refund an attempt. If the limiter's store is down, the attempt stays counted (it
        ages out with the window): better than failing a join that may already be applied."""
        try:
            await self._limiter.refund(caller, admission)
        except StoreUnavailableError as e:
            log.warning("join attempt not refunded: store unavailable", extra={"error": str(e)})

    async def leave(self, table_id: str, player_id: str) -> Table:
        self._check_player(player_id)
        table, _ = await self._change(
            lambda: self._store.get(table_id),
            Reason.UNKNOWN_TABLE,
            lambda t, now: (model.leave(t, player_id, now), None),
        )
        log.info(
            "player left",
            extra={"table_id": table_id, "seats": len(table.seats), "state": table.state.value},
        )
        return table

    async def start(self, table_id: str, player_id: str) -> Table:
        self._check_player(player_id)
        table, _ = await self._change(
            lambda: self._store.get(table_id),
            Reason.UNKNOWN_TABLE,
            lambda t, now: (model.start(t, player_id, now), None),
        )
        log.info("table started", extra={"table_id": table_id, "seats": len(table.seats)})
        return table

    async def close(self, table_id: str, player_id: str) -> Table:
        self._check_player(player_id)
        table, _ = await self._change(
            lambda: self._store.get(table_id),
            Reason.UNKNOWN_TABLE,
            lambda t, now: (model.close(t, player_id, now), None),
        )
        log.info("table closed by host", extra={"table_id": table_id})
        return table

    # -- housekeeping ----------------------------------------------------------------------

    async def sweep(self) -> SweepResult:
        """Persist idle expiry, purge tables closed longer than the retention, recount."""
        now = self._clock()
        expired = 0
        for _ in range(SWEEP_MAX_BATCHES):
            batch = await self._store.idle_open(now - self.code_ttl, SWEEP_BATCH)
            for table in batch:
                closed = model.expire(table, table.updated_at + self.code_ttl)
                if await self._store.replace(closed, table.version):
                    expired += 1
            if len(batch) < SWEEP_BATCH:
                break
        purged = await self._store.purge_closed(now - self._closed_retention)
        await self._limiter.prune()
        counts = await self._store.count_by_state()
        if expired or purged:
            log.info("sweep", extra={"expired": expired, "purged": purged})
        return SweepResult(expired, purged, counts)

    # -- input rules -----------------------------------------------------------------------

    @staticmethod
    def _check_player(player_id: str) -> None:
        if not valid_player_id(player_id):
            raise LobbyError(Reason.INVALID_PLAYER)

    def _seat(self, player_id: str, display_name: str) -> Seat:
        """A checked (not yet timed) seat for this player."""
        self._check_player(player_id)
        try:
            name = clean_name(display_name)
        except InvalidNameError:
            raise LobbyError(Reason.INVALID_NAME) from None
        return Seat(player_id, name, 0.0)
