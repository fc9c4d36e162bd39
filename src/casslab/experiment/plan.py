"""Plan expansion: an experiment becomes cells (level combinations) and ordered trials.

Pure: records in, records out. ``design: factorial`` crosses every level of every factor;
``design: ofat`` runs the baseline cell, then, for each factor in file order, each of its
other levels with every other factor at its baseline level. ``extra_cells`` follow
(missing factors at baseline; cells already in the design are not repeated).

Order: ``sequential`` runs the cells in design order, all iterations of a cell in a row
(fewest restarts). ``randomized`` runs round after round; each round runs every cell
once, in an order drawn from the seed (a randomized complete block design: drift over
time falls on every cell alike). The draw sorts cells by SHA-256 of ``seed:round:cell``,
so the same file and seed give the same order on any machine and Python version.

A trial id is ``<cell id>/<iteration>``: stable across runs of the same file, which is
what ``--resume`` matches finished trials on.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from casslab.errors import ExperimentError
from casslab.experiment.model import (
    SCHEMA_VERSION,
    Compaction,
    Design,
    Experiment,
    Factor,
    FactorKind,
    Level,
    MeasureByTool,
    Order,
    OrderKind,
    Record,
    ResetPolicy,
    TableOptions,
    factors_of,
    parse_duration_s,
    strategy_alias,
)

# ---------------------------------------------------------------- commands


class Tool(StrEnum):
    STRESS = "stress"  # cassandra-stress syntax: "mixed ratio(write=9,read=1) duration=60s ..."
    YCSB = "ycsb"  # "ycsb run -P workloada -p recordcount=10000 -threads 32"


class Command(Record):
    """A load command as the load parsers read it."""

    tool: Tool
    text: str


def tool_of(command: str) -> Tool:
    """YCSB when the command starts with ``ycsb``, else cassandra-stress."""
    first = command.strip().split(maxsplit=1)[:1]
    return Tool.YCSB if first and first[0].lower() == "ycsb" else Tool.STRESS


def _is_option(token: str) -> bool:
    return len(token) > 1 and token[0] == "-" and token[1].isalpha()


def _arg_key(token: str) -> str:
    """``duration=60s`` -> ``duration``; ``ratio(write=9)`` -> ``ratio``; ``threads>=4`` ->
    ``threads``; a bare word is its own key."""
    match = re.match(r"^([A-Za-z_][\w-]*)", token)
    return match.group(1).lower() if match else token


def _join(tokens: Iterable[str]) -> str:
    return " ".join(t if t and not re.search(r"[\s'\"]", t) else shlex.quote(t) for t in tokens)


def _split(text: str, what: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as error:
        raise ValueError(f"{what} {text!r}: {error} (check the quotes)") from error


def _stress_parts(tokens: Sequence[str]) -> tuple[list[str], dict[str, list[str]]]:
    head: list[str] = []
    options: dict[str, list[str]] = {}
    current: list[str] | None = None
    for token in tokens:
        if _is_option(token):
            current = options.setdefault(token.lower(), [])
        elif current is None:
            head.append(token)
        else:
            current.append(token)
    return head, options


def _merge_args(specific: Sequence[str], general: Sequence[str]) -> list[str]:
    """``specific`` args, then those of ``general`` whose key ``specific`` does not set."""
    keys = {_arg_key(arg) for arg in specific}
    return [*specific, *(arg for arg in general if _arg_key(arg) not in keys)]


def _compose_stress(workload: str, measure: str, threads: int | None, rate: float | None) -> str:
    head, options = _stress_parts(_split(workload, "workload"))
    measure_head, measure_options = _stress_parts(_split(measure, "measure"))
    if not head:
        raise ValueError(f"workload {workload!r}: expected a command first (write, mixed, ...)")
    bare = [arg for arg in measure_head if "=" not in arg and "(" not in arg]
    if bare:
        raise ValueError(
            f"measure {measure!r}: holds options only (e.g. 'duration=60s cl=ONE -rate "
            f"threads=32'), but {bare[0]!r} looks like a command; put commands in workload"
        )
    merged_head = [head[0], *_merge_args(head[1:], measure_head)]
    merged: dict[str, list[str]] = {}
    for name, args in measure_options.items():
        merged[name] = options.get(name, args)  # the workload's option replaces it whole
    for name, args in options.items():
        merged.setdefault(name, args)
    if threads is not None or rate is not None:
        rate_args = merged.get("-rate", [])
        drop = {"auto"}
        extra: list[str] = []
        if threads is not None:
            drop.add("threads")
            extra.append(f"threads={threads}")
        if rate is not None:
            drop |= {"fixed", "throttle"}
            extra.append(f"fixed={_number(rate)}/s")
        merged["-rate"] = [a for a in rate_args if _arg_key(a) not in drop] + extra
    tokens = list(merged_head)
    for name, args in merged.items():
        tokens += [name, *args]
    return _join(tokens)


_YCSB_VALUED = {"-p", "-P", "-threads", "-target", "-db", "-cp", "-l"}


def _ycsb_parts(tokens: Sequence[str]) -> list[tuple[str, str | None]]:
    parts: list[tuple[str, str | None]] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token in _YCSB_VALUED and index + 1 < len(tokens):
            parts.append((token, tokens[index + 1]))
            index += 2
        else:
            parts.append((token, None))
            index += 1
    return parts


def _ycsb_key(flag: str, value: str | None) -> str:
    if flag == "-p" and value is not None:
        return "-p " + value.partition("=")[0]
    if flag == "-P":
        return f"-P {value}"
    return flag


def _compose_ycsb(workload: str, measure: str, threads: int | None, rate: float | None) -> str:
    tokens = _split(workload, "workload")
    if len(tokens) < 2 or tokens[1].lower() not in {"load", "run"}:
        raise ValueError(
            f"workload {workload!r}: a YCSB command starts 'ycsb run' or 'ycsb load' "
            "(e.g. 'ycsb run -P workloada')"
        )
    own = _ycsb_parts(tokens[2:])
    general = _ycsb_parts(_split(measure, "measure"))
    keys = {_ycsb_key(f, v) for f, v in own}
    parts = own + [(f, v) for f, v in general if _ycsb_key(f, v) not in keys]
    overrides: list[tuple[str, str | None]] = []
    if threads is not None:
        overrides.append(("-threads", str(threads)))
    if rate is not None:
        overrides.append(("-target", _number(rate)))
    replaced = {flag for flag, _ in overrides}
    parts = [(f, v) for f, v in parts if f not in replaced] + overrides
    out = tokens[:2]
    for flag, value in parts:
        out += [flag] if value is None else [flag, value]
    return _join(out)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def measure_for(measure: str | MeasureByTool, tool: Tool) -> str:
    """The measure options that apply to a workload of ``tool``."""
    if isinstance(measure, MeasureByTool):
        return measure.ycsb if tool is Tool.YCSB else measure.stress
    return measure


def compose_command(
    workload: str,
    measure: str | MeasureByTool = "",
    threads: int | None = None,
    rate: float | None = None,
) -> Command:
    """The full measured command: the workload, the measure options it does not set itself,
    then the ``threads`` / ``rate`` factor levels, which override both.

    Precedence: a ``key=value`` argument of the workload (``cl=QUORUM``) wins over the same
    key in ``measure``; an option of the workload (``-rate ...``, ``-pop ...``) replaces
    the same option of ``measure`` whole; a threads level then sets ``-rate threads=N``.

    cassandra-stress: ``mixed ratio(write=9,read=1)`` + ``duration=30s -rate threads=16``
    -> ``mixed ratio(write=9,read=1) duration=30s -rate threads=16``; a rate level sets
    ``-rate fixed=<rate>/s`` (open loop). YCSB: ``-threads`` and ``-target``. Raises
    ValueError when a command cannot be split (unbalanced quotes) or has no command word.
    """
    tool = tool_of(workload)
    options = measure_for(measure, tool)
    if tool is Tool.YCSB:
        return Command(tool=tool, text=_compose_ycsb(workload, options, threads, rate))
    return Command(tool=tool, text=_compose_stress(workload, options, threads, rate))


# ---------------------------------------------------------------- level identity and slugs


def canonical_level(factor: Factor, level: Level) -> Level:
    """A level in a form where equal meanings compare equal (``LCS`` == the class name)."""
    if factor.kind is FactorKind.TABLE and factor.keys == ("compaction",):
        return Compaction.model_validate(level).model_dump(mode="json")
    if isinstance(level, list):
        return [canonical_level_scalar(item) for item in level]
    return canonical_level_scalar(level)


def canonical_level_scalar(level: Level) -> Level:
    if isinstance(level, float) and level.is_integer():
        return int(level)
    return level


def level_key(factor: Factor, level: Level) -> str:
    """A string that is equal for two levels of ``factor`` exactly when they mean the same."""
    return json.dumps(canonical_level(factor, level), sort_keys=True, default=str)


def find_level(factor: Factor, level: Level) -> int | None:
    """The index of ``level`` among the factor's levels, or None."""
    try:
        wanted = level_key(factor, level)
    except ValueError:
        return None
    for index, candidate in enumerate(factor.levels):
        try:
            if level_key(factor, candidate) == wanted:
                return index
        except ValueError:
            continue
    return None


