"""The tune file: what it accepts and every bad input refused before anything starts,
each message naming the value and the fix (the experiment part by the experiment
loader's own checks, cassandra.yaml keys against Cassandra 5.0.9's catalogue)."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.errors import ExperimentError, ExperimentValidationError
from casslab.tune.loader import TuneFile, check, load
from casslab.tune.spec import (
    ChoiceParam,
    CompactionParam,
    Goal,
    RangeKind,
    RangeParam,
)
from casslab.yaml_reader import parse_yaml
from cli_entry import NEEDS_ENGINE, casslab, flat

BASE = """\
name: tq
cluster: {nodes: 1, version: 5.0.9, heap: 512M, config: {concurrent_compactors: 2}}
table: {compaction: {class: LCS, sstable_size_in_mb: 160}}
workload: "mixed ratio(write=9,read=1)"
measure: "duration=5s cl=ONE -rate threads=4"
"""

GOOD = (
    BASE
    + """\
tune:
  space:
    config.memtable_heap_space: {size: [64MiB, 1GiB], log: true}
    config.concurrent_compactors: {int: [1, 4]}
    config.compaction_throughput: {rate: [8MiB/s, 256MiB/s], default: 64MiB/s}
    config.memtable_cleanup_threshold: {float: [0.05, 0.5]}
    config.memtable_flush_writers+memtable_allocation_type:
      {choice: [[1, heap_buffers], [2, offheap_objects]]}
    table.compaction:
      STCS: {min_threshold: {int: [2, 32]}}
      LCS: {sstable_size_in_mb: {int: [80, 320]}}
      UCS: {}
    table.bloom_filter_fp_chance: {float: [0.001, 0.1], log: true}
  objective: {goal: max-throughput, p99_ms_max: 50}
  budget: {trials: 20, wall: 45m}
  confirm: {top: 2, repetitions: 3}
  compare: one-at-a-time
