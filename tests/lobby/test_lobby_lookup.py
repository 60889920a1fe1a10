"""LookupCode: what an invite code leads to, before joining — and why it shares the join limit.

A lookup tells a guesser exactly what a join attempt does (this code names a table), so it
spends the same per-caller budget: unknown codes sent to either call count against one limit.
Real gRPC, real stores (every test runs on SQLite and on Redis).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import grpc
import pytest
from lexio_testing import LoopThread
from lobby_fixtures import (
    BACKENDS,
    CARDS,
    JOIN_FAILURES,
    JOIN_WINDOW,
    MISHQAQ,
    MISHQAQ_DEFAULTS,
    TTL,
    LobbyHarness,
    backend_config,
    from_values,
    refusal,
)

from lexio.lobby.v1 import lobby_pb2 as pb
from lexio_lobby.codes import new_code, parse_code
from lexio_lobby.server import LobbyConfig

LIMITED = (grpc.StatusCode.RESOURCE_EXHAUSTED, "rate_limited")
UNKNOWN = (grpc.StatusCode.NOT_FOUND, "unknown_code")
INVALID = (grpc.StatusCode.INVALID_ARGUMENT, "invalid_code")
CLOSED = (grpc.StatusCode.FAILED_PRECONDITION, "table_closed")


@pytest.fixture(params=BACKENDS)
def config(request: pytest.FixtureRequest, tmp_path: Path) -> LobbyConfig:
    return replace(backend_config(request, tmp_path), games=(CARDS, MISHQAQ))


@pytest.fixture
def lobby(loop_thread: LoopThread, config: LobbyConfig) -> Iterator[LobbyHarness]:
    harness = LobbyHarness(loop_thread, config).start()
    yield harness
    harness.stop()


def _guesses(n: int) -> list[str]:
    """``n`` well-formed codes that no table holds (fresh random codes: 49 bits each)."""
    return [new_code() for _ in range(n)]


def test_an_invitee_sees_the_game_and_its_options_before_joining(lobby: LobbyHarness) -> None:
    created = lobby.create(
        game="mishqaq", options={"host_side": "arabic", "latin": "en", "arabic_minutes": 35}
    )
    before = lobby.get(created.table.table_id).table
    found = lobby.lookup(created.invite_code, caller="invitee")
    assert found.game == "mishqaq"
    assert from_values(found.options) == {
        **MISHQAQ_DEFAULTS,
        "host_side": "arabic",
        "latin": "en",
        "arabic_minutes": 35,
    }
    assert (found.seated, found.min_seats, found.max_seats) == (1, 2, 2)
    assert found.state == pb.TABLE_STATE_OPEN
    # Looking changed nothing: no seat, no new version, no keep-alive.
    assert lobby.get(created.table.table_id).table == before
    assert lobby.join(created.invite_code, "p1", caller="invitee").seat == 1
    after = lobby.lookup(created.invite_code.lower().replace("-", " "), caller="invitee")
    assert (after.seated, after.max_seats) == (2, 2)  # full: a join would be table_full


def test_a_lookup_tells_counts_never_ids_or_names(lobby: LobbyHarness) -> None:
    created = lobby.create(player="u-amira-77", name="Amira")
    code = created.invite_code
    lobby.join(code, "u-bruno-42", "Bruno")
    lobby.join(code, "u-chloe-13", "Chloé")
    found = lobby.lookup(code)
    assert (found.game, found.seated, found.min_seats, found.max_seats) == ("cards", 3, 2, 4)
    assert dict(found.options) == {}
    wire = found.SerializeToString()
    for secret in (
        created.table.table_id,
        "u-amira-77",
        "u-bruno-42",
        "u-chloe-13",
        "Amira",
        "Bruno",
        "Chloé",
        code,
        parse_code(code),
    ):
        assert secret.encode() not in wire, secret
    # Nor could a later field slip one in unnoticed: the message is exactly this.
    assert [f.name for f in pb.LookupCodeResponse.DESCRIPTOR.fields] == [
        "game",
        "options",
        "seated",
        "min_seats",
        "max_seats",
        "state",
    ]


def test_started_closed_expired_and_malformed_codes(lobby: LobbyHarness) -> None:
    started_id, started_code = lobby.seated_table(2)
    lobby.start_table(started_id, "p0")
    found = lobby.lookup(started_code)
    assert (found.state, found.seated) == (pb.TABLE_STATE_STARTED, 2)

    closed_id, closed_code = lobby.seated_table(2)
    lobby.close_table(closed_id, "p0")
    assert refusal(lobby.lookup, closed_code) == CLOSED
    emptied_id, emptied_code = lobby.seated_table(1)
    lobby.leave(emptied_id, "p0")
    assert refusal(lobby.lookup, emptied_code) == CLOSED

    assert refusal(lobby.lookup, "ZZZZZ-ZZZZZ") == UNKNOWN
    for bad in ("", "ABCD", "OOOOO-00000", "x" * 100):
        assert refusal(lobby.lookup, bad) == INVALID


def test_an_expired_code_is_unknown_and_a_lookup_does_not_keep_it_alive(
    lobby: LobbyHarness,
) -> None:
    created = lobby.create()
    lobby.clock.advance(TTL - 1)
    assert lobby.lookup(created.invite_code).seated == 1  # a read, not a change...
    lobby.clock.advance(1)
    assert refusal(lobby.lookup, created.invite_code) == UNKNOWN  # ...so it expires on time
    lobby.sweep()
    assert refusal(lobby.lookup, created.invite_code) == UNKNOWN


def test_unknown_lookups_use_up_the_join_budget(lobby: LobbyHarness) -> None:
    table_id, code = lobby.seated_table(1)
    for guess in _guesses(JOIN_FAILURES):
        assert refusal(lobby.lookup, guess, caller="guesser") == UNKNOWN
    # The right code does not help: the limit is checked before anything else.
    assert refusal(lobby.join, code, "p1", caller="guesser") == LIMITED
    assert refusal(lobby.lookup, code, caller="guesser") == LIMITED
    assert refusal(lobby.lookup, "not a code", caller="guesser") == LIMITED
    try:
        lobby.lookup(code, caller="guesser")
    except grpc.RpcError as e:
        assert dict(e.trailing_metadata())["retry-after"] == str(int(JOIN_WINDOW))
    else:
        raise AssertionError("not limited")
    # Per caller: someone else is not affected.
    assert lobby.lookup(code, caller="friend").seated == 1
    lobby.clock.advance(JOIN_WINDOW)
    assert lobby.join(code, "p1", caller="guesser").seat == 1
    assert len(lobby.get(table_id).table.seats) == 2


def test_unknown_joins_use_up_the_lookup_budget(lobby: LobbyHarness) -> None:
    _, code = lobby.seated_table(1)
    for guess in _guesses(JOIN_FAILURES):
        assert refusal(lobby.join, guess, "g", caller="guesser") == UNKNOWN
    assert refusal(lobby.lookup, code, caller="guesser") == LIMITED


def test_lookups_and_joins_share_one_budget(lobby: LobbyHarness) -> None:
    _, code = lobby.seated_table(1)
    guesses = _guesses(JOIN_FAILURES)
    for n, guess in enumerate(guesses):
        if n % 2:
            assert refusal(lobby.join, guess, "g", caller="guesser") == UNKNOWN
        else:
            assert refusal(lobby.lookup, guess, caller="guesser") == UNKNOWN
    assert refusal(lobby.join, code, "p1", caller="guesser") == LIMITED
    assert refusal(lobby.lookup, code, caller="guesser") == LIMITED


def test_known_and_malformed_codes_are_not_counted(lobby: LobbyHarness) -> None:
    """A lookup of a known code is refunded whatever it finds (open, full, started,
    closed); a malformed one cannot hit a table. Only unknown codes spend the budget."""
    _, open_code = lobby.seated_table(4)  # full, too
    started_id, started_code = lobby.seated_table(2)
    lobby.start_table(started_id, "p0")
    closed_id, closed_code = lobby.seated_table(1)
    lobby.close_table(closed_id, "p0")
    for _ in range(3 * JOIN_FAILURES):
        lobby.lookup(open_code, caller="busy")
        lobby.lookup(started_code, caller="busy")
        assert refusal(lobby.lookup, closed_code, caller="busy") == CLOSED
        assert refusal(lobby.lookup, "ABCD", caller="busy") == INVALID
    for guess in _guesses(JOIN_FAILURES - 1):
        assert refusal(lobby.lookup, guess, caller="busy") == UNKNOWN
    assert lobby.lookup(open_code, caller="busy").seated == 4  # one unknown code to go
    assert refusal(lobby.lookup, new_code(), caller="busy") == UNKNOWN
    assert refusal(lobby.lookup, open_code, caller="busy") == LIMITED


def test_a_burst_of_lookups_and_joins_gets_exactly_the_budget(lobby: LobbyHarness) -> None:
    """Attempts in flight hold their place in the budget, whichever call they came through."""
    metadata = (("x-lexio-caller", "burst"),)
    futures = []
    for i, guess in enumerate(_guesses(30)):
        if i % 2:
            futures.append(
                lobby.stub.JoinTable.future(
                    pb.JoinTableRequest(invite_code=guess, player_id="g", display_name="G"),
                    metadata=metadata,
                    timeout=10,
                )
            )
        else:
            futures.append(
                lobby.stub.LookupCode.future(
                    pb.LookupCodeRequest(invite_code=guess), metadata=metadata, timeout=10
                )
            )
    outcomes = []
    for future in futures:
        with pytest.raises(grpc.RpcError) as e:
            future.result()
        outcomes.append(e.value.details())
    assert sorted(outcomes) == ["rate_limited"] * 20 + ["unknown_code"] * JOIN_FAILURES


def test_lookups_are_timed_and_their_refusals_counted_apart_from_joins(
    lobby: LobbyHarness,
) -> None:
    _, code = lobby.seated_table(1)
    lobby.lookup(code)
    lobby.lookup(code)
    for guess in _guesses(JOIN_FAILURES):
        refusal(lobby.lookup, guess, caller="guesser")
    refusal(lobby.lookup, code, caller="guesser")
    refusal(lobby.lookup, "ABCD")
    calls = "lexio_lobby_calls_total"
    assert lobby.sample(calls, method="LookupCode", outcome="ok") == 2
    assert lobby.sample(calls, method="LookupCode", outcome="unknown_code") == JOIN_FAILURES
    assert lobby.sample(calls, method="LookupCode", outcome="rate_limited") == 1
    assert lobby.sample(calls, method="LookupCode", outcome="invalid_code") == 1
    refused = "lexio_lobby_lookups_refused_total"
    assert lobby.sample(refused, reason="unknown_code") == JOIN_FAILURES
    assert lobby.sample(refused, reason="rate_limited") == 1
    assert lobby.sample(refused, reason="invalid_code") == 1
    assert lobby.sample("lexio_lobby_joins_refused_total", reason="unknown_code") == 0
    assert lobby.sample("lexio_lobby_joins_refused_total", reason="rate_limited") == 0
    # The series exist before the first refusal, for dashboards and alerts.
    fresh = LobbyHarness(lobby.loop_thread, lobby.config)
    for reason in ("unknown_code", "rate_limited"):
        assert fresh.registry.get_sample_value(refused, {"reason": reason}) == 0.0
