"""Which other gateway replicas are alive: each says so on the site's channel every keep-alive.

A seat connected to another replica counts as present while that replica is alive (presence.py):
a replica killed with -9 never says its seats left, so its silence is what ends them. One
heartbeat per replica and keep-alive, whatever the number of tables (issue 28: before, each
heartbeat listed every seat the replica held, and every replica read every list).
"""

from __future__ import annotations

from collections.abc import Callable


class Heartbeats:
    """When each replica was last heard of, and how long that counts.

    >>> now = [100.0]
    >>> beats = Heartbeats(lambda: now[0], ttl=10.0)
    >>> beats.heard("r1"); beats.alive("r1"), beats.alive("r2")
    (True, False)
    >>> now[0] = 110.5; beats.alive("r1")
    False
    """

    def __init__(self, clock: Callable[[], float], ttl: float) -> None:
        self._clock = clock
        self._ttl = ttl
        self._until: dict[str, float] = {}

    def heard(self, replica: str) -> None:
        """Any word of ``replica`` (a heartbeat, a presence notice) is a sign of life."""
        self._until[replica] = self._clock() + self._ttl

    def alive(self, replica: str) -> bool:
        return self._until.get(replica, float("-inf")) > self._clock()

    def extend(self) -> None:
        """After a break in the bus: every replica known gets a whole ``ttl`` to speak again
        (silence while this replica could not hear is not death)."""
        until = self._clock() + self._ttl
        for replica, valid in self._until.items():
            self._until[replica] = max(valid, until)

    def forget_dead(self) -> None:
        """Drop the replicas silent for long (restarts mint new names: the map must not grow)."""
        now = self._clock()
        for replica in [r for r, until in self._until.items() if until + self._ttl < now]:
            del self._until[replica]
