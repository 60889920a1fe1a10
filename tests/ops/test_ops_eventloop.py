"""Every service runs on uvloop unless ``LEXIO_EVENT_LOOP`` says otherwise."""

from __future__ import annotations

import asyncio

import pytest
import uvloop

from lexio_common import eventloop
from lexio_common.config import ConfigError


async def _running_loop() -> type[asyncio.AbstractEventLoop]:
    return type(asyncio.get_running_loop())


def test_services_run_on_uvloop_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEXIO_EVENT_LOOP", raising=False)
    assert eventloop.run(_running_loop()) is uvloop.Loop


def test_the_standard_loop_is_one_variable_away(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEXIO_EVENT_LOOP", "asyncio")
    assert not issubclass(eventloop.run(_running_loop()), uvloop.Loop)


def test_an_unknown_loop_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEXIO_EVENT_LOOP", "trio")
    with pytest.raises(ConfigError, match="LEXIO_EVENT_LOOP"):
        eventloop.loop_name()
