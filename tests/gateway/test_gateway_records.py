"""Rows written before the gateway stored seat limits and clocks of their own (issue 24 names
their values as legacy values instead of a game's): they read as they always did."""

from __future__ import annotations

from lexio_gateway.games.contract import TableClock
from lexio_gateway.records import (
    LEGACY_CLOCK_ACTION,
    LEGACY_SEATS,
    TableStatus,
    record_fields,
    record_from_fields,
)

OLD_ROW = {
    "game": "lexio",
    "code": "ABCD-EFGH",
    "status": "started",
    "seq": 7,
    "players": [["p1", "Ana"], ["p2", "Bruno"]],
    "rematch_code": "",
    "rematch_table_id": "",
    # What the first schema had: a turn, its deadline and when it began; no clock, no seats.
    "turn": 1,
    "deadline": 1000.5,
    "turn_since": 940.5,
}


def test_a_row_from_before_clocks_and_seat_limits_reads_as_before() -> None:
    record = record_from_fields("t1", 3, b"state", OLD_ROW)
    assert record.status is TableStatus.STARTED and record.version == 3
    assert record.clock == TableClock(1000.5, 1, 940.5, LEGACY_CLOCK_ACTION)
    assert LEGACY_CLOCK_ACTION == ""
    assert (record.min_seats, record.max_seats) == LEGACY_SEATS == (2, 4)
    assert record.options == {}
    # Written again, it carries its own clock and limits, and reads back the same.
    again = record_from_fields("t1", 3, b"state", record_fields(record))
    assert (again.clock, again.min_seats, again.max_seats) == (record.clock, 2, 4)


def test_an_old_row_not_started_has_no_clock() -> None:
    record = record_from_fields("t1", 1, b"", {**OLD_ROW, "status": "open"})
    assert record.clock is None
