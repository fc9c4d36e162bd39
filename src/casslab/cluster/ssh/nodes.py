"""A node's JVM on its host over SSH: write its files, start it detached, wait until the
cluster is ready, run nodetool there, stop it by PID plus start ticks."""

from __future__ import annotations

import concurrent.futures
import re
import signal
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from casslab.cluster import jvm
from casslab.cluster.backend import NodeView
from casslab.cluster.local.launch import STATE_DIRS
from casslab.cluster.model import ClusterState, Node, NodeStatus, heap_mib
from casslab.cluster.ssh.ssh_state import SshNode
from casslab.cluster.wait import port_open, startup_reason, wait_for
from casslab.errors import ClusterError, RemoteError
from casslab.remote.remote_records import RemoteProcess

if TYPE_CHECKING:
    from casslab.remote.ssh import RemoteHost

_STATUS_RE = re.compile(r"^([UD])([NLJM])\s+(\d+\.\d+\.\d+\.\d+)", re.MULTILINE)
STOP_POLL_S = 0.25


def remote_process(ssh_node: SshNode) -> RemoteProcess | None:
    if ssh_node.pid is None or ssh_node.start_ticks is None:
        return None
    return RemoteProcess(
        host=ssh_node.host.address, pid=ssh_node.pid, start_ticks=ssh_node.start_ticks
    )


def write_files(host: RemoteHost, node: Node, files: dict[str, str]) -> None:
    """The node's folders and its configuration files on its host."""
    folders = [str(getattr(node, name)) for name in ("conf_dir", *STATE_DIRS, "logs_dir")]
    host.run(["mkdir", "-p", "--", *folders])
    for name, text in files.items():
        host.put_bytes(text.encode(), str(node.conf_dir / name))


def start(host: RemoteHost, state: ClusterState, node: Node, ssh_node: SshNode) -> RemoteProcess:
    """Start ``node``'s JVM on ``host`` (detached, its own process group)."""
    command = jvm.daemon_command(
        Path(ssh_node.java),
        ssh_node.java_feature,
        ssh_node.classpath,
        node,
        heap_mib(state.heap),
        gc=state.spec.gc,
        options=state.spec.jvm_options,
    )
    host.put_bytes((" ".join(command) + "\n").encode(), str(node.conf_dir / "command.txt"))
    return host.spawn(command, log_path=str(node.stdout_file), cwd=str(node.directory))


def nodetool(
    host: RemoteHost,
    node: Node,
    ssh_node: SshNode,
    args: Sequence[str],
    timeout_s: float = 120.0,
) -> str:
    """Cassandra's NodeTool on the node's host, against its local JMX."""
    command = jvm.nodetool_command(
        Path(ssh_node.java), ssh_node.java_feature, ssh_node.classpath, node, list(args)
    )
    try:
        result = host.run(command, check=False, timeout_s=timeout_s)
    except RemoteError as error:
        raise ClusterError(f"nodetool {' '.join(args)} on node {node.number}: {error}") from None
    if result.exit_code != 0:
        message = (result.stderr.strip() or result.stdout.strip()).splitlines()
        raise ClusterError(
            f"nodetool {' '.join(args)} on node {node.number} ({host.host.label}) failed "
            f"(exit {result.exit_code}): {' '.join(message[-5:])}"
        )
    return result.stdout


def exited_at_startup(host: RemoteHost, node: Node) -> ClusterError:
    stdout = host.tail(str(node.stdout_file), 400)
    system = host.tail(str(node.log_file), 400)
    reason = startup_reason(stdout, system)
    lead = f"Cassandra refused to start: {reason}\n" if reason else ""
    last = "\n".join(line[:300] for line in (system or stdout).splitlines()[-15:])
    return ClusterError(
        f"{lead}node {node.number} on host {host.host.label} exited during start-up; last "
        f"lines of {node.log_file} (or {node.stdout_file}) there:\n{last}"
    )


