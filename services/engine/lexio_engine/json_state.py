"""The contract's offered state encoding, ``lexio.game.v1.JsonState``: a versioned JSON core
and a log of JSON entries, for a game whose rules keep a plain form of their state; and
:class:`JsonStateGame`, what such a game's rules object shares.

>>> raw = write("demo-state/1", {"turn": 0})
>>> read(raw, "demo-state/1")
({'turn': 0}, [])
>>> read(raw, "demo-state/2")
Traceback (most recent call last):
...
rules_core.errors.StateFormatError: state.format: 'demo-state/1', not 'demo-state/2'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, NoReturn, Protocol, TypeVar

from google.protobuf.message import DecodeError

from lexio.game.v1 import game_pb2 as pb
from lexio_engine.contract import JsonObject, NotOfferedError, Step, Table
from lexio_engine.service import encode
from lexio_engine.servicing import check_state_format
from rules_core import StateFormatError


def write(state_format: str, core: Any, log: Sequence[bytes] = ()) -> bytes:
    return pb.JsonState(format=state_format, core=encode(core), log=log).SerializeToString()


def read(raw: bytes, state_format: str) -> tuple[Any, list[bytes]]:
    """The core, decoded, and the log's entries as they are; StateFormatError if ``raw`` is
    not a state of ``state_format``."""
    try:
        message = pb.JsonState.FromString(raw)
    except DecodeError as e:
        raise StateFormatError(f"state: not a JsonState ({e})") from None
    check_state_format(message.format, state_format)
    try:
        return json.loads(message.core), list(message.log)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise StateFormatError(f"state.core: not JSON ({e})") from None


class PlainState(Protocol):
    """A rules package's state with a plain form (``to_dict``; its class reads it back)."""

    def to_dict(self) -> dict[str, Any]: ...


S = TypeVar("S", bound=PlainState)


class JsonStateGame(Generic[S]):
    """What a game whose state is its rules' plain form shares: the state as a
    :class:`JsonState` (its log inside the core), the steps built from the state, and the calls
    it does not offer (clock, preview, review) answered as such. A game sets the class
    attributes (its rules' functions, as static methods) and writes ``start``, ``act`` and
    ``view``."""

    state_format: ClassVar[str]
    from_plain: Callable[[Any], S]
    """The rules' reading of the plain form (StateFormatError for anything else)."""
    check_seat: Callable[[int], int]
    """The rules' check of a seat (a ValueError for a seat the game does not have)."""

    views: Callable[[S, float], list[JsonObject]]
    """The rules' views of every seat, by seat, without the log (state, now)."""
    end_cause: Callable[[S], str]
    """The rules' reason the game ended, "" while it goes on."""

    def read(self, table: Table, seat: int) -> tuple[S, int]:
        return self.from_plain(read(table.state, self.state_format)[0]), self.check_seat(seat)

    def accepted(self, state: S, now: float, events: Sequence[JsonObject] = ()) -> Step:
        raw = write(self.state_format, state.to_dict())
        return self._step(state, now, raw, accepted=True, state_changed=True, events=events)

    def refused(self, table: Table, state: S, now: float, refusal: JsonObject) -> Step:
        """A refusal that changed nothing: the state goes back as it came."""
        return self._step(state, now, table.state, accepted=False, refusal=refusal)

    def _step(self, state: S, now: float, raw: bytes, **step: Any) -> Step:
        cause = self.end_cause(state)
        step.setdefault("state_changed", False)
        views = self.views(state, now)
        return Step(state=raw, views=views, over=cause != "", end_cause=cause, **step)

    async def on_clock(self, *args: object) -> NoReturn:
        raise NotOfferedError("this game has no clock")

    async def preview(self, *args: object) -> NoReturn:
        raise NotOfferedError("this game has no preview")

    async def review(self, *args: object) -> NoReturn:
        raise NotOfferedError("this game has no review")
