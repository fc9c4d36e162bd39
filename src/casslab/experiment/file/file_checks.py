"""Checks of an experiment file across its fields and against the parts that own the rules
(each returns problems as ``<path>: <message>``; the loader collects them all).

The rules are those of their owners, called here so a bad file fails before any trial:
cassandra.yaml settings (:func:`casslab.cluster.config.validate_settings`, against the
catalogue of the Cassandra version the file runs), the cluster backend's limits
(:class:`casslab.cluster.ClusterSpec`, and :func:`casslab.cluster.limit_problems` for the
nodes' isolation: node sizes, memory and I/O sizes, heap against memory), cassandra-stress
and YCSB syntax (:mod:`casslab.load.stress`, :mod:`casslab.load.ycsb`, with the profiles
and ``-P`` files they name) and KPI names (:data:`casslab.analysis.analysis_records.KPI_CATALOGUE`).
A ``cluster.topology`` level is checked here as a topology
(:func:`casslab.net.presets.resolve_topology`); what the topologies make with the rest of
the file (``client_dc``, replication, consistency) is
:mod:`casslab.experiment.file.topology_checks`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from casslab.analysis.analysis_records import KPI_CATALOGUE, NODE_KPI, kpi_spec
from casslab.cluster import NodeIsolation, presets
from casslab.cluster.config import validate_settings
from casslab.cluster.distribution import DEFAULT_VERSION
from casslab.errors import AnalysisError, CasslabError, ConfigError
from casslab.experiment.design.cluster_setup import in_file_words
from casslab.experiment.design.factor_levels import find_level, level_key
from casslab.experiment.file.experiment_model import (
    ClusterSection,
    Factor,
    FactorKind,
    parse_factor_name,
)
from casslab.experiment.file.file_problems import pydantic_problems
from casslab.experiment.file.jdk_checks import (
    VERSION_FORM,
    gc_level_problems,
    java_home_level_problems,
    version_level_problems,
)
from casslab.experiment.file.load_commands import compose_command, measure_mapping
from casslab.experiment.file.table_options import TableOptions
from casslab.experiment.steps.discover.discover_checks import absolute_levels
from casslab.experiment.steps.discover.discover_section import (
    rate_level_problems,
    threads_level_problems,
)
from casslab.experiment.steps.skew.skew_checks import skew_level_problems
from casslab.load.credentials import password_env_problem
from casslab.load.front_ends import FRONT_ENDS, front_end_for, name_of
from casslab.net.presets import resolve_topology
from casslab.validation import plain_message, validation_problems

# ---------------------------------------------------------------- hooks into other parts


_HEAP = re.compile(r"\d+[MmGg]")


def versions_of(data: Mapping[str, Any]) -> list[str | None]:
    """The Cassandra versions an experiment file runs: the levels of its
    ``cluster.version`` factor, else its cluster's version (None: the default)."""
    factors = data.get("factors")
    levels = factors.get("cluster.version") if isinstance(factors, Mapping) else None
    if isinstance(levels, list) and levels:
        return [str(level) for level in levels]
    cluster = data.get("cluster")
    version = cluster.get("version") if isinstance(cluster, Mapping) else None
    return [str(version) if version is not None else None]


def settings_problems_all(
    settings: Mapping[str, object], versions: Sequence[str | None]
) -> list[str]:
    """:func:`settings_problems` against each version's catalogue; a problem that only
    some versions have names them."""
    found = {version: settings_problems(settings, version) for version in versions}
    out: list[str] = []
    for problem in dict.fromkeys(p for problems in found.values() for p in problems):
        having = [v or DEFAULT_VERSION for v, problems in found.items() if problem in problems]
        every = len(having) == len(found)
        out.append(problem if every else f"{problem} (Cassandra {', '.join(having)})")
    return out


def settings_problems(settings: Mapping[str, object], version: str | None) -> list[str]:
    """Problems of cassandra.yaml settings, each starting ``<key>: ``: checked against the
    settings catalogue of the very Cassandra version the experiment runs (its jar is
    fetched if needed); when that catalogue cannot be had, that is the problem."""
    if not settings or (version is not None and not VERSION_FORM.fullmatch(version)):
        return []  # a malformed version is reported on its own
    try:
        return validate_settings(settings, version or DEFAULT_VERSION)
    except CasslabError as error:
        return [f"cannot be checked: {error}"]


