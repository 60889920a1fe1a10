"""The prod-cluster overlay's Job (deploy/overlays/prod-cluster/redis-cluster-join.sh), run as
the Job runs it (``sh``, every node as an argument, the password in REDISCLI_AUTH, the Job's
CLUSTER_REPLICAS) against six real redis-server processes on loopback, each started with the
StatefulSet's own arguments (but a node timeout of 1 s, so that a failover takes seconds, and
loopback ports and names):

- six fresh nodes become a cluster: 3 masters with a replica each, all 16384 slots served; run
  again, it changes nothing (no node receives a single command that changes the topology);
- a master whose volume is lost: its replica takes over; while the node is down the script
  waits, forgets nothing and fails; once the node is back, empty, it is added as the replica
  of the master left without one, its old self is forgotten, and no key is lost;
- a node restarted at a new address rejoins by itself (cluster-announce-hostname: no address
  is kept anywhere but in the nodes' own gossip); all six restarted at new addresses at once
  cannot find each other, and the script introduces them again, their data intact;
- a node that serves slots of another cluster is never met (that would merge two clusters);
- a master added by hand (docs/redis-cluster.md, "Adding a master") gets its replica from the
  script, then slots from a rebalance;
- the exporter beside each node (Debian's prometheus-redis-exporter, as the sidecar runs it)
  exports every series the lexio.redis-cluster alerts read, with a healthy cluster's values,
  and a master's lost replica shows as the alert expects.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml
from lexio_testing import eventually_sync
from ops_deploy import DEPLOY, env, find, rendered
from ops_prometheus import redis_exporter_text
from prometheus_client.parser import text_string_to_metric_families
from redis.cluster import RedisCluster

from lexio_common.procs import RedisServer, free_port

SCRIPT = DEPLOY / "overlays" / "prod-cluster" / "redis-cluster-join.sh"
PASSWORD = "c1u57e2" * 8
SLOTS = 16384
#: What a test node's arguments replace in the StatefulSet's (each node its own port, bus port,
#: directory and name on loopback; a failover in seconds).
NODE_TIMEOUT_MS = "1000"
#: The CLUSTER subcommands that change a cluster: none may reach a node when all is well.
TOPOLOGY_COMMANDS = (
    "meet",
    "forget",
    "replicate",
    "addslots",
    "addslotsrange",
    "delslots",
    "setslot",
    "reset",
    "failover",
    "set-config-epoch",
    "bumpepoch",
)


def _statefulset_args() -> list[str]:
    statefulset = find(rendered("prod-cluster"), "StatefulSet", "redis-cluster")
    (server,) = [
        c for c in statefulset["spec"]["template"]["spec"]["containers"] if c["name"] == "redis"
    ]
    command, *args = server["args"]
    assert command == "redis-server"
    return list(args)


def _job_env() -> dict[str, str]:
    job = find(rendered("prod-cluster"), "Job", "redis-cluster-join")
    return env(job["spec"]["template"]["spec"]["containers"][0])


@dataclass(frozen=True)
class NodeView:
    """One line of ``CLUSTER NODES``."""

    id: str
    address: str
    flags: frozenset[str]
    master: str
    config_epoch: int
    connected: bool
    slots: tuple[str, ...]

    @property
    def role(self) -> str:
        return "master" if "master" in self.flags else "replica"

    @property
    def failing(self) -> bool:
        return bool(self.flags & {"fail", "fail?", "noaddr", "handshake"})


class Nodes:
    """Six redis-server processes with the StatefulSet's arguments, each in a directory of its
    own (its "volume": AOF and nodes.conf); a node is moved to a new address by starting it
    on new ports, as a pod is rescheduled with a new IP."""

    def __init__(self, directory: Path, count: int = 6) -> None:
        self.manifest = _statefulset_args()
        #: How many masters a whole cluster of these nodes has (each with one replica).
        self.masters = count // 2
        self.servers = []
        for index in range(count):
            node_dir = directory / f"redis-cluster-{index}"
            node_dir.mkdir()
            server = RedisServer(str(node_dir), free_port(), password=PASSWORD)
            server.extra_args = self._args(node_dir)
            self.servers.append(server)

    def _args(self, node_dir: Path) -> list[str]:
        """The StatefulSet's arguments for this node: its port, directory and password are
        RedisServer's own (the same options), the rest as the manifest has them, but where a
        pod's name, a fixed port or the node timeout cannot serve on loopback."""
        own = {"--port", "--dir", "--requirepass"}
        replace = {
            "--masterauth": PASSWORD,
            "--cluster-config-file": str(node_dir / "nodes.conf"),
            "--cluster-port": str(free_port()),
            "--cluster-announce-hostname": "localhost",
            "--cluster-node-timeout": NODE_TIMEOUT_MS,
        }
        args = self.manifest
        options = list(zip(args[::2], args[1::2], strict=True))
        assert set(replace) <= {name for name, _ in options}, "the StatefulSet changed"
        result = []
        for name, manifest_value in options:
            if name in own:
                continue
            value = replace.get(name, manifest_value)
            assert "$(" not in value, (name, value)
            result += [name, value]
        return result

    def start(self) -> None:
        for server in self.servers:
            server.start()

    def stop(self) -> None:
        for server in self.servers:
            server.stop(kill=True)

    def move(self, server: RedisServer) -> None:
        """Stop the node and start it again at new ports, from its own directory."""
        server.stop()
        server.port = free_port()
        bus = server.extra_args.index("--cluster-port") + 1
        server.extra_args[bus] = str(free_port())
        server.start()

    def wipe(self, server: RedisServer) -> None:
        """Its volume lost: nothing left of its data or its identity."""
        assert server.process is None
        shutil.rmtree(server.directory)
        os.mkdir(server.directory)

    @property
    def addresses(self) -> list[str]:
        return [f"127.0.0.1:{server.port}" for server in self.servers]

    def client(self, server: RedisServer) -> redis.Redis:
        return redis.Redis(
            host="127.0.0.1", port=server.port, password=PASSWORD, decode_responses=True
        )

    def cluster_info(self, server: RedisServer) -> dict[str, str]:
        with self.client(server) as client:
            text = str(client.execute_command("CLUSTER", "INFO"))
        return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)

    def replication(self, server: RedisServer) -> dict[str, Any]:
        with self.client(server) as client:
            return dict(client.info("replication"))

    def view(self, server: RedisServer) -> list[NodeView]:
        with self.client(server) as client:
            text = str(client.execute_command("CLUSTER", "NODES"))
        lines = []
        for line in text.splitlines():
            node_id, address, flags, master, _ping, _pong, epoch, link, *slots = line.split()
            lines.append(
                NodeView(
                    node_id,
                    address.split("@")[0],
                    frozenset(flags.split(",")),
                    master,
                    int(epoch),
                    link == "connected",
                    tuple(slots),
                )
            )
        return lines

    def node_id(self, server: RedisServer) -> str:
        with self.client(server) as client:
            return str(client.execute_command("CLUSTER", "MYID"))

    def live(self) -> list[RedisServer]:
        return [server for server in self.servers if server.process is not None]

    def problem(self) -> str | None:
        """What keeps the live nodes from being one whole cluster now, or None: each reports
        cluster_state ok with every slot served, knows exactly the live nodes at their
        current addresses, connected and none failing, agrees with the others on every role
        and slot; :attr:`masters` masters serve the slots, each with exactly one replica."""
        live = self.live()
        ids = {self.node_id(server): server for server in live}
        agreed: set[tuple[str, str, str, tuple[str, ...]]] | None = None
        for server in live:
            state = self.cluster_info(server)
            if (state["cluster_state"], state["cluster_slots_ok"]) != ("ok", str(SLOTS)):
                return f"{server.port}: {state['cluster_state']}, {state['cluster_slots_ok']} ok"
            view = self.view(server)
            if {line.id for line in view} != set(ids):
                return f"{server.port} knows {sorted(line.id for line in view)}"
            for line in view:
                if line.failing or not line.connected:
                    return f"{server.port} sees {line.id} {sorted(line.flags)}"
                if line.address != f"127.0.0.1:{ids[line.id].port}":
                    return f"{server.port} sees {line.id} at {line.address}"
            roles = {(line.id, line.role, line.master, line.slots) for line in view}
            if agreed is None:
                agreed = roles
            elif roles != agreed:
                return f"{server.port} does not agree with {live[0].port}"
        assert agreed is not None
        masters = [(node_id, slots) for node_id, role, _m, slots in agreed if role == "master"]
        replicas = [master for _id, role, master, _s in agreed if role == "replica"]
        if len(masters) != self.masters or not all(slots for _id, slots in masters):
            return f"masters: {masters}"
        if sorted(replicas) != sorted(node_id for node_id, _slots in masters):
            return f"replicas follow {replicas}, masters are {[m for m, _s in masters]}"
        return None

    def wait_whole(self, timeout: float = 20.0) -> None:
        problem: list[str | None] = [None]

        def whole() -> bool:
            try:
                problem[0] = self.problem()
            except (redis.RedisError, KeyError) as e:
                problem[0] = f"{type(e).__name__}: {e}"
            return problem[0] is None

        eventually_sync(whole, lambda: f"the cluster whole; last seen: {problem[0]}", timeout)

    def topology(self) -> dict[str, tuple[str, str, tuple[str, ...], int]]:
        """Every node's role, master, slots and config epoch, as the first node sees them."""
        return {
            line.id: (line.role, line.master, line.slots, line.config_epoch)
            for line in self.view(self.live()[0])
        }

    def topology_commands(self) -> dict[str, int]:
        """How many CLUSTER subcommands that change a cluster each node has run."""
        counts = {}
        for server in self.live():
            with self.client(server) as client:
                stats = client.info("commandstats")
            counts[str(server.port)] = sum(
                int(stats.get(f"cmdstat_cluster|{name}", {}).get("calls", 0))
                for name in TOPOLOGY_COMMANDS
            )
        return counts

    def cluster_client(self) -> RedisCluster:
        """redis-py's cluster client, as the services open it (a seed; the nodes' names)."""
        seed = self.live()[0]
        return RedisCluster(
            host="127.0.0.1", port=seed.port, password=PASSWORD, decode_responses=True
        )

    def replicated(self) -> bool:
        """Every master's replicas have all it has (so a master killed now loses nothing)."""
        for server in self.live():
            replication = self.replication(server)
            if replication["role"] != "master":
                continue
            offset = replication["master_repl_offset"]
            for index in range(replication["connected_slaves"]):
                if replication[f"slave{index}"]["offset"] != offset:
                    return False
        return True


