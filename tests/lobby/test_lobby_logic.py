"""The lobby logic without gRPC: compare-and-set retries, and giving up with "conflict" (on
both stores)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from lexio_testing import LoopThread
from lobby_fixtures import BACKENDS, CARDS, FakeClock, open_store, redis_for

from lexio_lobby.games import GameReadiness
from lexio_lobby.lobby import MAX_WRITE_ATTEMPTS, Lobby
from lexio_lobby.model import LobbyError, Reason, Table, TableState
from lexio_lobby.ratelimit import JoinRateLimiter, LocalJoinLimiter
from lexio_lobby.store import TableStore


class _Contended:
    """A store where another writer wins the first ``losses`` compare-and-sets."""

    def __init__(self, store: TableStore, losses: int) -> None:
        self._store = store
        self.losses = losses
        self.attempts = 0

    async def replace(self, table: Table, expected_version: int) -> bool:
        self.attempts += 1
        if self.attempts <= self.losses:
            return False
        return await self._store.replace(table, expected_version)

    async def insert(self, table: Table) -> bool:
        return await self._store.insert(table)

    async def get(self, table_id: str) -> Table | None:
        return await self._store.get(table_id)

    async def find_by_code(self, code: str) -> Table | None:
        return await self._store.find_by_code(code)

    async def idle_open(self, updated_at_most: float, limit: int) -> Sequence[Table]:
        return await self._store.idle_open(updated_at_most, limit)

    async def purge_closed(self, updated_before: float) -> int:
        return await self._store.purge_closed(updated_before)

    async def count_by_state(self) -> dict[TableState, int]:
        return await self._store.count_by_state()

    async def ping(self) -> bool:
        return await self._store.ping()

    async def close(self) -> None:
        await self._store.close()


@pytest.fixture(params=BACKENDS)
def redis_url(request: pytest.FixtureRequest) -> str:
    server = redis_for(request)
    return server.url if server else ""


async def _lobby(path: Path, redis_url: str, losses: int) -> tuple[Lobby, _Contended]:
    store = _Contended(await open_store(path, redis_url), losses)
    lobby = Lobby(
        store=store,
        games=[CARDS],
        readiness=GameReadiness([CARDS]),
        limiter=LocalJoinLimiter(JoinRateLimiter(clock=FakeClock())),
        clock=FakeClock(),
    )
    return lobby, store


@pytest.mark.parametrize("losses", [0, 1, MAX_WRITE_ATTEMPTS - 1])
def test_a_lost_compare_and_set_is_retried(
    loop_thread: LoopThread, tmp_path: Path, redis_url: str, losses: int
) -> None:
    async def scenario() -> int:
        lobby, store = await _lobby(tmp_path / "lobby.sqlite3", redis_url, losses)
        try:
            _, code = await lobby.create("cards", "p0", "Ana")
            _, seat, _ = await lobby.join(code, "p1", "Bea", "caller")
            return seat
        finally:
            await store.close()

    assert loop_thread.run(scenario()) == 1


def test_endless_contention_ends_in_conflict(
    loop_thread: LoopThread, tmp_path: Path, redis_url: str
) -> None:
    async def scenario() -> None:
        lobby, store = await _lobby(tmp_path / "lobby.sqlite3", redis_url, losses=10**6)
        try:
            _, code = await lobby.create("cards", "p0", "Ana")
            await lobby.join(code, "p1", "Bea", "caller")
        finally:
            await store.close()

    with pytest.raises(LobbyError) as refused:
        loop_thread.run(scenario())
    assert refused.value.reason is Reason.CONFLICT
