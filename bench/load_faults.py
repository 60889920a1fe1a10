"""Faults injected into a load run (issue 27): a replica or Redis killed with SIGKILL under load,
or a replica replaced as a rolling update does (issue 40).

A fault is written ``TARGET@AT[+BACK]``: ``TARGET`` is a service of the run's stack
(``gateway-b``, ``lobby-a``…) or ``redis``; ``AT`` the seconds into the measured window when it
is killed (-9); ``BACK`` the seconds after which it is started again, as Kubernetes restarts a
pod (omitted: never, for a replica; Redis is always started again at once — the "Redis
restart" of the issue — and reloads its AOF). ``TARGET@AT~`` replaces the replica as
``kubectl rollout restart`` does: SIGTERM, its exit awaited (it sends its players away), then
started again at once. Examples::

    --fault gateway-b@60+30 --fault lobby-b@150+20 --fault redis@240
    --fault gateway-a@30~ --fault gateway-b@120~

For each fault the report says when it happened, how long the restart took, and the surviving
gateways' own turn latency (their ``lexio_gateway_turn_seconds``) in the minute after the kill,
read from their /metrics at the kill and a minute later. What the players saw (their lost
connections, reconnection times, acts resent, acknowledged moves lost or applied twice) is in the
clients' part of the report, each sample stamped so that it can be given to its fault.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from load_stats import Scrape, histogram_delta, scrape

AFTER_SECONDS = 60.0
"""The surviving replicas' latency is read over this long after each kill."""

_SYNTAX = re.compile(
    r"^(?P<target>[a-z][a-z0-9-]*)@(?P<at>\d+(\.\d+)?)((\+(?P<back>\d+(\.\d+)?))|(?P<roll>~))?$"
)


@dataclass(frozen=True)
class Fault:
    """One kill -9 (and maybe a restart) at a time into the measured window."""

    target: str
    at: float
    back_after: float | None = None
    rolling: bool = False
    """SIGTERM and a new process once it has exited (a rolling update), not kill -9."""

    @classmethod
    def parse(cls, text: str) -> Fault:
        """
        >>> Fault.parse("gateway-b@60+30")
        Fault(target='gateway-b', at=60.0, back_after=30.0, rolling=False)
        >>> Fault.parse("redis@240")
        Fault(target='redis', at=240.0, back_after=None, rolling=False)
        >>> Fault.parse("gateway-a@30~")
        Fault(target='gateway-a', at=30.0, back_after=0.0, rolling=True)
        """
        match = _SYNTAX.match(text)
        if match is None:
            raise ValueError(f"a fault is TARGET@SECONDS[+BACK_SECONDS or ~], not {text!r}")
        if match["roll"]:
            return cls(match["target"], float(match["at"]), 0.0, rolling=True)
        back = match["back"]
        return cls(match["target"], float(match["at"]), float(back) if back else None)


class FaultableStack(Protocol):
    """What of bench/load_services.Stack a fault needs."""

    services: dict[str, Any]

    def kill(self, name: str) -> None: ...
    def terminate(self, name: str) -> int | None: ...
    def restart(self, name: str) -> None: ...
    def kill_redis(self) -> None: ...
    def restart_redis(self) -> None: ...


@dataclass
class _Progress:
    fault: Fault
    killed_at: float | None = None
    restarted_at: float | None = None
    restart_seconds: float | None = None
    exit_code: int | None = None
    """A rolling fault's: how the replaced process ended (0, or -9 if killed past the grace)."""
    before: dict[str, Scrape] = field(default_factory=dict)
    after: dict[str, Scrape] = field(default_factory=dict)
    error: str | None = None


def _gateways(stack: FaultableStack, alive: Callable[[str], bool]) -> dict[str, str]:
    return {
        name: service.metrics_url
        for name, service in stack.services.items()
        if name.startswith("gateway") and service.metrics_url and alive(name)
    }


def _scrape_gateways(stack: FaultableStack, alive: Callable[[str], bool]) -> dict[str, Scrape]:
    out = {}
    for name, url in _gateways(stack, alive).items():
        with contextlib.suppress(OSError):
            out[name] = scrape(url)
    return out


