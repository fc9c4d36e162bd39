"""What ``state.json`` keeps of an ssh cluster (``ClusterState.ssh``): the inventory it was
made from (paths only, never a key's content) and, per node, its host, the Java and
Cassandra install found or deployed there, the tokens of a node that joined later, and its
process (PID plus start ticks)."""

from __future__ import annotations

from casslab.record import Record
from casslab.remote.inventory import HostSpec, Inventory


class SshNode(Record):
    """Node ``number`` on ``host``. ``pid``/``start_ticks`` name its JVM on that host
    (``/proc/<pid>/stat`` field 22), never a process of this machine."""

    number: int
    host: HostSpec
    java: str  # the java executable on the host
    java_feature: int
    dist_dir: str  # <base_dir>/dist/<version> on the host (its jars in lib/)
    tokens: tuple[int, ...] = ()  # a node that joined a running ring: the tokens it took
    pid: int | None = None
    start_ticks: int | None = None

    @property
    def classpath(self) -> str:
        return f"{self.dist_dir}/lib/*"


class SshHosts(Record):
    """How casslab reaches an ssh cluster's hosts, and its nodes there."""

    inventory: Inventory
    nodes: tuple[SshNode, ...]