_SLUG_MAX = 40


def _clean(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+]+", "-", text).strip("-.") or "x"


def _workload_slug(command: str) -> str:
    if tool_of(command) is Tool.YCSB:
        words = [w for w in command.split() if w.lower() not in {"ycsb", "run", "load", "-p"}]
        return _clean("ycsb-" + "-".join(w.rsplit("/", 1)[-1] for w in words))

    # "ratio(write=9,read=1)" -> "9,1": keep the values of key=value pairs in brackets
    def values(match: re.Match[str]) -> str:
        items = [item.partition("=")[2] or item for item in match.group(1).split(",")]
        return ",".join(items)

    return _clean(re.sub(r"\b\w+\(([^)]*)\)", values, command))


def level_slug(factor: Factor, level: Level) -> str:
    """A short readable label of a level: ``LCS``, ``2048MiB``, ``mixed-9-1``, ``6+0.14``."""
    if isinstance(level, bool):
        return "true" if level else "false"
    if isinstance(level, int | float):
        return _clean(_number(level))
    if factor.kind is FactorKind.TABLE and factor.keys == ("compaction",):
        compaction = Compaction.model_validate(level)
        parts = [strategy_alias(compaction.strategy)]
        parts += [f"{k}-{_map_text(v)}" for k, v in compaction.options.items()]
        return _clean("-".join(parts))
    if factor.kind is FactorKind.WORKLOAD and isinstance(level, str):
        return _workload_slug(level)
    if isinstance(level, list):
        return "+".join(level_slug(factor, item) for item in level)
    if isinstance(level, dict):
        return _clean("-".join(f"{k}-{_map_text(v)}" for k, v in level.items()))
    return _clean(str(level))


