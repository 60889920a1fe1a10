"""The event loop every service runs on: uvloop, unless ``LEXIO_EVENT_LOOP=asyncio``.

Measured under load (docs/benchmarks.md, load section): the services' CPU per action fell 9 %
and a WebSocket round trip 40 % with uvloop; the standard loop stays one variable away, for
a platform without uvloop's wheels or to rule it out when chasing a bug.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import uvloop

from lexio_common.config import ConfigError, env_str

_T = TypeVar("_T")

LOOPS = ("uvloop", "asyncio")


def loop_name() -> str:
    name = env_str("LEXIO_EVENT_LOOP", "uvloop")
    if name not in LOOPS:
        raise ConfigError(f"LEXIO_EVENT_LOOP must be one of {', '.join(LOOPS)}, not {name!r}")
    return name


def new_event_loop() -> asyncio.AbstractEventLoop:
    """A fresh loop of the configured kind (for ``aiohttp.web.run_app(loop=…)``)."""
    return uvloop.new_event_loop() if loop_name() == "uvloop" else asyncio.new_event_loop()


def run(main: Coroutine[Any, Any, _T]) -> _T:
    """``asyncio.run`` on the configured loop."""
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        return runner.run(main)
