"""The local backend: Cassandra nodes as processes on 127.0.0.n of this machine.

One directory per cluster (``state.json`` plus ``node<n>/`` with conf, data, commitlog,
hints, saved_caches, logs), so every CLI call is independent. Every JVM runs in its own
process group, which is what ``down`` signals; a PID is trusted only together with its
process start time.
"""

from __future__ import annotations

import concurrent.futures
import os
import re
import shutil
import subprocess
import time
from collections.abc import Mapping
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import psutil
from pydantic import BaseModel, ConfigDict

from casslab.cluster import distribution, jdk, jvm, render
from casslab.cluster.heap import default_heap
from casslab.cluster.model import ClusterSpec, ClusterState, Node, NodeStatus, heap_mib
from casslab.cluster.processes import alive, create_time, stop_group
from casslab.cluster.settings import normalize
from casslab.cluster.tokens import initial_tokens
from casslab.cluster.wait import LogWatcher, port_free, port_open, tail, wait_for
from casslab.errors import ClusterError, ConfigError, WaitTimeoutError

CQL_READY_LINE = "Starting listening for CQL clients"
SYSTEM_KEYSPACES = frozenset(
    {
        "system",
        "system_auth",
        "system_schema",
        "system_distributed",
        "system_traces",
        "system_views",
        "system_virtual_schema",
        "system_cluster_metadata",
    }
)
_STATUS_RE = re.compile(r"^([UD])([NLJM])\s+(\d+\.\d+\.\d+\.\d+)", re.MULTILINE)


def home() -> Path:
    """``$CASSLAB_HOME`` or ``~/.local/share/casslab``: clusters live under it."""
    env = os.environ.get("CASSLAB_HOME")
    return Path(env) if env else Path.home() / ".local" / "share" / "casslab"


def clusters_root() -> Path:
    return home() / "clusters"


