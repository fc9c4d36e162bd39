"""What ``casslab run --serve-metrics`` adds to the runner: its samplers also hand what
they read to the served store (TeeSource), labelled with the cluster's names."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from casslab.cluster import cluster_spec
from casslab.metrics.prom_cluster import (
    ServedSources,
    TeeSource,
    cluster_labels,
    served_engine_source,
)
from casslab.metrics.prom_store import ClusterLabels, LatestValues, NodeLabels
from casslab.metrics.source import Sample, SourceUnavailableError
from fakes import Calls, FakeCluster


class _Source:
    """A source whose next reading is set by the test (None: unavailable)."""

    def __init__(self, node: str, name: str = "cql") -> None:
        self.node = node
        self.name = name
        self.reading: list[Sample] | None = []
        self.closed = False
        self.warmed = False

    def sample(self, now: float) -> list[Sample]:
        if self.reading is None:
            raise SourceUnavailableError(f"{self.node} is down")
        return self.reading

    def warm(self) -> None:
        self.warmed = True

    def close(self) -> None:
        self.closed = True


def test_a_tee_keeps_what_its_source_reads_and_forgets_it_on_a_gap() -> None:
    store = LatestValues(ClusterLabels(cluster="lab"))
    inner = _Source("127.0.0.1")
    tee = TeeSource(inner, store)
    assert (tee.name, tee.node) == ("cql", "127.0.0.1")
    inner.reading = [Sample(10.0, "127.0.0.1", "cassandra.compactions_running", 2.0)]
    assert tee.sample(10.0) == inner.reading  # the recorder gets the same values
    assert [s.value for s in store.snapshot(10.0).samples] == [2.0]
    inner.reading = None
    with pytest.raises(SourceUnavailableError):  # the recorder still records its gap
        tee.sample(11.0)
    assert store.snapshot(11.0).samples == ()
    tee.warm()
    tee.close()
    assert inner.warmed
    assert inner.closed


def _cluster(tmp_path: Path, **spec: Any) -> FakeCluster:
    return FakeCluster(cluster_spec(name="lab", **spec), tmp_path, Calls())


def test_cluster_labels_of_local_nodes(tmp_path: Path) -> None:
    cluster = _cluster(tmp_path, nodes=2, base_address="127.0.243.1")
    labels = cluster_labels(cluster)
    here = socket.gethostname()
    assert labels == ClusterLabels(
        cluster="lab",
        nodes={
            "127.0.243.1": NodeLabels(dc="datacenter1", host=here),
            "127.0.243.2": NodeLabels(dc="datacenter1", host=here),
        },
    )
    nodes = [n.model_copy(update={"datacenter": f"dc{n.number}"}) for n in cluster.state.nodes]
    cluster.state = cluster.state.model_copy(update={"nodes": nodes})
    assert cluster_labels(cluster).of("127.0.243.2").dc == "dc2"
    assert cluster_labels(cluster).of("engine") == NodeLabels(dc="", host="")


def test_served_sources_label_the_store_and_tee_every_source(tmp_path: Path) -> None:
    store = LatestValues(ClusterLabels(cluster="placeholder"))
    made: list[_Source] = []

    def base(cluster: Any, engine_pid: int | None) -> list[Any]:
        assert engine_pid is None
        made.extend(_Source(n.address) for n in cluster.nodes)
        return list(made)

    sources = ServedSources(store, base)(_cluster(tmp_path, nodes=2), None)
    assert store.labels.cluster == "lab"
    assert all(isinstance(s, TeeSource) for s in sources)
    made[1].reading = [Sample(5.0, made[1].node, "cassandra.hints_pending", 0.0)]
    for source in sources:
        source.sample(5.0)
    assert [(s.node, s.metric) for s in store.snapshot(5.0).samples] == [
        ("127.0.0.2", "cassandra.hints_pending")
    ]


def test_the_served_engine_source_tees_the_engine_process_of_each_phase() -> None:
    """``run --serve-metrics`` serves the engine's process metrics too: the runner's
    engine sampler of each measured phase is a tee into the store."""
    store = LatestValues(ClusterLabels(cluster="lab"))
    made: dict[int, _Source] = {}

    def base(pid: int) -> Any:
        made[pid] = _Source("engine", name="engine")
        return made[pid]

    tee = served_engine_source(store, base)(4321)
    assert isinstance(tee, TeeSource)
    assert (tee.node, tee.name) == ("engine", "engine")
    made[4321].reading = [Sample(7.0, "engine", "engine.rss_bytes", 5e7)]
    assert tee.sample(7.0) == made[4321].reading
    [served] = store.snapshot(7.0).samples
    assert (served.node, served.metric, served.value) == ("engine", "engine.rss_bytes", 5e7)
    tee.close()
    assert made[4321].closed