class FaultRunner:
    """Performs the faults when their time comes; called from the harness's sampling loop."""

    def __init__(self, faults: Sequence[Fault], stack: FaultableStack, window_start: float) -> None:
        self.stack = stack
        self.window_start = window_start
        self.progress = [_Progress(f) for f in sorted(faults, key=lambda f: f.at)]
        self.dead: set[str] = set()

    def _alive(self, name: str) -> bool:
        return name not in self.dead

    def next_due(self) -> float | None:
        """The next monotonic time something is due, if any (for the loop's wait)."""
        times = []
        for p in self.progress:
            if p.killed_at is None:
                times.append(self.window_start + p.fault.at)
            else:
                if p.fault.back_after is not None and p.restarted_at is None:
                    times.append(p.killed_at + p.fault.back_after)
                if not p.after:
                    times.append(p.killed_at + AFTER_SECONDS)
        return min(times) if times else None

    def tick(self, now: float) -> None:
        for p in self.progress:
            try:
                self._step(p, now)
            except Exception as e:  # said in the report: the run goes on
                p.error = f"{type(e).__name__}: {e}"
                p.after = p.after or {"-": {}}
                p.restarted_at = p.restarted_at or now

    def _step(self, p: _Progress, now: float) -> None:
        fault = p.fault
        if p.killed_at is None:
            if now < self.window_start + fault.at:
                return
            p.before = _scrape_gateways(self.stack, self._alive)
            p.killed_at = time.monotonic()
            if fault.target == "redis":
                self.stack.kill_redis()
                started = time.monotonic()
                self.stack.restart_redis()
                p.restarted_at = time.monotonic()
                p.restart_seconds = p.restarted_at - started
            elif fault.rolling:
                # Returns once it has sent everyone away and exited (or was killed).
                p.exit_code = self.stack.terminate(fault.target)
                self.dead.add(fault.target)
                p.before.pop(fault.target, None)
            else:
                self.stack.kill(fault.target)
                self.dead.add(fault.target)
                p.before.pop(fault.target, None)
            how = "stopped (SIGTERM, exited)" if fault.rolling else "killed (-9)"
            print(f"  fault: {fault.target} {how} at {fault.at:.0f} s into the window", flush=True)
            return
        if (
            fault.back_after is not None
            and p.restarted_at is None
            and now >= p.killed_at + fault.back_after
        ):
            started = time.monotonic()
            self.stack.restart(fault.target)
            p.restarted_at = time.monotonic()
            p.restart_seconds = p.restarted_at - started
            self.dead.discard(fault.target)
            print(f"  fault: {fault.target} started again ({p.restart_seconds:.1f} s)", flush=True)
        if not p.after and now >= p.killed_at + AFTER_SECONDS:
            # Only the replicas that lived through the whole minute: a restarted one's counters
            # began again.
            p.after = {
                name: scraped
                for name, scraped in _scrape_gateways(self.stack, self._alive).items()
                if name in p.before
            }

    def report(self, origin: float) -> list[dict[str, Any]]:
        """Each fault: its times (seconds from ``origin``) and the survivors' minute after."""
        out = []
        for p in self.progress:
            entry: dict[str, Any] = {
                "target": p.fault.target,
                "at": p.fault.at,
                "back_after": p.fault.back_after,
                "rolling": p.fault.rolling,
                "killed_at": None if p.killed_at is None else p.killed_at - origin,
                "restarted_at": None if p.restarted_at is None else p.restarted_at - origin,
                "restart_seconds": p.restart_seconds,
                "exit_code": p.exit_code,
                "error": p.error,
                "survivors_minute_after": {},
            }
            for name, after in p.after.items():
                if name not in p.before:
                    continue
                delta = histogram_delta(p.before[name], after, "lexio_gateway_turn_seconds", {})
                if delta.count > 0:
                    entry["survivors_minute_after"][name] = {
                        "turns": delta.count,
                        "p50": delta.quantile(0.5) * 1000,
                        "p99": delta.quantile(0.99) * 1000,
                    }
            out.append(entry)
        return out

    def window_of(self, index: int, origin: float) -> tuple[float, float] | None:
        """The span of fault ``index`` (from its kill to the next fault's), from ``origin``."""
        p = self.progress[index]
        if p.killed_at is None:
            return None
        later = [q.killed_at for q in self.progress[index + 1 :] if q.killed_at is not None]
        end = later[0] if later else float("inf")
        return p.killed_at - origin, end - origin
