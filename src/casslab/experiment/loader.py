"""Load and check an experiment file: every problem at once, each with its path.

:func:`load` reads a YAML file (its only I/O) and returns an :class:`Experiment`, or
raises :class:`ExperimentValidationError` whose ``problems`` list every problem as
``<path>: <message>``, e.g. ``factors.config.memtable_flush_writers[2]: expected an
integer, got 'ten'``. YAML syntax errors give the line and column.

Checks owned by other parts are called when those parts are importable: cassandra.yaml
settings (``casslab.cluster.config.validate_settings``), cassandra-stress syntax
(``casslab.load.stress.parse_stress``) and KPI names (``casslab.analysis.records``).
"""

from __future__ import annotations

import difflib
import importlib
import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import yaml
from pydantic import BaseModel, ValidationError

from casslab.errors import CasslabError, ExperimentError
from casslab.experiment.model import (
    ClusterSection,
    Experiment,
    ExperimentValidationError,
    Factor,
    FactorKind,
    MeasureByTool,
    Order,
    SchemaSection,
    TableOptions,
    parse_factor_name,
)
from casslab.experiment.plan import Tool, compose_command, find_level, level_key, tool_of

# ---------------------------------------------------------------- YAML


class _Loader(yaml.SafeLoader):
    """A safe loader that notes duplicate mapping keys instead of silently keeping one."""

    duplicates: list[str]


def _mapping_without_duplicates(loader: _Loader, node: yaml.MappingNode) -> dict[Any, Any]:
    first_line: dict[Any, int] = {}
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.value == "<<":
            continue
        key = loader.construct_object(key_node)
        line = key_node.start_mark.line + 1
        if key in first_line:
            loader.duplicates.append(
                f"line {line}, column {key_node.start_mark.column + 1}: duplicate key "
                f"{key!r} (first at line {first_line[key]}); keep one"
            )
        else:
            first_line[key] = line
    loader.flatten_mapping(node)
    return dict(loader.construct_pairs(node))


_Loader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _mapping_without_duplicates,
)


def parse_yaml(text: str, source: str) -> Any:
    """The YAML document in ``text``; syntax errors and duplicate keys raise with positions."""
    loader = _Loader(text)
    loader.duplicates = []
    try:
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = error.problem or error.context or "invalid YAML"
        raise ExperimentValidationError(source, [f"{where}YAML syntax: {problem}"]) from error
    except yaml.YAMLError as error:
        raise ExperimentValidationError(source, [f"YAML syntax: {error}"]) from error
    finally:
        loader.dispose()
    if loader.duplicates:
        raise ExperimentValidationError(source, loader.duplicates)
    return data


# ---------------------------------------------------------------- pydantic errors


_SECTIONS: dict[str, type[BaseModel]] = {
    "cluster": ClusterSection,
    "schema": SchemaSection,
    "table": TableOptions,
    "order": Order,
    "measure": MeasureByTool,
}

_PATTERN_HELP = {
    "name": "use letters, digits, '.', '_' or '-' (at most 64, starting with a letter or digit)",
    "keyspace": "use letters, digits and '_' (at most 48, starting with a letter)",
}


