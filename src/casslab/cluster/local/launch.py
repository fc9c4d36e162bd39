"""Cassandra JVMs as local processes: write a node's files, spawn it, wait until the
cluster is ready, say why a node would not start, and find JVMs casslab left behind.

Every JVM runs in its own process group (``start_new_session``), which is what stopping
signals; a PID is trusted only together with its process start time.
"""

from __future__ import annotations

import concurrent.futures
import os
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from pathlib import Path

import psutil

from casslab.cluster import class_share, jvm, node_config, row_overhead
from casslab.cluster import clock_skew as skew
from casslab.cluster.model import ClusterState, Node, heap_mib
from casslab.cluster.processes import create_time, stop_group
from casslab.cluster.ring_view import LOGGED_UP_LIMIT_S, peers_logged_up, ring_by_nodetool
from casslab.cluster.tokens import initial_tokens, tokens_by_datacenter
from casslab.cluster.wait import LogWatcher, port_free, port_open, startup_reason, tail, wait_for
from casslab.errors import ClusterError
from casslab.net.topology import Placement, rackdc_properties

CQL_READY_LINE = "Starting listening for CQL clients"
# A node's state on disk: what a wipe deletes (the node then starts empty).
STATE_DIRS = ("data_dir", "commitlog_dir", "hints_dir", "saved_caches_dir", "cdc_dir")


def write_configs(state: ClusterState, clock: Mapping[int, float] | None = None) -> None:
    """Every node's cassandra.yaml (evenly spaced tokens, every node a seed) and logback
    files, from the cluster's settings; the clock offsets ``clock`` asks for (``up
    --clock`` of a stopped cluster), else the spec's for a node without a clock file (its
    skew, set at run time, survives a restart)."""
    offsets = clock if clock is not None else state.spec.clock
    skew.check_nodes(offsets, [n.number for n in state.nodes])
    num_tokens = int(state.settings.get("num_tokens") or 1)
    tokens = (
        tokens_by_datacenter([n.datacenter for n in state.nodes], num_tokens)
        if any(n.datacenter is not None for n in state.nodes)
        else initial_tokens(len(state.nodes), num_tokens)
    )
    for node, node_tokens in zip(state.nodes, tokens, strict=True):
        node.conf_dir.mkdir(parents=True, exist_ok=True)
        write_place(node)
        settings = node_config.node_settings(
            state.spec.name, node, state.nodes, node_tokens, state.settings
        )
        (node.conf_dir / "cassandra.yaml").write_text(node_config.cassandra_yaml(settings))
        (node.conf_dir / "logback.xml").write_text(node_config.logback_xml())
        (node.conf_dir / "logback-tools.xml").write_text(node_config.tools_logback_xml())
        offset = offsets.get(node.number)
        if offset is not None and (clock is not None or not skew.clock_file(node).exists()):
            skew.write_skew(node, skew.ClockSkew(offset_ms=offset, since_ms=skew.now_ms()))


def write_place(node: Node) -> None:
    """``node``'s ``cassandra-rackdc.properties`` (its datacenter and rack), where it has
    a datacenter."""
    if node.datacenter is not None:
        place = Placement(number=node.number, datacenter=node.datacenter, rack=node.rack or "r1")
        rackdc = rackdc_properties(place)
        (node.conf_dir / "cassandra-rackdc.properties").write_text(rackdc)


def node_command(
    state: ClusterState, node: Node, flags: Sequence[str] = (), clock_dir: Path | None = None
) -> list[str]:
    """The java command of ``node`` (pure): Cassandra's jars and the stock JVM options,
    ``flags`` last; with ``clock_dir`` (casslab's compiled clock) also the clock's class
    and properties, else nothing of casslab's on the classpath."""
    classpath = f"{node.lib_dir or state.lib_dir}/*"
    if clock_dir is not None:
        classpath += f"{os.pathsep}{clock_dir}"
        flags = [*skew.jvm_flags(node), *flags]
    return jvm.daemon_command(
        state.java,
        state.java_feature,
        classpath,
        node,
        heap_mib(state.heap),
        flags,
        gc=state.spec.gc,
        options=state.spec.jvm_options,
    )