def wait_ready(
    name: str,
    nodes: Sequence[Node],
    alive: Callable[[Node], bool],
    status_of: Callable[[Node], str],
    on_exit: Callable[[Node], ClusterError],
    timeout_s: float,
) -> None:
    """Ready: every JVM alive, its CQL port answers from here, and every node sees every
    node UP and NORMAL (``status_of``: ``nodetool status`` on a node's host)."""
    deadline = time.monotonic() + timeout_s
    pending = {n.number for n in nodes}

    def listening() -> bool | None:
        for node in nodes:
            if node.number not in pending:
                continue
            if not alive(node):
                raise on_exit(node)
            if port_open(node.address, node.native_port):
                pending.discard(node.number)
        return True if not pending else None

    wait_for(
        listening,
        what=f"node(s) {sorted(pending)} of cluster {name!r} to answer CQL",
        limit_s=max(1.0, deadline - time.monotonic()),
        hint="see each node's system.log (`casslab logs N`)",
        interval_s=1.0,
    )
    if len(nodes) < 2:
        return
    expected = {n.address for n in nodes}
    unconverged = list(nodes)

    def sees_all_up(node: Node) -> bool:
        try:
            out = status_of(node)
        except ClusterError:
            return False
        seen = {m.group(3) for m in _STATUS_RE.finditer(out) if m.group(1, 2) == ("U", "N")}
        return seen >= expected

    def ring_complete() -> bool | None:
        # Each `nodetool status` starts a JVM on its host (seconds of CPU): ask the hosts
        # at once, and stop asking a node once it has seen every node UN.
        with concurrent.futures.ThreadPoolExecutor(len(unconverged)) as pool:
            verdicts = list(pool.map(sees_all_up, unconverged))
        unconverged[:] = [n for n, ok in zip(unconverged, verdicts, strict=True) if not ok]
        return True if not unconverged else None

    wait_for(
        ring_complete,
        what=f"every node of {name!r} to see all {len(nodes)} nodes UN",
        limit_s=max(1.0, deadline - time.monotonic()),
        hint="gossip did not converge; see the nodes' system.log (`casslab logs N`)",
        interval_s=1.0,
    )


def stop(host: RemoteHost, proc: RemoteProcess, deadline_s: float) -> bool:
    """SIGTERM to the JVM's process group, SIGKILL after ``deadline_s`` (at once with 0).
    True when it had to be killed."""
    if not host.alive(proc):
        return False
    if deadline_s > 0:
        host.signal(proc, signal.SIGTERM)
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            if not host.alive(proc):
                return False
            time.sleep(STOP_POLL_S)
    host.signal(proc, signal.SIGKILL)
    end = time.monotonic() + 10.0
    while host.alive(proc) and time.monotonic() < end:
        time.sleep(STOP_POLL_S)
    return True


def view(host: RemoteHost, node: Node, ssh_node: SshNode, running: bool) -> NodeView:
    """What ``status`` shows of ``node``: its JVM's PID and resident memory on its host,
    whether CQL answers from here, the size of its data folder there."""
    rss = None
    if running and ssh_node.pid is not None:
        rss = _rss_mib(host.read_text(f"/proc/{ssh_node.pid}/status"))
    status = NodeStatus.DOWN
    if running:
        status = NodeStatus.UP if port_open(node.address, node.native_port) else NodeStatus.STARTING
    data = host.run(["du", "-sm", "--", str(node.data_dir)], check=False)
    return NodeView(
        number=node.number,
        address=node.address,
        native_port=node.native_port,
        jmx_port=node.jmx_port,
        pid=ssh_node.pid if running else None,
        status=status,
        rss_mib=rss,
        data_mib=float(data.stdout.split()[0]) if data.exit_code == 0 else None,
        isolation="ssh",
        limits=ssh_node.host.label,
        datacenter=node.datacenter,
        rack=node.rack,
    )


def _rss_mib(status_text: str) -> float | None:
    for line in status_text.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return None