def kpi_problem(name: str) -> str | None:
    """Why ``name`` is not a KPI (with the closest name), or None when it is one: a
    catalogue name, ``<operation>.<kpi>`` or ``node<N>.<kpi>`` (see
    :func:`casslab.analysis.analysis_records.kpi_spec`, the one rule)."""
    try:
        kpi_spec(name)
    except AnalysisError:
        pass
    else:
        return None
    known = {str(k): v for k, v in KPI_CATALOGUE.items()}
    prefix, dot, base = name.rpartition(".")
    if dot and prefix and base in known:
        if NODE_KPI.fullmatch(prefix):
            return f"KPI {base!r} is not reported per node; use {base!r}"
        return f"KPI {base!r} is not reported per operation; use {base!r}"
    close = difflib.get_close_matches(base if dot else name, list(known), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown KPI {name!r}{hint}"


def kpis_problems(kpis: Any) -> list[str]:
    """Problems of the ``kpis`` list: unknown names (with the closest) and repeats."""
    problems: list[str] = []
    seen_kpis: set[str] = set()
    for index, name in enumerate(kpis if isinstance(kpis, list) else []):
        if not isinstance(name, str):
            continue  # reported by the model
        problem = kpi_problem(name)
        if problem is None and name in seen_kpis:
            problem = f"{name!r} is listed twice"
        seen_kpis.add(name)
        if problem is not None:
            problems.append(f"kpis[{index}]: {problem}")
    return problems


def until_problems(iterations: Any) -> list[str]:
    """Unknown KPI names in ``iterations.until.kpis`` (adaptive iterations)."""
    until = iterations.get("until") if isinstance(iterations, dict) else None
    if not isinstance(until, dict):
        return []
    return [f"iterations.until.{p}" for p in kpis_problems(until.get("kpis"))]


def command_problem(command: str, base_dir: Path | None = None) -> str | None:
    """Why a load command does not parse, or None.

    Its front end reads the files it names (a ``user`` command's profile, YCSB ``-P``
    files) relative to ``base_dir`` (the experiment file's folder), so a file that is
    missing or malformed is caught too; so is a ``password-env=VAR`` whose variable is not
    set (the run would fail at its first trial, after starting the cluster).
    """
    try:
        parsed = front_end_for(command).parse(command, base_dir=base_dir)
        problem = parsed.file_problem()
        if problem is not None:
            return problem
    except CasslabError as error:
        return str(error)
    name = parsed.password_env
    return password_env_problem(name) if name is not None else None


# ---------------------------------------------------------------- across fields


def cluster_problems(fields: Mapping[str, Any]) -> list[str]:
    """What the cluster backend refuses in a node count, heap or the nodes' isolation
    (more nodes than a local cluster has, a heap Cassandra cannot start with, an unknown
    node size, a heap larger than the memory limit), each as ``<field>: <message>``;
    checked here so the run does not meet it at its first trial."""
    from casslab.cluster import limit_problems, parse_spec

    given = dict(fields)
    try:
        spec = parse_spec(given)
    except ValidationError as error:
        problems = validation_problems(error, given)
        bad = {str(e["loc"][0]) for e in error.errors() if e["loc"]}
        rest = {k: v for k, v in given.items() if k not in bad}
        return problems + (cluster_problems(rest) if bad and rest != given else [])
    return [f"{field}: {in_file_words(message)}" for field, message in limit_problems(spec)]


def _varied(factors: Any) -> set[str]:
    """The ClusterSpec fields the file's factors vary (``nodes``, ``cluster.<field>``)."""
    if not isinstance(factors, Mapping):
        return set()
    names = {str(name) for name in factors}
    varied = {n.removeprefix("cluster.") for n in names if n.startswith("cluster.")}
    return varied | ({"nodes"} & names)


def section_cluster_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    """The ClusterSpec fields the ``cluster`` section fixes (its heap and the nodes'
    isolation, and the node count unless the ``nodes`` factor varies it); empty when the
    section is invalid (the model reports that)."""
    cluster = data.get("cluster")
    if not isinstance(cluster, Mapping):
        return {}
    try:
        section = ClusterSection.model_validate(cluster)
    except ValidationError:
        return {}
    fields: dict[str, Any] = {"heap": section.heap, "nodes": section.nodes}
    fields |= {name: getattr(section, name) for name in NodeIsolation.model_fields}
    fields |= {"java_home": section.java_home} if section.java_home is not None else {}
    varied = _varied(data.get("factors"))
    return {k: v for k, v in fields.items() if k not in varied}


def cluster_section_problems(data: Mapping[str, Any]) -> list[str]:
    """What the cluster backend refuses in the ``cluster`` section (a node count that
    the ``nodes`` factor does not replace, the heap, the nodes' isolation and limits that
    no ``cluster.*`` factor replaces), each as ``cluster.<field>: ...``."""
    fields = section_cluster_fields(data)
    if not fields:
        return []
    # the heap against the limits of each level of a cluster.<limit> factor is checked
    # at the levels (a topology sets no limit)
    if _varied(data.get("factors")) - {"nodes", "topology"}:
        heap = {"heap": fields.pop("heap")} if "heap" in fields else {}  # cluster.heap varies it
        problems = (cluster_problems(heap) if heap else []) + cluster_problems(fields)
    else:
        problems = cluster_problems(fields)
    return [f"cluster.{p}" for p in problems]


def _cluster_level_problems(
    factor: Factor,
    level: Any,
    cluster: Mapping[str, Any],
    versions: Sequence[str | None],
    homes: Sequence[str | None],
) -> list[str]:
    """Problems of a ``cluster.<field>`` level: the field's own, and those it makes with
    the section's other fields (a heap that does not fit in the level's memory), a
    version or a collector with each JDK in ``homes``, a JDK with each of ``versions``."""
    field = factor.keys[0]
    if field == "version":
        return version_level_problems(level, homes)
    if field == "java_home":
        return java_home_level_problems(level, versions)
    if field == "gc":
        return gc_level_problems(level, homes)
    if field == "heap" and not (isinstance(level, str) and _HEAP.fullmatch(level)):
        return [f"expected a heap size like 512M or 1G, got {level!r}"]
    context = {k: v for k, v in cluster.items() if k != field}
    before = set(cluster_problems(context))
    found = cluster_problems({**context, field: level})
    return [problem.partition(": ")[2] for problem in found if problem not in before]


def _level_problems(
    factor: Factor,
    level: Any,
    versions: Sequence[str | None],
    cluster: Mapping[str, Any],
    homes: Sequence[str | None],
) -> list[str]:
    kind = factor.kind
    if kind is FactorKind.CLUSTER and factor.keys == ("topology",):
        try:  # what it makes with the rest of the file: casslab.experiment.file.topology_checks
            resolve_topology(level)
        except ConfigError as error:
            return [str(error)]
        return []
    if kind is FactorKind.CLUSTER and factor.keys == ("preset",):
        return presets.preset_problems(level, versions)
    if kind is FactorKind.CLUSTER:
        return _cluster_level_problems(factor, level, cluster, versions, homes)
    if kind in (FactorKind.CLOCK, FactorKind.LWW):
        return skew_level_problems(factor.keys[0], level)
    if kind is FactorKind.CONFIG:
        if factor.linked:
            if not isinstance(level, list) or len(level) != len(factor.keys):
                return [
                    f"expected a list of {len(factor.keys)} values, one each for "
                    f"{', '.join(factor.keys)}, got {level!r}"
                ]
            values = dict(zip(factor.keys, level, strict=True))
        else:
            values = {factor.keys[0]: level}
        out = []
        for problem in settings_problems_all(values, versions):
            if not factor.linked:
                problem = problem.removeprefix(f"{factor.keys[0]}: ")
            out.append(problem)
        return out
    if kind is FactorKind.TABLE:
        try:
            TableOptions().with_option(factor.keys[0], level)
        except ValidationError as error:
            raw = {factor.keys[0]: level}
            return [p.removeprefix(f"{factor.keys[0]}: ") for p in pydantic_problems(error, raw)]
        return []
    if kind is FactorKind.WORKLOAD:
        if not isinstance(level, str) or not level.strip():
            return [f"expected a stress or YCSB command, got {level!r}"]
        return []
    if kind is FactorKind.THREADS:
        return threads_level_problems(level)
    if kind is FactorKind.NODES:
        if isinstance(level, bool) or not isinstance(level, int) or level < 1:
            return [f"expected an integer >= 1, got {level!r}"]
        return [p.removeprefix("nodes: ") for p in cluster_problems({"nodes": level})]
    return rate_level_problems(level)


def factor_problems(
    factors: Mapping[str, Any], version: str | None, cluster: Mapping[str, Any] | None = None
) -> tuple[list[str], list[Factor], list[Factor]]:
    """Problems, the factors whose name parses, and the factors without any problem.
    ``cluster``: the ClusterSpec fields the section fixes (:func:`section_cluster_fields`),
    which a ``cluster.*`` level is checked with."""
    problems: list[str] = []
    parsed: list[Factor] = []
    good: list[Factor] = []
    config_keys: dict[str, str] = {}
    versions = versions_of({"factors": factors, "cluster": {"version": version}})
    # the JDKs a version or collector level is checked with: none when the JDK is a factor
    # (its levels are checked with every version), else the section's (None: this host's)
    homes = [] if "cluster.java_home" in factors else [(cluster or {}).get("java_home")]
    for name, levels in factors.items():
        path = f"factors.{name}"
        try:
            kind, keys = parse_factor_name(str(name))
        except ValueError as error:
            problems.append(f"{path}: {error}")
            continue
        if not isinstance(levels, list):
            continue  # reported by the model
        if not levels:
            problems.append(f"{path}: expected at least one level")
            continue
        for key in keys if kind is FactorKind.CONFIG else ():
            if key in config_keys:
                problems.append(f"{path}: {key} is already varied by factors.{config_keys[key]}")
            config_keys[key] = str(name)
        factor = Factor(name=str(name), kind=kind, keys=keys, levels=tuple(levels))
        parsed.append(factor)
        per_level = [
            _level_problems(factor, level, versions, cluster or {}, homes) for level in levels
        ]
        if len(levels) > 1 and per_level[0] and all(p == per_level[0] for p in per_level):
            problems += [f"{path}: {p}" for p in per_level[0]]  # e.g. an unknown key
        else:
            for index, level_problems in enumerate(per_level):
                problems += [f"{path}[{index}]: {p}" for p in level_problems]
        if any(per_level):
            continue
        first_at: dict[str, int] = {}
        unreadable = False
        for index, level in enumerate(levels):
            try:
                key = level_key(factor, level)
            except ValidationError as error:
                problems += [f"{path}[{index}]: {plain_message(e)}" for e in error.errors()]
                unreadable = True
                continue
            except ValueError as error:
                problems.append(f"{path}[{index}]: {error}")
                unreadable = True
                continue
            if key in first_at:
                problems.append(
                    f"{path}[{index}]: {level!r} repeats level [{first_at[key]}]; "
                    "list each level once"
                )
            first_at.setdefault(key, index)
        if not unreadable:
            good.append(factor)
    return problems, parsed, good


def cell_problems(
    path: str, cell: Any, factors: Mapping[str, Any], good: Sequence[Factor]
) -> list[str]:
    """Problems of a cell at ``path`` (``baseline``, ``extra_cells[i]``): names that are no
    factor of the file, levels that are none of the factor's."""
    if not isinstance(cell, Mapping):
        return []  # reported by the model
    by_name = {f.name: f for f in good}
    problems: list[str] = []
    for name, level in cell.items():
        if name not in factors:
            close = difflib.get_close_matches(str(name), [str(n) for n in factors], n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            problems.append(f"{path}.{name}: not a factor of this experiment{hint}")
            continue
        factor = by_name.get(str(name))
        if factor is not None and find_level(factor, level) is None:
            listed = ", ".join(repr(v) for v in factor.levels)
            problems.append(f"{path}.{name}: {level!r} is not one of the levels ({listed})")
    return problems


def workload_problems(
    data: Mapping[str, Any], good: Sequence[Factor], base_dir: Path | None
) -> list[str]:
    """Problems of the load commands: the workload (a field or a factor, not both), the
    measure options (one per tool when the tools mix), each measured command as composed
    and the preload, each parsed with the files it names (relative to ``base_dir``)."""
    problems: list[str] = []
    workload_factor = next((f for f in good if f.kind is FactorKind.WORKLOAD), None)
    factor_names = data.get("factors") if isinstance(data.get("factors"), Mapping) else {}
    has_workload_factor = "workload" in (factor_names or {})
    default = data.get("workload")
    if has_workload_factor and default is not None:
        problems.append(
            "workload: also given as a factor (factors.workload); keep one: the factor "
            "varies it, this field fixes it"
        )
    elif not has_workload_factor and not default:
        problems.append(
            "workload: required when the workload is not a factor, e.g. "
            'workload: "mixed ratio(write=9,read=1)"'
        )
    measure = data.get("measure", "")
    if not isinstance(measure, str):
        measure = measure_mapping(measure)
        if measure is None:
            return problems  # reported by the model
        unknown = [name for name in measure if name not in FRONT_ENDS]
        for name in unknown:
            close = difflib.get_close_matches(name, list(FRONT_ENDS), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            known = ", ".join(sorted(FRONT_ENDS))
            problems.append(f"measure.{name}: not a load front end{hint}; known: {known}")
        if unknown:
            return problems
    commands: list[tuple[str, str]] = []
    if workload_factor is not None:
        levels = workload_factor.levels
        commands = [(f"factors.workload[{i}]", str(w)) for i, w in enumerate(levels)]
    elif isinstance(default, str) and default.strip() and not has_workload_factor:
        commands = [("workload", default)]
    tools = sorted({name_of(text) for _, text in commands})
    if len(tools) > 1 and isinstance(measure, str) and measure.strip():
        per_tool = ", ".join(f'{name}: "..."' for name in tools)
        problems.append(
            f"measure: the workloads mix {' and '.join(tools)} commands, which take "
            f"different options; write measure: {{{per_tool}}}"
        )
        return problems
    threads, rate = absolute_levels(good)
    for path, text in commands:
        try:
            command = compose_command(text, measure, threads, rate)
        except ValueError as error:
            problems.append(f"{path}: {error}")
            continue
        problem = command_problem(command.text, base_dir)
        if problem is not None:
            problems.append(f"{path}: {problem} (measured command: {command.text!r})")
    preload = data.get("preload")
    if isinstance(preload, str) and preload.strip():
        problem = command_problem(preload.strip(), base_dir)
        if problem is not None:
            problems.append(f"preload: {problem}")
    return problems
