"""What ``casslab tune FILE --dry-run`` prints: the search a tune file asks for, without
starting anything (pure: a checked tune file in, lines out)."""

from __future__ import annotations

from casslab.load.credentials import mask_text
from casslab.tune.loader import TuneFile
from casslab.tune.space import default_params, levels_of
from casslab.tune.spec import ChoiceParam, CompactionParam, RangeParam


def _range(param: RangeParam | ChoiceParam) -> str:
    if isinstance(param, ChoiceParam):
        return "one of " + ", ".join(str(choice) for choice in param.choices)
    low, high = (param.level(param.low), param.level(param.high))
    scale = ", log scale" if param.log else ""
    return f"{param.kind.value} {low} .. {high}{scale}"


def param_lines(tune_file: TuneFile) -> list[str]:
    """One line a searched parameter (a compaction strategy's options under it)."""
    lines: list[str] = []
    for param in tune_file.tune.space.params:
        if isinstance(param, CompactionParam):
            aliases = ", ".join(s.alias for s in param.strategies)
            lines.append(f"  {param.name}: one of {aliases}")
            for strategy in param.strategies:
                for option in strategy.options:
                    lines.append(f"    {option.name} (with {strategy.alias}): {_range(option)}")
        else:
            lines.append(f"  {param.name}: {_range(param)}")
    return lines


def _level(value: object) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {v}" for k, v in value.items()) + "}"
    return str(value)


def default_line(tune_file: TuneFile) -> str:
    """The default configuration as the file writes its values (``64MiB``, a compaction
    mapping); the settings it leaves out stay at Cassandra's defaults."""
    levels = levels_of(tune_file.tune.space, default_params(tune_file.tune.space))
    shown = [f"{name}={_level(value)}" for name, value in levels.items()]
    return " ".join(shown) or "(Cassandra's defaults)"


def plan_lines(tune_file: TuneFile, source: str) -> list[str]:
    """The tuning run ``source`` would make: the objective, the space, the budget, the
    confirmation, the default configuration and each trial's workload."""
    tune = tune_file.tune
    experiment = tune_file.experiment
    budget = [f"{tune.budget.trials} search trials"] if tune.budget.trials else []
    budget += [f"at most {tune.budget.wall} of wall time"] if tune.budget.wall else []
    confirm = (
        f"the best {tune.confirm.top} against the default, {tune.confirm.repetitions} "
        "repetitions each"
        if tune.confirm.top
        else "no confirmation (confirm.top: 0)"
    )
    lines = [
        f"tune {source}: {experiment.name}",
        f"objective: {tune.objective.describe()}",
        f"space ({len(tune.space.names())} parameters):",
        *param_lines(tune_file),
        f"budget: {' and '.join(budget)}; seed {tune.seed}",
        f"confirm: {confirm}",
    ]
    if tune.compare is not None:
        lines.append(f"compare: also a {tune.compare.value} sweep of the same budget")
    lines += [
        f"default configuration: {default_line(tune_file)}",
        f"each trial: {mask_text(str(experiment.workload or ''))} "
        f"({mask_text(str(experiment.measure or ''))})",
        "dry run: nothing started, no run directory made",
    ]
    return lines
