"""The ssh backend: one Cassandra node per host of an inventory file, reached over SSH.

``casslab up --hosts hosts.yaml`` connects to every host (host keys checked; with ``--nodes
N``, to its first N, the others spare for add-node: :mod:`casslab.cluster.ssh.grow`), finds and
checks Java on each, deploys the distribution (:mod:`casslab.cluster.ssh.deploy`), renders
each node's files (:mod:`casslab.cluster.ssh.render`) into
``<base_dir>/clusters/<name>/node<k>/`` and starts the JVMs detached, recording PID and
start ticks in ``state.json`` (``ClusterState.backend_state``) so every CLI call is independent.
Nothing starts on any host until every host passed its checks; a start that fails stops
what it started. Captures and clock skew are refused.
"""

from __future__ import annotations

import concurrent.futures
import shutil
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from casslab.cluster import (
    admin,
    backend,
    distribution,
    node_config,
    node_versions,
    presets,
    ring_view,
    state,
)
from casslab.cluster.backend import DEFAULT_TIMEOUT_S, NodeView, ResetMode, UpOutcome
from casslab.cluster.capabilities import NO_LINKS, Capabilities, Capability
from casslab.cluster.distribution import Distribution
from casslab.cluster.heap import default_heap, heap_problem
from casslab.cluster.local.launch import STATE_DIRS
from casslab.cluster.model import ClusterSpec, ClusterState, Node, heap_mib
from casslab.cluster.settings import normalize
from casslab.cluster.ssh import deploy, nodes, readiness, render
from casslab.cluster.ssh.grow import SshRing
from casslab.cluster.ssh.node_capabilities import NO_CLOCK, RemoteProcesses, SshNodeHosts
from casslab.cluster.ssh.ssh_spec import SshSpec
from casslab.cluster.ssh.ssh_state import SshHosts, SshNode, ssh_hosts_of, ssh_hosts_or_none
from casslab.cluster.ssh.versions import SshVersions
from casslab.errors import CasslabError, ClusterError, ConfigError
from casslab.paths import private_dir
from casslab.remote.inventory import HostSpec, Inventory, load_inventory
from casslab.remote.remote_records import RemoteProcess

if TYPE_CHECKING:
    from casslab.remote.ssh import RemoteHost

T = TypeVar("T")


def _refused(operation: str, name: str, instead: str) -> ClusterError:
    return ClusterError(
        f"{operation} refused: cluster {name!r} runs on hosts over SSH, and the ssh backend "
        f"does not {operation} yet; {instead}"
    )


def _used_hosts(count: int, inventory: Inventory) -> tuple[HostSpec, ...]:
    """The hosts the nodes of a new cluster run on: every host of the inventory (``--nodes``
    left out, or as many as it lists), else its first ``count``, the rest kept spare for
    add-node."""
    listed = len(inventory.hosts)
    if count > listed:
        raise ConfigError(
            f"--nodes {count}: the inventory {inventory.path} lists {listed} hosts, one node "
            f"each; list more hosts there or ask for --nodes {listed} or fewer"
        )
    return inventory.hosts if count == 1 else inventory.hosts[:count]


def _each(items: Sequence[T], work: Callable[[T], Any]) -> list[Any]:
    """``work`` on every item at once (one thread each); the first error is raised."""
    with concurrent.futures.ThreadPoolExecutor(max(1, len(items))) as pool:
        return list(pool.map(work, items))


