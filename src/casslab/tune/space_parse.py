"""The ``tune.space`` mapping read into :class:`~casslab.tune.spec.Space` records, every
problem listed as ``tune.space.<entry>: <message>`` (pure but for the settings catalogue).

Each entry's values are checked by the rules that own them: cassandra.yaml settings by
:func:`casslab.experiment.file.file_checks.settings_problems` (the catalogue of the very Cassandra
version the file runs: unknown keys with the closest names, values of the wrong type,
ranges Cassandra refuses), table options by
:class:`casslab.experiment.file.table_options.TableOptions`, factor names by
:func:`casslab.experiment.file.experiment_model.parse_factor_name`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from casslab.experiment.file.experiment_model import FactorKind, parse_factor_name
from casslab.experiment.file.file_checks import settings_problems
from casslab.experiment.file.table_options import (
    COMPACTION_OPTIONS,
    Compaction,
    TableOptions,
    canonical_strategy,
    strategy_alias,
)
from casslab.tune.spec import (
    RANGE_KINDS,
    ChoiceParam,
    CompactionParam,
    Param,
    ParamValue,
    RangeKind,
    RangeParam,
    Space,
    StrategySpace,
    Target,
    encode_choice,
    in_unit,
    sub_name,
    unit_value,
)
from casslab.validation import validation_message

FORMS = (
    "{int: [lo, hi]}, {float: [lo, hi]}, {size: [64MiB, 1GiB]}, {rate: [8MiB/s, 64MiB/s]} "
    "(each with optional log: true and default: <value>) or {choice: [a, b, ...]}"
)

ValueCheck = Callable[[Any], str | None]  # why a file value is refused, or None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _bounds(kind: RangeKind, raw: Any) -> tuple[float, float, str | None] | str:
    """(lo, hi, unit) of a range, or why it is malformed."""
    example = {"int": "[1, 8]", "float": "[0.05, 0.5]", "size": "[64MiB, 1GiB]"}
    form = example.get(kind.value, "[8MiB/s, 64MiB/s]")
    if not isinstance(raw, list) or len(raw) != 2:
        return f"{kind.value} takes a list [lo, hi], e.g. {form}; got {raw!r}"
    lo, hi = raw
    if kind is RangeKind.INT:
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in raw):
            return f"int bounds must be integers, got {raw!r}; use float: {raw!r} for numbers"
        return float(lo), float(hi), None
    if kind is RangeKind.FLOAT:
        if not all(_number(v) for v in raw):
            return f"float bounds must be numbers, got {raw!r}"
        return float(lo), float(hi), None
    word = "size like 64MiB or 1GiB" if kind is RangeKind.SIZE else "rate like 16MiB/s"
    parsed = [unit_value(str(v), kind) if isinstance(v, str) else None for v in raw]
    if parsed[0] is None or parsed[1] is None:
        return f"{kind.value} bounds must each be a {word}, got {raw!r}"
    unit = parsed[0][1]  # counted in the lower bound's unit
    high = in_unit(str(hi), kind, unit)
    assert high is not None
    if high != int(high):
        return f"hi {hi!r} is not a whole number of {unit} (lo's unit); write both in {unit}"
    return float(parsed[0][0]), high, unit


def _default_in_range(param: RangeParam, raw: Any) -> ParamValue | str:
    """A range's default (from the file or the base configuration) as the search stores it,
    or why it does not fit."""
    if param.kind in (RangeKind.SIZE, RangeKind.RATE):
        value = in_unit(str(raw), param.kind, param.unit or "") if isinstance(raw, str) else None
        if value is None or value != int(value):
            return f"default {raw!r} is not a whole {param.kind.value} in {param.unit}"
        stored: ParamValue = int(value)
    elif param.kind is RangeKind.INT:
        if not isinstance(raw, int) or isinstance(raw, bool):
            return f"default {raw!r} is not an integer"
        stored = raw
    else:
        if not _number(raw):
            return f"default {raw!r} is not a number"
        stored = float(raw)
    assert isinstance(stored, int | float)
    if not param.low <= stored <= param.high:
        return (
            f"the default configuration's value {raw!r} is outside [{param.low:g}, "
            f"{param.high:g}]; widen the range so the default is one of its points"
        )
    return stored


def parse_param(
    name: str,
    target: Target,
    keys: tuple[str, ...],
    raw: Any,
    check: ValueCheck,
    base: Any = None,
) -> tuple[RangeParam | ChoiceParam | None, list[str]]:
    """One range or choice entry; ``check`` refuses file values, ``base`` is the value the
    base configuration gives (None: none)."""
    if not isinstance(raw, Mapping):
        return None, [f"expected a mapping {FORMS}, got {raw!r}"]
    kinds = [k for k in (*RANGE_KINDS, "choice") if k in raw]
    unknown = sorted(set(raw) - {*RANGE_KINDS, "choice", "log", "default"})
    if unknown:
        return None, [f"unknown key(s) {', '.join(map(str, unknown))}; expected {FORMS}"]
    if len(kinds) != 1:
        got = "none" if not kinds else " and ".join(kinds)
        return None, [f"give exactly one of int, float, size, rate or choice (got {got})"]
    default_raw = raw.get("default", base)
    if kinds[0] == "choice":
        return _choice(name, target, keys, raw, check, default_raw)
    if len(keys) > 1:
        return None, [f"a linked entry ({'+'.join(keys)}) takes choice: [[...], ...] only"]
    kind = RangeKind(kinds[0])
    bounds = _bounds(kind, raw[kind.value])
    if isinstance(bounds, str):
        return None, [bounds]
    lo, hi, unit = bounds
    log = raw.get("log", False)
    if not isinstance(log, bool):
        return None, [f"log: expected true or false, got {log!r}"]
    if lo >= hi:
        return None, [f"lo must be < hi, got {raw[kind.value]!r}; give [lo, hi] with lo < hi"]
    if log and lo <= 0:
        return None, [f"log: true needs lo > 0, got {raw[kind.value]!r}"]
    param = RangeParam(
        name=name, target=target, keys=keys, kind=kind, low=lo, high=hi, log=log, unit=unit
    )
    found = [p for p in (check(param.level(lo)), check(param.level(hi))) if p]
    problems = list(dict.fromkeys(found))  # an unknown key is one problem, not one a bound
    if default_raw is not None:
        stored = _default_in_range(param, default_raw)
        if isinstance(stored, str):
            problems.append(stored)
        else:
            param = param.model_copy(update={"default": stored})
    return (None if problems else param), problems


def _choice(
    name: str,
    target: Target,
    keys: tuple[str, ...],
    raw: Mapping[str, Any],
    check: ValueCheck,
    default_raw: Any,
) -> tuple[ChoiceParam | None, list[str]]:
    choices = raw["choice"]
    if "log" in raw:
        return None, ["log applies to ranges, not to choice"]
    if not isinstance(choices, list) or len(choices) < 2:
        return None, [
            f"choice takes a list of at least two values, got {choices!r}; a fixed value "
            "belongs in cluster.config (or table:)"
        ]
    problems: list[str] = []
    for index, choice in enumerate(choices):
        if len(keys) > 1 and (not isinstance(choice, list) or len(choice) != len(keys)):
            problems.append(
                f"choice[{index}]: expected a list of {len(keys)} values, one per key of "
                f"{'+'.join(keys)}, got {choice!r}"
            )
            continue
        problem = check(choice)
        if problem:
            problems.append(f"choice[{index}]: {problem}")
    encoded = [encode_choice(c) for c in choices]
    if len(set(map(repr, encoded))) != len(encoded):
        problems.append(f"choice lists a value twice: {choices!r}")
    if problems:
        return None, problems
    param = ChoiceParam(name=name, target=target, keys=keys, choices=tuple(choices))
    if default_raw is not None:
        default = encode_choice(default_raw)
        if default not in param.encoded:
            return None, [
                f"the default configuration's value {default_raw!r} is not one of the "
                "choices; add it, so the default is a point of the space"
            ]
        param = param.model_copy(update={"default": default})
    return param, []


def _config_check(keys: tuple[str, ...], version: str | None) -> ValueCheck:
    def check(value: Any) -> str | None:
        values = value if len(keys) > 1 else [value]
        problems = settings_problems(dict(zip(keys, values, strict=True)), version)
        return "; ".join(problems) or None

    return check


def _table_check(option: str) -> ValueCheck:
    def check(value: Any) -> str | None:
        try:
            TableOptions().with_option(option, value)
        except ValidationError as error:
            return validation_message(error)
        return None

    return check


def _compaction_option_check(strategy: str, option: str) -> ValueCheck:
    def check(value: Any) -> str | None:
        try:
            Compaction(strategy=strategy, options={option: value})
        except ValidationError as error:
            return validation_message(error)
        return None

    return check


def parse_compaction(raw: Any, base: Compaction | None) -> tuple[CompactionParam | None, list[str]]:
    """``table.compaction: {STCS: {min_threshold: {int: [2, 32]}}, LCS: {}, ...}``."""
    if not isinstance(raw, Mapping) or not raw:
        return None, [
            "expected a mapping of strategies to their searched options, e.g. {STCS: "
            "{min_threshold: {int: [2, 32]}}, LCS: {sstable_size_in_mb: {int: [80, 320]}}}"
        ]
    problems: list[str] = []
    strategies: list[StrategySpace] = []
    default_options: dict[str, ParamValue] = {}
    for name, options in raw.items():
        try:
            strategy = canonical_strategy(str(name))
        except ValueError as error:
            problems.append(f"{name}: {error}")
            continue
        alias = strategy_alias(strategy)
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            problems.append(f"{name}: expected a mapping of its options to ranges, got {options!r}")
            continue
        known = COMPACTION_OPTIONS.get(strategy, frozenset())
        parsed: list[RangeParam | ChoiceParam] = []
        for option, spec in options.items():
            if known and option not in known:
                problems.append(
                    f"{name}.{option}: unknown option for {strategy}; known: "
                    f"{', '.join(sorted(known))}"
                )
                continue
            on_base = base is not None and base.strategy == strategy
            base_value = base.options.get(str(option)) if on_base and base else None
            param, more = parse_param(
                sub_name(alias, str(option)),
                Target.TABLE,
                (str(option),),
                spec,
                _compaction_option_check(strategy, str(option)),
                base_value,
            )
            problems += [f"{name}.{option}: {p}" for p in more]
            if param is not None:
                parsed.append(param)
                if param.default is not None:
                    default_options[param.name] = param.default
        strategies.append(StrategySpace(strategy=strategy, alias=alias, options=tuple(parsed)))
    aliases = [s.alias for s in strategies]
    if len(set(aliases)) != len(aliases):
        problems.append(f"a strategy is named twice: {list(raw)!r}")
    if problems:
        return None, problems
    default = strategy_alias(base.strategy) if base is not None else None
    if default is not None and default not in aliases:
        return None, [
            f"the default configuration's strategy {default} (table.compaction) is not "
            "searched; add it, so the default is a point of the space"
        ]
    return (
        CompactionParam(
            strategies=tuple(strategies), default=default, default_options=default_options
        ),
        [],
    )


def parse_space(
    raw: Any, config: Mapping[str, Any], table: TableOptions, version: str | None
) -> tuple[Space | None, list[str]]:
    """The space of ``tune.space``; ``config`` and ``table`` are the base configuration's
    (their values are the default configuration's), ``version`` the Cassandra version."""
    where = "tune.space"
    if not isinstance(raw, Mapping) or not raw:
        return None, [
            f"{where}: empty; name at least one setting to search, e.g. "
            "config.concurrent_compactors: {int: [1, 4]}"
        ]
    problems: list[str] = []
    params: list[Param] = []
    seen: set[str] = set()
    for name, spec in raw.items():
        here = f"{where}.{name}"
        try:
            kind, keys = parse_factor_name(str(name))
        except ValueError as error:
            problems.append(f"{here}: {error}")
            continue
        if kind not in (FactorKind.CONFIG, FactorKind.TABLE):
            problems.append(
                f"{here}: the search varies config.<cassandra.yaml key> and table.<option> "
                f"only, not {kind.value}; set it in the file's own sections"
            )
            continue
        overlap = seen & set(keys)
        if overlap:
            problems.append(f"{here}: {', '.join(sorted(overlap))} is searched twice")
            continue
        seen |= set(keys)
        param: Param | None
        if kind is FactorKind.TABLE and keys == ("compaction",):
            param, more = parse_compaction(spec, table.compaction)
        elif kind is FactorKind.TABLE:
            base = getattr(table, keys[0])
            param, more = parse_param(
                str(name), Target.TABLE, keys, spec, _table_check(keys[0]), base
            )
        else:
            base_values = [config.get(k) for k in keys]
            linked_base = base_values if all(v is not None for v in base_values) else None
            base = base_values[0] if len(keys) == 1 else linked_base
            param, more = parse_param(
                str(name), Target.CONFIG, keys, spec, _config_check(keys, version), base
            )
        problems += [f"{here}: {p}" for p in more]
        if param is not None:
            params.append(param)
    if problems or not params:
        return None, problems
    return Space(params=tuple(params)), []
