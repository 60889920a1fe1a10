"""What the gateway core knows of a game: the adapter contract (version 2).

The core holds tables, seats, tokens, sequence numbers, replay, commits, replicas and clocks as
absolute instants; it knows no rule. A game is an adapter: it turns the protocol's JSON into
calls of its engine service, and tells the core, after every step, when the table itself must
act next if nobody does (:class:`TableClock`), how a seat's absence changes that
(:meth:`GameAdapter.clock_event`), what the table then sends (:meth:`GameAdapter.on_clock`),
and what a refusal tells the player who tried (:attr:`Step.refusal`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

OptionValue = str | int
Options = Mapping[str, OptionValue]


class GameUnavailableError(Exception):
    """The engine (or what it depends on) cannot answer now; nothing changed."""


class BadActionError(Exception):
    """The action cannot be stated; nothing was asked of the engine."""


class ReviewUnavailableError(Exception):
    """This game has no review (no record format), or this finished game's stored state cannot
    be replayed (stored before the game kept what a replay needs)."""


@dataclass(frozen=True)
class TableClock:
    """When the table must act by itself if nobody does, as the game sees it; stored with the
    table, so that any replica, or this one after a restart, fires it at the same instant."""

    due: float
    """Absolute instant (Unix seconds) of the clock event."""
    seat: int
    """The seat whose time runs (its absence may bring the event forward), or -1."""
    since: float
    """When that seat's time began."""
    action: str
    """What the table then does, in the adapter's own words (stored, handed back)."""


@dataclass(frozen=True)
class ClockEvent:
    """The next thing the table does by itself: at ``at``, the adapter's ``action``."""

    at: float
    action: str


@dataclass(frozen=True)
class GameTable:
    """What an adapter is given about a table: the engine's state as it returned it, the
    table's options (fixed with the invitation), and the clock the last step set."""

    state: bytes
    options: Options = field(default_factory=dict)
    clock: TableClock | None = None


@dataclass(frozen=True)
class Step:
    """What one engine call returned, in the protocol's JSON."""

    accepted: bool
    state_changed: bool
    state: bytes
    clock: TableClock | None
    """None once the game is over (or if the game has no clock)."""
    over: bool
    views: list[dict[str, Any]]
    """Each seat's own view, by seat."""
    events: list[dict[str, Any]] = field(default_factory=list)
    """The public log entries this step added, in order (each becomes one ``event``)."""
    refusal: dict[str, Any] | None = None
    """A refusal's ``refused`` frame fields (reason, words, …), for the actor only."""
    end_cause: str | None = None
    """When this step ended the game: the game's name for why (a metric's bounded label)."""


@dataclass(frozen=True)
class GameReview:
    """A finished game as one seat may review it: nothing that seat did not see in play (no
    other rack before the end's reveal, others' exchanges as counts)."""

    record: dict[str, Any]
    """The game's record document for that seat (the shared record format), parsed."""
    entries: list[dict[str, Any]]
    """The public log, each entry as the protocol's ``event`` frame's ``entry``."""
    steps: list[dict[str, Any]]
    """The seat's view (as the ``view`` frame's ``view``, without its log) at the start, then
    after each entry: ``len(entries) + 1`` of them."""


class GameAdapter(Protocol):
    name: str

    async def start(self, seats: int, options: Options, seed: int, now: float) -> Step: ...

    async def act(self, table: GameTable, seat: int, action: dict[str, Any], now: float) -> Step:
        """A player's action; BadActionError when it cannot be stated."""
        ...

    async def preview(self, table: GameTable, seat: int, action: dict[str, Any]) -> dict[str, Any]:
        """The ``preview`` frame's fields; BadActionError if the game has none."""
        ...

    async def view(
        self, table: GameTable, seat: int, now: float, *, with_log: bool
    ) -> dict[str, Any]: ...

    def clock_event(self, clock: TableClock, away_since: float | None) -> ClockEvent:
        """When and what the table does next, given the clock the last step set and, when the
        seat whose time runs is away, since when (None: it is present)."""
        ...

    async def on_clock(self, table: GameTable, event: ClockEvent, now: float) -> Step:
        """The table's own action when ``event`` falls due."""
        ...

    async def review(self, table: GameTable, seat: int, players: Sequence[str]) -> GameReview:
        """A finished game as ``seat`` may review it (``players``: the names in seat order);
        ReviewUnavailableError when it has none, GameUnavailableError when the engine cannot
        answer now."""
        ...