class SshCluster:
    """A cluster on the hosts of an inventory. A context manager: stops its nodes on exit
    (``remove_on_exit`` also deletes its folders on the hosts and here)."""

    def __init__(self, cluster_state: ClusterState, *, remove_on_exit: bool = False) -> None:
        if ssh_hosts_or_none(cluster_state) is None:
            raise ClusterError(f"cluster {cluster_state.spec.name!r} is not an ssh cluster")
        self.state = cluster_state
        self._remove_on_exit = remove_on_exit
        self._sessions = admin.Sessions()
        self._hosts: dict[int, RemoteHost] = {}
        self._lock = threading.Lock()  # nodes start and stop in threads: one writer

    # construction

    @classmethod
    def up(
        cls,
        spec: ClusterSpec,
        given: frozenset[str] = frozenset(),
        root: Path | None = None,
        *,
        fresh: bool = False,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> tuple[SshCluster, UpOutcome]:
        """Start the stopped ssh cluster ``spec.name`` with its data, or create it."""
        if state.state_file(spec.name, root).is_file() and not fresh:
            existing = cls(state.load(spec.name, root))
            if existing.state.started_once:
                if all(existing.node_alive(n) for n in existing.nodes):
                    raise ClusterError(
                        f"cluster {spec.name!r} is already running; `casslab down --name "
                        f"{spec.name}` stops it"
                    )
                if "settings" in given and spec.settings:
                    existing._apply_settings(spec.settings)
                existing.start(timeout_s=timeout_s)
                state.set_current(spec.name, root)
                return existing, UpOutcome.STARTED
        return cls.create(spec, root, fresh=True, timeout_s=timeout_s), UpOutcome.CREATED

    @classmethod
    def create(
        cls,
        spec: ClusterSpec,
        root: Path | None = None,
        *,
        fresh: bool = False,
        start: bool = True,
        remove_on_exit: bool = False,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> SshCluster:
        """Check every host, deploy, write each node's files and start the nodes."""
        if not isinstance(spec, SshSpec) or spec.hosts is None:
            raise ConfigError("an ssh cluster needs an inventory: casslab up --hosts hosts.yaml")
        if spec.clock or spec.injectable_clock:
            raise _refused("skew clocks", spec.name, "leave --clock and --injectable-clock out")
        if spec.node_versions:
            raise _refused("run nodes of several versions", spec.name, "leave --node-version out")
        inventory = load_inventory(Path(spec.hosts))
        used = _used_hosts(spec.nodes, inventory)
        directory = state.cluster_dir(spec.name, root)
        if directory.exists():
            cls._clear(spec.name, root, fresh=fresh)
        dist = distribution.resolve(spec.version)
        asked = presets.with_preset(spec.preset, dist, spec.settings, reserved=node_config.RESERVED)
        settings = normalize(asked, distribution.settings_catalogue(dist))
        reserved = sorted(set(settings) & node_config.RESERVED)
        if reserved:
            raise ConfigError(f"{', '.join(reserved)}: set by casslab for each node")
        from casslab.remote.ssh import RemoteHost  # paramiko loads only when used

        def connect(spec: HostSpec) -> RemoteHost | CasslabError:
            try:
                return RemoteHost.connect(spec, inventory)
            except CasslabError as error:
                return error

        connected = _each(used, connect)
        hosts = [h for h in connected if isinstance(h, RemoteHost)]
        failed = [e for e in connected if isinstance(e, CasslabError)]
        if failed:
            for host in hosts:
                host.close()
            raise failed[0]
        try:
            javas = _each(hosts, lambda h: deploy.find_java(h, dist.version))
            memory = min(_each(hosts, deploy.available_memory_bytes))
            heap = spec.heap or default_heap(memory, 1)
            problem = heap_problem(heap_mib(heap), 1, memory, memory)
            if problem is not None:
                raise ConfigError(f"{problem.replace('this machine', 'a host')} (nothing started)")
            deployed = _each(hosts, lambda h: deploy.deploy_distribution(h, dist))
        except BaseException:
            for host in hosts:
                host.close()
            raise
        cluster_state = ClusterState(
            spec=spec.model_copy(update={"nodes": len(hosts), "hosts": str(inventory.path)}),
            cassandra_version=dist.version,
            cassandra_source=dist.source,
            lib_dir=dist.lib_dir,
            java=javas[0].java,
            java_feature=javas[0].feature,
            java_version=javas[0].version,
            heap=heap,
            directory=directory,
            nodes=[nodes.node_on(spec.name, k, h.host) for k, h in enumerate(hosts, start=1)],
            settings=settings,
            created_at=datetime.now(UTC),
            started_once=False,
            backend_state=SshHosts(
                inventory=inventory,
                nodes=tuple(
                    SshNode(
                        number=k,
                        host=h.host,
                        java=str(j.java),
                        java_feature=j.feature,
                        dist_dir=d.dist_dir,
                    )
                    for k, (h, j, d) in enumerate(zip(hosts, javas, deployed, strict=True), 1)
                ),
            ),
        )
        cluster = cls(cluster_state, remove_on_exit=remove_on_exit)
        cluster._hosts = {k: h for k, h in enumerate(hosts, start=1)}
        private_dir(directory)
        cluster._save()
        if start:
            cluster.start(timeout_s=timeout_s)
            cluster.state = cluster.state.model_copy(update={"started_once": True})
            cluster._save()
        state.set_current(spec.name, root)
        return cluster

    @classmethod
    def _clear(cls, name: str, root: Path | None, *, fresh: bool) -> None:
        try:
            existing: SshCluster | None = cls(state.load(name, root))
        except ClusterError:
            existing = None
        if existing is not None:
            if existing.state.started_once and not fresh:
                raise ClusterError(
                    f"cluster {name!r} already exists; `casslab up --name {name}` starts it, "
                    f"`casslab up --name {name} --fresh` creates it anew"
                )
            existing.destroy()
        shutil.rmtree(state.cluster_dir(name, root), ignore_errors=True)

    @classmethod
    def from_state(cls, cluster_state: ClusterState) -> SshCluster:
        return cls(cluster_state)

    # properties

    @property
    def name(self) -> str:
        return self.state.spec.name

    @property
    def nodes(self) -> list[Node]:
        return list(self.state.nodes)

    @property
    def contact_points(self) -> list[str]:
        return [n.contact_point for n in self.state.nodes]

    @property
    def datacenters(self) -> list[str]:
        return list(dict.fromkeys(n.datacenter or "dc1" for n in self.state.nodes))

    @property
    def directory(self) -> Path:
        return self.state.directory

    @property
    def inventory(self) -> Inventory:
        return self._ssh.inventory

    @property
    def _ssh(self) -> SshHosts:
        return ssh_hosts_of(self.state)

    def node(self, number: int) -> Node:
        for node in self.state.nodes:
            if node.number == number:
                return node
        raise ClusterError(
            f"cluster {self.name!r} has no node {number}; its nodes are 1..{len(self.state.nodes)}"
        )

    def ssh_node(self, number: int) -> SshNode:
        self.node(number)
        return next(n for n in self._ssh.nodes if n.number == number)

    def remote(self, number: int) -> RemoteHost:
        """The open SSH connection to node ``number``'s host (made on first use, closed by
        :meth:`close_sessions`): what metrics sources read the host's /proc through."""
        host = self._hosts.get(number)
        if host is None:
            from casslab.remote.ssh import RemoteHost  # paramiko loads only when used

            host = RemoteHost.connect(self.ssh_node(number).host, self.inventory)
            self._hosts[number] = host
        return host

    def connect_host(self, number: int) -> RemoteHost:
        """A new SSH connection to node ``number``'s host, the caller's to close (metrics
        samplers read through their own, which the runner's resets do not close)."""
        from casslab.remote.ssh import RemoteHost

        return RemoteHost.connect(self.ssh_node(number).host, self.inventory)

    def remote_process(self, number: int) -> RemoteProcess | None:
        """Node ``number``'s JVM on its host (PID plus start ticks), or None."""
        return nodes.remote_process(self.ssh_node(number))

    def node_alive(self, node: Node) -> bool:
        proc = self.remote_process(node.number)
        return proc is not None and self.remote(node.number).alive(proc)

    # lifecycle

    def start(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        """Write each node's files, start every node that is not running, wait until ready."""
        try:
            self._start(timeout_s)
        except BaseException:
            self.stop(deadline_s=0.0)
            raise

    def join(
        self,
        node: Node,
        ssh_node: SshNode,
        host: RemoteHost,
        inventory: Inventory,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        """Start ``node`` (on ``host``, ready for it: :mod:`casslab.cluster.ssh.grow`) as the
        cluster's next one and wait until every node sees every other UP/NORMAL. If it does
        not join, it is stopped and the cluster's record is as it was; the others run on."""
        before = self.state
        ssh = self._ssh.model_copy(
            update={"inventory": inventory, "nodes": (*self._ssh.nodes, ssh_node)}
        )
        spec = before.spec.model_copy(update={"nodes": len(before.nodes) + 1})
        self.state = before.model_copy(
            update={"nodes": [*before.nodes, node], "backend_state": ssh, "spec": spec}
        )
        self._start_new(node, host, before, timeout_s)

    def swap(
        self,
        old: int,
        node: Node,
        ssh_node: SshNode,
        host: RemoteHost,
        inventory: Inventory,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        """Start ``node`` (on ``host``, ready for it) in the place of node ``old``, whose JVM
        has stopped, and wait until every node sees every other UP/NORMAL. Every kept node's
        tokens are recorded first, so none is derived from the node count again. If it does
        not join, it is stopped and the cluster's record is as it was."""
        before = self.state
        tokens = render.node_tokens(before)
        kept = tuple(
            n.model_copy(update={"tokens": tuple(tokens[n.number])})
            for n in self._ssh.nodes
            if n.number != old
        )
        ssh = self._ssh.model_copy(update={"inventory": inventory, "nodes": (*kept, ssh_node)})
        nodes_now = [*(n for n in before.nodes if n.number != old), node]
        self.state = before.model_copy(update={"nodes": nodes_now, "backend_state": ssh})
        stale = self._hosts.pop(old, None)
        if stale is not None:
            stale.close()
        self._start_new(node, host, before, timeout_s)

    def _start_new(
        self, node: Node, host: RemoteHost, before: ClusterState, timeout_s: float
    ) -> None:
        """Save the record that has ``node`` (on ``host``) and start it; if it does not
        join, it is stopped and the record is ``before`` again; the others run on."""
        self._hosts[node.number] = host
        self._save()
        self._sessions.close()
        try:
            self._start(timeout_s)
        except BaseException:
            proc = self.remote_process(node.number)
            if proc is not None:
                nodes.stop(host, proc, 0.0)
            host.close()
            self._hosts.pop(node.number, None)
            self.state = before
            self._save()
            raise

    def leave(self, number: int) -> None:
        """Drop node ``number``, decommissioned and stopped, from the cluster's record and
        delete its folder on its host, which is a spare host of the inventory again."""
        node = self.node(number)
        if self.node_alive(node):
            raise ClusterError(f"node {number} of {self.name!r} still runs; stop it first")
        self.remote(number).run(["rm", "-rf", "--", str(node.directory.parent)])
        with self._lock:
            before = self.state
            ssh = self._ssh.model_copy(
                update={"nodes": tuple(n for n in self._ssh.nodes if n.number != number)}
            )
            kept = [n for n in before.nodes if n.number != number]
            spec = before.spec.model_copy(update={"nodes": len(kept)})
            self.state = before.model_copy(
                update={"nodes": kept, "backend_state": ssh, "spec": spec}
            )
            self._save()
        self._sessions.close()
        host = self._hosts.pop(number, None)
        if host is not None:
            host.close()

    def _start(self, timeout_s: float) -> None:
        files = render.node_files(self.state)
        logged_from: dict[int, int] = {}  # where each node's log was when it started
        ring = ring_view.RingReader()
        try:

            def start_one(node: Node) -> None:
                if self.node_alive(node):
                    return
                host = self.remote(node.number)
                nodes.write_files(host, node, files[node.number])
                logged_from[node.number] = readiness.log_size(host, node)
                proc = nodes.start(host, self.state, node, self.ssh_node(node.number))
                self._record(node.number, proc)

            _each(self.state.nodes, start_one)
            readiness.wait_ready(
                self.name,
                self.state.nodes,
                self.node_alive,
                lambda node: nodes.exited_at_startup(self.remote(node.number), node),
                timeout_s,
                status_of=lambda node: self.nodetool(node.number, "status", timeout_s=60),
                log_of=lambda node: readiness.logged_since(
                    self.remote(node.number), node, logged_from.get(node.number, 0)
                ),
                ring_members=lambda node: ring(node.address, node.native_port),
            )
        finally:
            ring.close()

    def stop(self, deadline_s: float = 30.0) -> list[int]:
        """Stop every node (SIGTERM to its group, SIGKILL after ``deadline_s``); returns the
        numbers of the nodes that had to be killed."""
        self._sessions.close()

        def stop_one(node: Node) -> bool:
            proc = self.remote_process(node.number)
            return proc is not None and nodes.stop(self.remote(node.number), proc, deadline_s)

        killed = _each(self.state.nodes, stop_one)
        for node in self.state.nodes:
            self._record(node.number, None)
        return [n.number for n, k in zip(self.state.nodes, killed, strict=True) if k]

    def restart(
        self, settings: Mapping[str, Any] | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> None:
        """Stop, apply changed cassandra.yaml ``settings`` (checked first), start and wait."""
        if settings:
            self._apply_settings(settings)
        self.stop()
        self.start(timeout_s=timeout_s)

    def _apply_settings(self, settings: Mapping[str, Any]) -> None:
        reserved = sorted(set(settings) & node_config.RESERVED)
        if reserved:
            raise ConfigError(f"{', '.join(reserved)}: set by casslab, cannot be changed")
        dist = distribution.resolve(self.state.cassandra_version)
        merged = {**self.state.settings, **settings}
        normalized = normalize(merged, distribution.settings_catalogue(dist))
        self.state = self.state.model_copy(
            update={
                "settings": normalized,
                "spec": self.state.spec.model_copy(update={"settings": normalized}),
            }
        )
        self._save()

    def wipe(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        """Stop, delete every node's data, commit log, hints and caches, start again."""
        self.stop()

        def wipe_one(node: Node) -> None:
            folders = [str(getattr(node, name)) for name in STATE_DIRS]
            self.remote(node.number).run(["rm", "-rf", "--", *folders])

        _each(self.state.nodes, wipe_one)
        self.start(timeout_s=timeout_s)

    def destroy(self) -> None:
        """Kill the nodes, delete ``<base_dir>/clusters/<name>`` on every host and the
        cluster's folder here, and forget it as the current cluster."""

        def remove_one(node: Node) -> str | None:
            try:
                proc = self.remote_process(node.number)
                if proc is not None:
                    nodes.stop(self.remote(node.number), proc, 0.0)
                self.remote(node.number).run(["rm", "-rf", "--", str(node.directory.parent)])
            except CasslabError as error:
                return f"node {node.number}: {error}"
            self._record(node.number, None)
            return None

        problems = [p for p in _each(self.state.nodes, remove_one) if p is not None]
        self.close_sessions()
        if problems:
            raise ClusterError(
                f"cluster {self.name!r} was not removed from every host (its state in "
                f"{self.directory} is kept, so `casslab down --remove --name {self.name}` can "
                "run again once the host answers; deleting that folder forgets the cluster, "
                "leaving its files there):\n  " + "\n  ".join(problems)
            )
        shutil.rmtree(self.directory, ignore_errors=True)
        state.forget_current(self.name, self.directory.parent)

    def __enter__(self) -> SshCluster:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._remove_on_exit:
            self.destroy()
        else:
            self.stop()
            self.close_sessions()

    # operations

    def status(self) -> list[NodeView]:
        def view(node: Node) -> NodeView:
            running = self.node_alive(node)
            return nodes.view(self.remote(node.number), node, self.ssh_node(node.number), running)

        return _each(self.state.nodes, view)

    def nodetool(self, number: int, *args: str, timeout_s: float = 120.0) -> str:
        node = self.node(number)
        if not self.node_alive(node):
            raise ClusterError(
                f"nodetool {' '.join(args)}: node {number} is not running; `casslab up` starts it"
            )
        return nodes.nodetool(self.remote(number), node, self.ssh_node(number), args, timeout_s)

    def log_tail(self, number: int, lines: int = 40) -> str:
        """The last ``lines`` lines of node ``number``'s system.log, read on its host."""
        node = self.node(number)
        return self.remote(number).tail(str(node.log_file), lines)

    def session(self, keyspace: str | None = None, node: int | None = None) -> Any:
        chosen = [self.node(node)] if node is not None else self.state.nodes
        return self._sessions.connect(
            [n.address for n in chosen],
            chosen[0].native_port,
            keyspace=keyspace,
            pinned=node is not None,
        )

    def close_sessions(self) -> None:
        self._sessions.close()
        for host in self._hosts.values():
            host.close()
        self._hosts = {}

    def capabilities(self) -> Capabilities:
        return Capabilities(
            processes=RemoteProcesses(self),
            node_hosts=SshNodeHosts(self),
            versions=SshVersions(self),
            ring=SshRing(self),
            missing={Capability.CUT_LINKS: NO_LINKS, Capability.SKEWABLE_CLOCK: NO_CLOCK},
        )

    @property
    def ssh_nodes(self) -> tuple[SshNode, ...]:
        return self._ssh.nodes

    def set_node_distribution(self, number: int, version: str, dist_dir: str) -> None:
        """Node ``number`` starts next on the jars in ``dist_dir`` on its host (``version``)."""
        with self._lock:
            changed = tuple(
                n.model_copy(update={"dist_dir": dist_dir}) if n.number == number else n
                for n in self._ssh.nodes
            )
            nodes = [
                n.model_copy(update={"version": version}) if n.number == number else n
                for n in self.state.nodes
            ]
            ssh = self._ssh.model_copy(update={"nodes": changed})
            self.state = self.state.model_copy(update={"backend_state": ssh, "nodes": nodes})
            self._save()

    def set_cluster_version(self, dist: Distribution) -> None:
        """Every node runs ``dist``'s version: it is the cluster's."""
        with self._lock:
            self.state = node_versions.all_on(self.state, dist)
            self._save()

    def reset(
        self, mode: ResetMode = ResetMode.DROP, tables: Sequence[str] | None = None
    ) -> list[str]:
        """Drop (or truncate) every user keyspace (only ``tables`` when given), then clear
        every node's snapshots."""
        emptied = admin.empty(self.session(), backend.reset_mode(mode).value, tables)
        self._sessions.close()
        _each(self.state.nodes, lambda n: nodes.clear_snapshots(self.remote(n.number), n))
        return emptied

    def capture(self, name: str, keyspace: str) -> None:
        raise _refused("capture data", self.name, "preload each trial instead")

    def restore(self, name: str, keyspace: str) -> None:
        raise _refused("restore captures", self.name, "preload each trial instead")

    # internals

    def _record(self, number: int, proc: RemoteProcess | None) -> None:
        update = {
            "pid": proc.pid if proc else None,
            "start_ticks": proc.start_ticks if proc else None,
        }
        with self._lock:
            changed = tuple(
                n.model_copy(update=update) if n.number == number else n for n in self._ssh.nodes
            )
            self.state = self.state.model_copy(
                update={"backend_state": self._ssh.model_copy(update={"nodes": changed})}
            )
            self._save()

    def _save(self) -> None:
        state.save(self.state)
