"""The local backend: Cassandra nodes as processes on 127.0.0.n of this machine.

One directory per cluster (``state.json`` plus ``node<n>/`` with conf, data, commitlog,
hints, saved_caches, logs), so every CLI call is independent. A stopped cluster keeps its
data: :meth:`LocalCluster.up` starts it again as it was; only ``fresh`` (or removing it)
starts empty.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping, Sequence
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import psutil

from casslab.cluster import (
    admin,
    backend,
    clock_skew,
    collectors,
    distribution,
    node_config,
    presets,
    ring_view,
    state,
)
from casslab.cluster.backend import DEFAULT_TIMEOUT_S, NodeView, ResetMode, UpOutcome
from casslab.cluster.capabilities import NO_LINKS, Capabilities, Capability
from casslab.cluster.heap import default_heap, heap_problem
from casslab.cluster.local import captures, launch
from casslab.cluster.local.node_capabilities import LocalClock, LocalProcesses, LocalRing
from casslab.cluster.local.versions import LocalVersions, node_distributions
from casslab.cluster.model import (
    LOCAL_DATACENTER,
    BackendState,
    ClusterSpec,
    ClusterState,
    Node,
    NodeStatus,
    heap_mib,
    spec_mismatches,
)
from casslab.cluster.processes import alive, stop_group
from casslab.cluster.settings import normalize
from casslab.cluster.wait import port_open
from casslab.errors import ClusterError, ConfigError, SetupError, WaitTimeoutError
from casslab.host import jdk
from casslab.paths import private_dir


class LocalCluster:
    """A local cluster. :meth:`up` starts or creates one, :meth:`create` makes a new one,
    :meth:`open` reads an existing one from its directory.

    As a context manager it stops every node on exit (``remove_on_exit=True`` also deletes
    its directory).
    """

    def __init__(self, cluster_state: ClusterState, *, remove_on_exit: bool = False) -> None:
        self.state = cluster_state
        self._remove_on_exit = remove_on_exit
        self._sessions = admin.Sessions()

    # ------------------------------------------------------------------ construction

    @classmethod
    def up(
        cls,
        spec: ClusterSpec,
        given: frozenset[str] = frozenset(),
        root: Path | None = None,
        *,
        fresh: bool = False,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> tuple[LocalCluster, UpOutcome]:
        """``casslab up``: start the stopped cluster ``spec.name`` with its data (as
        ``ccm start`` does), or create it when there is none, when it never became ready
        (it holds no data), or when ``fresh`` asks for a new one.

        ``given`` names the spec fields the user asked for explicitly; a stored cluster
        that differs in one of them is a :class:`ConfigError` naming both values, never a
        silent re-creation. Given ``settings`` are applied to the stored cluster.
        """
        if state.state_file(spec.name, root).is_file() and not fresh:
            existing = cls.open(spec.name, root)
            if existing.state.started_once:
                existing._start_stored(spec, given, timeout_s)
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
    ) -> LocalCluster:
        """Check everything, write the cluster directory, start the nodes and wait until
        they are ready. Nothing is started when any check fails; on an error or Ctrl-C
        during start, every node already started is stopped.

        A stopped cluster of the same name that holds data is replaced only when ``fresh``
        is True; otherwise this is a :class:`ClusterError` (use :meth:`up` to start it)."""
        directory = state.cluster_dir(spec.name, root)
        if directory.exists():
            _clear_for_create(directory, spec.name, root, fresh=fresh)
        presets.refuse_too_old(spec.preset, spec.version)  # before the JDK's checks
        java = jdk.probe(jdk.find_java(java_home=spec.java_home) if spec.java_home else None)
        refused = collectors.unsupported(java.java, spec.gc) if spec.gc else None
        if refused is not None:
            raise SetupError(f"--gc {spec.gc}: {refused}; choose another collector")
        if spec.version is not None:
            jdk.check_supported(java, spec.version)  # before any download
        dist = distribution.resolve(spec.version)
        jdk.check_supported(java, dist.version)
        mixed = node_distributions(spec, dist.version, java)
        clock_skew.check_request(spec.clock, spec.nodes, dist, spec.injectable_clock)
        asked = presets.with_preset(spec.preset, dist, spec.settings, reserved=node_config.RESERVED)
        settings = normalize(asked, distribution.settings_catalogue(dist))
        reserved = sorted(set(settings) & node_config.RESERVED)
        if reserved:
            raise ConfigError(
                f"{', '.join(reserved)}: set by casslab for each node (addresses, ports, "
                "directories, tokens); remove it from --set, use --base-address or "
                "--native-port to move a cluster"
            )
        heap, nodes, backend_state = cls._prepare(spec, directory)
        nodes = [
            n.model_copy(
                update={"version": mixed[n.number].version, "lib_dir": mixed[n.number].lib_dir}
            )
            if n.number in mixed
            else n
            for n in nodes
        ]
        cluster = cls(
            ClusterState(
                spec=spec,
                cassandra_version=dist.version,
                cassandra_source=dist.source,
                lib_dir=dist.lib_dir,
                java=java.java,
                java_feature=java.feature,
                java_version=java.version,
                heap=heap,
                directory=directory,
                nodes=nodes,
                settings=settings,
                created_at=datetime.now(UTC),
                started_once=False,
                backend_state=backend_state,
            ),
            remove_on_exit=remove_on_exit,
        )
        private_dir(directory)
        cluster._save()
        launch.write_configs(cluster.state)
        if start:
            cluster.start(timeout_s=timeout_s)
            cluster.state = cluster.state.model_copy(update={"started_once": True})
            cluster._save()
        state.set_current(spec.name, root)  # only once the cluster exists and (if asked) runs
        return cluster

    @classmethod
    def open(cls, name: str | None = None, root: Path | None = None) -> LocalCluster:
        """The cluster called ``name`` (default: the current one) from its directory."""
        return cls(state.load(state.chosen_name(name, root), root))

    @classmethod
    def from_state(cls, cluster_state: ClusterState) -> LocalCluster:
        return cls(cluster_state)

    @classmethod
    def _prepare(
        cls, spec: ClusterSpec, directory: Path
    ) -> tuple[str, list[Node], BackendState | None]:
        """Check what only this backend checks and lay out the nodes, before anything is
        written or started: the heap, the node records, and the backend's own record in the
        state (none for a local cluster)."""
        heap = spec.heap or default_heap(psutil.virtual_memory().available, spec.nodes)
        check_memory(heap, spec.nodes)
        nodes = [
            Node(
                number=n,
                address=spec.address(n),
                native_port=spec.native_port,
                storage_port=spec.storage_port,
                jmx_port=spec.jmx_port_base + n,
                directory=directory / f"node{n}",
            )
            for n in range(1, spec.nodes + 1)
        ]
        launch.check_ports(nodes)
        return heap, nodes, None

    def _provision(self) -> None:
        """Make what the nodes run in before they start (nothing for plain processes)."""

    def _release(self) -> None:
        """Remove what :meth:`_provision` made, once every node has stopped."""

    def _spawn(self, node: Node, flags: Sequence[str] = ()) -> tuple[int, float | None]:
        return launch.spawn(self.state, node, flags=flags)

    def _new_node(self, number: int, place: tuple[str, str] | None = None) -> Node:
        """Node ``number`` as ``casslab up`` lays it out: a node that joins the cluster
        (in ``place``, a datacenter and rack, on a cluster with datacenters)."""
        spec = self.state.spec
        return Node(
            number=number,
            address=spec.address(number),
            native_port=spec.native_port,
            storage_port=spec.storage_port,
            jmx_port=spec.jmx_port_base + number,
            directory=self.directory / f"node{number}",
            datacenter=place[0] if place is not None else None,
            rack=place[1] if place is not None else None,
        )

    def datacenter_join_problem(self) -> str | None:
        """Why a node cannot join one of this cluster's datacenters (None: it can)."""
        return "its nodes share this host's loopback: casslab has no datacenters there"

    def _check_ports(self, nodes: Sequence[Node]) -> None:
        """Refuse joining ``nodes`` whose ports something on this host holds."""
        launch.check_ports(nodes)

    def _drop_node(self, number: int) -> None:
        """Remove what node ``number``, which left the cluster, ran in (nothing here)."""

    def _start_stored(self, spec: ClusterSpec, given: frozenset[str], timeout_s: float) -> None:
        """Start this stopped cluster with its data, after checking that ``spec`` asks for
        the same cluster; given settings are applied before the nodes start."""
        problems = spec_mismatches(self.state, spec, given)
        if problems:
            raise ConfigError(
                f"cluster {self.name!r} in {self.directory} is another cluster than the one "
                f"asked for: {'; '.join(problems)}. `casslab up --name {self.name}` starts it "
                f"as it is, with its data; `casslab up --name {self.name} --fresh` deletes "
                "its data and creates it as asked; or choose another --name"
            )
        if all(self.node_alive(n) for n in self.state.nodes):
            raise ClusterError(
                f"cluster {self.name!r} is already running; `casslab status --name "
                f"{self.name}` shows it, `casslab down --name {self.name}` stops it"
            )
        check_memory(self.state.heap, len(self.state.nodes))
        if "settings" in given and spec.settings:
            self._apply_settings(spec.settings)
        if spec.injectable_clock and not self.state.spec.injectable_clock:
            self.state = clock_skew.with_injectable_clock(self.state)
            self._save()
        launch.stop_leftovers(self.directory, keep=self._recorded_pids())
        launch.write_configs(self.state, clock=spec.clock if "clock" in given else None)
        self.start(timeout_s=timeout_s)
        state.set_current(self.name, self.directory.parent)

    # ------------------------------------------------------------------ properties

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
        return [LOCAL_DATACENTER]

    @property
    def directory(self) -> Path:
        return self.state.directory

    def node(self, number: int) -> Node:
        for node in self.state.nodes:
            if node.number == number:
                return node
        raise ClusterError(
            f"cluster {self.name!r} has no node {number}; its nodes are 1..{len(self.state.nodes)}"
        )

    def node_alive(self, node: Node) -> bool:
        return alive(node.pid, node.pid_start_time)

    # ------------------------------------------------------------------ lifecycle

    def start(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        """Start every node that is not running, then wait until the cluster is ready."""
        try:
            self._provision()
            for node in self.state.nodes:
                if not self.node_alive(node):
                    pid, started = self._spawn(node)
                    self._update_nodes({node.number: (pid, started)})
            ring = ring_view.RingReader()
            try:
                launch.wait_ready(
                    self.name,
                    self.state.nodes,
                    self.node_alive,
                    lambda node: self.nodetool(node.number, "status", timeout_s=60),
                    timeout_s,
                    lambda node: ring(node.address, node.native_port),
                )
            finally:
                ring.close()
            launch.share_classes(self.state)
            launch.remember_row_overhead(self.state)
        except BaseException:
            self.stop()
            raise

    def stop(self, deadline_s: float = 30.0) -> list[int]:
        """Stop every node (SIGTERM to its process group, SIGKILL after ``deadline_s``), and
        any JVM under the cluster directory the state does not record. Survives stale
        state. Returns the numbers of nodes that had to be killed."""
        import concurrent.futures

        self.close_sessions()
        killed: list[int] = []

        def stop_one(node: Node) -> bool:
            return node.pid is not None and stop_group(node.pid, node.pid_start_time, deadline_s)

        with concurrent.futures.ThreadPoolExecutor(max(1, len(self.state.nodes))) as pool:
            for node, was_killed in zip(
                self.state.nodes, pool.map(stop_one, self.state.nodes), strict=True
            ):
                if was_killed:
                    killed.append(node.number)
        self._update_nodes({n.number: (None, None) for n in self.state.nodes})
        launch.stop_leftovers(self.directory, deadline_s=deadline_s)  # JVMs it did not record
        self._release()
        return killed

    def restart(
        self, settings: Mapping[str, Any] | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> None:
        """Stop, apply changed cassandra.yaml ``settings`` (merged over the current ones,
        checked before anything stops), start and wait."""
        if settings:
            self._apply_settings(settings)
        self.stop()
        launch.write_configs(self.state)
        self.start(timeout_s=timeout_s)

    def _apply_settings(self, settings: Mapping[str, Any]) -> None:
        """Merge changed cassandra.yaml ``settings`` over the current ones, checked (types
        and Cassandra's ranges) before anything stops, and save them."""
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
        """Stop every node, delete its data, commit log, hints and caches, start again:
        the ``restart`` reset policy (a cold start on an empty node)."""
        self.stop()
        for node in self.state.nodes:
            for name in launch.STATE_DIRS:
                shutil.rmtree(getattr(node, name), ignore_errors=True)
        self.start(timeout_s=timeout_s)

    def destroy(self) -> None:
        """Stop the nodes (and any JVM left running under the directory), delete the cluster
        directory, and forget it as the current cluster. The nodes are killed without a
        graceful shutdown: their data is deleted next, so a drain and flush (5 s a node)
        would be wasted."""
        self.stop(deadline_s=0.0)
        shutil.rmtree(self.directory, ignore_errors=True)
        state.forget_current(self.name, self.directory.parent)

    def __enter__(self) -> LocalCluster:
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

    # ------------------------------------------------------------------ operations

    def status(self) -> list[NodeView]:
        views: list[NodeView] = []
        for node in self.state.nodes:
            running = self.node_alive(node)
            rss = None
            if running and node.pid is not None:
                with suppress(psutil.Error):
                    rss = psutil.Process(node.pid).memory_info().rss / (1024 * 1024)
            if not running:
                status = NodeStatus.DOWN
            elif port_open(node.address, node.native_port):
                status = NodeStatus.UP
            else:
                status = NodeStatus.STARTING
            views.append(
                NodeView(
                    number=node.number,
                    address=node.address,
                    native_port=node.native_port,
                    jmx_port=node.jmx_port,
                    pid=node.pid if running else None,
                    status=status,
                    rss_mib=rss,
                    data_mib=launch.dir_size_mib(node.data_dir) if node.data_dir.exists() else None,
                    release_version=node.version or self.state.cassandra_version,
                )
            )
        return views

    def nodetool(self, number: int, *args: str, timeout_s: float = 120.0) -> str:
        """Run nodetool against node ``number``; return its standard output. On failure
        the error carries nodetool's own message."""
        node = self.node(number)
        if not self.node_alive(node):
            raise ClusterError(
                f"nodetool {' '.join(args)}: node {number} is not running; "
                "`casslab up` or `casslab restart` starts it"
            )
        command, share, class_list = launch.nodetool(self.state, node, args)
        try:
            result = subprocess.run(
                command, capture_output=True, text=True, timeout=timeout_s, check=False
            )
            launch.share_nodetool_classes(self.state, share, class_list)
        except subprocess.TimeoutExpired as error:
            raise WaitTimeoutError(
                f"nodetool {' '.join(args)} on node {number} did not finish within "
                f"{timeout_s:.0f} s; see {node.log_file}"
            ) from error
        if result.returncode != 0:
            message = (result.stderr.strip() or result.stdout.strip()).splitlines()
            raise ClusterError(
                f"nodetool {' '.join(args)} on node {number} failed (exit "
                f"{result.returncode}): {' '.join(message[-5:])}"
            )
        return result.stdout

    def session(self, keyspace: str | None = None, node: int | None = None) -> Any:
        """A cassandra-driver Session. ``node`` pins every request to that node
        (coordinator); otherwise the driver balances over all nodes. Closed by ``stop``."""
        nodes = [self.node(node)] if node is not None else self.state.nodes
        return self._sessions.connect(
            [n.address for n in nodes],
            nodes[0].native_port,
            keyspace=keyspace,
            pinned=node is not None,
        )

    def close_sessions(self) -> None:
        self._sessions.close()

    def capabilities(self) -> Capabilities:
        return Capabilities(
            processes=LocalProcesses(self),
            clock=LocalClock(self),
            ring=LocalRing(self),
            versions=LocalVersions(self),
            missing={Capability.CUT_LINKS: NO_LINKS},
        )

    def user_keyspaces(self) -> list[str]:
        return admin.user_keyspaces(self.session())

    def reset(
        self, mode: ResetMode = ResetMode.DROP, tables: Sequence[str] | None = None
    ) -> list[str]:
        """Return the cluster to empty without a restart: drop (:attr:`ResetMode.DROP`) or
        truncate (:attr:`ResetMode.TRUNCATE`) every user keyspace (only ``tables``,
        keyspaces or ``keyspace.table``, when given), then clear all snapshots on every
        node. Returns the keyspaces (or tables) affected."""
        keyspaces = admin.empty(self.session(), backend.reset_mode(mode).value, tables)
        self.close_sessions()
        captures.clear_snapshots(self.state.nodes)
        return keyspaces

    def capture(self, name: str, keyspace: str) -> None:
        """Keep ``keyspace``'s data as capture ``name`` (flushed SSTables, hard-linked out
        of the data directories; see :mod:`casslab.cluster.local.captures`)."""
        captures.capture(self.state.nodes, self.nodetool, self.directory, name, keyspace)

    def restore(self, name: str, keyspace: str) -> None:
        """Load capture ``name`` into ``keyspace``, whose tables exist and are empty."""
        captures.restore(self.state.nodes, self.nodetool, self.directory, name, keyspace)

    def snapshots(self) -> list[Path]:
        """Snapshot directories on disk across all nodes (for checks)."""
        return captures.snapshot_dirs(self.state.nodes)

    def applied_settings(self, number: int = 1) -> dict[str, str]:
        """``system_views.settings`` of node ``number``: what Cassandra really runs with."""
        return admin.applied_settings(self.session(node=number))

    # ------------------------------------------------------------------ internals

    def _recorded_pids(self) -> set[int]:
        return {n.pid for n in self.state.nodes if n.pid is not None and self.node_alive(n)}

    def _update_nodes(self, changes: Mapping[int, tuple[int | None, float | None]]) -> None:
        nodes = [
            n.model_copy(
                update={"pid": changes[n.number][0], "pid_start_time": changes[n.number][1]}
            )
            if n.number in changes
            else n
            for n in self.state.nodes
        ]
        self.state = self.state.model_copy(update={"nodes": nodes})
        self._save()

    def _save(self) -> None:
        state.save(self.state)


def _clear_for_create(directory: Path, name: str, root: Path | None, *, fresh: bool) -> None:
    """Make room for a new cluster in ``directory``: refuse when its cluster runs, or holds
    data and ``fresh`` was not asked; otherwise stop any leftover JVM and delete it."""
    try:
        existing: LocalCluster | None = LocalCluster.open(name, root)
    except ClusterError:
        existing = None  # unreadable or half-written state: nothing there to keep
    if existing is not None:
        if any(existing.node_alive(n) for n in existing.nodes):
            raise ClusterError(
                f"cluster {name!r} is already running in {directory}; use "
                "`casslab down` first, or choose another --name"
            )
        if existing.state.started_once and not fresh:
            raise ClusterError(
                f"cluster {name!r} already exists in {directory}, stopped, with its data; "
                f"`casslab up --name {name}` starts it with its data, `casslab up --name "
                f"{name} --fresh` deletes it and creates it anew"
            )
    launch.stop_leftovers(directory, deadline_s=0.0)  # its data is deleted next
    shutil.rmtree(directory)


def check_memory(heap: str, nodes: int) -> None:
    """A :class:`ConfigError` when ``nodes`` JVMs of ``heap`` do not fit this host."""
    memory = psutil.virtual_memory()
    problem = heap_problem(heap_mib(heap), nodes, memory.available, memory.total)
    if problem is not None:
        raise ConfigError(f"{problem} (nothing was started)")
