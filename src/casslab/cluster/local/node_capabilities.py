"""What nodes casslab runs on this machine can do beyond the protocol (the local and the
isolated backends): their processes are signalled by PID, checked against their start
time (never by name), and their clocks skewed through each node's clock file; a
decommissioned node of the local backend leaves the cluster's record."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casslab import procgroup
from casslab.cluster import clock_skew, state
from casslab.cluster.capabilities import last_node_only
from casslab.errors import ClusterError
from casslab.pids import alive

if TYPE_CHECKING:
    from casslab.cluster.local.cluster import LocalCluster


@dataclass(frozen=True)
class LocalProcesses:
    """The JVMs of ``cluster``'s nodes on this machine."""

    cluster: LocalCluster

    def running(self, number: int) -> bool:
        node = self.cluster.node(number)
        return alive(node.pid, node.pid_start_time)

    def signal(self, number: int, sig: signal.Signals, *, group: bool) -> None:
        node = self.cluster.node(number)
        if node.pid is None or not alive(node.pid, node.pid_start_time):
            raise ClusterError(f"node {number} of {self.cluster.name!r} does not run")
        if group:
            procgroup.signal_group(node.pid, sig)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.kill(node.pid, sig)


@dataclass(frozen=True)
class LocalClock:
    """The clocks of ``cluster``'s nodes, skewed through their clock files."""

    cluster: LocalCluster

    def offset_ms(self, number: int) -> float:
        clock_skew.require_injectable(self.cluster.state)
        return clock_skew.read_skew(self.cluster.node(number)).at(clock_skew.now_ms())

    def set_offset(self, number: int, offset_ms: float) -> None:
        clock_skew.set_offset(self.cluster.node(number), offset_ms)


@dataclass(frozen=True)
class LocalRing:
    """The nodes ``cluster``'s state records (the local backend)."""

    cluster: LocalCluster

    def check_add(self, datacenter: str | None = None) -> int:
        from casslab.cluster.local import grow

        grow.check_growable(self.cluster, datacenter)
        return grow.next_node(self.cluster, datacenter).number

    def add(self, timeout_s: float, datacenter: str | None = None) -> int:
        from casslab.cluster.local import grow

        return grow.add_node(self.cluster, timeout_s, datacenter)

    def check_replace(self, number: int, factors: Mapping[str, int]) -> int:
        from casslab.cluster.local import replace

        return replace.check_replaceable(self.cluster, number, factors)

    def replace(self, number: int, timeout_s: float) -> int:
        from casslab.cluster.local import replace

        return replace.replace(self.cluster, number, timeout_s)

    def check_forget(self, number: int) -> None:
        last_node_only(self.cluster.name, number, self.cluster.state.nodes)

    def forget(self, number: int) -> None:
        """Drop node ``number`` from the state; its directory stays (its logs)."""
        nodes = self.cluster.state.nodes
        self.check_forget(number)
        if LocalProcesses(self.cluster).running(number):
            raise ClusterError(f"node {number} of {self.cluster.name!r} still runs; stop it first")
        from casslab.cluster.local import grow

        kept = [n for n in nodes if n.number != number]
        self.cluster.state = grow.resized(self.cluster.state, kept)
        state.save(self.cluster.state)
        self.cluster._drop_node(number)
