"""Slots of a real Redis Cluster held half-migrated while a test calls the services.

:meth:`RedisClusterServer.move_slot` migrates a slot from start to end; a test that must call
while the slot is *in motion* needs the state held: the source ``MIGRATING`` (it answers ASK
for a key it no longer has, TRYAGAIN for a command whose keys are split), the target
``IMPORTING`` (it serves a key only to a client that sent ASKING first), some keys moved and
the others not. :class:`HalfMoved` opens the slots, moves the keys the test names, one
``MIGRATE`` each (one slot per command: ``MIGRATE ... KEYS`` refuses keys of two slots), and
:meth:`HalfMoved.finish` completes every slot as ``redis-cli`` does (the remaining keys, then
``SETSLOT NODE`` everywhere), returning once every live node agrees.
"""

from __future__ import annotations

from collections.abc import Iterable

from lexio_common.procs import RedisServer
from lexio_common.redis_cluster_server import Arg, RedisClusterServer


class HalfMoved:
    """``slots``, all served by ``source``, opened for migration to ``target``."""

    def __init__(
        self,
        cluster: RedisClusterServer,
        slots: Iterable[int],
        source: RedisServer,
        target: RedisServer,
    ) -> None:
        self.cluster = cluster
        self.slots = sorted(set(slots))
        self.source = source
        self.target = target
        self.moved: list[str] = []
        for slot in self.slots:
            owner = cluster.master_for_slot(slot)
            if owner is not source:
                raise ValueError(f"slot {slot} is served by {owner.port}, not {source.port}")
        source_id, target_id = cluster.node_id(source), cluster.node_id(target)
        for slot in self.slots:
            # The target first, as redis-cli does: a client sent there by ASK is then served.
            cluster.command(target, "CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
            cluster.command(source, "CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)

    def move(self, keys: Iterable[str]) -> None:
        """Move these keys (of the open slots) to the target, each alone."""
        auth: list[Arg] = ["AUTH", self.cluster.password] if self.cluster.password else []
        for key in keys:
            if self.cluster.slot_of(key) not in self.slots:
                raise ValueError(f"{key!r} is not in a slot being moved")
            self.cluster.command(
                self.source,
                "MIGRATE", "127.0.0.1", self.target.port, "", 0, 10_000, *auth, "KEYS", key,
            )  # fmt: skip
            self.moved.append(key)

    def finish(self) -> None:
        """Complete every slot's migration (its remaining keys, then its new owner told to
        every master); return once every live node agrees."""
        for slot in self.slots:
            self.cluster.move_slot(slot, self.target)
