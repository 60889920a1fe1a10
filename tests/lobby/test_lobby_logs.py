"""Invite codes are secrets: no log line ever carries one in full, whatever happens."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from lexio_testing import LoopThread
from lobby_fixtures import BACKENDS, JOIN_FAILURES, TTL, LobbyHarness, backend_config, refusal

from lexio_common.logging import JsonFormatter
from lexio_lobby.codes import new_code, parse_code, redact
from lexio_lobby.server import LobbyConfig


@pytest.fixture(params=BACKENDS)
def config(request: pytest.FixtureRequest, tmp_path: Path) -> LobbyConfig:
    return backend_config(request, tmp_path)


@pytest.fixture
def lobby(loop_thread: LoopThread, config: LobbyConfig) -> Iterator[LobbyHarness]:
    harness = LobbyHarness(loop_thread, config).start()
    yield harness
    harness.stop()


def _forms(code: str) -> set[str]:
    canonical = parse_code(code)
    shown = f"{canonical[:5]}-{canonical[5:]}"
    return {canonical, shown, canonical.lower(), shown.lower(), canonical[1:], canonical[:-1]}


def test_no_log_line_holds_an_invite_code(
    lobby: LobbyHarness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    created = lobby.create()
    table_id, code = created.table.table_id, created.invite_code
    lobby.lookup(code.lower())
    lobby.join(code.lower(), "p1")
    lobby.join(code.replace("-", " "), "p1")
    lobby.get(table_id, "p1")
    wrong = new_code()
    refusal(lobby.join, wrong, "p2", caller="guesser")
    refusal(lobby.lookup, new_code(), caller="guesser")
    for _ in range(JOIN_FAILURES):
        refusal(lobby.join, new_code(), "p2", caller="guesser")
    refusal(lobby.join, code, "p2", caller="guesser")  # rate limited with the right code
    refusal(lobby.lookup, code, caller="guesser")  # the same, looking
    lobby.leave(table_id, "p1")
    lobby.join(code, "p3")
    lobby.start_table(table_id, "p0")
    refusal(lobby.join, code, "p4")
    lobby.close_table(table_id, "p0")
    refusal(lobby.lookup, code)
    expiring = lobby.create(player="h2")
    lobby.clock.advance(TTL)
    refusal(lobby.join, expiring.invite_code, "p5")
    refusal(lobby.lookup, expiring.invite_code)
    lobby.sweep()
    lobby.restart()
    lobby.get(table_id)

    formatter = JsonFormatter("lobby")
    lines = [formatter.format(record) for record in caplog.records]
    assert len(lines) > 10
    secrets = _forms(code) | _forms(wrong) | _forms(expiring.invite_code)
    for line in lines:
        for secret in secrets:
            assert secret not in line, line
    # What is logged about an unknown code is its redacted form.
    assert any(json.loads(line).get("code") == redact(parse_code(wrong)) for line in lines)
    messages = {json.loads(line)["msg"] for line in lines}
    assert {"lookup refused: unknown code", "lookup refused: rate limited"} <= messages
    assert any(table_id in line for line in lines)
