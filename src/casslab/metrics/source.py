"""What every sampler looks like to the recorder, and the records that cross its boundary."""

from __future__ import annotations

from typing import NamedTuple, Protocol, runtime_checkable

from casslab.cqlaccess import CqlAccess
from casslab.errors import MetricsError
from casslab.record import Record


class SourceUnavailableError(MetricsError):
    """A source could not be read this time (node down, timeout, process gone).

    The recorder records a gap for the source and goes on sampling the others.
    """


class Sample(NamedTuple):
    """One value: Unix time in seconds, node label, catalogue metric name, value."""

    time: float
    node: str
    metric: str
    value: float


class Gap(Record):
    """A source that could not be read at one sampling instant."""

    time: float
    node: str
    source: str
    error: str


class NodeTarget(Record):
    """What the samplers need to know about one Cassandra node.

    Only ``address`` is required (a cluster casslab did not start); the rest enables the
    local samplers: ``pid`` the process sampler, ``data_dir`` the host sampler, ``jmx_port``
    the JMX sampler, ``cgroup`` the cgroup sampler (a path relative to the cgroup mounts,
    e.g. ``casslab/node1``), ``net_interface`` the network sampler of a node in its own
    network namespace (the host end of its veth pair, e.g. ``cl-ab12-n1``). ``access`` is
    how the CQL sampler logs in and encrypts (an external cluster's user and CA).
    """

    address: str
    cql_port: int = 9042
    pid: int | None = None
    data_dir: str | None = None
    jmx_port: int | None = None
    jmx_address: str = "127.0.0.1"  # a node in its own network namespace: its address
    cgroup: str | None = None
    net_interface: str | None = None
    access: CqlAccess | None = None

    @property
    def label(self) -> str:
        """The node column of this node's rows."""
        return self.address


class Source(Protocol):
    """A sampler: ``sample(now)`` returns this instant's values or raises
    :class:`SourceUnavailableError`; ``close()`` releases connections and processes."""

    @property
    def name(self) -> str:
        """Short id used in gap records, e.g. ``cql`` or ``process``."""
        ...

    @property
    def node(self) -> str:
        """Node label the source's gaps are recorded under."""
        ...

    def sample(self, now: float) -> list[Sample]: ...

    def close(self) -> None: ...


@runtime_checkable
class Warmable(Protocol):
    """A source with start-up work worth doing before its samples count (the JMX helper
    JVM compiling its hot paths): ``warm()`` does it and discards what it read."""

    def warm(self) -> None: ...