@pytest.fixture
def nodes(tmp_path: Path) -> Iterator[Nodes]:
    started = Nodes(tmp_path)
    started.start()
    yield started
    started.stop()


def join(
    nodes: Nodes, wait_seconds: int = 30, servers: list[RedisServer] | None = None
) -> subprocess.CompletedProcess[str]:
    """The script as the Job runs it, on every node of ``nodes`` (or ``servers`` only)."""
    job = _job_env()
    addresses = [f"127.0.0.1:{s.port}" for s in servers] if servers else nodes.addresses
    done = subprocess.run(
        ["sh", str(SCRIPT), *addresses],
        env={
            **_environment(),
            "CLUSTER_REPLICAS": job["CLUSTER_REPLICAS"],
            "WAIT_SECONDS": str(wait_seconds),
        },
        capture_output=True,
        text=True,
        timeout=3 * wait_seconds + 30,
        check=False,
    )
    print(done.stdout, done.stderr)  # shown when a test fails
    return done


def _environment() -> dict[str, str]:
    """This process's environment, with the nodes' password for redis-cli."""
    variables = {k: v for k, v in os.environ.items() if not k.startswith("REDISCLI_")}
    return {**variables, "REDISCLI_AUTH": PASSWORD}


def redis_cli(*args: str) -> str:
    """``redis-cli`` as an operator runs it (docs/redis-cluster.md), its output."""
    done = subprocess.run(
        ["redis-cli", *args],
        env=_environment(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and "[ERR]" not in done.stdout, done.stdout + done.stderr
    return done.stdout


def write_keys(nodes: Nodes, count: int = 300) -> dict[str, str]:
    """Keys in every master's slots, through the cluster client, replicated before returning."""
    keys = {f"game:{i}": f"state-{i}" for i in range(count)}
    with nodes.cluster_client() as client:
        for key, value in keys.items():
            client.set(key, value)
    eventually_sync(nodes.replicated, "every master's writes on its replica")
    return keys


def assert_keys(nodes: Nodes, keys: dict[str, str]) -> None:
    with nodes.cluster_client() as client:
        assert {key: client.get(key) for key in keys} == keys


def test_fresh_nodes_become_a_cluster_and_a_second_run_changes_nothing(nodes: Nodes) -> None:
    done = join(nodes)
    assert done.returncode == 0, done.stderr
    assert "created the cluster" in done.stdout
    nodes.wait_whole()  # 3 masters, a replica each, every slot, all agreeing
    keys = write_keys(nodes)
    before, commands = nodes.topology(), nodes.topology_commands()
    again = join(nodes)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip().endswith(
        "nothing to do: 6 nodes, all 16384 slots served, every master with a replica"
    ), again.stdout
    assert nodes.topology() == before
    assert nodes.topology_commands() == commands
    assert_keys(nodes, keys)


def test_a_node_whose_volume_was_lost_rejoins_as_a_replica(nodes: Nodes) -> None:
    assert join(nodes).returncode == 0
    nodes.wait_whole()
    keys = write_keys(nodes)
    lost = next(s for s in nodes.servers if nodes.topology()[nodes.node_id(s)][0] == "master")
    lost_id = nodes.node_id(lost)
    (heir,) = [s for s in nodes.servers if nodes.topology()[nodes.node_id(s)][1] == lost_id]
    heir_id = nodes.node_id(heir)
    lost.stop(kill=True)
    nodes.wipe(lost)

    def taken_over() -> bool:
        return nodes.topology()[heir_id][0] == "master" and all(
            nodes.cluster_info(s)["cluster_slots_ok"] == str(SLOTS) for s in nodes.live()
        )

    eventually_sync(taken_over, "the lost master's replica in its place", 20)
    # The node still down: the others are looked after, nothing is forgotten, and the Job
    # fails (it is tried again).
    down = join(nodes, wait_seconds=1)
    assert down.returncode == 1
    assert f"127.0.0.1:{lost.port} does not answer" in down.stdout
    assert "do not answer (the Job tries again)" in down.stderr
    assert all(lost_id in {line.id for line in nodes.view(s)} for s in nodes.live())
    # Back, empty (a new node id): a replica of the master that has none, its old self gone.
    lost.start()
    new_id = nodes.node_id(lost)
    assert new_id != lost_id
    done = join(nodes)
    assert done.returncode == 0, done.stderr
    assert f"added 127.0.0.1:{lost.port} as a replica of {heir_id}" in done.stdout
    assert f"forgot {lost_id}" in done.stdout
    nodes.wait_whole()
    assert nodes.topology()[new_id][:2] == ("replica", heir_id)
    assert_keys(nodes, keys)
    # The new replica has its master's share of the keys: a copy again.
    eventually_sync(nodes.replicated, "the new replica in step with its master")
    with nodes.client(lost) as copy, nodes.client(heir) as original:
        assert copy.dbsize() == original.dbsize() > 0
    assert "nothing to do:" in join(nodes).stdout


def test_nodes_at_new_addresses_rejoin(nodes: Nodes) -> None:
    assert join(nodes).returncode == 0
    nodes.wait_whole()
    keys = write_keys(nodes)
    # One pod rescheduled (a new IP): the others learn its address from its own gossip.
    nodes.move(nodes.servers[0])
    nodes.wait_whole()
    assert "nothing to do" in join(nodes).stdout
    # Every pod at once: each knows only the others' old addresses, and none finds another
    # until the Job tells them where the others are now.
    for server in nodes.servers:
        server.stop()
    for server in nodes.servers:
        nodes.move(server)
    done = join(nodes)
    assert done.returncode == 0, done.stderr
    assert "meeting it at" in done.stdout
    nodes.wait_whole()
    assert_keys(nodes, keys)


def test_a_node_of_another_cluster_is_never_merged(tmp_path: Path) -> None:
    """Meeting a node that serves slots of its own would merge two clusters' slots (and lose
    one side's keys): the script stops, and meets nobody."""
    nodes = Nodes(tmp_path, count=7)
    try:
        nodes.start()
        six, stray = nodes.servers[:6], nodes.servers[6]
        assert join(nodes, servers=six).returncode == 0
        with nodes.client(stray) as client:
            client.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, SLOTS - 1)
        commands = nodes.topology_commands()
        done = join(nodes)
        assert done.returncode == 1
        assert "know no node in common: two clusters? not merging them" in done.stderr
        assert nodes.topology_commands() == commands
        assert [line.id for line in nodes.view(stray)] == [nodes.node_id(stray)]
        assert nodes.node_id(stray) not in {line.id for line in nodes.view(six[0])}
    finally:
        nodes.stop()


def test_an_added_master_gets_its_replica_from_the_job_then_buckets(tmp_path: Path) -> None:
    """docs/redis-cluster.md, "Adding a master": two more pods; the first added by hand as an
    empty master, the Job gives it the second as its replica, a rebalance gives it slots."""
    nodes = Nodes(tmp_path, count=8)
    try:
        nodes.start()
        first_six, (new_master, new_replica) = nodes.servers[:6], nodes.servers[6:]
        assert join(nodes, servers=first_six).returncode == 0
        keys = write_keys(nodes)
        # The two new pods, not in the Job's list yet: left alone.
        assert "nothing to do:" in join(nodes, servers=first_six).stdout
        seed = f"127.0.0.1:{first_six[0].port}"
        redis_cli("--cluster", "add-node", f"127.0.0.1:{new_master.port}", seed)
        master_id = nodes.node_id(new_master)
        done = join(nodes)  # all eight listed
        assert done.returncode == 0, done.stderr
        assert f"added 127.0.0.1:{new_replica.port} as a replica of {master_id}" in done.stdout
        redis_cli("--cluster", "rebalance", seed, "--cluster-use-empty-masters")
        nodes.wait_whole()  # 4 masters, each with slots and a replica
        assert nodes.topology()[master_id][0] == "master"
        assert_keys(nodes, keys)
        assert "nothing to do: 8 nodes" in join(nodes).stdout
    finally:
        nodes.stop()


def _scrape(server: RedisServer) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Every redis_* sample Debian's exporter reports for ``server``, as the sidecar runs it
    (REDIS_ADDR, REDIS_PASSWORD): name → (labels, value)."""
    text = redis_exporter_text(server.port, PASSWORD)
    samples: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.startswith("redis_"):
                samples.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return samples


def test_the_exporter_exports_what_the_cluster_alerts_read(nodes: Nodes) -> None:
    rules = yaml.safe_load((DEPLOY / "monitoring" / "lexio-rules.yml").read_text())
    (group,) = [g for g in rules["groups"] if g["name"] == "lexio.redis-cluster"]
    read = {m for rule in group["rules"] for m in re.findall(r"\bredis_[a-z_]+", rule["expr"])}
    # The labels they match on and show, but Prometheus's own (the scrape configuration's).
    labels_read = {
        label
        for rule in group["rules"]
        for label in re.findall(r"\$labels\.([a-z_]+)", yaml.safe_dump(rule["annotations"]))
        + re.findall(r'(\w+)\s*=~?\s*"', rule["expr"])
    } - {"namespace", "pod", "job"}
    assert {"role", "master_host", "slave_ip", "slave_port"} <= labels_read
    assert join(nodes).returncode == 0
    nodes.wait_whole()
    topology = nodes.topology()
    by_id = {nodes.node_id(s): s for s in nodes.servers}
    master_id = next(i for i, (role, *_rest) in topology.items() if role == "master")
    (replica_id,) = [i for i, (_role, master, *_r) in topology.items() if master == master_id]
    master, replica = by_id[master_id], by_id[replica_id]

    def value(samples: dict[str, list[tuple[dict[str, str], float]]], name: str) -> float:
        (only,) = samples[name]
        return only[1]

    on_master, on_replica = _scrape(master), _scrape(replica)
    assert read <= set(on_master) | set(on_replica), read - set(on_master) - set(on_replica)
    for samples in (on_master, on_replica):
        # A healthy cluster, as every node sees it: no alert's condition holds.
        assert value(samples, "redis_up") == 1
        assert value(samples, "redis_cluster_state") == 1
        assert value(samples, "redis_cluster_known_nodes") == 6
        assert value(samples, "redis_cluster_slots_ok") == SLOTS
    ((master_info, _),) = on_master["redis_instance_info"]
    ((replica_info, _),) = on_replica["redis_instance_info"]
    assert (master_info["role"], replica_info["role"]) == ("master", "slave")
    assert value(on_master, "redis_connected_slaves") == 1
    ((link, up),) = on_replica["redis_master_link_up"]
    assert up == 1 and link["master_port"] == str(master.port)
    ((lag, seconds),) = on_master["redis_connected_slave_lag_seconds"]
    assert seconds <= 2 and lag["slave_port"] == str(replica.port)
    exported_labels = {
        label
        for samples in (on_master, on_replica)
        for series in samples.values()
        for labels, _ in series
        for label in labels
    }
    assert labels_read <= exported_labels, labels_read - exported_labels
    # The master's replica gone: what LexioRedisClusterMasterWithoutReplica reads.
    replica.stop(kill=True)
    eventually_sync(
        lambda: nodes.replication(master)["connected_slaves"] == 0,
        "the master without its replica",
    )
    assert value(_scrape(master), "redis_connected_slaves") == 0
