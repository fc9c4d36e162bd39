"""Design expansion: an experiment becomes cells (level combinations) and ordered trials.

Pure: records in, records out. ``design: factorial`` crosses every level of every factor;
``design: ofat`` runs the baseline cell, then, for each factor in file order, each of its
other levels with every other factor at its baseline level. ``extra_cells`` follow
(missing factors at baseline; cells already in the design are not repeated). The trials
then run in the order :mod:`casslab.experiment.design.trial_order` draws.

A trial id is ``<cell id>/<iteration>``: stable across runs of the same file, which is
what ``--resume`` matches finished trials on.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Mapping, Sequence

from pydantic import ValidationError

from casslab.cluster import Isolation, NodeIsolation
from casslab.errors import ConfigError, ExperimentError
from casslab.experiment.design.factor_levels import (
    canonical_level,
    factor_labels,
    find_level,
    level_key,
    level_slugs,
)
from casslab.experiment.design.plan_records import Cell, Plan, Trial
from casslab.experiment.design.trial_order import round_order, trial_order, with_restarts
from casslab.experiment.file.experiment_model import (
    SOFTWARE_FIELDS,
    Design,
    Experiment,
    Factor,
    FactorKind,
    factors_of,
    parse_duration_s,
)
from casslab.experiment.file.file_record import Level
from casslab.experiment.file.load_commands import Command, compose_command
from casslab.experiment.file.replication import replication_for
from casslab.experiment.steps.discover.discover_section import is_best, need_for
from casslab.experiment.steps.skew.skew_section import LwwSection, clock_offsets, resolve_probe
from casslab.load.front_ends import name_of
from casslab.net.presets import TopologyChoice, resolve_topology
from casslab.validation import validation_message


def baseline_levels(experiment: Experiment, factors: Sequence[Factor]) -> dict[str, Level]:
    """The baseline cell: the file's ``baseline`` levels, the first level elsewhere."""
    out: dict[str, Level] = {}
    for factor in factors:
        if factor.name in experiment.baseline:
            index = find_level(factor, experiment.baseline[factor.name])
            out[factor.name] = factor.levels[index if index is not None else 0]
        else:
            out[factor.name] = factor.levels[0]
    return out


def _design_combinations(
    experiment: Experiment, factors: Sequence[Factor]
) -> list[dict[str, Level]]:
    base = baseline_levels(experiment, factors)
    if experiment.design is Design.FACTORIAL:
        names = [f.name for f in factors]
        return [
            dict(zip(names, combo, strict=True))
            for combo in itertools.product(*(f.levels for f in factors))
        ]
    combos = [dict(base)]
    for factor in factors:
        base_key = level_key(factor, base[factor.name])
        for level in factor.levels:
            if level_key(factor, level) != base_key:
                combos.append({**base, factor.name: level})
    return combos


def _cell_key(factors: Sequence[Factor], levels: Mapping[str, Level]) -> tuple[str, ...]:
    return tuple(level_key(f, levels[f.name]) for f in factors)


def expand_cells(experiment: Experiment) -> tuple[Cell, ...]:
    """The cells of the design, then the extra cells, without repeats."""
    factors = factors_of(experiment)
    labels = factor_labels(factors)
    slugs = {f.name: level_slugs(f) for f in factors}
    base = baseline_levels(experiment, factors)
    base_key = _cell_key(factors, base)
    combos = _design_combinations(experiment, factors)
    for extra in experiment.extra_cells:
        combos.append({f.name: extra.get(f.name, base[f.name]) for f in factors})
    cells: list[Cell] = []
    seen: set[tuple[str, ...]] = set()
    for combo in combos:
        key = _cell_key(factors, combo)
        if key in seen:
            continue
        seen.add(key)
        resolved: dict[str, Level] = {}
        cell_labels: dict[str, str] = {}
        for factor in factors:
            index = find_level(factor, combo[factor.name])
            if index is None:  # the loader rejects such files; keep expand total anyway
                raise ValueError(f"{factor.name}: {combo[factor.name]!r} is not a level")
            resolved[factor.name] = factor.levels[index]
            cell_labels[factor.name] = slugs[factor.name][index]
        cell_id = ",".join(f"{labels[n]}={s}" for n, s in cell_labels.items()) or "baseline"
        cells.append(
            Cell(id=cell_id, levels=resolved, labels=cell_labels, baseline=key == base_key)
        )
    return tuple(cells)


LEGACY_FAULT_FIELDS: dict[str, None] = {"offset": None, "rate": None, "iops": None}
# fields a kind gained later, left out while unset: an earlier run's digest stays
LATER_FAULT_FIELDS = frozenset({"datacenter"})


