"""The lobby over real gRPC with a real store: create, join, leave, start, close, get.

Each test gets a fresh server and store — a SQLite file, or a redis-server of its own (every
test runs on both) — so no test depends on another.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf.descriptor import Descriptor
from lexio_testing import LoopThread
from lobby_fixtures import (
    BACKENDS,
    CODE_FORMAT,
    LobbyHarness,
    backend_config,
    names,
    players,
    race_joins,
    refusal,
)

from lexio.lobby.v1 import lobby_pb2 as pb
from lexio_lobby.codes import parse_code
from lexio_lobby.server import LobbyConfig

INVALID = grpc.StatusCode.INVALID_ARGUMENT
NOT_FOUND = grpc.StatusCode.NOT_FOUND
PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION


@pytest.fixture(params=BACKENDS)
def config(request: pytest.FixtureRequest, tmp_path: Path) -> LobbyConfig:
    return backend_config(request, tmp_path)


@pytest.fixture
def lobby(loop_thread: LoopThread, config: LobbyConfig) -> Iterator[LobbyHarness]:
    harness = LobbyHarness(loop_thread, config).start()
    yield harness
    harness.stop()


def test_create_makes_the_creator_host_in_seat_zero(lobby: LobbyHarness) -> None:
    created = lobby.create(player="p0", name="  Ana  ")
    table = created.table
    assert CODE_FORMAT.fullmatch(created.invite_code)
    assert table.state == pb.TABLE_STATE_OPEN
    assert table.game == "cards"
    assert (table.min_seats, table.max_seats) == (2, 4)
    assert [(s.index, s.player_id, s.display_name, s.host) for s in table.seats] == [
        (0, "p0", "Ana", True)
    ]
    assert table.version == 1
    assert table.expires_at == table.updated_at + lobby.config.code_ttl
    assert len(table.table_id) == 22
    # The table message never carries the code, in any form.
    wire = table.SerializeToString()
    assert created.invite_code.encode() not in wire
    assert parse_code(created.invite_code).encode() not in wire


def test_each_table_gets_its_own_code_and_id(lobby: LobbyHarness) -> None:
    made = [lobby.create(player=f"host{i}") for i in range(20)]
    assert len({m.invite_code for m in made}) == 20
    assert len({m.table.table_id for m in made}) == 20


def test_join_seats_in_arrival_order_whatever_the_code_spelling(lobby: LobbyHarness) -> None:
    created = lobby.create()
    code = created.invite_code
    spellings = [code.lower(), code.replace("-", ""), " ".join(code.replace("-", ""))]
    for i, spelled in enumerate(spellings, start=1):
        reply = lobby.join(spelled, f"p{i}", f"Player {i}")
        assert reply.seat == i
        assert not reply.already_seated
    table = lobby.get(created.table.table_id).table
    assert names(table) == ["Ana", "Player 1", "Player 2", "Player 3"]
    assert [s.index for s in table.seats] == [0, 1, 2, 3]
    assert [s.host for s in table.seats] == [True, False, False, False]
    assert table.version == 4


def test_join_is_idempotent_per_player(lobby: LobbyHarness) -> None:
    created = lobby.create()
    first = lobby.join(created.invite_code, "p1", "Bea")
    again = lobby.join(created.invite_code, "p1", "Another name")
    assert (again.seat, again.already_seated) == (first.seat, True)
    assert again.table.version == first.table.version
    assert names(again.table) == ["Ana", "Bea"]
    # The host joining by code gets seat 0 back.
    host = lobby.join(created.invite_code, "p0")
    assert (host.seat, host.already_seated) == (0, True)


def test_full_table_refuses_the_next_arrival(lobby: LobbyHarness) -> None:
    _, code = lobby.seated_table(4)
    assert refusal(lobby.join, code, "p4") == (PRECONDITION, "table_full")
    # A seated player still gets their seat.
    assert lobby.join(code, "p3").seat == 3


def test_leave_keeps_the_order_of_later_arrivals(lobby: LobbyHarness) -> None:
    table_id, code = lobby.seated_table(4)
    table = lobby.leave(table_id, "p1")
    assert players(table) == ["p0", "p2", "p3"]
    assert [s.index for s in table.seats] == [0, 1, 2]
    # The freed seat goes to the next arrival, at the end of the order.
    assert lobby.join(code, "p4").seat == 3
    assert players(lobby.get(table_id).table) == ["p0", "p2", "p3", "p4"]
    # Someone who left and comes back is a new arrival.
    lobby.leave(table_id, "p2")
    assert lobby.join(code, "p2").seat == 3
    assert players(lobby.get(table_id).table) == ["p0", "p3", "p4", "p2"]


def test_host_leaving_hands_over_to_the_earliest_remaining_arrival(lobby: LobbyHarness) -> None:
    table_id, _ = lobby.seated_table(3)
    table = lobby.leave(table_id, "p0")
    assert players(table) == ["p1", "p2"]
    assert [s.host for s in table.seats] == [True, False]
    assert refusal(lobby.start_table, table_id, "p0") == (PRECONDITION, "not_seated")
    assert refusal(lobby.start_table, table_id, "p2") == (
        grpc.StatusCode.PERMISSION_DENIED,
        "not_host",
    )
    assert players(lobby.start_table(table_id, "p1")) == ["p1", "p2"]


def test_the_last_one_out_closes_the_table(lobby: LobbyHarness) -> None:
    table_id, code = lobby.seated_table(2)
    lobby.leave(table_id, "p0")
    table = lobby.leave(table_id, "p1")
    assert table.state == pb.TABLE_STATE_CLOSED
    assert table.close_reason == pb.CLOSE_REASON_EMPTY
    assert list(table.seats) == []
    assert table.expires_at == 0
    assert refusal(lobby.join, code, "p5") == (PRECONDITION, "table_closed")
    assert refusal(lobby.leave, table_id, "p1") == (PRECONDITION, "table_closed")
    assert lobby.get(table_id).table.state == pb.TABLE_STATE_CLOSED


def test_leave_by_a_stranger_is_refused(lobby: LobbyHarness) -> None:
    table_id, _ = lobby.seated_table(2)
    assert refusal(lobby.leave, table_id, "nobody") == (PRECONDITION, "not_seated")


def test_start_needs_the_host_and_the_minimum(lobby: LobbyHarness) -> None:
    created = lobby.create()
    table_id = created.table.table_id
    assert refusal(lobby.start_table, table_id, "p0") == (PRECONDITION, "not_enough_players")
    lobby.join(created.invite_code, "p1", "Bea")
    lobby.join(created.invite_code, "p2", "Cy")
    assert refusal(lobby.start_table, table_id, "p1") == (
        grpc.StatusCode.PERMISSION_DENIED,
        "not_host",
    )
    assert refusal(lobby.start_table, table_id, "stranger") == (PRECONDITION, "not_seated")
    table = lobby.start_table(table_id, "p0")
    assert table.state == pb.TABLE_STATE_STARTED
    assert table.expires_at == 0
    # Seat order is the turn order; the host (first arrival) opens.
    assert [(s.index, s.player_id, s.host) for s in table.seats] == [
        (0, "p0", True),
        (1, "p1", False),
        (2, "p2", False),
    ]


def test_after_the_start_no_join_and_no_leave(lobby: LobbyHarness) -> None:
    table_id, code = lobby.seated_table(2)
    lobby.start_table(table_id, "p0")
    assert refusal(lobby.join, code, "late") == (PRECONDITION, "game_started")
    assert refusal(lobby.leave, table_id, "p1") == (PRECONDITION, "game_started")
    assert refusal(lobby.start_table, table_id, "p0") == (PRECONDITION, "game_started")
    # A seated player re-joining (a retried call) still gets their seat, nothing changes.
    again = lobby.join(code, "p1")
    assert (again.seat, again.already_seated) == (1, True)
    assert again.table.state == pb.TABLE_STATE_STARTED


def test_close_by_the_host_only_and_the_code_stops_working(lobby: LobbyHarness) -> None:
    table_id, code = lobby.seated_table(2)
    assert refusal(lobby.close_table, table_id, "p1") == (
        grpc.StatusCode.PERMISSION_DENIED,
        "not_host",
    )
    table = lobby.close_table(table_id, "p0")
    assert (table.state, table.close_reason) == (pb.TABLE_STATE_CLOSED, pb.CLOSE_REASON_HOST)
    assert players(table) == ["p0", "p1"]
    assert not any(seat.host for seat in table.seats)
    assert refusal(lobby.join, code, "p1") == (PRECONDITION, "table_closed")
    assert refusal(lobby.close_table, table_id, "p0") == (PRECONDITION, "table_closed")
    assert refusal(lobby.start_table, table_id, "p0") == (PRECONDITION, "table_closed")


def test_a_started_table_is_closed_when_its_game_is_over(lobby: LobbyHarness) -> None:
    table_id, _ = lobby.seated_table(2)
    lobby.start_table(table_id, "p0")
    table = lobby.close_table(table_id, "p0")
    assert table.state == pb.TABLE_STATE_CLOSED


def test_get_table_gives_the_code_to_seated_players_only(lobby: LobbyHarness) -> None:
    table_id, code = lobby.seated_table(2)
    assert lobby.get(table_id, "p1").invite_code == code
    assert lobby.get(table_id, "p0").invite_code == code
    assert lobby.get(table_id, "stranger").invite_code == ""
    assert lobby.get(table_id).invite_code == ""
    lobby.start_table(table_id, "p0")
    assert lobby.get(table_id, "p1").invite_code == ""


def test_unknown_things_have_their_own_codes(lobby: LobbyHarness) -> None:
    assert refusal(lobby.create, game="chess") == (NOT_FOUND, "unknown_game")
    assert refusal(lobby.join, "2345-6789AB", "p1") == (NOT_FOUND, "unknown_code")
    assert refusal(lobby.get, "no-such-table") == (NOT_FOUND, "unknown_table")
    assert refusal(lobby.leave, "no-such-table", "p1") == (NOT_FOUND, "unknown_table")
    assert refusal(lobby.start_table, "no-such-table", "p1") == (NOT_FOUND, "unknown_table")


def test_join_refusals_are_distinct_and_stable(lobby: LobbyHarness) -> None:
    """Full, unknown, started and closed: four situations, four codes the gateway can tell apart."""
    _, full_code = lobby.seated_table(4)
    started_id, started_code = lobby.seated_table(2)
    lobby.start_table(started_id, "p0")
    closed_id, closed_code = lobby.seated_table(1)
    lobby.close_table(closed_id, "p0")
    seen = {
        refusal(lobby.join, full_code, "x"),
        refusal(lobby.join, "ZZZZZ-ZZZZZ", "x"),
        refusal(lobby.join, started_code, "x"),
        refusal(lobby.join, closed_code, "x"),
    }
    assert seen == {
        (PRECONDITION, "table_full"),
        (NOT_FOUND, "unknown_code"),
        (PRECONDITION, "game_started"),
        (PRECONDITION, "table_closed"),
    }


@pytest.mark.parametrize(
    "bad",
    ["", "   ", "x" * 25, "Ana\tB", "Ana\nB", "Ana\x00", "\u202eevil", "a\u200bb", "Ana\u00a0B"],
)
def test_invalid_display_names_are_refused(lobby: LobbyHarness, bad: str) -> None:
    assert refusal(lobby.create, name=bad) == (INVALID, "invalid_name")
    code = lobby.create().invite_code
    assert refusal(lobby.join, code, "p1", bad) == (INVALID, "invalid_name")


@pytest.mark.parametrize("good", ["Zoé", "ليلى", "José María", "🦊 Renard", "x" * 24, " 李雷 "])
def test_display_names_in_any_script_are_kept_trimmed(lobby: LobbyHarness, good: str) -> None:
    code = lobby.create().invite_code
    assert lobby.join(code, "p1", good).table.seats[1].display_name == good.strip()


@pytest.mark.parametrize("bad", ["", "with space", "x" * 129, "tab\there", "é"])
def test_invalid_player_ids_are_refused(lobby: LobbyHarness, bad: str) -> None:
    assert refusal(lobby.create, player=bad) == (INVALID, "invalid_player")
    table_id, code = lobby.seated_table(1)
    assert refusal(lobby.join, code, bad, "Name") == (INVALID, "invalid_player")
    assert refusal(lobby.leave, table_id, bad) == (INVALID, "invalid_player")


@pytest.mark.parametrize("bad", ["", "ABCD", "2345678923456", "OOOOO-00000", "IIIII-LLLLL"])
def test_malformed_codes_are_invalid_not_unknown(lobby: LobbyHarness, bad: str) -> None:
    assert refusal(lobby.join, bad, "p1") == (INVALID, "invalid_code")


def test_list_games_reports_limits_and_availability(lobby: LobbyHarness) -> None:
    games = lobby.stub.ListGames(pb.ListGamesRequest()).games
    assert [(g.name, g.min_seats, g.max_seats, g.available) for g in games] == [
        ("cards", 2, 4, True),
        ("party", 3, 6, True),
    ]


def test_every_call_series_is_there_before_the_first_call(lobby: LobbyHarness) -> None:
    """Issue 17: a rate of refusals reads 0, not nothing, on a lobby nobody has called yet;
    the calls' latency is the gRPC server's, not a histogram of the lobby's own."""
    methods = pb.DESCRIPTOR.services_by_name["Lobby"].methods_by_name
    assert len(methods) >= 8
    for method in methods:
        for outcome in ("ok", "table_full", "store_unavailable", "error"):
            labels = {"method": method, "outcome": outcome}
            assert lobby.registry.get_sample_value("lexio_lobby_calls_total", labels) == 0
    kinds = {metric.name: metric.type for metric in lobby.registry.collect()}
    assert kinds["lexio_lobby_calls"] == "counter"
    assert "histogram" not in kinds.values()


