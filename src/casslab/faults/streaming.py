"""Bytes a node has streamed to others and from them since its JVM started (JMX
``Streaming.TotalOutgoingBytes`` and ``TotalIncomingBytes``): read before and after an
operation that moves data (a decommission), the difference is what it streamed."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from casslab.cluster import Cluster
from casslab.errors import CasslabError
from casslab.faults.detection import jmx_client
from casslab.metrics.jmx_mbeans import JmxValue
from casslab.metrics.source import SourceUnavailableError

log = logging.getLogger(__name__)

_M = "org.apache.cassandra.metrics:type=Streaming"
QUERY = (
    (f"{_M},name=TotalOutgoingBytes", "Count"),
    (f"{_M},name=TotalIncomingBytes", "Count"),
)


def totals_of(values: Iterable[JmxValue]) -> tuple[int, int] | None:
    """(outgoing, incoming) bytes from an answer to :data:`QUERY` (None: not both)."""
    found = {v.object_name.rpartition("name=")[2]: round(v.value) for v in values}
    out, into = found.get("TotalOutgoingBytes"), found.get("TotalIncomingBytes")
    return None if out is None or into is None else (out, into)


def streamed(cluster: Cluster, number: int) -> tuple[int, int] | None:
    """Node ``number``'s (outgoing, incoming) streamed bytes now; None when JMX could not
    be read (logged)."""
    try:
        client, host, port, closing = jmx_client(cluster, number)
    except CasslabError as error:
        log.warning("streamed bytes of node %d: %s", number, error)
        return None
    try:
        return totals_of(client.poll(host, port, QUERY))
    except (CasslabError, SourceUnavailableError) as error:
        log.warning("streamed bytes of node %d: %s", number, error)
        return None
    finally:
        client.close()
        for item in closing:
            item.close()