def format_path(parts: Iterable[str | int]) -> str:
    """``("factors", "config.x", 2)`` -> ``factors.config.x[2]``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _data_path(data: Any, loc: Sequence[str | int], error_type: str) -> list[str | int]:
    """The part of a pydantic location that names places in the file (no union tags)."""
    path: list[str | int] = []
    current = data
    for index, part in enumerate(loc):
        in_mapping = isinstance(current, Mapping) and part in current
        in_list = isinstance(current, list) and isinstance(part, int) and part < len(current)
        if in_mapping or in_list:
            path.append(part)
            current = current[part]
        elif index == len(loc) - 1 and error_type == "missing":
            path.append(part)
    return path


def _fields_at(path: Sequence[str | int]) -> list[str]:
    if len(path) == 1:
        return [f.alias or name for name, f in Experiment.model_fields.items()]
    section = _SECTIONS.get(str(path[0]))
    return list(section.model_fields) if section is not None and len(path) == 2 else []


def _message(error: Mapping[str, Any], path: Sequence[str | int]) -> str:
    kind = str(error["type"])
    value = error.get("input")
    ctx = error.get("ctx") or {}
    got = f", got {value!r}"
    by_type = {
        "missing": "required, but missing",
        "int_type": "expected an integer" + got,
        "int_parsing": "expected an integer" + got,
        "int_from_float": "expected an integer" + got,
        "float_type": "expected a number" + got,
        "float_parsing": "expected a number" + got,
        "string_type": "expected a string" + got,
        "bool_type": "expected true or false" + got,
        "bool_parsing": "expected true or false" + got,
        "list_type": "expected a list" + got,
        "dict_type": "expected a mapping" + got,
        "model_type": "expected a mapping" + got,
        "model_attributes_type": "expected a mapping" + got,
        "enum": f"expected {ctx.get('expected')}" + got,
        "literal_error": f"expected {ctx.get('expected')}" + got,
        "greater_than_equal": f"must be >= {ctx.get('ge')}" + got,
        "greater_than": f"must be > {ctx.get('gt')}" + got,
        "less_than_equal": f"must be <= {ctx.get('le')}" + got,
        "less_than": f"must be < {ctx.get('lt')}" + got,
    }
    if kind in by_type:
        return by_type[kind]
    if kind == "extra_forbidden":
        name = str(path[-1]) if path else "?"
        close = difflib.get_close_matches(name, _fields_at(path), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"unknown field {name!r}{hint}"
    if kind == "string_pattern_mismatch":
        last = str(path[-1]) if path else ""
        return _PATTERN_HELP.get(last, f"does not match {ctx.get('pattern')}") + got
    return str(error["msg"]).removeprefix("Value error, ")


def pydantic_problems(
    error: ValidationError, data: Any, prefix: Sequence[str | int] = ()
) -> list[str]:
    """Each error as ``<path>: <message>``; union alternatives at one path become one line."""
    grouped: dict[str, list[str]] = {}
    for item in error.errors():
        path = [*prefix, *_data_path(data, item["loc"], item["type"])]
        grouped.setdefault(format_path(path), []).append(_message(item, path))
    problems: list[str] = []
    for path_text, messages in grouped.items():
        deeper = [p for p in grouped if p.startswith((f"{path_text}.", f"{path_text}["))]
        if path_text and deeper:  # a union: the mapping branch's own errors say more
            messages = [m for m in messages if not m.startswith("expected ")]
        unique = list(dict.fromkeys(messages))
        if len(unique) > 1 and all(m.startswith("expected ") for m in unique):
            wanted = [m.removeprefix("expected ").split(", got ")[0] for m in unique]
            got = unique[0].split(", got ", 1)[1] if ", got " in unique[0] else "?"
            unique = [f"expected {' or '.join(dict.fromkeys(wanted))}, got {got}"]
        problems += [f"{path_text}: {m}" if path_text else m for m in unique]
    return problems


# ---------------------------------------------------------------- hooks into other parts


def _optional(module: str, name: str) -> Any | None:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


_FALLBACK_KINDS: dict[str, str] = {
    "memtable_flush_writers": "int",
    "concurrent_compactors": "int",
    "concurrent_reads": "int",
    "concurrent_writes": "int",
    "num_tokens": "int",
    "memtable_cleanup_threshold": "float",
    "auto_snapshot": "bool",
    "incremental_backups": "bool",
    "memtable_heap_space": "size",
    "memtable_offheap_space": "size",
    "compaction_throughput": "rate",
}
"""Types of a few common settings, used only when ``casslab.cluster.config`` is absent."""


def _fallback_settings(settings: Mapping[str, object]) -> list[str]:
    problems: list[str] = []
    for key, value in settings.items():
        kind = _FALLBACK_KINDS.get(key)
        if kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
            problems.append(f"{key}: expected an integer, got {value!r}")
        elif kind == "float" and (isinstance(value, bool) or not isinstance(value, int | float)):
            problems.append(f"{key}: expected a number, got {value!r}")
        elif kind == "bool" and not isinstance(value, bool):
            problems.append(f"{key}: expected true or false, got {value!r}")
        elif kind == "size" and not re.fullmatch(r"\d+(B|KiB|MiB|GiB)", str(value)):
            problems.append(f"{key}: expected a size like 2048MiB, got {value!r}")
        elif kind == "rate" and not re.fullmatch(r"\d+(B/s|KiB/s|MiB/s)", str(value)):
            problems.append(f"{key}: expected a rate like 16MiB/s, got {value!r}")
    return problems


def settings_problems(settings: Mapping[str, object], version: str | None) -> list[str]:
    """Problems of cassandra.yaml settings, each starting ``<key>: ``."""
    validate = _optional("casslab.cluster.config", "validate_settings")
    if validate is None:
        return _fallback_settings(settings)
    try:
        default = _optional("casslab.cluster.distribution", "DEFAULT_VERSION") or "5.0.9"
        return list(cast(Callable[..., list[str]], validate)(settings, version or default))
    except CasslabError:  # no distribution to read the settings catalogue from
        return _fallback_settings(settings)


FALLBACK_KPIS = frozenset(
    {
        "op_rate",
        "latency_mean_ms",
        "latency_p50_ms",
        "latency_p95_ms",
        "latency_p99_ms",
        "latency_p999_ms",
        "latency_max_ms",
        "errors",
        "cpu_busy_pct",
        "memory_used_mib",
        "disk_write_mb_s",
        "bytes_compacted",
        "compactions_completed",
        "compactions_pending",
        "sstables",
    }
)


def kpi_problem(name: str) -> str | None:
    """Why ``name`` is not a KPI (with the closest name), or None when it is one."""
    catalogue = _optional("casslab.analysis.records", "KPI_CATALOGUE")
    known: dict[str, bool] = (
        {str(k): bool(getattr(v, "per_operation", False)) for k, v in catalogue.items()}
        if isinstance(catalogue, Mapping)
        else dict.fromkeys(FALLBACK_KPIS, False)
    )
    if name in known:
        return None
    operation, dot, base = name.partition(".")
    if dot and operation and base in known:
        if known[base] or catalogue is None:
            return None
        return f"KPI {base!r} is not reported per operation; use {base!r}"
    close = difflib.get_close_matches(base if dot else name, list(known), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown KPI {name!r}{hint}"


def file_reader(base_dir: Path | None) -> Callable[[str], str]:
    """Reads a file named in a command: relative to the experiment file, then as given,
    then a workload shipped with casslab (YCSB ``workloada`` .. ``workloadf``)."""

    def read(name: str) -> str:
        for path in ([base_dir / name] if base_dir else []) + [Path(name).expanduser()]:
            if path.is_file():
                return path.read_text(encoding="utf-8")
        builtin = _optional("casslab.load.ycsb", "builtin_workload_text")
        if builtin is None:
            raise ExperimentError(f"{name}: no such file")
        return str(builtin(Path(name).name))

    return read


def command_problem(command: str, base_dir: Path | None = None) -> str | None:
    """Why a load command does not parse, or None (also when no parser is installed).

    A ``user`` command's profile and YCSB ``-P`` files are read relative to ``base_dir``
    (the experiment file's folder), so a file that is missing or malformed is caught too.
    """
    try:
        if tool_of(command) is Tool.YCSB:
            parse_ycsb = _optional("casslab.load.ycsb", "parse_ycsb")
            if parse_ycsb is not None:
                parse_ycsb(shlex.split(command), read_file=file_reader(base_dir))
            return None
        parse_stress = _optional("casslab.load.stress", "parse_stress")
        if parse_stress is None:
            return None
        parsed = parse_stress(command)
        profile = getattr(parsed, "profile", None)
        load_profile = _optional("casslab.load.profile", "load_profile")
        if isinstance(profile, str) and load_profile is not None:
            path = (base_dir / profile) if base_dir else Path(profile)
            if not path.is_file():
                return (
                    f"profile {profile!r}: no such file {path}; a profile path is relative "
                    "to the experiment file"
                )
            load_profile(path)
    except CasslabError as error:
        return str(error)
    return None


# ---------------------------------------------------------------- semantic checks


def _level_problems(factor: Factor, level: Any, version: str | None) -> list[str]:
    kind = factor.kind
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
        for problem in settings_problems(values, version):
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
    if kind in (FactorKind.THREADS, FactorKind.NODES):
        if isinstance(level, bool) or not isinstance(level, int) or level < 1:
            return [f"expected an integer >= 1, got {level!r}"]
        return []
    if isinstance(level, bool) or not isinstance(level, int | float) or level <= 0:
        return [f"expected a rate in operations per second (> 0), got {level!r}"]
    return []


def _factor_problems(
    factors: Mapping[str, Any], version: str | None
) -> tuple[list[str], list[Factor], list[Factor]]:
    """Problems, the factors whose name parses, and the factors without any problem."""
    problems: list[str] = []
    parsed: list[Factor] = []
    good: list[Factor] = []
    config_keys: dict[str, str] = {}
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
        per_level = [_level_problems(factor, level, version) for level in levels]
        if len(levels) > 1 and per_level[0] and all(p == per_level[0] for p in per_level):
            problems += [f"{path}: {p}" for p in per_level[0]]  # e.g. an unknown key
        else:
            for index, level_problems in enumerate(per_level):
                problems += [f"{path}[{index}]: {p}" for p in level_problems]
        if any(per_level):
            continue
        first_at: dict[str, int] = {}
        for index, level in enumerate(levels):
            key = level_key(factor, level)
            if key in first_at:
                problems.append(
                    f"{path}[{index}]: {level!r} repeats level [{first_at[key]}]; "
                    "list each level once"
                )
            first_at.setdefault(key, index)
        good.append(factor)
    return problems, parsed, good


def _cell_problems(
    path: str, cell: Any, factors: Mapping[str, Any], good: Sequence[Factor]
) -> list[str]:
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


def _command_problems(
    data: Mapping[str, Any], good: Sequence[Factor], base_dir: Path | None
) -> list[str]:
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
    if not isinstance(measure, str | Mapping):
        return problems  # reported by the model
    if isinstance(measure, Mapping):
        try:
            measure = MeasureByTool.model_validate(measure)
        except ValidationError:
            return problems  # reported by the model
    commands: list[tuple[str, str]] = []
    if workload_factor is not None:
        levels = workload_factor.levels
        commands = [(f"factors.workload[{i}]", str(w)) for i, w in enumerate(levels)]
    elif isinstance(default, str) and default.strip() and not has_workload_factor:
        commands = [("workload", default)]
    tools = {tool_of(text) for _, text in commands}
    if len(tools) > 1 and isinstance(measure, str) and measure.strip():
        problems.append(
            "measure: the workloads mix cassandra-stress and YCSB commands, which take "
            'different options; write measure: {stress: "...", ycsb: "..."}'
        )
        return problems
    threads = next((f.levels[0] for f in good if f.kind is FactorKind.THREADS), None)
    rate = next((f.levels[0] for f in good if f.kind is FactorKind.RATE), None)
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


def _in_file_order(problems: list[str], keys: list[Any]) -> list[str]:
    """``problems`` sorted (stably) by where their top-level field is in the file."""
    position = {str(key): index for index, key in enumerate(keys)}

    def where(problem: str) -> int:
        head = re.split(r"[.\[:]", problem, maxsplit=1)[0]
        return position.get(head, len(position))

    return sorted(problems, key=where)


def check(data: Any, source: str = "<experiment>", base_dir: Path | None = None) -> Experiment:
    """The experiment in ``data`` (a parsed YAML document), or raise listing every problem.

    ``base_dir`` is where files named in commands (stress profiles, YCSB ``-P`` files) are
    looked up: the experiment file's folder. None: the current directory.
    """
    if not isinstance(data, Mapping):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        raise ExperimentValidationError(
            source, [f"expected a mapping with name, factors, workload, measure, ...; got {kind}"]
        )
    problems: list[str] = []
    experiment: Experiment | None = None
    try:
        experiment = Experiment.model_validate(data)
    except ValidationError as error:
        problems += pydantic_problems(error, data)
    cluster = data.get("cluster")
    version = cluster.get("version") if isinstance(cluster, Mapping) else None
    version_text = str(version) if version is not None else None
    if isinstance(cluster, Mapping) and isinstance(cluster.get("config"), Mapping):
        config_problems = settings_problems(cluster["config"], version_text)
        problems += [f"cluster.config.{p}" for p in config_problems]
    good: list[Factor] = []
    factors = data.get("factors")
    if isinstance(factors, Mapping):
        factor_problems, parsed, good = _factor_problems(factors, version_text)
        problems += factor_problems
        baseline = data.get("baseline")
        problems += _cell_problems("baseline", baseline, factors, parsed)
        extra = data.get("extra_cells")
        for index, cell in enumerate(extra if isinstance(extra, list) else []):
            problems += _cell_problems(f"extra_cells[{index}]", cell, factors, parsed)
    kpis = data.get("kpis")
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
    problems += _command_problems(data, good, base_dir)
    problems = _in_file_order(list(dict.fromkeys(problems)), list(data))
    if problems or experiment is None:
        raise ExperimentValidationError(source, problems or ["invalid experiment"])
    return experiment


def parse(text: str, source: str = "<string>", base_dir: Path | None = None) -> Experiment:
    """The experiment in YAML ``text``; ``source`` names it in messages (see :func:`check`)."""
    return check(parse_yaml(text, source), source, base_dir)


def load(path: Path | str) -> Experiment:
    """Read and check the experiment file at ``path``."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise ExperimentError(
            f"read experiment file {file}: {error.strerror or error}; check the path "
            "(shipped experiments are in experiments/)"
        ) from error
    except UnicodeDecodeError as error:
        raise ExperimentError(
            f"read experiment file {file}: not UTF-8 text ({error.reason}); save it as UTF-8"
        ) from error
    return parse(text, str(file), file.parent)
