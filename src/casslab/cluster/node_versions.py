"""Nodes of one cluster on different Cassandra versions from the start (``casslab up
--node-version 2=5.0.8``, ``cluster: {node_versions: {2: 5.0.8}}``): the value's forms and
the rule that refuses a mix before anything starts.

Cassandra supports clusters of two versions only while a rolling upgrade runs, and rolling
upgrades only between adjacent majors: casslab makes mixed clusters of one major (5.0.8
with 5.0.9, 4.0 with 4.1) and refuses two majors. A version must be installed already
(``casslab fetch``): a start never downloads one for a single node."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from casslab.cluster.distribution import Distribution
    from casslab.cluster.model import ClusterState

VERSION_RE = re.compile(r"^\d+\.\d+\.\d+$")


def parse(value: Any) -> dict[int, str]:
    """``["2=5.0.8"]`` (as ``--node-version`` takes it) or ``{2: "5.0.8"}`` -> version per
    node number; a ValueError naming the value and the form."""
    if isinstance(value, list | tuple):
        pairs = [str(v).partition("=") for v in value]
        if any(not sep or not node.strip().isdigit() for node, sep, _ in pairs):
            raise ValueError(f"node versions {list(value)}: expected NODE=VERSION, e.g. 2=5.0.8")
        value = {node.strip(): version.strip() for node, _, version in pairs}
    if not isinstance(value, Mapping):
        raise ValueError(f"node versions {value!r}: expected NODE: VERSION, e.g. {{2: 5.0.8}}")
    out: dict[int, str] = {}
    for node, version in value.items():
        if not str(node).strip().isdigit() or int(node) < 1:
            raise ValueError(f"node versions: {node!r} is not a node number (1, 2, ...)")
        if not VERSION_RE.match(str(version)):
            raise ValueError(
                f"node {node}'s version {version!r} is not of the form X.Y.Z, e.g. 5.0.8"
            )
        out[int(node)] = str(version)
    return dict(sorted(out.items()))


def major(version: str) -> int:
    """``5.0.8`` -> 5."""
    return int(version.split(".", 1)[0])


def problems(node_versions: Mapping[int, str], nodes: int, cluster_version: str) -> list[str]:
    """What is wrong with running ``node_versions`` in a cluster of ``nodes`` nodes whose
    other nodes run ``cluster_version`` (pure): node numbers past the cluster, and versions
    of another major."""
    found: list[str] = []
    outside = sorted(n for n in node_versions if n > nodes)
    if outside:
        found.append(
            f"--node-version names node(s) {outside}, but the cluster has {nodes} "
            f"node(s) (1..{nodes}); add nodes with --nodes or drop those"
        )
    others = sorted({v for v in node_versions.values() if major(v) != major(cluster_version)})
    if others:
        found.append(
            f"Cassandra {', '.join(others)} with {cluster_version}: Cassandra supports rolling "
            "upgrades only between adjacent majors and clusters of two versions only during "
            "one, so casslab mixes versions of one major (e.g. 5.0.8 with 5.0.9); start the "
            f"cluster on one version and upgrade it (`casslab upgrade --to {cluster_version}`)"
        )
    return found


def differing(node_versions: Mapping[int, str], cluster_version: str) -> dict[int, str]:
    """The nodes whose version is not the cluster's (the others need no record of one)."""
    return {n: v for n, v in sorted(node_versions.items()) if v != cluster_version}


def all_on(cluster_state: ClusterState, dist: Distribution) -> ClusterState:
    """``cluster_state`` once every node runs ``dist`` (a rolling upgrade's end): the
    version is the cluster's, no node has one of its own (pure)."""
    nodes = [n.model_copy(update={"version": None, "lib_dir": None}) for n in cluster_state.nodes]
    spec = cluster_state.spec.model_copy(update={"version": dist.version, "node_versions": {}})
    return cluster_state.model_copy(
        update={
            "nodes": nodes,
            "spec": spec,
            "cassandra_version": dist.version,
            "cassandra_source": dist.source,
            "lib_dir": dist.lib_dir,
        }
    )
