"""A node's JVM on its host over SSH: write its files, start it detached, run nodetool
there, stop it by PID plus start ticks (readiness: :mod:`casslab.cluster.ssh.readiness`)."""

from __future__ import annotations

import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from casslab.cluster import jvm
from casslab.cluster.backend import NodeView
from casslab.cluster.local.launch import STATE_DIRS
from casslab.cluster.local.replace import REPLACE_FLAG
from casslab.cluster.model import ClusterState, Node, NodeStatus, heap_mib
from casslab.cluster.ssh.ssh_state import SshNode
from casslab.cluster.wait import port_open, startup_reason
from casslab.errors import ClusterError, RemoteError
from casslab.remote.inventory import HostSpec
from casslab.remote.remote_records import RemoteProcess

if TYPE_CHECKING:
    from casslab.remote.ssh import RemoteHost

STOP_POLL_S = 0.25


JMX_PORT = 7199  # every host has its own loopback: JMX stays on 127.0.0.1:7199


def node_on(cluster: str, number: int, host: HostSpec) -> Node:
    """Node ``number`` of ``cluster``, on ``host`` (the only node there)."""
    return Node(
        number=number,
        address=host.address,
        native_port=9042,
        storage_port=7000,
        jmx_port=JMX_PORT,
        directory=Path(host.base_dir) / "clusters" / cluster / f"node{number}",
        datacenter=host.dc,
        rack=host.rack,
    )


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
        options=[*state.spec.jvm_options, *replace_flags(ssh_node)],
    )
    host.put_bytes((" ".join(command) + "\n").encode(), str(node.conf_dir / "command.txt"))
    return host.spawn(command, log_path=str(node.stdout_file), cwd=str(node.directory))


def replace_flags(ssh_node: SshNode) -> list[str]:
    """A replacement's flag: Cassandra takes the dead node's tokens at its first boot and
    ignores the flag once it has joined, so the node keeps it across restarts."""
    if ssh_node.replaces is None:
        return []
    return [f"{REPLACE_FLAG}={ssh_node.replaces}"]


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


# Removes the snapshot directories of every table under data folder $1 (keyspace/table/snapshots);
# with none there, rm -f is given the pattern itself, which does not exist, and succeeds
_CLEAR_SNAPSHOTS = 'rm -rf -- "$1"/*/*/snapshots'


def clear_snapshots(host: RemoteHost, node: Node) -> None:
    """Delete every snapshot of ``node`` on its host, as the local backend does
    (:func:`casslab.cluster.local.captures.clear_snapshots`): its snapshots are hard-link
    directories under ``data/<keyspace>/<table>/snapshots``, removed with one shell command
    over the open connection instead of ``nodetool clearsnapshot``, a JVM on the host (1.5
    to 2 CPU-seconds) per node at every reset."""
    host.run(["sh", "-c", _CLEAR_SNAPSHOTS, "casslab-clear-snapshots", str(node.data_dir)])


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