def experiment_digest(experiment: Experiment) -> str:
    """SHA-256 of the resolved experiment, which a resumed run must match. The fields an
    earlier casslab did not have are left out while at their defaults (the cluster section's
    isolation fields, topology and JVM options, ``client_dc``, ``clients``, ``faults``,
    ``profile``, ``after_operations``, add-node's ``datacenter``): a run that it started
    keeps its digest, and resumes."""
    data = experiment.to_file_dict()
    defaults = NodeIsolation().model_dump(mode="json") | {"topology": None, "clock": None}
    defaults |= {"gc": None, "preset": None, "node_versions": None, "java_home": None}
    defaults |= {"jvm_options": []}
    data["cluster"] = {
        key: value
        for key, value in data["cluster"].items()
        if key not in defaults or value != defaults[key]
    }
    for key in ("client_dc", "lww", "discover", "clients", "faults", "profile"):
        if data.get(key) in (None, []):
            data.pop(key, None)
    if data.get("after_operations") is None:
        data.pop("after_operations", None)
    data.pop("claims", None)  # what the report judges, not what runs: claims added later resume
    # before each fault kind had its own fields, every fault carried all of them: kept so
    # that a run with faults which an earlier casslab started keeps its digest
    data["faults"] = [
        LEGACY_FAULT_FIELDS | {k: v for k, v in fault.items() if k not in LATER_FAULT_FIELDS or v}
        for fault in data.get("faults", [])
    ] or None
    if data["faults"] is None:
        del data["faults"]
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _topology_of(level: Level) -> TopologyChoice | None:
    """A ``cluster.topology`` level resolved (None: no topology)."""
    if level is None:
        return None
    try:
        return resolve_topology(level)
    except ConfigError as error:  # expand reports it as the experiment's problem
        raise ValueError(str(error)) from error


Composer = Callable[[str, int | None, float | None], Command]
"""The measured command of a workload at a threads and a rate level (see
:func:`_composer`)."""


def _composer(experiment: Experiment) -> Composer:
    """:func:`compose_command` with the experiment's measure options, each distinct
    (workload, threads, rate) composed once: a design of many trials repeats a few."""
    done: dict[tuple[str, int | None, float | None], Command] = {}

    def composed(workload: str, threads: int | None, rate: float | None) -> Command:
        key = (workload, threads, rate)
        if key not in done:
            done[key] = compose_command(workload, experiment.measure, threads, rate)
        return done[key]

    return composed


