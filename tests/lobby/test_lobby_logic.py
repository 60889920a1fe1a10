"""The lobby logic without gRPC: compare-and-set retries, and giving up with "conflict"."""

from __future__ import annotations

from pathlib import Path

import pytest
from lexio_testing import LoopThread
from lobby_fixtures import CARDS, FakeClock

from lexio_lobby.games import GameReadiness
from lexio_lobby.lobby import MAX_WRITE_ATTEMPTS, Lobby
from lexio_lobby.model import LobbyError, Reason, Table
from lexio_lobby.ratelimit import JoinRateLimiter
from lexio_lobby.store import SqliteTableStore


class _Contended(SqliteTableStore):
    """A store where another writer wins the first ``losses`` compare-and-sets."""

    losses = 0
    attempts = 0

    async def replace(self, table: Table, expected_version: int) -> bool:
        self.attempts += 1
        if self.attempts <= self.losses:
            return False
        return await super().replace(table, expected_version)


async def _lobby(path: Path, losses: int) -> tuple[Lobby, _Contended]:
    base = await SqliteTableStore.open(path)
    store = _Contended(base._db, base._executor)
    store.losses = losses
    lobby = Lobby(
        store=store,
        games=[CARDS],
        readiness=GameReadiness([CARDS]),
        limiter=JoinRateLimiter(clock=FakeClock()),
        clock=FakeClock(),
    )
    return lobby, store


@pytest.mark.parametrize("losses", [0, 1, MAX_WRITE_ATTEMPTS - 1])
def test_a_lost_compare_and_set_is_retried(
    loop_thread: LoopThread, tmp_path: Path, losses: int
) -> None:
    async def scenario() -> int:
        lobby, store = await _lobby(tmp_path / "lobby.sqlite3", losses)
        try:
            _, code = await lobby.create("cards", "p0", "Ana")
            _, seat, _ = await lobby.join(code, "p1", "Bea", "caller")
            return seat
        finally:
            await store.close()

    assert loop_thread.run(scenario()) == 1


def test_endless_contention_ends_in_conflict(loop_thread: LoopThread, tmp_path: Path) -> None:
    async def scenario() -> None:
        lobby, store = await _lobby(tmp_path / "lobby.sqlite3", losses=10**6)
        try:
            _, code = await lobby.create("cards", "p0", "Ana")
            await lobby.join(code, "p1", "Bea", "caller")
        finally:
            await store.close()

    with pytest.raises(LobbyError) as refused:
        loop_thread.run(scenario())
    assert refused.value.reason is Reason.CONFLICT
