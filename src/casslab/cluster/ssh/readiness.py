"""When an ssh cluster is ready: every JVM alive, its CQL port answers from here, and every
node sees every node UP and NORMAL.

As on the local backend (:func:`casslab.cluster.local.launch.wait_ready`), each node's own
system.log says when it has seen every other node UP (read on its host from where the log
was when the node started: one ``tail -c`` over the open SSH connection, no JVM), and its
own tables, over CQL from here (:mod:`casslab.cluster.ring_view`), confirm NORMAL.
``nodetool status``, a JVM of its own on the node's host on every call (seconds of CPU on
two cores), decides only for a node whose log did not say so within
:data:`~casslab.cluster.ring_view.LOGGED_UP_LIMIT_S`, or whose tables could not be read.
"""

from __future__ import annotations

import concurrent.futures
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING

from casslab.cluster.model import Node
from casslab.cluster.ring_view import LOGGED_UP_LIMIT_S, peers_logged_up, ring_by_nodetool
from casslab.cluster.wait import port_open, wait_for
from casslab.errors import ClusterError, RemoteError

if TYPE_CHECKING:
    from casslab.remote.ssh import RemoteHost


def log_size(host: RemoteHost, node: Node) -> int:
    """The size of ``node``'s system.log on its host (0 when there is none yet): where the
    lines of the start about to begin will be."""
    try:
        result = host.run(["stat", "-c", "%s", "--", str(node.log_file)], check=False)
    except RemoteError:
        return 0
    text = result.stdout.strip()
    return int(text) if result.exit_code == 0 and text.isdigit() else 0


def logged_since(host: RemoteHost, node: Node, offset: int) -> str:
    """``node``'s system.log on its host from byte ``offset`` on ('' when unreadable)."""
    try:
        command = ["tail", "-c", f"+{offset + 1}", "--", str(node.log_file)]
        return host.run(command, check=False).stdout
    except RemoteError:
        return ""


def wait_ready(
    name: str,
    nodes: Sequence[Node],
    alive: Callable[[Node], bool],
    on_exit: Callable[[Node], ClusterError],
    timeout_s: float,
    *,
    status_of: Callable[[Node], str],
    log_of: Callable[[Node], str],
    ring_members: Callable[[Node], set[str]],
) -> None:
    """Wait until ``nodes`` are ready (see the module); ``log_of``: a node's log since its
    start, ``status_of``: ``nodetool status`` on its host, ``ring_members``: the ring
    members its tables list, over CQL."""
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
        interval_s=0.5,
    )
    if len(nodes) < 2:
        return
    expected = {n.address for n in nodes}
    logs_until = time.monotonic() + LOGGED_UP_LIMIT_S
    unconverged = list(nodes)

    def sees_all_up(node: Node) -> bool:
        if peers_logged_up(log_of(node)) >= expected - {node.address}:
            with suppress(Exception):  # the driver raises many unrelated types
                return ring_members(node) >= expected
        elif time.monotonic() < logs_until:
            return False
        try:
            return ring_by_nodetool(status_of(node)) >= expected
        except ClusterError:
            return False

    def ring_complete() -> bool | None:
        # ask the hosts at once, and stop asking a node once it has seen every node UN
        with concurrent.futures.ThreadPoolExecutor(len(unconverged)) as pool:
            verdicts = list(pool.map(sees_all_up, unconverged))
        unconverged[:] = [n for n, ok in zip(unconverged, verdicts, strict=True) if not ok]
        return True if not unconverged else None

    wait_for(
        ring_complete,
        what=f"every node of {name!r} to see all {len(nodes)} nodes UN",
        limit_s=max(1.0, deadline - time.monotonic()),
        hint="gossip did not converge; see the nodes' system.log (`casslab logs N`)",
        interval_s=0.5,
    )