def test_metrics_count_refused_joins_by_reason_and_every_call(lobby: LobbyHarness) -> None:
    _, code = lobby.seated_table(4)
    refusal(lobby.join, code, "p9")
    refusal(lobby.join, "ZZZZZ-ZZZZZ", "p9")
    refusal(lobby.join, "ZZZZZ-ZZZZY", "p9")
    refused = "lexio_lobby_joins_refused_total"
    assert lobby.sample(refused, reason="table_full") == 1
    assert lobby.sample(refused, reason="unknown_code") == 2
    assert lobby.sample(refused, reason="rate_limited") == 0
    calls = "lexio_lobby_calls_total"
    assert lobby.sample(calls, method="CreateTable", outcome="ok") == 1
    assert lobby.sample(calls, method="JoinTable", outcome="ok") == 3
    assert lobby.sample(calls, method="JoinTable", outcome="unknown_code") == 2
    assert lobby.sample(calls, method="JoinTable", outcome="table_full") == 1


def test_tables_gauge_counts_by_state_after_a_sweep(lobby: LobbyHarness) -> None:
    lobby.seated_table(2)
    started, _ = lobby.seated_table(2)
    lobby.start_table(started, "p0")
    for _ in range(2):
        closed, _ = lobby.seated_table(1)
        lobby.close_table(closed, "p0")
    lobby.sweep()
    counts = {
        state: lobby.sample("lexio_lobby_tables", state=state)
        for state in ("open", "started", "closed")
    }
    assert counts == {"open": 1, "started": 1, "closed": 2}