class NodeView(BaseModel):
    """What ``status`` reports of one node."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    number: int
    address: str
    native_port: int
    jmx_port: int
    pid: int | None
    status: NodeStatus
    rss_mib: float | None = None
    data_mib: float | None = None


def _dir_size_mib(path: Path) -> float:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            with suppress(OSError):
                total += (Path(root) / name).stat().st_size
    return total / (1024 * 1024)


class LocalCluster:
    """A local cluster. Use :meth:`create` for a new one, :meth:`open` for an existing one.

    As a context manager it stops every node on exit (``remove=True`` also deletes its
    directory).
    """

    def __init__(self, state: ClusterState, *, remove_on_exit: bool = False) -> None:
        self.state = state
        self._remove_on_exit = remove_on_exit
        self._driver_clusters: list[Any] = []

    # ------------------------------------------------------------------ construction

    @classmethod
    def create(
        cls,
        spec: ClusterSpec,
        root: Path | None = None,
        *,
        start: bool = True,
        remove_on_exit: bool = False,
        timeout_s: float = 240.0,
    ) -> LocalCluster:
        """Check everything, write the cluster directory, start the nodes and wait until
        they are ready. Nothing is started when any check fails; on an error or Ctrl-C
        during start, every node already started is stopped."""
        directory = (root or clusters_root()) / spec.name
        if (directory / "state.json").is_file():
            existing = cls.open(spec.name, root)
            if any(existing.node_alive(n) for n in existing.nodes):
                raise ClusterError(
                    f"cluster {spec.name!r} is already running in {directory}; use "
                    "`casslab down` first, or choose another --name"
                )
            shutil.rmtree(directory)
        java = jdk.probe()
        if spec.version is not None:
            jdk.check_supported(java, spec.version)  # before any download
        dist = distribution.resolve(spec.version)
        jdk.check_supported(java, dist.version)
        settings = normalize(spec.settings, distribution.settings_catalogue(dist))
        reserved = sorted(set(settings) & render.RESERVED)
        if reserved:
            raise ConfigError(
                f"{', '.join(reserved)}: set by casslab for each node (addresses, ports, "
                "directories, tokens); remove it from --set, use --base-address or "
                "--native-port to move a cluster"
            )
        heap = spec.heap or default_heap(psutil.virtual_memory().available, spec.nodes)
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
        _check_ports(nodes)
        state = ClusterState(
            spec=spec,
            cassandra_version=dist.version,
            cassandra_source=dist.source,
            lib_dir=dist.lib_dir,
            java=java.java,
            java_feature=java.feature,
            heap=heap,
            directory=directory,
            nodes=nodes,
            settings=settings,
            created_at=datetime.now(UTC),
        )
        cluster = cls(state, remove_on_exit=remove_on_exit)
        directory.mkdir(parents=True, exist_ok=True)
        cluster._save()
        cluster._write_configs()
        _set_current(spec.name, root)
        if start:
            cluster.start(timeout_s=timeout_s)
        return cluster

    @classmethod
    def open(cls, name: str | None = None, root: Path | None = None) -> LocalCluster:
        """The cluster called ``name`` (default: the current one) from its directory."""
        base = root or clusters_root()
        chosen = name or _current(root)
        if chosen is None:
            raise ClusterError(
                "no cluster: start one with `casslab up --nodes 1` (or name one with --name)"
            )
        path = base / chosen / "state.json"
        if not path.is_file():
            raise ClusterError(
                f"no cluster named {chosen!r} in {base}; `casslab up --name {chosen}` creates it"
            )
        try:
            state = ClusterState.model_validate_json(path.read_text())
        except ValueError as error:
            raise ClusterError(
                f"cluster state {path} is unreadable ({error}); stop any node by its PID and "
                f"delete {path.parent}"
            ) from error
        return cls(state)

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

    def start(self, timeout_s: float = 240.0) -> None:
        """Start every node that is not running, then wait until the cluster is ready."""
        try:
            for node in self.state.nodes:
                if not self.node_alive(node):
                    self._spawn(node)
            self.wait_ready(timeout_s)
        except BaseException:
            self.stop()
            raise

    def wait_ready(self, timeout_s: float = 240.0) -> None:
        """Ready: every process alive, its log says CQL listens, its CQL port answers,
        and every node sees every other node UP and NORMAL."""
        deadline = time.monotonic() + timeout_s
        watchers = {n.number: LogWatcher(n.log_file) for n in self.state.nodes}
        pending = {n.number for n in self.state.nodes}

        def nodes_listening() -> bool | None:
            for node in self.state.nodes:
                if node.number not in pending:
                    continue
                if not self.node_alive(node):
                    raise ClusterError(
                        f"node {node.number} ({node.address}) exited during start-up; "
                        f"last lines of {node.log_file}:\n{tail(node.log_file)}\n"
                        f"and of {node.stdout_file}:\n{tail(node.stdout_file, 10)}"
                    )
                if watchers[node.number].find(CQL_READY_LINE) is not None:
                    pending.discard(node.number)
            return True if not pending else None

        wait_for(
            nodes_listening,
            what=f"node(s) {sorted(pending)} of cluster {self.name!r} to listen for CQL",
            limit_s=max(1.0, deadline - time.monotonic()),
            hint="see each node's logs/system.log (`casslab logs N`)",
        )
        for node in self.state.nodes:
            wait_for(
                lambda node=node: (
                    True  # type: ignore[misc]
                    if port_open(node.address, node.native_port)
                    else None
                ),
                what=f"node {node.number} CQL port {node.contact_point} to answer",
                limit_s=max(1.0, deadline - time.monotonic()),
                hint=f"see {node.log_file}",
            )
        if len(self.state.nodes) > 1:
            wait_for(
                self._ring_complete,
                what=f"every node of {self.name!r} to see all {len(self.state.nodes)} nodes UN",
                limit_s=max(1.0, deadline - time.monotonic()),
                hint="gossip did not converge; see the nodes' logs/system.log",
                interval_s=0.5,
            )

    def _ring_complete(self) -> bool | None:
        expected = {n.address for n in self.state.nodes}

        def view(node: Node) -> set[str]:
            try:
                out = self.nodetool(node.number, "status", timeout_s=60)
            except ClusterError:
                return set()
            return {m.group(3) for m in _STATUS_RE.finditer(out) if m.group(1, 2) == ("U", "N")}

        with concurrent.futures.ThreadPoolExecutor(len(self.state.nodes)) as pool:
            views = list(pool.map(view, self.state.nodes))
        return True if all(v >= expected for v in views) else None

    def stop(self, deadline_s: float = 30.0) -> list[int]:
        """Stop every node (SIGTERM to its process group, SIGKILL after ``deadline_s``).
        Survives stale state. Returns the numbers of nodes that had to be killed."""
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
        return killed

    def restart(self, settings: Mapping[str, Any] | None = None, timeout_s: float = 240.0) -> None:
        """Stop, apply changed cassandra.yaml ``settings`` (merged over the current ones,
        checked before anything stops), start and wait."""
        if settings:
            dist = distribution.resolve(self.state.cassandra_version)
            merged = {**self.state.settings, **settings}
            normalized = normalize(merged, distribution.settings_catalogue(dist))
            reserved = sorted(set(settings) & render.RESERVED)
            if reserved:
                raise ConfigError(f"{', '.join(reserved)}: set by casslab, cannot be changed")
            self.state = self.state.model_copy(
                update={
                    "settings": normalized,
                    "spec": self.state.spec.model_copy(update={"settings": normalized}),
                }
            )
            self._save()
        self.stop()
        self._write_configs()
        self.start(timeout_s=timeout_s)

    def destroy(self) -> None:
        """Stop the nodes and delete the cluster directory."""
        self.stop()
        shutil.rmtree(self.state.directory, ignore_errors=True)

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
                    data_mib=_dir_size_mib(node.data_dir) if node.data_dir.exists() else None,
                )
            )
        return views

    def nodetool(self, number: int, *args: str, timeout_s: float = 120.0) -> str:
        """Run nodetool against node ``number``; return its standard output."""
        node = self.node(number)
        if not self.node_alive(node):
            raise ClusterError(
                f"nodetool {' '.join(args)}: node {number} is not running; "
                "`casslab up` or `casslab restart` starts it"
            )
        command = jvm.nodetool_command(
            self.state.java, self.state.java_feature, f"{self.state.lib_dir}/*", node, list(args)
        )
        try:
            result = subprocess.run(
                command, capture_output=True, text=True, timeout=timeout_s, check=False
            )
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
        from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
        from cassandra.policies import RoundRobinPolicy, WhiteListRoundRobinPolicy

        nodes = [self.node(node)] if node is not None else self.state.nodes
        policy = (
            WhiteListRoundRobinPolicy([nodes[0].address])
            if node is not None
            else RoundRobinPolicy()
        )
        profile = ExecutionProfile(load_balancing_policy=policy, request_timeout=30)
        driver = Cluster(
            contact_points=[n.address for n in nodes],
            port=nodes[0].native_port,
            execution_profiles={EXEC_PROFILE_DEFAULT: profile},
            connect_timeout=10,
            control_connection_timeout=10,
        )
        self._driver_clusters.append(driver)
        try:
            return driver.connect(keyspace)
        except Exception as error:  # the driver raises several unrelated types here
            raise ClusterError(
                f"connecting to {', '.join(n.contact_point for n in nodes)} failed: {error}; "
                "check `casslab status`"
            ) from error

    def close_sessions(self) -> None:
        for driver in self._driver_clusters:
            with suppress(Exception):
                driver.shutdown()
        self._driver_clusters.clear()

    def user_keyspaces(self) -> list[str]:
        session = self.session()
        rows = session.execute("SELECT keyspace_name FROM system_schema.keyspaces")
        return sorted(r.keyspace_name for r in rows if r.keyspace_name not in SYSTEM_KEYSPACES)

    def reset(self, mode: str = "drop") -> list[str]:
        """Return the cluster to empty without a restart: drop (``mode="drop"``) or
        truncate (``"truncate"``) every user keyspace, then clear all snapshots on every
        node. Returns the keyspaces affected."""
        if mode not in ("drop", "truncate"):
            raise ConfigError(f"reset mode {mode!r}: expected 'drop' or 'truncate'")
        session = self.session()
        keyspaces = self.user_keyspaces()
        for keyspace in keyspaces:
            if mode == "drop":
                session.execute(f'DROP KEYSPACE IF EXISTS "{keyspace}"', timeout=60)
            else:
                tables = session.execute(
                    "SELECT table_name FROM system_schema.tables WHERE keyspace_name = %s",
                    (keyspace,),
                )
                for row in tables:
                    session.execute(f'TRUNCATE "{keyspace}"."{row.table_name}"', timeout=60)
        self.close_sessions()
        self._clear_snapshots_on_disk()
        return keyspaces

    def _clear_snapshots_on_disk(self) -> None:
        """Delete every snapshot of every node. A local node's snapshots are hard-link
        directories under ``data/<keyspace>/<table>/snapshots``; removing them from disk
        frees the space without a nodetool JVM per node (``listsnapshots`` agrees, see the
        tests). Directories of dropped keyspaces hold only snapshots and go entirely."""
        for node in self.state.nodes:
            for snapshot_dir in node.data_dir.glob("*/*/snapshots"):
                shutil.rmtree(snapshot_dir, ignore_errors=True)

    def wipe(self, timeout_s: float = 240.0) -> None:
        """Stop every node, delete its data, commit log, hints and caches, start again:
        the ``restart`` reset policy (a cold start on an empty node)."""
        self.stop()
        for node in self.state.nodes:
            for path in (
                node.data_dir,
                node.commitlog_dir,
                node.hints_dir,
                node.saved_caches_dir,
                node.cdc_dir,
            ):
                shutil.rmtree(path, ignore_errors=True)
        self.start(timeout_s=timeout_s)

    def snapshots(self) -> list[Path]:
        """Snapshot directories on disk across all nodes (for checks)."""
        found: list[Path] = []
        for node in self.state.nodes:
            if node.data_dir.exists():
                found += [p for p in node.data_dir.glob("*/*/snapshots/*") if p.is_dir()]
        return found

    def applied_settings(self, number: int = 1) -> dict[str, str]:
        """``system_views.settings`` of node ``number``: what Cassandra really runs with."""
        session = self.session(node=number)
        rows = session.execute("SELECT name, value FROM system_views.settings")
        return {r.name: r.value for r in rows}

    # ------------------------------------------------------------------ internals

    def _spawn(self, node: Node) -> None:
        for path in (
            node.conf_dir,
            node.data_dir,
            node.commitlog_dir,
            node.hints_dir,
            node.saved_caches_dir,
            node.cdc_dir,
            node.logs_dir,
        ):
            path.mkdir(parents=True, exist_ok=True)
        command = jvm.daemon_command(
            self.state.java,
            self.state.java_feature,
            f"{self.state.lib_dir}/*",
            node,
            heap_mib(self.state.heap),
        )
        (node.conf_dir / "command.txt").write_text(" ".join(command) + "\n")
        with node.stdout_file.open("ab") as out:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=node.directory,
                start_new_session=True,
            )
        self._update_nodes({node.number: (process.pid, create_time(process.pid))})

    def _write_configs(self) -> None:
        tokens = initial_tokens(
            len(self.state.nodes), int(self.state.settings.get("num_tokens") or 1)
        )
        seeds = self.state.nodes
        for node, node_tokens in zip(self.state.nodes, tokens, strict=True):
            node.conf_dir.mkdir(parents=True, exist_ok=True)
            settings = render.node_settings(
                self.name, node, seeds, node_tokens, self.state.settings
            )
            (node.conf_dir / "cassandra.yaml").write_text(render.cassandra_yaml(settings))
            (node.conf_dir / "logback.xml").write_text(render.logback_xml())
            (node.conf_dir / "logback-tools.xml").write_text(render.tools_logback_xml())

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
        path = self.state.directory / "state.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(self.state.model_dump_json(indent=2))
        temporary.replace(path)


def _check_ports(nodes: list[Node]) -> None:
    """Fail before starting anything if a port a node needs is taken."""
    problems: list[str] = []
    for node in nodes:
        wanted = [
            (node.address, node.native_port, "CQL"),
            (node.address, node.storage_port, "storage"),
            ("127.0.0.1", node.jmx_port, "JMX"),
        ]
        for address, port, purpose in wanted:
            if not port_free(address, port):
                problems.append(
                    f"node {node.number}: {purpose} port {address}:{port} is busy{_owner(port)}"
                )
    if problems:
        raise ClusterError(
            "cannot start the cluster, ports in use (nothing was started):\n  "
            + "\n  ".join(problems)
            + "\nstop what holds them (`casslab down`, or that process), or move this "
            "cluster with --base-address 127.0.1.1 / --jmx-port-base"
        )


def _owner(port: int) -> str:
    with suppress(psutil.Error, OSError):
        for conn in psutil.net_connections(kind="tcp"):
            if conn.laddr and conn.laddr.port == port and conn.status == psutil.CONN_LISTEN:
                if conn.pid:
                    with suppress(psutil.Error):
                        name = psutil.Process(conn.pid).name()
                        return f" (held by pid {conn.pid}, {name})"
                return ""
    return ""


def _current_file(root: Path | None) -> Path:
    return (root or clusters_root()) / "current"


def _set_current(name: str, root: Path | None) -> None:
    path = _current_file(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(name + "\n")


def _current(root: Path | None) -> str | None:
    path = _current_file(root)
    if path.is_file():
        return path.read_text().strip() or None
    return None


def current_contact_points(name: str | None = None) -> list[str]:
    """Contact points of the current (or named) local cluster, for the load commands."""
    return LocalCluster.open(name).contact_points


__all__ = [
    "LocalCluster",
    "NodeView",
    "current_contact_points",
]
