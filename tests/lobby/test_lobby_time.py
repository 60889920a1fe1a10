"""What time does to the lobby, with an injected clock: the join rate limit, idle expiry,
purging, and a restart on the same store (SQLite file or Redis: every test runs on both)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from lexio_testing import LoopThread
from lobby_fixtures import (
    BACKENDS,
    JOIN_FAILURES,
    JOIN_WINDOW,
    TTL,
    LobbyHarness,
    backend_config,
    players,
    refusal,
)

from lexio.lobby.v1 import lobby_pb2 as pb
from lexio.lobby.v1 import lobby_pb2_grpc
from lexio_lobby.server import LobbyConfig

LIMITED = (grpc.StatusCode.RESOURCE_EXHAUSTED, "rate_limited")
UNKNOWN = (grpc.StatusCode.NOT_FOUND, "unknown_code")


@pytest.fixture(params=BACKENDS)
def config(request: pytest.FixtureRequest, tmp_path: Path) -> LobbyConfig:
    return backend_config(request, tmp_path)


@pytest.fixture
def lobby(loop_thread: LoopThread, config: LobbyConfig) -> Iterator[LobbyHarness]:
    harness = LobbyHarness(loop_thread, config).start()
    yield harness
    harness.stop()


def _guess(lobby: LobbyHarness, n: int, caller: str = "guesser") -> tuple[grpc.StatusCode, str]:
    """Join with the well-formed code number ``n``: unknown (codes are ~49 random bits)."""
    return refusal(lobby.join, f"{n:010d}".replace("0", "2").replace("1", "3"), "g", caller=caller)


def _guess_all(lobby: LobbyHarness, count: int, caller: str = "guesser") -> None:
    for n in range(count):
        assert _guess(lobby, n, caller) == UNKNOWN


# -- the anti-enumeration limit -------------------------------------------------------------


def test_a_caller_past_the_limit_is_refused_even_with_a_valid_code(lobby: LobbyHarness) -> None:
    _, code = lobby.seated_table(1)
    _guess_all(lobby, JOIN_FAILURES)
    assert refusal(lobby.join, code, "p1", caller="guesser") == LIMITED
    assert _guess(lobby, 99) == LIMITED
    # Other callers are not affected.
    assert lobby.join(code, "p2", caller="someone-else").seat == 1
    # Still refused just before the window has passed since the first failure...
    lobby.clock.advance(JOIN_WINDOW - 1)
    assert refusal(lobby.join, code, "p1", caller="guesser") == LIMITED
    # ...and let through once it has.
    lobby.clock.advance(1)
    assert lobby.join(code, "p1", caller="guesser").seat == 2
    assert lobby.sample("lexio_lobby_joins_refused_total", reason="rate_limited") == 3


def test_rate_limited_reply_says_when_to_retry(lobby: LobbyHarness) -> None:
    _guess_all(lobby, JOIN_FAILURES)
    lobby.clock.advance(100)
    try:
        lobby.join("ZZZZZ-ZZZZZ", "g", caller="guesser")
    except grpc.RpcError as e:
        assert (e.code(), e.details()) == LIMITED
        assert dict(e.trailing_metadata())["retry-after"] == str(int(JOIN_WINDOW - 100))
    else:
        raise AssertionError("not limited")


def test_the_limit_is_a_sliding_window(lobby: LobbyHarness) -> None:
    _, code = lobby.seated_table(1)
    _guess_all(lobby, JOIN_FAILURES - 1)
    lobby.clock.advance(JOIN_WINDOW / 2)
    assert _guess(lobby, 50) == UNKNOWN  # the 10th: now limited
    assert refusal(lobby.join, code, "p1", caller="guesser") == LIMITED
    lobby.clock.advance(JOIN_WINDOW / 2)  # the first nine aged out, the 10th has not
    assert lobby.join(code, "p1", caller="guesser").seat == 1


def test_valid_joins_neither_count_nor_reset_the_limit(lobby: LobbyHarness) -> None:
    _, code = lobby.seated_table(1)
    for _ in range(30):  # repeated valid joins (idempotent) never count
        assert lobby.join(code, "p1", caller="guesser").seat == 1
    _guess_all(lobby, JOIN_FAILURES - 1)
    lobby.join(code, "p1", caller="guesser")  # a valid join between guesses resets nothing
    assert _guess(lobby, 77) == UNKNOWN
    assert refusal(lobby.join, code, "p1", caller="guesser") == LIMITED


def test_malformed_codes_and_known_codes_of_closed_tables_do_not_count(
    lobby: LobbyHarness,
) -> None:
    table_id, code = lobby.seated_table(1)
    lobby.close_table(table_id, "p0")
    for _ in range(JOIN_FAILURES * 2):
        assert refusal(lobby.join, "nope", "g", caller="typo") == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "invalid_code",
        )
        assert refusal(lobby.join, code, "g", caller="typo")[1] == "table_closed"
    assert _guess(lobby, 1, caller="typo") == UNKNOWN


def test_the_caller_identity_falls_back_to_the_peer_address(lobby: LobbyHarness) -> None:
    """Without x-lexio-caller every connection from one host shares one budget."""
    _, code = lobby.seated_table(1)
    guess = pb.JoinTableRequest(invite_code="ZZZZZ-ZZZZZ", player_id="g", display_name="G")
    for _ in range(JOIN_FAILURES):
        assert refusal(lobby.stub.JoinTable, guess) == UNKNOWN
    valid = pb.JoinTableRequest(invite_code=code, player_id="p1", display_name="P")
    assert refusal(lobby.stub.JoinTable, valid) == LIMITED
    with grpc.insecure_channel(f"127.0.0.1:{lobby.port}") as other:
        assert refusal(lobby_pb2_grpc.LobbyStub(other).JoinTable, valid) == LIMITED


# -- idle expiry ------------------------------------------------------------------------------


def test_an_idle_open_table_expires_and_its_code_stops_working(lobby: LobbyHarness) -> None:
    created = lobby.create()
    table_id, code = created.table.table_id, created.invite_code
    lobby.clock.advance(TTL - 1)
    joined = lobby.join(code, "p1")  # a change: the idle time starts again
    assert joined.table.expires_at == lobby.clock.now + TTL
    lobby.clock.advance(TTL - 1)
    assert lobby.get(table_id).table.state == pb.TABLE_STATE_OPEN
    lobby.clock.advance(1)
    assert refusal(lobby.join, code, "p2") == UNKNOWN
    table = lobby.get(table_id).table
    assert (table.state, table.close_reason) == (pb.TABLE_STATE_CLOSED, pb.CLOSE_REASON_EXPIRED)
    assert refusal(lobby.start_table, table_id, "p0") == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "table_closed",
    )
    # An expired code counts as an unknown one.
    assert lobby.sample("lexio_lobby_joins_refused_total", reason="unknown_code") == 1


def test_a_rejoin_does_not_keep_a_table_alive(lobby: LobbyHarness) -> None:
    created = lobby.create()
    lobby.clock.advance(TTL - 1)
    assert lobby.join(created.invite_code, "p0").already_seated
    lobby.clock.advance(1)
    assert refusal(lobby.join, created.invite_code, "p0") == UNKNOWN


def test_started_tables_do_not_expire(lobby: LobbyHarness) -> None:
    table_id, code = lobby.seated_table(2)
    lobby.start_table(table_id, "p0")
    lobby.clock.advance(TTL * 10)
    lobby.sweep()
    assert lobby.get(table_id).table.state == pb.TABLE_STATE_STARTED
    assert lobby.join(code, "p1").already_seated


def test_the_sweep_persists_expiry_then_purges_closed_tables(lobby: LobbyHarness) -> None:
    idle = lobby.create().table.table_id
    lobby.clock.advance(TTL)
    busy_id, _ = lobby.seated_table(2)
    lobby.sweep()
    assert lobby.sample("lexio_lobby_tables", state="closed") == 1
    assert lobby.sample("lexio_lobby_tables", state="open") == 1
    table = lobby.get(idle).table
    assert table.close_reason == pb.CLOSE_REASON_EXPIRED
    assert table.updated_at == table.created_at + TTL  # closed when it expired, not when swept
    lobby.clock.advance(TTL + 1)  # past the retention of closed tables (TTL in these tests)
    lobby.sweep()
    assert refusal(lobby.get, idle) == (grpc.StatusCode.NOT_FOUND, "unknown_table")
    assert lobby.get(busy_id).table.close_reason == pb.CLOSE_REASON_EXPIRED


# -- restart ----------------------------------------------------------------------------------


def test_a_restart_on_the_same_file_loses_nothing(lobby: LobbyHarness) -> None:
    open_id, open_code = lobby.seated_table(3)
    lobby.leave(open_id, "p1")
    started_id, started_code = lobby.seated_table(2)
    lobby.start_table(started_id, "p0")
    closed_id, _ = lobby.seated_table(1)
    lobby.close_table(closed_id, "p0")
    before = {t: lobby.get(t, "p0") for t in (open_id, started_id, closed_id)}

    lobby.restart()

    for table_id, reply in before.items():
        assert lobby.get(table_id, "p0") == reply
    assert players(lobby.get(open_id).table) == ["p0", "p2"]
    # The code still works, seats continue in order, versions go on.
    joined = lobby.join(open_code.lower(), "p9")
    assert joined.seat == 2
    assert joined.table.version == before[open_id].table.version + 1
    assert lobby.join(started_code, "p1").already_seated
    assert lobby.start_table(open_id, "p0").state == pb.TABLE_STATE_STARTED


def test_a_restart_keeps_each_tables_limits(lobby: LobbyHarness) -> None:
    """A table keeps the limits its game had when it was created."""
    table_id, code = lobby.seated_table(2, game="party")
    lobby.restart(games=(lobby.config.games[0],))  # "party" no longer registered
    assert lobby.get(table_id).table.min_seats == 3
    assert refusal(lobby.start_table, table_id, "p0")[1] == "not_enough_players"
    lobby.join(code, "p2")
    assert lobby.start_table(table_id, "p0").state == pb.TABLE_STATE_STARTED
    assert refusal(lobby.create, game="party")[1] == "unknown_game"