def spawn(
    state: ClusterState,
    node: Node,
    *,
    flags: Sequence[str] = (),
    wrap: Callable[[list[str]], list[str]] | None = None,
    preexec: Callable[[], None] | None = None,
) -> tuple[int, float | None]:
    """Start ``node``'s JVM in its own session; returns its PID and start time. ``flags``
    are extra JVM flags, ``wrap`` turns the java command into the one to run (it must exec
    java, so the PID stays the JVM's), ``preexec`` runs in the child before that."""
    for name in ("conf_dir", *STATE_DIRS, "logs_dir"):
        getattr(node, name).mkdir(parents=True, exist_ok=True)
    clock_dir = None  # stock nodes run Cassandra's own clock
    if state.spec.injectable_clock:  # its wall clock takes the skew of its clock file
        clock_dir = skew.clock_classes(state.java, node.lib_dir or state.lib_dir)
    command = node_command(
        state,
        node,
        [
            *class_share.node_flags(node_share(state, node), node.logs_dir),
            *row_overhead.jvm_flags(node_row_overhead(state, node)),
            *flags,
        ],
        clock_dir,
    )
    if wrap is not None:
        command = wrap(command)
    (node.conf_dir / "command.txt").write_text(" ".join(command) + "\n")
    with node.stdout_file.open("ab") as out:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=node.directory,
            start_new_session=True,
            preexec_fn=preexec,  # only file writes into cgroup.procs, before exec
        )
    return process.pid, create_time(process.pid)


def node_share(state: ClusterState, node: Node) -> class_share.ClassShare | None:
    """The class-data sharing archive ``node`` maps (None: it starts without one): none for
    nodes whose JVM options hook class loading at start (Flight Recorder at boot, agents),
    which crashed on the archive (:data:`class_share.BOOT_INSTRUMENTING`)."""
    if class_share.hooked_option(state.spec.jvm_options) is not None:
        return None
    return class_share.for_install(state.java, state.java_feature, node.lib_dir or state.lib_dir)


def node_row_overhead(state: ClusterState, node: Node) -> row_overhead.RowOverhead | None:
    """Where the memtable row overhead of ``node``'s kind is kept (:mod:`row_overhead`)."""
    return row_overhead.for_node(
        state.java,
        node.lib_dir or state.lib_dir,
        heap_mib(state.heap),
        state.spec.gc,
        state.spec.jvm_options,
    )


def remember_row_overhead(state: ClusterState) -> None:
    """Once the cluster is ready: keep the memtable row overhead its nodes computed, for
    every later node of the same kind (:mod:`row_overhead`)."""
    for node in state.nodes:
        row_overhead.learn(node_row_overhead(state, node), node.log_file)


def share_classes(state: ClusterState) -> None:
    """Once the cluster is ready: archive the classes its first nodes loaded, when this
    install and JDK have no class-data sharing archive yet (:mod:`class_share`)."""
    class_share.build_after_start(
        class_share.for_install(state.java, state.java_feature, state.lib_dir),
        state.java,
        f"{state.lib_dir}/*",
        jvm.module_flags(state.java_feature),
        [node.logs_dir for node in state.nodes],
    )


def nodetool(
    state: ClusterState, node: Node, args: Sequence[str]
) -> tuple[list[str], class_share.ClassShare | None, Path]:
    """nodetool's command against ``node`` with its class-data sharing flags, its archive
    place and where it writes its class list when it has no archive yet."""
    share = class_share.for_install(
        state.java, state.java_feature, state.lib_dir, class_share.NODETOOL
    )
    class_list = node.logs_dir / f".nodetool-{os.getpid()}-{threading.get_ident()}.lst"
    command = jvm.nodetool_command(
        state.java,
        state.java_feature,
        f"{state.lib_dir}/*",
        node,
        list(args),
        class_share.jvm_flags(share, class_list),
    )
    return command, share, class_list


