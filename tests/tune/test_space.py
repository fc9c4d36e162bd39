"""The space in Optuna's terms and back: distributions (the compaction sub-options only
with their strategy), the default configuration, factor levels, settings and table
options of a candidate, and the candidate's trial as the experiment's design makes it."""

from __future__ import annotations

import optuna
from optuna.distributions import CategoricalDistribution, IntDistribution

from casslab.tune.loader import TuneFile, check
from casslab.tune.output import flags_text, table_cql
from casslab.tune.runner_evaluator import candidate_trial
from casslab.tune.space import (
    default_params,
    describe,
    distributions,
    grid,
    levels_of,
    settings_of,
    suggest,
    table_of,
)
from casslab.tune.spec import RangeKind, RangeParam, Target
from casslab.yaml_reader import parse_yaml

FILE = """\
name: tq
cluster: {nodes: 1, version: 5.0.9, heap: 512M, config: {auto_snapshot: false}}
table: {compaction: STCS}
preload: "write n=1000 cl=ONE -rate threads=2"
workload: "mixed ratio(write=9,read=1)"
measure: "duration=5s cl=ONE -rate threads=4"
tune:
  space:
    config.memtable_heap_space: {size: [64MiB, 1GiB], log: true, default: 256MiB}
    config.compaction_throughput: {rate: [8MiB/s, 256MiB/s]}
    config.memtable_flush_writers+memtable_cleanup_threshold:
      {choice: [[1, 0.5], [2, 0.33]]}
    table.compaction:
      STCS: {min_threshold: {int: [2, 32]}}
      LCS: {sstable_size_in_mb: {int: [80, 320]}}
  objective: {goal: min-p99, rate: 2000}
  budget: {trials: 5}
"""


def tune_file() -> TuneFile:
    return check(parse_yaml(FILE, "t.yaml"), "t.yaml")


def test_distributions_name_every_parameter_and_sub_option() -> None:
    found = distributions(tune_file().tune.space)
    assert found == {
        "config.memtable_heap_space": IntDistribution(64, 1024, log=True),
        "config.compaction_throughput": IntDistribution(8, 256),
        "config.memtable_flush_writers+memtable_cleanup_threshold": CategoricalDistribution(
            ("[1, 0.5]", "[2, 0.33]")
        ),
        "table.compaction": CategoricalDistribution(("STCS", "LCS")),
        "table.compaction.STCS.min_threshold": IntDistribution(2, 32),
        "table.compaction.LCS.sstable_size_in_mb": IntDistribution(80, 320),
    }


def test_a_trial_is_asked_only_for_its_strategys_sub_options() -> None:
    space = tune_file().tune.space
    lcs = optuna.trial.FixedTrial(
        {
            "config.memtable_heap_space": 300,
            "config.compaction_throughput": 16,
            "config.memtable_flush_writers+memtable_cleanup_threshold": "[2, 0.33]",
            "table.compaction": "LCS",
            "table.compaction.LCS.sstable_size_in_mb": 200,
        }
    )
    params = suggest(lcs, space)
    assert "table.compaction.STCS.min_threshold" not in params
    assert params["table.compaction.LCS.sstable_size_in_mb"] == 200
    assert levels_of(space, params) == {
        "config.memtable_heap_space": "300MiB",
        "config.compaction_throughput": "16MiB/s",
        "config.memtable_flush_writers+memtable_cleanup_threshold": [2, 0.33],
        "table.compaction": {"class": "LeveledCompactionStrategy", "sstable_size_in_mb": 200},
    }
    assert settings_of(space, params) == {
        "memtable_heap_space": "300MiB",
        "compaction_throughput": "16MiB/s",
        "memtable_flush_writers": 2,
        "memtable_cleanup_threshold": 0.33,
    }
    assert table_of(space, params) == {
        "compaction": {"class": "LeveledCompactionStrategy", "sstable_size_in_mb": 200}
    }
    assert flags_text(settings_of(space, params)) == (
        "--set memtable_heap_space=300MiB --set compaction_throughput=16MiB/s "
        "--set memtable_flush_writers=2 --set memtable_cleanup_threshold=0.33"
    )
    assert table_cql(table_of(space, params), "ks") == (
        "ALTER TABLE ks.<table> WITH compaction = {'class': 'LeveledCompactionStrategy', "
        "'sstable_size_in_mb': '200'};"
    )


def test_the_default_configuration_has_only_the_values_the_file_gives() -> None:
    space = tune_file().tune.space
    default = default_params(space)
    assert default == {"config.memtable_heap_space": 256, "table.compaction": "STCS"}
    # asked of the study, it suggests those alone: the rest stay at Cassandra's defaults
    fixed = optuna.trial.FixedTrial(default)
    assert suggest(fixed, space, only=set(default)) == default
    assert describe(default) == "memtable_heap_space=256 compaction=STCS"


def test_a_candidate_is_one_trial_of_the_experiments_design() -> None:
    tune = tune_file()
    params = {
        "config.memtable_heap_space": 128,
        "config.memtable_flush_writers+memtable_cleanup_threshold": "[1, 0.5]",
        "table.compaction": "LCS",
        "table.compaction.LCS.sstable_size_in_mb": 90,
    }
    cell, trial = candidate_trial(tune, params, "s007")
    assert (cell.id, trial.trial_id, trial.cell_id, trial.iteration) == (
        "s007",
        "s007/1",
        "s007",
        1,
    )
    assert trial.settings == {
        "auto_snapshot": False,
        "memtable_heap_space": "128MiB",
        "memtable_flush_writers": 1,
        "memtable_cleanup_threshold": 0.5,
    }
    assert trial.table.compaction is not None
    assert trial.table.compaction.strategy == "LeveledCompactionStrategy"
    assert trial.table.compaction.options == {"sstable_size_in_mb": 90}
    assert "fixed=2000/s" in trial.workload.text  # goal min-p99: the open-loop rate
    assert trial.preload is not None


def test_grids_spread_evenly_on_the_scale_searched() -> None:
    linear = RangeParam(
        name="config.x", target=Target.CONFIG, keys=("x",), kind=RangeKind.INT, low=1, high=9
    )
    assert grid(linear, 5) == [1, 3, 5, 7, 9]
    log = linear.model_copy(update={"kind": RangeKind.SIZE, "low": 64, "high": 1024, "log": True})
    assert grid(log, 5) == [64, 128, 256, 512, 1024]
    real = linear.model_copy(update={"kind": RangeKind.FLOAT, "low": 0.0, "high": 1.0})
    assert grid(real, 3) == [0.0, 0.5, 1.0]
