"""What an experiment on real hosts (``cluster: {hosts: hosts.yaml}``, the ssh backend) may
ask, checked before anything starts: the inventory must read, one node runs on each of
its hosts (or on its first ``cluster.nodes``, the others spare for add-node), and what such
nodes do not have (isolation and limits of this machine, an
emulated topology, injected clocks) is refused, in the section and as factors. Pure but
for reading the inventory file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from casslab.cluster import ISOLATION_FIELDS
from casslab.errors import ConfigError
from casslab.experiment.file.existing_checks import refused_factors
from casslab.experiment.file.experiment_model import Experiment, FactorKind

HOSTS_FIELD = "hosts"
NOT_ON_HOSTS = (
    *ISOLATION_FIELDS,
    "topology",
    "clock",
    "use",
)
"""The ``cluster:`` fields nodes on an inventory's hosts do not take."""

_REFUSED_FACTORS = {
    FactorKind.NODES: "the node count (one node per host of the inventory)",
    FactorKind.CLUSTER: "the nodes' isolation, limits or topology",
    FactorKind.CLOCK: "the nodes' clocks",
}


def hosts_path(hosts: str, base_dir: Path | None) -> Path:
    """The inventory file: ``hosts`` relative to the experiment file's folder."""
    path = Path(hosts).expanduser()
    return path if path.is_absolute() or base_dir is None else base_dir / path


def hosts_of(experiment: Experiment, base_dir: Path | None) -> Path | None:
    """The inventory file the experiment's nodes run on (None: this machine)."""
    hosts = experiment.cluster.hosts
    return None if hosts is None else hosts_path(hosts, base_dir)


def hosts_problems(data: Mapping[str, Any], base_dir: Path | None) -> list[str]:
    """Problems of a file whose ``cluster.hosts`` names an inventory (none otherwise)."""
    cluster = data.get("cluster")
    if not isinstance(cluster, Mapping) or cluster.get(HOSTS_FIELD) is None:
        return []
    hosts = cluster[HOSTS_FIELD]
    if not isinstance(hosts, str) or not hosts.strip():
        return ["cluster.hosts: expected the path of an inventory file, e.g. hosts.yaml"]
    problems = [
        f"cluster.{field}: not for nodes on the hosts of {hosts} (each host runs one node; "
        "datacenters and racks come from the inventory's dc and rack); remove it"
        for field in NOT_ON_HOSTS
        if cluster.get(field) is not None
    ]
    problems += [
        f"factors.{factor}: nodes on the hosts of {hosts} cannot vary {what}"
        for factor, what in refused_factors(data, _REFUSED_FACTORS)
    ]
    from casslab.remote.inventory import load_inventory

    try:
        inventory = load_inventory(hosts_path(hosts, base_dir))
    except ConfigError as error:
        return [*problems, f"cluster.hosts: {error}"]
    problem = nodes_problem(cluster.get("nodes"), hosts, len(inventory.hosts))
    return problems if problem is None else [*problems, problem]


def nodes_problem(nodes: object, hosts: str, listed: int) -> str | None:
    """``cluster.nodes`` against the inventory's ``listed`` hosts: left out, every host runs
    a node; N from 2 to ``listed``, the first N do and the others stay spare for an
    add-node operation (the ssh backend's, as ``casslab up --hosts --nodes N``); 1 only
    when the inventory lists one host (the backend reads 1 as "every host")."""
    if not isinstance(nodes, int) or nodes == listed:
        return None  # left out, or not a number (the file's model says so)
    if nodes > listed:
        return (
            f"cluster.nodes: {nodes}, but {hosts} lists {listed} hosts, one node each; list "
            f"more hosts there or ask for {listed} nodes or fewer"
        )
    if nodes < 2:
        return (
            f"cluster.nodes: {nodes} of the {listed} hosts of {hosts}: a cluster on hosts "
            "runs 2 nodes or more (leave nodes out for one on each host), the hosts past "
            "them spare for add-node"
        )
    return None