def share_nodetool_classes(
    state: ClusterState, share: class_share.ClassShare | None, class_list: Path
) -> None:
    """After a nodetool run that wrote its class list: archive it, once, and delete it."""
    if class_list.exists():
        classpath = f"{state.lib_dir}/*"
        modules = jvm.module_flags(state.java_feature)
        class_share.build(share, state.java, classpath, modules, [class_list])
        class_list.unlink(missing_ok=True)


def wait_ready(
    name: str,
    nodes: Sequence[Node],
    alive: Callable[[Node], bool],
    nodetool_status: Callable[[Node], str],
    timeout_s: float,
    ring_members: Callable[[Node], set[str]] | None = None,
) -> None:
    """Ready: every process alive, its log says CQL listens, its CQL port answers, and
    every node sees every other node UP and NORMAL.

    The nodes' own logs say when each has seen every other UP; then ``ring_members`` (the
    nodes a node's own tables list with tokens, over CQL: :mod:`casslab.cluster.ring_view`)
    confirms NORMAL. ``nodetool_status``, a JVM of its own on every call (on two cores one
    round of three takes over a second), decides only when the logs did not say UP in
    time, or CQL could not be read."""
    deadline = time.monotonic() + timeout_s
    logs = {n.number: _StartLog(LogWatcher(n.log_file)) for n in nodes}

    def nodes_listening() -> bool | None:
        for node in nodes:
            log = logs[node.number]
            if log.listening:
                log.read()
                continue
            if not alive(node):
                raise exited_at_startup(node)
            log.read()
        return True if all(log.listening for log in logs.values()) else None

    wait_for(
        nodes_listening,
        what=f"node(s) {sorted(n for n, log in logs.items() if not log.listening)} of "
        f"cluster {name!r} to listen for CQL",
        limit_s=max(1.0, deadline - time.monotonic()),
        hint="see each node's logs/system.log (`casslab logs N`)",
        interval_s=0.1,
    )
    for node in nodes:
        wait_for(
            lambda node=node: True if port_open(node.address, node.native_port) else None,  # type: ignore[misc]
            what=f"node {node.number} CQL port {node.contact_point} to answer",
            limit_s=max(1.0, deadline - time.monotonic()),
            hint=f"see {node.log_file}",
        )
    if len(nodes) > 1:
        logged_up = _wait_peers_logged_up(nodes, logs, deadline)
        by_cql = ring_members if logged_up else None
        wait_for(
            lambda: _ring_complete(nodes, nodetool_status, by_cql),
            what=f"every node of {name!r} to see all {len(nodes)} nodes UN",
            limit_s=max(1.0, deadline - time.monotonic()),
            hint="gossip did not converge; see the nodes' logs/system.log",
            interval_s=0.5,
        )


class _StartLog:
    """What a starting node's system.log said: CQL listens, and the peers it saw UP."""

    def __init__(self, watcher: LogWatcher) -> None:
        self.watcher = watcher
        self.listening = False
        self.peers_up: set[str] = set()

    def read(self) -> None:
        for line in self.watcher.new_lines():
            if CQL_READY_LINE in line:
                self.listening = True
            self.peers_up |= peers_logged_up(line)


def _wait_peers_logged_up(
    nodes: Sequence[Node], logs: Mapping[int, _StartLog], deadline: float
) -> bool:
    """Until every node's log says every other node is UP (True), or
    ``LOGGED_UP_LIMIT_S`` (False)."""
    until = min(deadline, time.monotonic() + LOGGED_UP_LIMIT_S)
    addresses = {n.number: n.address for n in nodes}
    while time.monotonic() < until:
        missing = False
        for number, log in logs.items():
            log.read()
            others = {a for n, a in addresses.items() if n != number}
            missing = missing or not others <= log.peers_up
        if not missing:
            return True
        time.sleep(0.1)
    return False