def _map_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _shorten(slug: str) -> str:
    if len(slug) <= _SLUG_MAX:
        return slug
    digest = hashlib.sha256(slug.encode()).hexdigest()[:6]
    return f"{slug[: _SLUG_MAX - 7].rstrip('-.')}-{digest}"


def level_slugs(factor: Factor) -> list[str]:
    """Slugs of every level of ``factor``, made unique (``-2``, ``-3``) where they collide."""
    slugs: list[str] = []
    for level in factor.levels:
        slug = _shorten(level_slug(factor, level))
        base, count = slug, 1
        while slug in slugs:
            count += 1
            slug = f"{base}-{count}"
        slugs.append(slug)
    return slugs


def factor_labels(factors: Sequence[Factor]) -> dict[str, str]:
    """Factor name -> the label used in cell ids (the short name, unless two collide)."""
    shorts = [f.short_name for f in factors]
    return {f.name: f.short_name if shorts.count(f.short_name) == 1 else f.name for f in factors}


# ---------------------------------------------------------------- cells


class Cell(Record):
    """One combination of factor levels."""

    id: str  # "compaction=LCS,workload=mixed-9-1"; "baseline" when there are no factors
    levels: dict[str, Level]  # factor name -> level as written in the file
    labels: dict[str, str]  # factor name -> level slug
    baseline: bool = False


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


# ---------------------------------------------------------------- trials


class RestartReason(StrEnum):
    FIRST = "first"  # the first trial of a run: nodes start with its configuration
    CONFIG = "config"  # cassandra.yaml settings differ from the previous trial's
    NODES = "nodes"  # the node count differs from the previous trial's


class Trial(Record):
    """Everything the runner needs for one trial, resolved."""

    trial_id: str  # "<cell id>/<iteration>": stable across runs of the same file
    position: int  # 0-based position in the run order
    cell_id: str
    iteration: int  # 1-based
    levels: dict[str, Level]
    settings: dict[str, Any]  # cassandra.yaml: cluster.config, then config.* levels
    nodes: int
    heap: str | None
    version: str | None
    keyspace: str
    replication: dict[str, str | int]
    table: TableOptions
    preload: Command | None
    warmup_s: float
    workload: Command  # the measured command, measure options and overrides applied
    reset: ResetPolicy
    restart: bool  # nodes must (re)start before this trial: config or node count changed
    restart_reason: RestartReason | None = None


class Plan(Record):
    """The expanded experiment: its cells and its trials in run order."""

    schema_version: Literal[1] = SCHEMA_VERSION
    experiment: str
    digest: str  # SHA-256 of the resolved experiment: a resumed run must match it
    design: Design
    order: Order
    iterations: int
    factors: tuple[str, ...]
    baseline_cell_id: str
    cells: tuple[Cell, ...]
    trials: tuple[Trial, ...] = Field(default=())

    def cell(self, cell_id: str) -> Cell:
        """The cell with this id; ExperimentError when the plan has none (e.g. a results
        directory written by a different version of the experiment file)."""
        for cell in self.cells:
            if cell.id == cell_id:
                return cell
        raise ExperimentError(
            f"experiment {self.experiment}: no cell {cell_id!r} in the plan; the results "
            "were written by another version of the file (compare the plan digest)"
        )