def test_no_rpc_enumerates_tables() -> None:
    """R2: a table is reached by its id or its code only. No response carries a list of
    tables, and every request that returns a table must name one."""
    service = pb.DESCRIPTOR.services_by_name["Lobby"]
    table_type = pb.Table.DESCRIPTOR

    def holds_many_tables(message: Descriptor, seen: frozenset[str] = frozenset()) -> bool:
        for fld in message.fields:
            sub = fld.message_type
            if sub is None or sub.full_name in seen:
                continue
            if sub is table_type and fld.is_repeated:
                return True
            if holds_many_tables(sub, seen | {sub.full_name}):
                return True
        return False

    for method in service.methods:
        assert not holds_many_tables(method.output_type), method.name
        returns_table = any(f.message_type is table_type for f in method.output_type.fields)
        if returns_table:
            keys = {f.name for f in method.input_type.fields}
            assert keys & {"table_id", "invite_code", "game"}, method.name
    # Only CreateTable takes no table id or code, and it makes a new table.
    by_game_only = [
        m.name
        for m in service.methods
        if "game" in {f.name for f in m.input_type.fields}
        and not {f.name for f in m.input_type.fields} & {"table_id", "invite_code"}
    ]
    assert by_game_only == ["CreateTable"]


def test_concurrent_joins_never_overfill_a_table(lobby: LobbyHarness) -> None:
    """Twenty players race for three free seats: three get distinct seats, the rest table_full."""
    created = lobby.create()
    seats, refused = race_joins([lobby.stub], created.invite_code)
    assert sorted(seats) == [1, 2, 3]
    assert refused == ["table_full"] * 17
    table = lobby.get(created.table.table_id).table
    assert len(table.seats) == 4 and table.version == 4


def test_a_code_already_in_use_is_never_handed_out_twice(
    loop_thread: LoopThread, config: LobbyConfig
) -> None:
    drawn = iter(["2222233333", "2222233333", "2222233333", "4444455555"])
    harness = LobbyHarness(loop_thread, config, code_factory=lambda: next(drawn)).start()
    try:
        assert harness.create().invite_code == "22222-33333"
        assert harness.create(player="p9").invite_code == "44444-55555"
        harness.code_factory = lambda: "2222233333"
        harness.restart()
        assert refusal(harness.create) == (grpc.StatusCode.ABORTED, "conflict")
    finally:
        harness.stop()
