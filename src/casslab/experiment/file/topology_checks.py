"""Checks of an experiment's datacenters against the rest of its file: the cluster
section, ``client_dc``, the keyspace's replication and the commands' consistency levels
(each problem as ``<path>: <message>``; :mod:`casslab.experiment.file.experiment_loader` collects
them).

A topology (``cluster.topology`` or each level of that factor, resolved by
:func:`casslab.net.presets.resolve_topology`) gives the node count and runs the nodes in
network namespaces, so it cannot go with ``isolation: process``, a ``nodes`` factor or a
node count that differs. Then, for every topology the experiment runs:

* ``client_dc`` is one of its datacenters (without a topology every node is in
  ``datacenter1``, the only name it may give);
* the replication names only its datacenters, none with more replicas than nodes (Cassandra
  would keep fewer copies than asked and ``QUORUM`` could not be met), and is
  ``NetworkTopologyStrategy`` when it has several datacenters (``SimpleStrategy`` places
  replicas without regard to them); one map per topology when the factor varies them;
* a ``LOCAL_*`` consistency level finds a replica in the load's datacenter (``client_dc``,
  else the topology's first), and ``TWO`` / ``THREE`` find that many replicas at all.

Without a topology, ``LOCAL_ONE``, ``LOCAL_QUORUM`` and ``EACH_QUORUM`` are accepted without
a word: there is one datacenter, so they count the same replicas as ``ONE`` and ``QUORUM``,
and ``LOCAL_ONE`` is cassandra-stress's own default. A command's ``-node datacenter=DC`` is
refused in experiment files: ``client_dc`` chooses the load's datacenter once, for the
preload and every measured command alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from casslab.cluster.model import LOCAL_DATACENTER
from casslab.engine_contract.workload_spec import Connection, Consistency
from casslab.errors import CasslabError, ConfigError
from casslab.experiment.file.experiment_model import Factor, FactorKind
from casslab.experiment.file.load_commands import Command, compose_command, measure_mapping
from casslab.experiment.file.replication import (
    NETWORK,
    SIMPLE,
    checked_replication,
    is_keyed,
    named_datacenters,
    replicas_per_dc,
    replication_for,
    strategy_of,
)
from casslab.experiment.run.engine_specs import spec_for
from casslab.experiment.steps.discover.discover_checks import absolute_levels
from casslab.load.front_ends import name_of
from casslab.net.presets import TopologyChoice, resolve_topology

Level = tuple[str, TopologyChoice | None]  # the path of a topology level, and it resolved

_LOCAL = {Consistency.LOCAL_ONE, Consistency.LOCAL_QUORUM, Consistency.LOCAL_SERIAL}
_COUNTED = {Consistency.TWO: 2, Consistency.THREE: 3}
_CHECK_CONNECTION = Connection(contact_points=["127.0.0.1:9042"])


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def topology_levels(data: Mapping[str, Any], good: Sequence[Factor]) -> list[Level] | None:
    """The topologies the experiment runs: each level of the factor ``cluster.topology``,
    else the cluster section's, else ``[("cluster", None)]`` (no topology). None when one
    of them is not a topology (that is reported on its own)."""
    if "cluster.topology" in _mapping(data.get("factors")):
        factor = next((f for f in good if f.name == "cluster.topology"), None)
        if factor is None:
            return None
        return [
            (f"factors.cluster.topology[{index}]", resolve_topology(level))
            for index, level in enumerate(factor.levels)
        ]
    topology = _mapping(data.get("cluster")).get("topology")
    if topology is None:
        return [("cluster", None)]
    try:
        return [("cluster.topology", resolve_topology(topology))]
    except ConfigError:
        return None


def _nodes_problems(data: Mapping[str, Any], choices: list[TopologyChoice]) -> list[str]:
    """A topology gives the node count and needs network namespaces."""
    cluster = _mapping(data.get("cluster"))
    factors = _mapping(data.get("factors"))
    problems: list[str] = []
    why = "a topology's datacenters and links need nodes in network namespaces"
    if str(cluster.get("isolation", "netns")) == "process":
        problems.append(
            f"cluster.isolation: process: {why}; write isolation: netns, or leave it out "
            "(a topology implies it)"
        )
    levels = factors.get("cluster.isolation")
    for index, level in enumerate(levels if isinstance(levels, list) else []):
        if str(level) == "process":
            problems.append(f"factors.cluster.isolation[{index}]: process: {why}")
    if "nodes" in factors:
        problems.append(
            "factors.nodes: a topology gives the node count; vary cluster.topology instead"
        )
    nodes = cluster.get("nodes")
    wrong = [c for c in choices if isinstance(nodes, int) and c.topology.nodes != nodes]
    if wrong:
        listed = ", ".join(f"{c.text} has {c.topology.nodes}" for c in wrong)
        problems.append(
            f"cluster.nodes: {nodes}, but topology {listed}; leave nodes out (a topology "
            "gives the node count)"
        )
    return problems


def _client_dc_problems(client_dc: object, levels: list[Level]) -> list[str]:
    if not isinstance(client_dc, str):
        return []  # absent, or reported by the model
    problems: list[str] = []
    for _, choice in levels:
        if choice is None and client_dc != LOCAL_DATACENTER:
            problems.append(
                f"client_dc: {client_dc!r}: the cluster has no topology, so its nodes are all "
                f"in {LOCAL_DATACENTER}; give cluster.topology, or leave client_dc out"
            )
        elif choice is not None and client_dc not in choice.datacenters:
            problems.append(
                f"client_dc: {client_dc!r} is not a datacenter of topology {choice.text} "
                f"({', '.join(choice.datacenters)}); name one of them, or leave client_dc "
                "out (the topology's first is the default)"
            )
    return problems


def _example(choice: TopologyChoice | None) -> str:
    if choice is None:
        return f"{{class: {SIMPLE}, replication_factor: 1}}"
    counts = ", ".join(f"{dc}: {min(n, 3)}" for dc, n in choice.sites.items())
    return f"{{class: {NETWORK}, {counts}}}"


def _keyed_problems(replication: Mapping[str, Any], levels: list[Level]) -> list[str]:
    names = [choice.name for _, choice in levels if choice is not None]
    if not names:
        return [
            f"schema.replication: given per topology ({', '.join(replication)}), but the "
            f"experiment has no cluster.topology; give one map, e.g. {_example(None)}"
        ]
    problems = [
        f"schema.replication: no map for topology {choice.name!r}; add "
        f"{choice.name}: {_example(choice)}"
        for _, choice in levels
        if choice is not None and choice.name not in replication
    ]
    problems += [
        f"schema.replication.{name}: not a topology of this experiment (its topologies: "
        f"{', '.join(names)})"
        for name in replication
        if name not in names
    ]
    return problems


def _replication_problems(
    path: str, replication: Mapping[str, str | int], choice: TopologyChoice | None
) -> list[str]:
    """What one topology makes of one replication map."""
    sites = choice.sites if choice is not None else {LOCAL_DATACENTER: 0}
    where = (
        f"topology {choice.text}"
        if choice is not None
        else f"the cluster (no topology: its one datacenter is {LOCAL_DATACENTER})"
    )
    problems = [
        f"{path}.{dc}: datacenter {dc!r} is not in {where}; name {', '.join(sites)}"
        for dc in named_datacenters(replication)
        if dc not in sites
    ]
    if choice is None:
        return problems
    strategy = strategy_of(replication)
    if strategy == SIMPLE and len(sites) > 1:
        return [
            *problems,
            f"{path}: {SIMPLE} places replicas without regard to datacenters, and {where} "
            f"has {len(sites)}; use {NETWORK}, e.g. {_example(choice)}",
        ]
    counts = replicas_per_dc(replication, sites) if strategy in (SIMPLE, NETWORK) else {}
    for dc, count in counts.items():
        nodes = choice.topology.nodes if strategy == SIMPLE else sites[dc]
        if count is not None and count > nodes:
            problems.append(
                f"{path}: {count} replicas in datacenter {dc}, which has {nodes} node(s) in "
                f"{where}; Cassandra would keep {nodes} copies, and QUORUM could not be met"
            )
    if strategy == NETWORK and counts and not any(counts.values()):
        problems.append(f"{path}: no replica in any datacenter of {where}; e.g. {_example(choice)}")
    return problems


def _commands(data: Mapping[str, Any], good: Sequence[Factor]) -> list[tuple[str, Command]]:
    """The preload and each measured command as composed (those that compose: the rest
    are reported by :func:`casslab.experiment.file.file_checks.workload_problems`)."""
    measure = data.get("measure", "")
    if not isinstance(measure, str):
        measure = measure_mapping(measure)
        if measure is None:
            return []
    workload = next((f for f in good if f.kind is FactorKind.WORKLOAD), None)
    texts: list[tuple[str, str]] = []
    if workload is not None:
        texts = [(f"factors.workload[{i}]", str(w)) for i, w in enumerate(workload.levels)]
    elif isinstance(data.get("workload"), str) and str(data["workload"]).strip():
        texts = [("workload", str(data["workload"]))]
    threads, rate = absolute_levels(good)
    out: list[tuple[str, Command]] = []
    for path, text in texts:
        try:
            out.append((path, compose_command(text, measure, threads, rate)))
        except ValueError:
            continue
    preload = data.get("preload")
    if isinstance(preload, str) and preload.strip():
        out.append(("preload", Command(tool=name_of(preload), text=preload.strip())))
    return out


def _consistency_problems(
    data: Mapping[str, Any],
    good: Sequence[Factor],
    base_dir: Path | None,
    replications: list[tuple[TopologyChoice | None, Mapping[str, str | int]]],
) -> list[str]:
    """The consistency levels of the commands, as the engine specs have them, against
    each topology's replication (see the module docstring)."""
    client_dc = data.get("client_dc") if isinstance(data.get("client_dc"), str) else None
    problems: list[str] = []
    for path, command in _commands(data, good):
        try:
            spec = spec_for(command, _CHECK_CONNECTION, 0, base_dir)
        except (CasslabError, ValueError):
            continue  # reported by the command checks
        if spec.connection.local_dc is not None:
            problems.append(
                f"{path}: -node datacenter={spec.connection.local_dc}: an experiment chooses "
                "the load's datacenter once, for the preload and every measured command: "
                f"write client_dc: {spec.connection.local_dc} instead"
            )
        levels = {op.consistency for op in spec.operations}
        for choice, replication in replications:
            sites = choice.sites if choice is not None else {LOCAL_DATACENTER: 0}
            local = client_dc or next(iter(sites))
            counts = replicas_per_dc(replication, sites)
            where = f"topology {choice.text}" if choice is not None else "the cluster"
            for level in sorted(levels & _LOCAL):
                if counts.get(local, 1) == 0:
                    problems.append(
                        f"{path}: cl={level.value} from datacenter {local} (client_dc, else "
                        f"the topology's first) finds no replica there: the replication "
                        f"{dict(replication)} keeps none in {local} of {where}"
                    )
            known = [c for c in counts.values() if c is not None]
            for level in sorted(levels & set(_COUNTED)):
                if len(known) == len(counts) and counts and sum(known) < _COUNTED[level]:
                    problems.append(
                        f"{path}: cl={level.value} needs {_COUNTED[level]} replicas, but the "
                        f"replication {dict(replication)} keeps {sum(known)} in {where}"
                    )
    return problems


