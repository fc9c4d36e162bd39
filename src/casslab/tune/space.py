"""The search space in Optuna's terms and back (pure but for the Optuna trial it asks).

Every entry is one Optuna parameter named as in the file: ranges are ``IntDistribution``
(sizes and rates counted in their unit) or ``FloatDistribution``, choices
``CategoricalDistribution``; ``table.compaction`` is a categorical of strategy aliases,
and each strategy's sub-options are parameters named ``table.compaction.<alias>.<option>``
that exist only in trials of that strategy (a conditional space: the TPE sampler's
``group=True`` models each such group apart).

A candidate's parameters become experiment factor levels (:func:`levels_of`): cassandra.yaml
values as the file writes them (``384MiB``, ``16MiB/s``, a linked list), the compaction a
mapping ``{class: ..., <option>: ...}``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Protocol

from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)

from casslab.tune.spec import (
    ChoiceParam,
    CompactionParam,
    ParamValue,
    RangeParam,
    Space,
    Target,
)

Params = dict[str, ParamValue]
"""A candidate configuration as the search stores it: parameter name -> value."""


class Suggests(Protocol):
    """What :func:`suggest` needs of an Optuna trial."""

    def suggest_int(self, name: str, low: int, high: int, *, log: bool = False) -> int: ...

    def suggest_float(self, name: str, low: float, high: float, *, log: bool = False) -> float: ...

    def suggest_categorical(self, name: str, choices: Any) -> Any: ...


def distribution(param: RangeParam | ChoiceParam) -> BaseDistribution:
    if isinstance(param, ChoiceParam):
        return CategoricalDistribution(param.encoded)
    if param.integer:
        return IntDistribution(int(param.low), int(param.high), log=param.log)
    return FloatDistribution(param.low, param.high, log=param.log)


def distributions(space: Space) -> dict[str, BaseDistribution]:
    """Every parameter's distribution, sub-options included (by name)."""
    out: dict[str, BaseDistribution] = {}
    for param in space.params:
        if isinstance(param, CompactionParam):
            out[param.name] = CategoricalDistribution(tuple(s.alias for s in param.strategies))
            for strategy in param.strategies:
                out |= {o.name: distribution(o) for o in strategy.options}
        else:
            out[param.name] = distribution(param)
    return out


def _suggest_one(trial: Suggests, param: RangeParam | ChoiceParam) -> ParamValue:
    if isinstance(param, ChoiceParam):
        value: ParamValue = trial.suggest_categorical(param.name, param.encoded)
        return value
    if param.integer:
        return trial.suggest_int(param.name, int(param.low), int(param.high), log=param.log)
    return trial.suggest_float(param.name, param.low, param.high, log=param.log)


def suggest(trial: Suggests, space: Space, only: set[str] | None = None) -> Params:
    """Ask ``trial`` for a value of every parameter (sub-options of the chosen strategy
    only). ``only``: ask for these names alone (the default configuration, whose other
    settings stay at Cassandra's own defaults)."""
    params: Params = {}
    for param in space.params:
        if only is not None and param.name not in only:
            continue
        if isinstance(param, CompactionParam):
            aliases = tuple(s.alias for s in param.strategies)
            alias = trial.suggest_categorical(param.name, aliases)
            params[param.name] = alias
            for option in param.strategy_of(alias).options:
                if only is None or option.name in only:
                    params[option.name] = _suggest_one(trial, option)
        else:
            params[param.name] = _suggest_one(trial, param)
    return params


def default_params(space: Space) -> Params:
    """The default configuration's parameters: those the base file (or ``default:``)
    gives; the rest stay at Cassandra's defaults and are not parameters of it."""
    params: Params = {}
    for param in space.params:
        if param.default is None:
            continue
        params[param.name] = param.default
        if isinstance(param, CompactionParam):
            strategy = param.strategy_of(param.default)
            names = {o.name for o in strategy.options}
            params |= {k: v for k, v in param.default_options.items() if k in names}
    return params


def levels_of(space: Space, params: Mapping[str, ParamValue]) -> dict[str, Any]:
    """Experiment factor levels (``config.<key>`` / ``table.<option>`` -> the file's value)
    of a candidate; parameters it lacks are left to the base configuration."""
    levels: dict[str, Any] = {}
    for param in space.params:
        if param.name not in params:
            continue
        value = params[param.name]
        if isinstance(param, CompactionParam):
            strategy = param.strategy_of(value)
            compaction: dict[str, Any] = {"class": strategy.strategy}
            for option in strategy.options:
                if option.name in params:
                    compaction[option.keys[0]] = option.level(params[option.name])
            levels[param.name] = compaction
        else:
            levels[param.name] = param.level(value)
    return levels


def settings_of(space: Space, params: Mapping[str, ParamValue]) -> dict[str, Any]:
    """The cassandra.yaml settings of a candidate (linked entries split into their keys)."""
    out: dict[str, Any] = {}
    for param in space.params:
        if isinstance(param, CompactionParam) or param.target is not Target.CONFIG:
            continue
        if param.name in params:
            level = param.level(params[param.name])
            values = level if len(param.keys) > 1 else [level]
            out |= dict(zip(param.keys, values, strict=True))
    return out


def table_of(space: Space, params: Mapping[str, ParamValue]) -> dict[str, Any]:
    """The table options of a candidate (``compaction`` as a CQL-style mapping)."""
    levels = levels_of(space, params)
    return {
        name.removeprefix("table."): level
        for name, level in levels.items()
        if name.startswith("table.")
    }


def describe(params: Mapping[str, ParamValue]) -> str:
    """``concurrent_compactors=2 compaction=LCS ...``: a candidate on one line."""
    parts = []
    for name, value in params.items():
        short = name.removeprefix("config.").removeprefix("table.")
        shown = f"{value:.4g}" if isinstance(value, float) else str(value)
        parts.append(f"{short}={shown}")
    return " ".join(parts) or "(Cassandra's defaults)"


def grid(param: RangeParam | ChoiceParam, count: int) -> list[ParamValue]:
    """``count`` evenly spread values of a parameter (on a log scale when it is searched
    so), ends included; every choice of a choice (``count`` ignored)."""
    if isinstance(param, ChoiceParam):
        return list(param.encoded)
    if count < 2:
        return [param.low if not param.integer else int(param.low)]
    out: list[ParamValue] = []
    for index in range(count):
        share = index / (count - 1)
        if param.log:
            value = math.exp(math.log(param.low) + share * math.log(param.high / param.low))
        else:
            value = param.low + share * (param.high - param.low)
        stored: ParamValue = round(value) if param.integer else value
        if stored not in out:
            out.append(stored)
    return out
