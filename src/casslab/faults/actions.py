"""What one fault does to one node, through the capabilities of the cluster's backend
(:mod:`casslab.cluster.capabilities`): a backend that started its nodes can signal them
(local and isolated JVMs by PID, checked against their start time, never by name; nodes
on SSH hosts through their host), skew their clocks (local and isolated nodes) or cut its
datacenters' links (a topology); a backend that cannot is refused with its own reason (a
cluster casslab did not start takes no faults: casslab never stops what it does not own).

A kill is SIGKILL to the node's process group; a pause SIGSTOP to its JVM (SIGCONT
ends it); a stop is ``nodetool drain`` and then SIGTERM to its group (SIGKILL after
:data:`STOP_GRACE_S`); a clock jump steps the node's wall clock through its clock file
(:mod:`casslab.cluster.clock_skew`, read by the node within 100 ms) and back; a slow disk
throttles the block I/O of the node's cgroup and lifts it (:mod:`.slow_disk`). A killed or
stopped node is brought back by the cluster's own ``start`` (which starts every node that
is not running and waits until all are ready).
"""

from __future__ import annotations

import signal
import time

from casslab.cluster import Cluster
from casslab.cluster.capabilities import clock_of, links_of, processes_of
from casslab.errors import CasslabError, ClusterError
from casslab.faults import slow_disk
from casslab.faults.model import FaultKind

STOP_GRACE_S = 60.0
POLL_S = 0.2


def check_faultable(cluster: Cluster) -> None:
    """Raise :class:`ConfigError` for a cluster whose nodes casslab may not signal (the
    backend's reason: an attached cluster is not casslab's)."""
    processes_of(cluster)


def node_running(cluster: Cluster, number: int) -> bool:
    """True when node ``number``'s JVM runs (as recorded at its start)."""
    return processes_of(cluster).running(number)


def signal_node(cluster: Cluster, number: int, sig: signal.Signals, *, group: bool) -> None:
    """Send ``sig`` to node ``number``'s JVM (its process group with ``group``); a node that
    does not run is an error naming it."""
    processes_of(cluster).signal(number, sig, group=group)


def wait_down(cluster: Cluster, number: int, timeout_s: float) -> bool:
    """Wait until node ``number``'s JVM has ended; False when it still runs."""
    deadline = time.monotonic() + timeout_s
    while node_running(cluster, number):
        if time.monotonic() > deadline:
            return False
        time.sleep(POLL_S)
    return True


Undo = float | list[str] | slow_disk.Throttled | None
"""What :func:`end` needs of :func:`begin`: a clock's offset before, a partition's links,
a throttle's files and their values before."""


def check(cluster: Cluster, kind: FaultKind, target: int | str) -> None:
    """Raise :class:`ConfigError` when ``target`` cannot take ``kind`` here (before
    anything starts): an attached cluster; a slow disk on a node in no cgroup."""
    check_faultable(cluster)
    if kind is FaultKind.SLOW_DISK:
        slow_disk.check(cluster, int(target))


def begin(
    cluster: Cluster,
    kind: FaultKind,
    target: int | str,
    offset_ms: float | None = None,
    *,
    rate_bps: int | None = None,
    iops: int | None = None,
) -> Undo:
    """Put ``target`` (a node's number; a partition's datacenter or link) under ``kind``
    (a clock jump: by ``offset_ms``; a slow disk: to ``rate_bps`` and/or ``iops``); what
    :func:`end` will need to undo it."""
    check_faultable(cluster)
    if kind is FaultKind.PARTITION:
        return _cut(cluster, str(target))
    number = int(target)
    if kind is FaultKind.SLOW_DISK:
        return slow_disk.begin(cluster, number, rate_bps, iops)
    if kind is FaultKind.CLOCK_JUMP:
        return _jump(cluster, number, offset_ms or 0.0)
    if kind is FaultKind.KILL:
        signal_node(cluster, number, signal.SIGKILL, group=True)
        wait_down(cluster, number, 10.0)
    elif kind is FaultKind.PAUSE:
        signal_node(cluster, number, signal.SIGSTOP, group=False)
    else:
        try:
            cluster.nodetool(number, "drain", timeout_s=STOP_GRACE_S)
        except CasslabError as error:  # stop it anyway: the fault is the stop
            raise ClusterError(f"node {number}: nodetool drain failed ({error})") from error
        signal_node(cluster, number, signal.SIGTERM, group=True)
        if not wait_down(cluster, number, STOP_GRACE_S):
            signal_node(cluster, number, signal.SIGKILL, group=True)
            wait_down(cluster, number, 10.0)
    return None


def _cut(cluster: Cluster, target: str) -> list[str]:
    """Cut the links ``target`` names (a datacenter's, or one); their names."""
    from casslab.net import cuts

    directory = links_of(cluster).keeper_dir()
    chosen = cuts.chosen_links(directory, target)
    cuts.set_cut(directory, chosen, cut=True)
    return chosen


def _jump(cluster: Cluster, number: int, by_ms: float) -> float:
    """Step node ``number``'s wall clock by ``by_ms``; the offset it had."""
    check_faultable(cluster)
    clock = clock_of(cluster)
    before = clock.offset_ms(number)
    clock.set_offset(number, before + by_ms)
    return before


def end(
    cluster: Cluster,
    kind: FaultKind,
    target: int | str,
    timeout_s: float,
    undo: Undo = None,
) -> None:
    """Bring ``target`` back from ``kind`` (a started node: ready when this returns; a
    clock: stepped back; links: healed), with what :func:`begin` returned."""
    if kind is FaultKind.PARTITION:
        from casslab.net import cuts

        links = undo if isinstance(undo, list) else []
        cuts.set_cut(links_of(cluster).keeper_dir(), links, cut=False)
        return
    if isinstance(undo, slow_disk.Throttled):
        slow_disk.end(undo)
        return
    if kind is FaultKind.SLOW_DISK:  # never began: nothing to lift
        return
    number = int(target)
    if kind is FaultKind.CLOCK_JUMP:
        before = undo if isinstance(undo, float) else 0.0
        clock_of(cluster).set_offset(number, before)
        return
    if kind is FaultKind.PAUSE:
        signal_node(cluster, number, signal.SIGCONT, group=False)
        return
    cluster.start(timeout_s=timeout_s)