def topology_problems(
    data: Mapping[str, Any], good: Sequence[Factor], base_dir: Path | None = None
) -> list[str]:
    """Every problem the experiment's topologies make with the rest of its file (see the
    module docstring); ``good`` are its factors without problems of their own. An existing
    cluster's (``cluster.use``) or an inventory's (``cluster.hosts``) datacenters are not
    this file's to know: Cassandra itself refuses a replication or datacenter it lacks."""
    placed = _mapping(data.get("cluster"))
    if placed.get("use") is not None or placed.get("hosts") is not None:
        return []
    levels = topology_levels(data, good)
    if levels is None:
        return []
    choices = [choice for _, choice in levels if choice is not None]
    problems = _nodes_problems(data, choices) if choices else []
    problems += _client_dc_problems(data.get("client_dc"), levels)
    schema = _mapping(data.get("schema"))
    raw = schema.get("replication", {"class": SIMPLE, "replication_factor": 1})
    try:
        replication = checked_replication(_mapping(raw))
    except ValueError:
        return problems  # reported by the model
    keyed = is_keyed(replication)
    if keyed:
        problems += _keyed_problems(replication, levels)
    replications: list[tuple[TopologyChoice | None, Mapping[str, str | int]]] = []
    for _, choice in levels:
        name = choice.name if choice is not None else None
        try:
            one = replication_for(replication, name)
        except KeyError:
            continue  # reported above
        path = f"schema.replication.{name}" if keyed else "schema.replication"
        problems += _replication_problems(path, one, choice)
        replications.append((choice, one))
    return problems + _consistency_problems(data, good, base_dir, replications)
