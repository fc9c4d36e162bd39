"""What nodes on SSH hosts can do beyond the protocol: their processes are signalled on
their hosts (PID plus start ticks there), and their samplers and JMX polls reach them over
SSH connections of their own."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING

from casslab.cluster.capabilities import HostJava
from casslab.errors import ClusterError

if TYPE_CHECKING:
    from casslab.cluster.ssh.cluster import SshCluster
    from casslab.remote.remote_records import RemoteProcess
    from casslab.remote.ssh import RemoteHost

NO_CLOCK = (
    "runs on SSH hosts: casslab does not set clocks there (the host's own clock would need "
    "stepping); clock-jump needs local or isolated nodes"
)


@dataclass(frozen=True)
class RemoteProcesses:
    """The JVMs of ``cluster``'s nodes, each on its host."""

    cluster: SshCluster

    def running(self, number: int) -> bool:
        proc = self.cluster.remote_process(number)
        return proc is not None and bool(self.cluster.remote(number).alive(proc))

    def signal(self, number: int, sig: signal.Signals, *, group: bool) -> None:
        proc = self.cluster.remote_process(number)
        if proc is None:
            raise ClusterError(f"node {number} of {self.cluster.name!r} does not run on its host")
        self.cluster.remote(number).signal(proc, int(sig), group=group)


@dataclass(frozen=True)
class SshNodeHosts:
    """How the samplers of ``cluster``'s nodes reach their hosts."""

    cluster: SshCluster

    def connect_host(self, number: int) -> RemoteHost:
        return self.cluster.connect_host(number)

    def remote_process(self, number: int) -> RemoteProcess | None:
        return self.cluster.remote_process(number)

    def host_java(self, number: int) -> HostJava:
        node = self.cluster.ssh_node(number)
        return HostJava(java=node.java, base_dir=node.host.base_dir)

    def host_address(self, number: int) -> str:
        return self.cluster.ssh_node(number).host.address