def _ring_complete(
    nodes: Sequence[Node],
    nodetool_status: Callable[[Node], str],
    ring_members: Callable[[Node], set[str]] | None = None,
) -> bool | None:
    """Every node sees every node UP and NORMAL: over CQL (``ring_members``, once the logs
    said UP) when it answers, by nodetool otherwise."""
    expected = {n.address for n in nodes}

    def by_nodetool(node: Node) -> set[str]:
        try:
            out = nodetool_status(node)
        except ClusterError:
            return set()
        return ring_by_nodetool(out)

    def view(node: Node) -> set[str]:
        if ring_members is not None:
            with suppress(Exception):  # the driver raises many unrelated types
                return ring_members(node)
        return by_nodetool(node)

    with concurrent.futures.ThreadPoolExecutor(len(nodes)) as pool:
        views = list(pool.map(view, nodes))
    return True if all(v >= expected for v in views) else None


def exited_at_startup(node: Node) -> ClusterError:
    """The error of a node that died while starting: Cassandra's own reason first (it
    comes after pages of configuration dump), then the ends of its logs."""
    reason = startup_reason(tail(node.stdout_file, 400), tail(node.log_file, 400))
    lead = f"Cassandra refused to start: {reason}\n" if reason else ""
    return ClusterError(
        f"{lead}node {node.number} ({node.address}) exited during start-up; "
        f"last lines of {node.log_file}:\n{_clipped(tail(node.log_file))}\n"
        f"and of {node.stdout_file}:\n{_clipped(tail(node.stdout_file, 10))}"
    )


def _clipped(text: str, width: int = 300) -> str:
    """Lines cut to ``width`` characters: Cassandra logs its whole configuration on one."""
    return "\n".join(
        line if len(line) <= width else line[:width] + " …" for line in text.splitlines()
    )


def check_ports(nodes: Sequence[Node]) -> None:
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
                    f"node {node.number}: {purpose} port {address}:{port} is busy"
                    f"{_owner(address, port)}"
                )
    if problems:
        raise ClusterError(
            "cannot start the cluster, ports in use (nothing was started):\n  "
            + "\n  ".join(problems)
            + "\nstop what holds them (`casslab down`, or that process), or move this "
            "cluster with --base-address 127.0.1.1 / --jmx-port-base"
        )


def _owner(address: str, port: int) -> str:
    """`` (held by pid N, NAME)`` of the process listening on ``address:port`` (or on every
    address at that port), else nothing: nodes share port numbers on their own addresses."""
    with suppress(psutil.Error, OSError):
        for conn in psutil.net_connections(kind="tcp"):
            if (
                conn.laddr
                and conn.laddr.port == port
                and conn.laddr.ip in (address, "0.0.0.0", "::")
                and conn.status == psutil.CONN_LISTEN
            ):
                if conn.pid:
                    with suppress(psutil.Error):
                        name = psutil.Process(conn.pid).name()
                        return f" (held by pid {conn.pid}, {name})"
                return ""
    return ""


def leftover_pids(directory: Path) -> list[int]:
    """Cassandra JVMs whose storage directory lies under ``directory``: the nodes of that
    cluster, found by the path casslab gave them, e.g. after casslab itself was killed
    before it could record their PIDs."""
    # the JVM got the path as casslab built it, which may be relative or run through a
    # symbolic link: match it as given and as resolved
    markers = tuple(
        {f"-Dcassandra.storagedir={path}/" for path in (directory, directory.resolve())}
    )
    found: list[int] = []
    for process in psutil.process_iter(["pid", "cmdline"]):
        cmdline = process.info["cmdline"] or []
        if any(arg.startswith(markers) for arg in cmdline):
            found.append(process.info["pid"])
    return found


def stop_leftovers(
    directory: Path, keep: set[int] | None = None, deadline_s: float = 30.0
) -> list[int]:
    """Stop (by process group) every JVM of :func:`leftover_pids` not in ``keep``: SIGTERM,
    SIGKILL after ``deadline_s`` (at once with 0, for a directory deleted next); returns
    their PIDs."""
    stopped = [pid for pid in leftover_pids(directory) if pid not in (keep or set())]
    for pid in stopped:
        stop_group(pid, create_time(pid), deadline_s)
    return stopped


def dir_size_mib(path: Path) -> float:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            with suppress(OSError):
                total += (Path(root) / name).stat().st_size
    return total / (1024 * 1024)