"""
)


def parsed(text: str) -> TuneFile:
    return check(parse_yaml(text, "t.yaml"), "t.yaml")


def problems(tune: str, base: str = BASE) -> list[str]:
    with pytest.raises(ExperimentValidationError) as raised:
        parsed(base + tune)
    return raised.value.problems


def test_a_good_file_becomes_its_records() -> None:
    tune_file = parsed(GOOD)
    space = tune_file.tune.space
    heap, compactors, rate, threshold, linked, compaction, bloom = space.params
    assert heap == RangeParam(
        name="config.memtable_heap_space",
        target="config",
        keys=("memtable_heap_space",),
        kind=RangeKind.SIZE,
        low=64,
        high=1024,
        log=True,
        unit="MiB",
    )
    assert isinstance(compactors, RangeParam)
    assert compactors.default == 2
    assert isinstance(rate, RangeParam)
    assert (rate.unit, rate.default) == ("MiB/s", 64)
    assert isinstance(threshold, RangeParam)
    assert threshold.kind is RangeKind.FLOAT
    assert isinstance(linked, ChoiceParam)
    assert linked.keys == ("memtable_flush_writers", "memtable_allocation_type")
    assert isinstance(compaction, CompactionParam)
    assert [s.alias for s in compaction.strategies] == ["STCS", "LCS", "UCS"]
    assert compaction.default == "LCS"  # the file's table.compaction
    assert compaction.default_options == {"table.compaction.LCS.sstable_size_in_mb": 160}
    assert isinstance(bloom, RangeParam)
    assert bloom.log
    assert tune_file.tune.objective.goal is Goal.MAX_THROUGHPUT
    assert tune_file.tune.budget.wall_s == 2700
    assert tune_file.tune.confirm.top == 2
    assert tune_file.experiment.factors == {}


def test_the_other_objectives() -> None:
    head = "tune: {space: {config.concurrent_compactors: {int: [1, 4]}}, budget: {trials: 3}, "
    latency = parsed(BASE + head + "objective: {goal: min-p99, rate: 4000}}").tune.objective
    assert (latency.goal, latency.rate) == (Goal.MIN_P99, 4000)
    assert parsed(BASE + head + "objective: {goal: pareto}}").tune.objective.goal is Goal.PARETO


SPACE_ERRORS = [
    (
        "config.memtable_heap_spac: {size: [64MiB, 1GiB]}",
        "tune.space.config.memtable_heap_spac: memtable_heap_spac: unknown cassandra.yaml "
        "setting in Cassandra 5.0.9 (did you mean memtable_heap_space",
    ),
    (
        "config.concurrent_compactors: {int: [1.5, 4]}",
        "int bounds must be integers, got [1.5, 4]; use float: [1.5, 4] for numbers",
    ),
    ("config.concurrent_compactors: {int: [4, 4]}", "lo must be < hi, got [4, 4]"),
    ("config.concurrent_compactors: {int: [8, 2]}", "lo must be < hi, got [8, 2]"),
    (
        "config.memtable_heap_space: {int: [64, 512]}",
        "memtable_heap_space: expected a size like 2048MiB or 1GiB, got 64",
    ),
    (
        "config.memtable_heap_space: {size: [64, 512]}",
        "size bounds must each be a size like 64MiB or 1GiB, got [64, 512]",
    ),
    (
        "config.memtable_heap_space: {size: [64MiB, 100KiB]}",
        "hi '100KiB' is not a whole number of MiB",
    ),
    ("config.memtable_cleanup_threshold: {float: [0, 0.5], log: true}", "log: true needs lo > 0"),
    (
        "config.concurrent_compactors: {int: [1, 4], choice: [1, 2]}",
        "give exactly one of int, float, size, rate or choice (got int and choice)",
    ),
    ("config.concurrent_compactors: {ints: [1, 4]}", "unknown key(s) ints"),
    ("config.concurrent_compactors: 3", "expected a mapping {int: [lo, hi]}"),
    ("config.commitlog_sync: {choice: [periodic]}", "choice takes a list of at least two"),
    (
        "config.commitlog_sync: {choice: [periodic, sometimes]}",
        "choice[1]: commitlog_sync: expected one of",
    ),
    (
        "config.concurrent_compactors: {int: [3, 8]}",
        "the default configuration's value 2 is outside [3, 8]; widen the range",
    ),
    (
        "config.memtable_flush_writers+memtable_cleanup_threshold: {int: [1, 2]}",
        "a linked entry (memtable_flush_writers+memtable_cleanup_threshold) takes choice",
    ),
    (
        "config.memtable_flush_writers+memtable_cleanup_threshold: {choice: [[1, 0.5], 2]}",
        "choice[1]: expected a list of 2 values, one per key",
    ),
    ("table.compaction: {XCS: {}}", "XCS: unknown compaction strategy 'XCS'"),
    (
        "table.compaction: {LCS: {sstable_size: {int: [80, 320]}}}",
        "LCS.sstable_size: unknown option for LeveledCompactionStrategy",
    ),
    (
        "table.compaction: {STCS: {}}",
        "the default configuration's strategy LCS (table.compaction) is not searched",
    ),
    ("table.gc_grace_seconds: {int: [-5, 10]}", "gc_grace_seconds"),
    ("table.bloom: {float: [0.01, 0.1]}", "unknown table option 'bloom'"),
    ("threads: {int: [1, 8]}", "varies config.<cassandra.yaml key> and table.<option> only"),
]


@pytest.mark.parametrize(("entry", "message"), SPACE_ERRORS)
def test_a_bad_space_entry_is_refused_naming_it(entry: str, message: str) -> None:
    tune = (
        f"tune:\n  space:\n    {entry}\n  objective: {{p99_ms_max: 50}}\n  budget: {{trials: 3}}\n"
    )
    found = problems(tune)
    assert any(message in p for p in found), found
    name = entry.split(":")[0]
    assert all(p.startswith(f"tune.space.{name}") for p in found), found


SECTION_ERRORS = [
    ("space: {}", "tune.space: empty; name at least one setting to search"),
    ("budget: {trials: 0}", "tune.budget.trials: must be >= 1, got 0"),
    ("budget: {}", "give trials, wall or both"),
    ("budget: {wall: soon}", "expected a duration > 0 like 45m or 2h, got 'soon'"),
    ("objective: {goal: max-throughput}", "goal max-throughput needs p99_ms_max"),
    ("objective: {goal: min-p99}", "goal min-p99 needs rate"),
    ("objective: {goal: fastest}", "tune.objective.goal: expected"),
    ("confirm: {repetitions: 1}", "tune.confirm.repetitions: must be >= 2, got 1"),
    ("compare: sideways", "tune.compare: expected"),
]


@pytest.mark.parametrize(("change", "message"), SECTION_ERRORS)
def test_a_bad_section_is_refused(change: str, message: str) -> None:
    fields = {
        "space": "{config.concurrent_compactors: {int: [1, 4]}}",
        "objective": "{p99_ms_max: 50}",
        "budget": "{trials: 3}",
    }
    key, _, value = change.partition(": ")
    fields[key] = value
    tune = "tune:\n" + "".join(f"  {k}: {v}\n" for k, v in fields.items())
    found = problems(tune)
    assert any(message in p for p in found), found


def test_experiment_fields_that_a_search_decides_are_refused_with_the_experiments_problems() -> (
    None
):
    base = BASE.replace("name: tq", "name: tq\nfactors: {threads: [4, 8]}\niterations: 3")
    base = base.replace("heap: 512M", "heap: lots")
    tune = "tune: {space: {config.concurrent_compactors: {int: [1, 4]}}, budget: {trials: 3}, "
    found = problems(tune + "objective: {p99_ms_max: 5}}", base)
    assert any(p.startswith("factors: not in a tune file; the search decides") for p in found)
    assert any(p.startswith("iterations: not in a tune file") for p in found)
    assert any("cluster.heap" in p and "512M or 1G" in p for p in found), found


def test_a_missing_tune_section_and_a_missing_file() -> None:
    assert any(p.startswith("tune: required") for p in problems(""))
    with pytest.raises(ExperimentError, match=r"tune file .*nowhere\.yaml: No such file"):
        load(Path("nowhere.yaml"))


def test_the_command_refuses_a_bad_file_before_anything_starts(tmp_path: Path) -> None:
    tune = "tune: {space: {}, budget: {trials: 0}, objective: {p99_ms_max: 5}}\n"
    (tmp_path / "bad.yaml").write_text(BASE + tune)
    done = casslab(tmp_path / "home", "tune", "bad.yaml", "--runs-dir", "runs", cwd=tmp_path)
    assert done.returncode == 1
    err = flat(done.stderr)
    assert "Error: experiment bad.yaml: 2 problems" in err, err
    assert "tune.space: empty" in err
    assert "tune.budget.trials: must be >= 1, got 0" in err
    assert not (tmp_path / "runs").exists()


@NEEDS_ENGINE[0]
@NEEDS_ENGINE[1]
def test_resume_needs_a_tuning_run_of_the_same_file(tmp_path: Path) -> None:
    tune = "tune: {space: {config.concurrent_compactors: {int: [1, 4]}}, budget: {trials: 3}, "
    (tmp_path / "t.yaml").write_text(BASE + tune + "objective: {p99_ms_max: 50}}\n")
    (tmp_path / "elsewhere").mkdir()
    home = tmp_path / "home"
    done = casslab(home, "tune", "t.yaml", "--resume", "elsewhere", cwd=tmp_path)
    assert done.returncode == 1
    assert "--resume elsewhere: no study.db and tune-file.json there" in flat(done.stderr)
    run = tmp_path / "run"
    run.mkdir()
    (run / "study.db").write_text("")
    edited = parsed(GOOD).model_dump_json(by_alias=True)  # another file's
    (run / "tune-file.json").write_text(edited)
    done = casslab(home, "tune", "t.yaml", "--resume", "run", cwd=tmp_path)
    assert done.returncode == 1
    assert "the tune file differs from the one this run started with" in flat(done.stderr)