def _trial_for(
    experiment: Experiment,
    factors: Sequence[Factor],
    cell: Cell,
    iteration: int,
    position: int,
    compose: Composer,
) -> Trial:
    settings = dict(experiment.cluster.config)
    table = experiment.table
    nodes = experiment.cluster.nodes
    workload = experiment.workload or ""
    threads_level: Level = None
    rate_level: Level = None
    isolation: dict[str, Level] = {}  # cluster.<field> levels
    software: dict[str, str] = {}  # cluster.version and cluster.heap levels
    topology_level: Level = experiment.cluster.topology
    clock_level: Level = experiment.cluster.clock
    lww_levels: dict[str, Level] = {}
    for factor in factors:
        level = cell.levels[factor.name]
        if factor.kind is FactorKind.CONFIG:
            values = level if factor.linked else [level]
            settings.update(zip(factor.keys, values, strict=True))
        elif factor.kind is FactorKind.TABLE:
            table = table.with_option(factor.keys[0], level)
        elif factor.kind is FactorKind.WORKLOAD:
            workload = str(level)
        elif factor.kind is FactorKind.THREADS:
            threads_level = level
        elif factor.kind is FactorKind.RATE:
            rate_level = level
        elif factor.kind is FactorKind.NODES:
            nodes = int(level)
        elif factor.kind is FactorKind.CLOCK:
            clock_level = level
        elif factor.kind is FactorKind.LWW:
            lww_levels[factor.keys[0]] = level
        elif factor.kind is FactorKind.CLUSTER and factor.keys == ("topology",):
            topology_level = level
        elif factor.kind is FactorKind.CLUSTER and factor.keys[0] in SOFTWARE_FIELDS:
            software[factor.keys[0]] = str(canonical_level(factor, level))
        elif factor.kind is FactorKind.CLUSTER:
            isolation[factor.keys[0]] = level
    node_isolation = experiment.cluster.node_isolation
    if isolation:
        fields = {**node_isolation.model_dump(), **isolation}
        try:
            node_isolation = NodeIsolation.model_validate(fields)
        except ValidationError as error:  # expand reports it as the experiment's problem
            names = {name: f"cluster.{name}" for name in isolation}
            raise ValueError(validation_message(error, names=names)) from error
    topology = _topology_of(topology_level)
    if topology is not None:  # it gives the node count, and its nodes run in netns
        nodes = topology.topology.nodes
        if node_isolation.isolation is Isolation.PROCESS:
            node_isolation = node_isolation.model_copy(update={"isolation": Isolation.NETNS})
    try:
        replication = replication_for(
            experiment.schema_.replication, topology.name if topology else None
        )
    except KeyError as error:
        raise ValueError(
            f"schema.replication has no map for topology {error}; give one per topology"
        ) from error
    clock = clock_offsets(clock_level)
    probe = None
    if experiment.lww is not None or lww_levels:
        try:
            probe = resolve_probe(experiment.lww or LwwSection(), lww_levels, clock, nodes)
        except ValidationError as error:
            raise ValueError(validation_message(error)) from error
    try:
        need = need_for(experiment.discover, _group(factors, cell), threads_level, rate_level)
    except ValueError as error:
        raise ValueError(f"cell {cell.id}: {error}") from error
    threads = None if threads_level is None or is_best(threads_level) else int(threads_level)
    rate = None if rate_level is None or (need and need.rate_share) else float(rate_level)
    preload = experiment.preload
    return Trial(
        trial_id=f"{cell.id}/{iteration}",
        position=position,
        cell_id=cell.id,
        iteration=iteration,
        levels=cell.levels,
        settings=settings,
        nodes=nodes,
        heap=software.get("heap", experiment.cluster.heap),
        version=software.get("version", experiment.cluster.version),
        node_versions=experiment.cluster.node_versions or {},
        gc=software.get("gc", experiment.cluster.gc),
        preset=software.get("preset", experiment.cluster.preset),
        java_home=software.get("java_home", experiment.cluster.java_home),
        node_isolation=node_isolation,
        topology=topology,
        client_dc=experiment.client_dc,
        keyspace=experiment.schema_.keyspace,
        replication=replication,
        table=table,
        preload=Command(tool=name_of(preload), text=preload.strip()) if preload else None,
        warmup_s=parse_duration_s(experiment.warmup),
        workload=compose(workload, threads, rate),
        reset=experiment.reset,
        restart=False,
        clock=clock,
        lww=probe,
        discover=need,
    )


def _group(factors: Sequence[Factor], cell: Cell) -> str:
    """The discover group of a cell: its levels but ``rate`` and ``threads`` (the cells
    that differ only in load share a capacity)."""
    load = (FactorKind.RATE, FactorKind.THREADS)
    labels = [f"{f.name}={cell.labels[f.name]}" for f in factors if f.kind not in load]
    return ",".join(labels) or "all"


def expand(experiment: Experiment) -> Plan:
    """The plan of a valid experiment (see :func:`casslab.experiment.file.experiment_loader.load`).

    An experiment built in code without the loader's checks may still be invalid; then
    this raises ExperimentError with the first problem found.
    """
    try:
        factors = factors_of(experiment)
        cells = expand_cells(experiment)
        ordered = trial_order(cells, experiment.min_iterations, experiment.order)
        compose = _composer(experiment)
        trials = [
            _trial_for(experiment, factors, cell, iteration, position, compose)
            for position, (cell, iteration) in enumerate(ordered)
        ]
    except ValueError as error:
        raise ExperimentError(
            f"expand experiment {experiment.name}: {error}; check it with "
            "casslab.experiment.file.experiment_loader.check to see every problem"
        ) from error
    baseline = next(cell for cell in cells if cell.baseline)
    return Plan(
        experiment=experiment.name,
        digest=experiment_digest(experiment),
        design=experiment.design,
        order=experiment.order,
        iterations=experiment.min_iterations,
        adaptive=experiment.adaptive,
        factors=tuple(f.name for f in factors),
        baseline_cell_id=baseline.id,
        cells=cells,
        trials=with_restarts(trials),
    )


def add_round(experiment: Experiment, plan: Plan) -> Plan:
    """``plan`` with one more round of every cell (adaptive iterations), in the order the
    plan's order draws for that round (randomized: its own seeded shuffle)."""
    iteration = plan.iterations + 1
    factors = factors_of(experiment)
    compose = _composer(experiment)
    added = [
        _trial_for(experiment, factors, cell, iteration, len(plan.trials) + index, compose)
        for index, cell in enumerate(round_order(plan.cells, iteration, plan.order))
    ]
    return plan.model_copy(
        update={"iterations": iteration, "trials": with_restarts([*plan.trials, *added])}
    )
