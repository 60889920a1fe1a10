"""What the engine tier knows of a game: :class:`GameRules`, one object per game.

The engine process serves every game through one gRPC contract (``lexio.game.v1.Engine``,
:mod:`lexio_engine.service`). A game is its rules package plus one object that answers the
contract's calls in plain values: its state as the bytes it encodes itself, the caller's input
as decoded JSON, and what players are shown as JSON-ready dicts. The service does the rest
(protobuf, JSON, metrics, errors); a game's object never sees a gRPC message.

A call reads its input through :meth:`lexio_engine.servicing.Call.read` (unreadable input
ends INVALID_ARGUMENT), asks the lexicon through :meth:`~lexio_engine.servicing.Call.ask_lexicon`
and learns its instant from :attr:`~lexio_engine.servicing.Call.now`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from lexio_engine.servicing import Call

JsonObject = dict[str, Any]
"""A value the service sends as one JSON object (a view, a log entry, a refusal)."""


class NotOfferedError(ValueError):
    """The game has no such call (no preview, no review, no clock): INVALID_ARGUMENT."""


@dataclass(frozen=True)
class Table:
    """What the caller holds of a table and hands back on every call about it."""

    state: bytes
    """The state as the game's last answer returned it."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """The table's options, fixed with the invitation."""


@dataclass(frozen=True)
class Clock:
    """When the table acts by itself if nobody does: at ``due``, ``action`` (handed back as
    the call's clock action), for ``seat``'s time (-1: nobody's in particular)."""

    due: float
    seat: int
    action: str


@dataclass(frozen=True)
class Step:
    """What a start or an action changed, and what each seat is told of it."""

    accepted: bool
    state_changed: bool
    state: bytes
    views: Sequence[JsonObject]
    """Each seat's own view, by seat, without the log (the events extend it)."""
    events: Sequence[JsonObject] = ()
    """The public log entries this step added, in order."""
    refusal: JsonObject | None = None
    """A refusal's fields for the player who tried, ``reason`` first."""
    over: bool = False
    end_cause: str = ""
    """When this step ended the game: why, in the game's words."""
    clock: Clock | None = None


@dataclass(frozen=True)
class Review:
    """A finished game as one seat may review it."""

    record: str
    """The seat's record document, JSON text."""
    entries: Sequence[JsonObject]
    """The public log, as the event frames carried it."""
    steps: Sequence[JsonObject]
    """The seat's view at the start, then after each entry (without the log)."""


class GameRules(Protocol):
    """One game as the engine serves it. Methods a game does not offer raise
    :class:`NotOfferedError` (the service answers INVALID_ARGUMENT)."""

    async def start(
        self,
        seats: int,
        options: Mapping[str, Any],
        settings: Mapping[str, Any],
        seed: int,
        call: Call,
    ) -> Step:
        """A new game at a table of ``seats``."""
        ...

    async def act(self, table: Table, seat: int, action: object, call: Call) -> Step:
        """A player's action, as the client sent it (decoded JSON, not yet checked)."""
        ...

    async def on_clock(self, table: Table, seat: int, action: str, call: Call) -> Step:
        """The table's own action when the clock it was given fell due."""
        ...

    async def view(self, table: Table, seat: int, with_log: bool, call: Call) -> JsonObject:
        """What ``seat`` sees now (its log empty unless ``with_log``)."""
        ...

    async def preview(self, table: Table, seat: int, action: object, call: Call) -> JsonObject:
        """What ``action`` would do, asked before it is sent."""
        ...

    async def review(self, table: Table, seat: int, players: Sequence[str], call: Call) -> Review:
        """A finished game as ``seat`` may review it; ``Call.fail_precondition`` before the end
        or for a state that cannot be replayed."""
        ...
