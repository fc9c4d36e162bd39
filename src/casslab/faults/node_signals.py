"""Signals to a node's JVM, through the cluster's capability (:func:`~casslab.cluster.
capabilities.processes_of`): local and isolated JVMs by PID, checked against their start
time, never by name; nodes on SSH hosts through their host. A backend that cannot is
refused with its own reason (a cluster casslab did not start takes no faults: casslab
never stops what it does not own). Used by the kinds that act on a node's process."""

from __future__ import annotations

import signal
import time

from casslab.cluster import Cluster
from casslab.cluster.capabilities import processes_of

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