def experiment_digest(experiment: Experiment) -> str:
    text = json.dumps(experiment.to_file_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _draw(seed: int, round_number: int, cell_id: str) -> str:
    return hashlib.sha256(f"{seed}:{round_number}:{cell_id}".encode()).hexdigest()


def trial_order(cells: Sequence[Cell], iterations: int, order: Order) -> list[tuple[Cell, int]]:
    """(cell, iteration) pairs in run order. See the module docstring."""
    if order.kind is OrderKind.SEQUENTIAL:
        return [(cell, i) for cell in cells for i in range(1, iterations + 1)]
    out: list[tuple[Cell, int]] = []
    for iteration in range(1, iterations + 1):
        shuffled = sorted(cells, key=lambda cell: _draw(order.seed, iteration, cell.id))
        out += [(cell, iteration) for cell in shuffled]
    return out


def _trial_for(
    experiment: Experiment, factors: Sequence[Factor], cell: Cell, iteration: int, position: int
) -> Trial:
    settings = dict(experiment.cluster.config)
    table = experiment.table
    nodes = experiment.cluster.nodes
    workload = experiment.workload or ""
    threads: int | None = None
    rate: float | None = None
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
            threads = int(level)
        elif factor.kind is FactorKind.RATE:
            rate = float(level)
        elif factor.kind is FactorKind.NODES:
            nodes = int(level)
    preload = experiment.preload
    return Trial(
        trial_id=f"{cell.id}/{iteration}",
        position=position,
        cell_id=cell.id,
        iteration=iteration,
        levels=cell.levels,
        settings=settings,
        nodes=nodes,
        heap=experiment.cluster.heap,
        version=experiment.cluster.version,
        keyspace=experiment.schema_.keyspace,
        replication=experiment.schema_.replication,
        table=table,
        preload=Command(tool=tool_of(preload), text=preload.strip()) if preload else None,
        warmup_s=parse_duration_s(experiment.warmup),
        workload=compose_command(workload, experiment.measure, threads, rate),
        reset=experiment.reset,
        restart=False,
    )


def with_restarts(trials: Sequence[Trial]) -> tuple[Trial, ...]:
    """``trials`` renumbered from 0, each flagged for a restart against the one before it."""
    out: list[Trial] = []
    previous: Trial | None = None
    for position, trial in enumerate(trials):
        reason: RestartReason | None = None
        if previous is None:
            reason = RestartReason.FIRST
        elif trial.nodes != previous.nodes:
            reason = RestartReason.NODES
        elif trial.settings != previous.settings:
            reason = RestartReason.CONFIG
        update = {"position": position, "restart": reason is not None, "restart_reason": reason}
        out.append(trial.model_copy(update=update))
        previous = trial
    return tuple(out)


def expand(experiment: Experiment) -> Plan:
    """The plan of a valid experiment (see :func:`casslab.experiment.loader.load`).

    An experiment built in code without the loader's checks may still be invalid; then
    this raises ExperimentError with the first problem found.
    """
    try:
        factors = factors_of(experiment)
        cells = expand_cells(experiment)
        ordered = trial_order(cells, experiment.iterations, experiment.order)
        trials = [
            _trial_for(experiment, factors, cell, iteration, position)
            for position, (cell, iteration) in enumerate(ordered)
        ]
    except ValueError as error:
        raise ExperimentError(
            f"expand experiment {experiment.name}: {error}; check it with "
            "casslab.experiment.loader.check to see every problem"
        ) from error
    baseline = next(cell for cell in cells if cell.baseline)
    return Plan(
        experiment=experiment.name,
        digest=experiment_digest(experiment),
        design=experiment.design,
        order=experiment.order,
        iterations=experiment.iterations,
        factors=tuple(f.name for f in factors),
        baseline_cell_id=baseline.id,
        cells=cells,
        trials=with_restarts(trials),
    )


def pending(plan: Plan, finished: Iterable[str]) -> tuple[Trial, ...]:
    """The trials still to run, in plan order, without those whose id is in ``finished``.

    Positions and restart flags are recomputed over what remains: the first remaining
    trial always starts the nodes.
    """
    done = set(finished)
    return with_restarts([t for t in plan.trials if t.trial_id not in done])
