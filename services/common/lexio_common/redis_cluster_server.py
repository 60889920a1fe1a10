"""A real Redis Cluster on loopback ports, for the tests: :class:`RedisClusterServer`.

Each node is a :class:`~lexio_common.procs.RedisServer` (AOF, its own directory), so a node
is started, killed and restarted exactly as the single Redis of the other tests is. What a
cluster adds is driven the way an operator drives it: ``redis-cli --cluster create`` and
``--cluster reshard``, or the primitive commands (``CLUSTER SETSLOT``, ``MIGRATE``) when a
test needs a slot half-migrated, and a real ``kill -9`` of a master for a failover. Every
step that changes the topology returns only once all live nodes agree on the new one, so
that a client a test starts next sees one cluster, not the gossip in between.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Literal, TypeAlias, overload

from lexio_common.procs import RedisServer, free_port

__all__ = ["ClusterNodeInfo", "RedisClusterServer", "ReplyError", "key_slot"]

SLOTS = 16384

Reply: TypeAlias = "str | int | ReplyError | list[Reply] | None"
Arg: TypeAlias = str | int | bytes
_Placement: TypeAlias = tuple[Literal["master", "replica"], str | None, tuple[tuple[int, int], ...]]


class ReplyError(Exception):
    """An error reply (``-MOVED 3999 127.0.0.1:21001``, ``-ASK ...``, ``-TRYAGAIN ...``)."""


def key_slot(key: str | bytes) -> int:
    """The hash slot of ``key``, as Redis computes it: CRC16 (XMODEM) modulo 16384 of the key,
    or of its hash tag, the first non-empty ``{...}`` (``{user1}.a`` and ``{user1}.b`` share
    a slot; ``{}x`` hashes whole)."""
    data = key.encode() if isinstance(key, str) else key
    start = data.find(b"{")
    if start != -1:
        end = data.find(b"}", start + 1)
        if end > start + 1:
            data = data[start + 1 : end]
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        crc &= 0xFFFF
    return crc % SLOTS


@dataclass(frozen=True)
class ClusterNodeInfo:
    """One line of ``CLUSTER NODES``, as one node sees the cluster.

    ``migrating`` and ``importing`` (slot -> the other node's id) are only known for the
    node that answered (its ``myself`` line): Redis shows no one else's."""

    id: str
    port: int
    role: Literal["master", "replica"]
    master_id: str | None
    flags: frozenset[str]
    link_connected: bool
    slots: tuple[tuple[int, int], ...]
    migrating: dict[int, str] = field(default_factory=dict)
    importing: dict[int, str] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        """Flagged failing (``fail``, or ``fail?`` as this node alone suspects)."""
        return bool(self.flags & {"fail", "fail?"})

    @property
    def slot_count(self) -> int:
        return sum(last - first + 1 for first, last in self.slots)

    def owns(self, slot: int) -> bool:
        return any(first <= slot <= last for first, last in self.slots)


def _parse_nodes(text: str) -> list[ClusterNodeInfo]:
    nodes = []
    for line in text.splitlines():
        if not line.strip():
            continue
        node_id, address, flags_text, master, _ping, _pong, _epoch, link, *slot_fields = (
            line.split()
        )
        flags = frozenset(flags_text.split(","))
        slots: list[tuple[int, int]] = []
        migrating: dict[int, str] = {}
        importing: dict[int, str] = {}
        for entry in slot_fields:
            if entry.startswith("["):
                slot_text, arrow, other = entry.strip("[]").partition("-")
                if arrow and other.startswith(">-"):
                    migrating[int(slot_text)] = other[2:]
                elif arrow and other.startswith("<-"):
                    importing[int(slot_text)] = other[2:]
                continue
            first, _, last = entry.partition("-")
            slots.append((int(first), int(last or first)))
        nodes.append(
            ClusterNodeInfo(
                id=node_id,
                port=int(address.split(",")[0].split("@")[0].rpartition(":")[2]),
                role="master" if "master" in flags else "replica",
                master_id=None if master == "-" else master,
                flags=flags,
                link_connected=link == "connected",
                slots=tuple(slots),
                migrating=migrating,
                importing=importing,
            )
        )
    return nodes


def _read_reply(stream: BinaryIO) -> Reply:
    line = stream.readline()
    if not line.endswith(b"\r\n"):
        raise ConnectionError("redis closed the connection mid-reply")
    kind, rest = line[:1], line[1:-2]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        return ReplyError(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        size = int(rest)
        if size < 0:
            return None
        data = stream.read(size + 2)
        if len(data) != size + 2:
            raise ConnectionError("redis closed the connection mid-reply")
        return data[:-2].decode(errors="surrogateescape")
    if kind == b"*":
        count = int(rest)
        return None if count < 0 else [_read_reply(stream) for _ in range(count)]
    raise ConnectionError(f"not a RESP2 reply: {line!r}")


def _encode(args: Sequence[Arg]) -> bytes:
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


def _deadline_wait(check: Callable[[], str | None], timeout: float, what: str) -> None:
    """Poll ``check`` (None once satisfied, else what is still wrong) until ``timeout``."""
    deadline = time.monotonic() + timeout
    problem = "not checked"
    while time.monotonic() < deadline:
        try:
            found = check()
        except (OSError, ReplyError) as e:
            found = f"{type(e).__name__}: {e}"
        if found is None:
            return
        problem = found
        time.sleep(0.05)
    raise RuntimeError(f"{what}: not done after {timeout:.0f} s; last seen: {problem}")


class RedisClusterServer:
    """A real Redis Cluster: ``masters`` masters with ``replicas_per_master`` replicas each,
    every node a :class:`RedisServer` in a sub-directory of ``directory``.

    Nodes are started with a short ``cluster-node-timeout`` so a failover takes seconds,
    ``cluster-replica-validity-factor 0`` so any replica may be promoted however long it was
    cut off, and ``cluster-allow-replica-migration no`` so that replicas stay where
    ``start`` put them and a master emptied by a reshard stays a master: a test's topology
    only changes when the test changes it. ``repl-diskless-sync-delay 0``: a replica's first
    sync starts at once, not after Redis's 5 s wait for more replicas to share it (that wait
    was most of a start, and of a restart). Each node's cluster bus is given a port of its own
    from :func:`free_port` (``cluster-port``) rather than Redis's port + 10000, which could
    fall in the kernel's ephemeral range or past 65535.

    Nodes are plain :class:`RedisServer` objects (``nodes``); a node's id in the cluster is
    :meth:`node_id`. ``password`` is every node's (``requirepass`` and ``masterauth``), also
    given to ``redis-cli`` and to ``MIGRATE``. Methods keep no state besides the nodes they
    start and stop, so a reshard or a slot move may run in a thread while a test uses the
    cluster.
    """

    def __init__(
        self,
        directory: str,
        masters: int = 3,
        replicas_per_master: int = 1,
        node_timeout_ms: int = 1000,
        *,
        password: str = "",
    ) -> None:
        if masters < 3:
            raise ValueError("Redis Cluster needs at least 3 masters (redis-cli refuses fewer)")
        self.directory = directory
        self.masters = masters
        self.replicas_per_master = replicas_per_master
        self.node_timeout_ms = node_timeout_ms
        self.password = password
        self.nodes: list[RedisServer] = []
        for index in range(masters * (1 + replicas_per_master)):
            node_dir = Path(directory) / f"node-{index}"
            node_dir.mkdir(parents=True, exist_ok=True)
            node = RedisServer(str(node_dir), free_port(), password=password)
            node.extra_args = [
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(node_timeout_ms),
                "--cluster-port", str(free_port()),
                "--cluster-replica-validity-factor", "0",
                "--cluster-allow-replica-migration", "no",
                "--cluster-allow-reads-when-down", "no",
                "--cluster-require-full-coverage", "yes",
                "--repl-diskless-sync-delay", "0",
                *(["--masterauth", password] if password else []),
            ]  # fmt: skip
            self.nodes.append(node)
        self._ids: dict[int, str] = {}

    def __enter__(self) -> RedisClusterServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The URL the services take for a cluster: its first node, as the seed."""
        auth = f":{self.password}@" if self.password else ""
        return f"redis+cluster://{auth}127.0.0.1:{self.nodes[0].port}"

    @property
    def seed_urls(self) -> list[str]:
        """Every node's own ``redis://`` URL (a client may be seeded with any of them)."""
        return [node.url for node in self.nodes]

    @property
    def live_nodes(self) -> list[RedisServer]:
        return [node for node in self.nodes if node.process is not None]

    def start(self, timeout: float = 30.0) -> None:
        """Start every node, join them into one cluster with ``redis-cli --cluster create``
        and return once every node reports it whole (all slots served, every replica
        attached, all nodes agreeing). Nodes started are stopped again if that fails."""
        try:
            for node in self.nodes:
                node.start()
            self._ids = {node.port: self._text(node, "CLUSTER", "MYID") for node in self.nodes}
            self._redis_cli(
                "--cluster", "create",
                *(f"127.0.0.1:{node.port}" for node in self.nodes),
                "--cluster-replicas", str(self.replicas_per_master),
                "--cluster-yes",
                timeout=timeout,
            )  # fmt: skip
            self.wait_healthy(timeout)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop every node (SIGTERM, SIGKILL for one that does not exit); again is a no-op."""
        for node in self.nodes:
            try:
                node.stop()
            except subprocess.TimeoutExpired:
                node.stop(kill=True)

    def restart(self, node: RedisServer, timeout: float = 30.0) -> None:
        """Start a stopped node again, from its own ``nodes.conf`` and AOF; return once the
        cluster is whole with it (a former master back as a replica of its successor)."""
        if node.process is not None:
            raise RuntimeError(f"node {node.port} is running")
        node.start()
        self.wait_healthy(timeout)

    def command(self, node: RedisServer, *args: Arg, timeout: float = 10.0) -> Reply:
        """One command on ``node``, its reply read whole and parsed (RESP2: str, int, None,
        lists); an error reply (``MOVED``, ``ASK``, ``TRYAGAIN``...) raises ReplyError.

        Read whole, unlike :meth:`RedisServer.command`'s single ``recv``: ``CLUSTER NODES``
        or ``CLUSTER GETKEYSINSLOT`` can be longer than one segment."""
        with (
            socket.create_connection(("127.0.0.1", node.port), timeout=timeout) as s,
            s.makefile("rb") as stream,
        ):
            if self.password:
                s.sendall(_encode(("AUTH", self.password)))
                if isinstance(_read_reply(stream), ReplyError):
                    raise ConnectionError(f"node {node.port} refused the password")
            s.sendall(_encode(args))
            reply = _read_reply(stream)
        if isinstance(reply, ReplyError):
            raise reply
        return reply

    def command_for_key(self, key: str, *args: Arg) -> Reply:
        """A command on the master that owns ``key``'s slot now (no redirection followed)."""
        return self.command(self.master_for_slot(self.slot_of(key)), *args)

    def _text(self, node: RedisServer, *args: Arg) -> str:
        reply = self.command(node, *args)
        if not isinstance(reply, str):
            raise ReplyError(f"{args!r} answered {reply!r}, not a string")
        return reply

    def _fields(self, node: RedisServer, *args: Arg) -> dict[str, str]:
        """An INFO-style reply (``CLUSTER INFO``, ``INFO replication``) as a dict."""
        lines = self._text(node, *args).splitlines()
        return dict(line.split(":", 1) for line in lines if ":" in line)

    def node_id(self, node: RedisServer) -> str:
        """The node's id in the cluster (kept in its ``nodes.conf``: the same after a
        restart)."""
        if not self._ids:
            raise RuntimeError("the cluster is not started")
        return self._ids[node.port]

    def node_by_id(self, node_id: str) -> RedisServer:
        for node in self.nodes:
            if self._ids.get(node.port) == node_id:
                return node
        raise KeyError(f"no node has the id {node_id}")

    def nodes_info(self, node: RedisServer | None = None) -> list[ClusterNodeInfo]:
        """``CLUSTER NODES`` as ``node`` sees it (by default the first live node)."""
        return _parse_nodes(self._text(node or self._any_live(), "CLUSTER", "NODES"))

    def _any_live(self) -> RedisServer:
        for node in self.nodes:
            if node.process is not None:
                return node
        raise RuntimeError("no node of the cluster is running")

    def _info_of(self, node: RedisServer, seen_by: RedisServer | None = None) -> ClusterNodeInfo:
        node_id = self.node_id(node)
        for info in self.nodes_info(seen_by):
            if info.id == node_id:
                return info
        raise KeyError(f"node {node.port} is not in the cluster")

    @staticmethod
    def slot_of(key: str | bytes) -> int:
        """The key's hash slot, computed here (see :func:`key_slot`): no round trip."""
        return key_slot(key)

    def master_for_slot(self, slot: int) -> RedisServer:
        """The master that serves ``slot`` now, as the first live node sees it (during a
        migration, still the source: the slot is the target's once ``SETSLOT NODE`` ran)."""
        for info in self.nodes_info():
            if info.role == "master" and not info.failed and info.owns(slot):
                return self.node_by_id(info.id)
        raise RuntimeError(f"no live master serves slot {slot}")

    def masters_now(self) -> list[RedisServer]:
        """The live masters, as the first live node sees them."""
        return [
            self.node_by_id(info.id)
            for info in self.nodes_info()
            if info.role == "master" and not info.failed
        ]

    def replicas_of(self, master: RedisServer) -> list[RedisServer]:
        """The live replicas of ``master``, as the first live node sees them."""
        master_id = self.node_id(master)
        return [
            self.node_by_id(info.id)
            for info in self.nodes_info()
            if info.master_id == master_id and not info.failed
        ]

    def wait_healthy(self, timeout: float = 30.0) -> None:
        """Until the live nodes make one whole cluster: see :meth:`problem`."""
        _deadline_wait(self.problem, timeout, "redis cluster whole")

    def problem(self) -> str | None:
        """What keeps the cluster from being whole now, or None: every live node reports
        ``cluster_state:ok`` with all 16384 slots, every live node sees every other one
        connected and not failing, they agree on each node's role and slots, ``masters``
        masters serve the slots, and every live replica's link to its master is up."""
        live = self.live_nodes
        if not live:
            return "no node is running"
        live_ids = {self.node_id(node) for node in live}
        agreed: dict[str, _Placement] | None = None
        for node in live:
            state = self._fields(node, "CLUSTER", "INFO")
            if state.get("cluster_state") != "ok":
                return f"node {node.port}: cluster_state {state.get('cluster_state')}"
            if state.get("cluster_slots_ok") != str(SLOTS):
                return f"node {node.port}: {state.get('cluster_slots_ok')} slots ok"
            view = {info.id: info for info in self.nodes_info(node)}
            for node_id in live_ids:
                info = view.get(node_id)
                if info is None:
                    return f"node {node.port} does not know node {node_id}"
                if info.failed or "handshake" in info.flags or "noaddr" in info.flags:
                    return f"node {node.port} sees {info.port} as {','.join(info.flags)}"
                if not info.link_connected:
                    return f"node {node.port} is not connected to {info.port}"
            for info in view.values():
                if info.id not in live_ids and info.slots:
                    return f"node {node.port} sees the stopped {info.port} serve slots"
            roles = {
                node_id: (view[node_id].role, view[node_id].master_id, view[node_id].slots)
                for node_id in live_ids
            }
            if agreed is None:
                agreed = roles
            elif roles != agreed:
                return f"node {node.port} does not agree with node {live[0].port}"
        assert agreed is not None
        masters = [node_id for node_id, (role, _m, _s) in agreed.items() if role == "master"]
        if len(masters) != self.masters:
            return f"{len(masters)} masters, not {self.masters}"
        for node in live:
            role, master_id, _slots = agreed[self.node_id(node)]
            if role == "master":
                continue
            if master_id not in masters:
                return f"replica {node.port} follows {master_id}, not a live master"
            link = self._fields(node, "INFO", "replication").get("master_link_status")
            if link != "up":
                return f"replica {node.port}: master_link_status {link}"
        return None

    @overload
    def kill_master(
        self, node: RedisServer, *, wait_failover: Literal[True] = ..., timeout: float = ...
    ) -> RedisServer: ...

    @overload
    def kill_master(
        self, node: RedisServer, *, wait_failover: bool, timeout: float = ...
    ) -> RedisServer | None: ...

    def kill_master(
        self, node: RedisServer, *, wait_failover: bool = True, timeout: float = 30.0
    ) -> RedisServer | None:
        """``kill -9`` a master that serves slots. With ``wait_failover`` (the default), return
        the replica promoted in its place once the live nodes make a whole cluster again
        (RuntimeError, saying what is still wrong, after ``timeout``); else None at once: then
        :meth:`wait_healthy` and :meth:`master_for_slot` find the heir."""
        info = self._info_of(node, seen_by=self._other_live(node))
        if info.role != "master" or info.failed or not info.slots:
            raise RuntimeError(
                f"node {node.port} is not a live master serving slots: {sorted(info.flags)}"
            )
        node.stop(kill=True)
        if not wait_failover:
            return None
        _deadline_wait(self.problem, timeout, f"failover of the killed master {node.port}")
        return self.master_for_slot(info.slots[0][0])

    def cut_replication(self, master: RedisServer, timeout: float = 10.0) -> list[RedisServer]:
        """Cut the replication link between ``master`` and its replicas, as a partition does
        to the data: the master takes writes its replicas never get, while the cluster bus
        still carries the nodes' gossip (so a kill of the master is followed by a failover to
        a replica without them). A plain SIGSTOP of a replica is not that: the kernel still
        takes the stream, and the replica applies it when it runs again.

        Done with Redis's own means, on loopback: each replica is made to authenticate as a
        user of its own (``masteruser``), whose connection the master then drops and whose
        new ones it refuses (``ACL SETUSER ... off``). Returns the replicas cut off, once
        the master sees none. Restarting the master (after a kill) heals it: the node comes
        back as a replica with its own configuration."""
        replicas = self.replicas_of(master)
        user, secret = "lexio-partition", "lexio-partition-secret"
        self.command(master, "ACL", "SETUSER", user, "on", f">{secret}", "~*", "&*", "+@all")
        for replica in replicas:
            self.command(replica, "CONFIG", "SET", "masteruser", user)
            self.command(replica, "CONFIG", "SET", "masterauth", secret)
        self.command(master, "CLIENT", "KILL", "TYPE", "replica")

        def reconnected_as_user() -> str | None:
            listed = self._text(master, "CLIENT", "LIST", "TYPE", "replica")
            attached = listed.count(f" user={user} ")
            return None if attached == len(replicas) else f"{attached} replicas attached as {user}"

        _deadline_wait(reconnected_as_user, timeout, f"replicas of {master.port} reconnected")
        self.command(master, "ACL", "SETUSER", user, "off")
        self.command(master, "CLIENT", "KILL", "USER", user)

        def cut() -> str | None:
            connected = self._fields(master, "INFO", "replication").get("connected_slaves")
            return None if connected == "0" else f"{connected} replicas still connected"

        _deadline_wait(cut, timeout, f"the replication of {master.port} cut")
        return replicas

    def _other_live(self, node: RedisServer) -> RedisServer:
        for other in self.nodes:
            if other is not node and other.process is not None:
                return other
        raise RuntimeError("no other node of the cluster is running")

    def reshard(
        self, source: RedisServer, target: RedisServer, slots: int, timeout: float = 120.0
    ) -> None:
        """Move ``slots`` slots and their keys from ``source`` to ``target`` with
        ``redis-cli --cluster reshard``; return once every live node agrees."""
        self._redis_cli(
            "--cluster", "reshard", f"127.0.0.1:{target.port}",
            "--cluster-from", self.node_id(source),
            "--cluster-to", self.node_id(target),
            "--cluster-slots", str(slots),
            "--cluster-yes",
            timeout=timeout,
        )  # fmt: skip
        self.wait_healthy(timeout)

    def move_slot(
        self,
        slot: int,
        target: RedisServer,
        *,
        pause_between_keys: float = 0.0,
        timeout: float = 30.0,
    ) -> None:
        """Migrate one slot to the master ``target`` as ``redis-cli`` does, step by step:
        ``SETSLOT IMPORTING`` on the target, ``MIGRATING`` on the source, the keys moved by
        ``MIGRATE ... KEYS`` (one at a time with ``pause_between_keys`` seconds after each,
        so a test can act while the slot is half-migrated: clients then get ``ASK`` for
        moved keys and ``TRYAGAIN`` for multi-key commands), then ``SETSLOT NODE`` on the
        target, the source and every other master. Returns once every live node agrees."""
        source = self.master_for_slot(slot)
        if source is target:
            return
        source_id, target_id = self.node_id(source), self.node_id(target)
        self.command(target, "CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
        self.command(source, "CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
        batch = 1 if pause_between_keys > 0 else 100
        auth: list[Arg] = ["AUTH", self.password] if self.password else []
        while True:
            keys = self.command(source, "CLUSTER", "GETKEYSINSLOT", slot, batch)
            if not isinstance(keys, list) or not keys:
                break
            key_args = [key for key in keys if isinstance(key, str)]
            self.command(
                source,
                "MIGRATE", "127.0.0.1", target.port, "", 0, int(timeout * 1000),
                *auth, "KEYS", *key_args,
            )  # fmt: skip
            if pause_between_keys > 0:
                time.sleep(pause_between_keys)
        others = [node for node in self.masters_now() if node not in (target, source)]
        for node in [target, source, *others]:
            self.command(node, "CLUSTER", "SETSLOT", slot, "NODE", target_id)

        def settled() -> str | None:
            for node in self.live_nodes:
                owner = [i for i in self.nodes_info(node) if i.owns(slot)]
                if [i.id for i in owner] != [target_id]:
                    return f"node {node.port} sees slot {slot} at {[i.port for i in owner]}"
                mine = [i for i in self.nodes_info(node) if "myself" in i.flags]
                if mine and (slot in mine[0].migrating or slot in mine[0].importing):
                    return f"node {node.port} still has slot {slot} open"
            return self.problem()

        _deadline_wait(settled, timeout, f"slot {slot} moved to {target.port}")

    def _redis_cli(self, *args: str, timeout: float) -> str:
        executable = shutil.which("redis-cli")
        if executable is None:
            raise RuntimeError("redis-cli is missing: `make test` installs it (apt, as root)")
        env = dict(os.environ)
        env.pop("REDISCLI_AUTH", None)
        if self.password:
            env["REDISCLI_AUTH"] = self.password
        done = subprocess.run(
            [executable, *args],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        output = done.stdout + done.stderr
        if done.returncode != 0 or "[ERR]" in output:
            raise RuntimeError(f"redis-cli {' '.join(args[:2])} failed:\n{output}")
        return output
