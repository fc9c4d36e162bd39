"""Class names against the classes the file's Cassandra version ships, through the real
entry point (``casslab plan``): a replication strategy, a compaction strategy or a
compressor the version does not have is refused before anything starts, naming the value,
the version and the known names (:mod:`casslab.experiment.file.class_checks`); short and
full names are both accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.experiment.file import jdk_checks
from hostile_entry import REPLICATION, Case, problems, run_main, swapped, write_files

V5 = "Cassandra 5.0.9"


def plan(text: str, names: str) -> Case:
    return Case(("plan", "e.yaml"), 1, names, files={"e.yaml": text})


def with_version(text: str, version: str) -> str:
    return text.replace("heap: 512M}", f"heap: 512M, version: {version}}}")


def table(options: str) -> str:
    return swapped("iterations: 3", f"iterations: 3\ntable: {options}")


def workload(command: str) -> str:
    return swapped('workload: "write"', f'workload: "{command}"')


CLASSES = [
    plan(swapped(REPLICATION, "{class: BogusStrategy, replication_factor: 1}"), "'BogusStrategy'"),
    plan(
        swapped(REPLICATION, "{class: BogusStrategy, replication_factor: 1}"),
        f"not a replication strategy of {V5}; known: NetworkTopologyStrategy, SimpleStrategy",
    ),
    plan(
        swapped(REPLICATION, "{class: com.example.GeoStrategy, replication_factor: 1}"),
        "'com.example.GeoStrategy' is not a replication strategy",
    ),
    plan(
        swapped(REPLICATION, "{class: org.apache.cassandra.locator.LocalStrategy}"),
        "system keyspaces",
    ),
    plan(
        swapped(REPLICATION, "{class: org.apache.cassandra.db.SimpleStrategy, x: 1}"),
        "'org.apache.cassandra.db.SimpleStrategy'",
    ),
    plan(
        swapped(
            REPLICATION,
            "\n    east: {class: NetworkTopologyStrategy, dc1: 1}"
            "\n    west: {class: NetworkTopoStrategy, dc1: 1}",
        ),
        "schema.replication.west.class: 'NetworkTopoStrategy'",
    ),
    plan(
        table("{compression: {class: BogusCompressor}}"),
        f"'BogusCompressor' is not a compressor of {V5}",
    ),
    plan(
        table("{compression: {class: LZ4Compressor2}}"), "known: DeflateCompressor, LZ4Compressor"
    ),
    plan(
        table("{compression: {sstable_compression: org.example.Zip}}"),
        "'org.example.Zip' is not a compressor",
    ),
    plan(
        table("{compaction: org.example.MyCompactionStrategy}"),
        f"'org.example.MyCompactionStrategy' is not a compaction strategy of {V5}",
    ),
    plan(
        table("{compaction: {class: org.apache.cassandra.db.compaction.FooStrategy}}"),
        "FooStrategy'",
    ),
    plan(
        with_version(table("{compaction: UCS}"), "4.0.11"),
        "'UnifiedCompactionStrategy' is not a compaction strategy of Cassandra 4.0.11",
    ),
    plan(
        swapped("[STCS, LCS]", "[STCS, org.example.Tiered]"),
        "factors.table.compaction[1]: 'org.example.Tiered'",
    ),
    plan(
        swapped(
            "[STCS, LCS]",
            "[STCS, LCS]\n  table.compression: [{class: LZ4Compressor}, {class: Lz5Compressor}]",
        ),
        "factors.table.compression[1]: 'Lz5Compressor' is not a compressor",
    ),
    plan(
        workload("write -schema replication(strategy=BogusStrategy,factor=1)"),
        "-schema replication(strategy=): 'BogusStrategy' is not a replication strategy",
    ),
    plan(
        workload("write -schema compaction(strategy=FooCompactionStrategy)"),
        "-schema compaction(strategy=): 'FooCompactionStrategy' is not a compaction strategy",
    ),
    plan(
        workload("write -schema compaction(strategy=LCS)"),
        "-schema compaction(strategy=): 'LCS' is not a compaction strategy",
    ),
    plan(
        workload("write -schema compression=BogusCompressor"),
        "-schema compression=: 'BogusCompressor' is not a compressor",
    ),
    plan(
        with_version(
            workload("write -schema compaction(strategy=UnifiedCompactionStrategy)"), "4.0.11"
        ),
        "of Cassandra 4.0.11",
    ),
    plan(
        swapped(
            'workload: "write"', 'workload: "write"\npreload: "write n=100 -schema compression=Bog"'
        ),
        "preload: -schema compression=: 'Bog'",
    ),
    plan(table("{compaction: {class: LCS, sstable_size_in_mb: -160}}"), "sstable_size_in_mb"),
    plan(table("{speculative_retry: banana}"), "'banana' is not a retry policy"),
]


PROFILE = """\
keyspace: stresscql
keyspace_definition: |
  CREATE KEYSPACE stresscql WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
table: t
table_definition: |
  CREATE TABLE t (k text PRIMARY KEY, v blob) WITH compaction = {'class': 'FooStrategy'}
"""

PROFILES = [
    Case(
        ("plan", "e.yaml"),
        1,
        "workload: user profile ",
        files={"e.yaml": workload("user profile=p.yaml ops(insert=1)"), "p.yaml": PROFILE},
    ),
    Case(
        ("plan", "e.yaml"),
        1,
        "p.yaml: table_definition: compaction class: 'FooStrategy' is not a compaction strategy "
        f"of {V5}",
        files={"e.yaml": workload("user profile=p.yaml ops(insert=1)"), "p.yaml": PROFILE},
    ),
]


TUNE = (Path(__file__).resolve().parents[2] / "experiments/tune/tune-quick.yaml").read_text()


def tune(*swaps: tuple[str, str], names: str) -> Case:
    text = TUNE
    for old, new in swaps:
        assert old in text
        text = text.replace(old, new)
    return Case(("tune", "t.yaml", "--dry-run"), 1, names, files={"t.yaml": text})


TUNES = [
    tune(
        ("version: 5.0.9", "version: 4.0.11"),
        names="tune.space.table.compaction.UCS: 'UnifiedCompactionStrategy' is not a "
        "compaction strategy of Cassandra 4.0.11",
    ),
    tune(
        ("      UCS: {}", "      org.example.Tiered: {}"),
        names="tune.space.table.compaction.org.example.Tiered: 'org.example.Tiered'",
    ),
    tune(
        (
            "    table.compaction:",
            "    table.compression: {choice: [{class: LZ4Compressor}, "
            "{class: Lz5Compressor}]}\n    table.compaction:",
        ),
        names="tune.space.table.compression.choice[1]: 'Lz5Compressor' is not a compressor",
    ),
    tune(
        ("class: SimpleStrategy,", "class: BogusStrategy,"),
        names="schema.replication.class: 'BogusStrategy' is not a replication strategy",
    ),
]


def test_tune_dry_run_prints_the_plan_and_starts_nothing(tmp_path: Path) -> None:
    write_files(tmp_path, {"t.yaml": TUNE})
    outcome = run_main(("tune", "t.yaml", "--dry-run", "--runs-dir", "runs"), tmp_path)
    assert outcome.code == 0, outcome.out + outcome.err
    flat = " ".join(outcome.out.split())
    assert "objective: maximise op_rate subject to p99 <= 50 ms" in flat
    assert "table.compaction: one of STCS, LCS, UCS" in flat
    assert "table.compaction.LCS.sstable_size_in_mb (with LCS): int 16 .. 160, log scale" in flat
    assert "budget: 12 search trials and at most 20m of wall time" in flat
    assert "default configuration: config.memtable_heap_space=64MiB" in flat
    assert "dry run: nothing started" in flat
    assert not (tmp_path / "runs").exists()


def test_plan_of_a_tune_file_points_to_tune_and_its_dry_run(tmp_path: Path) -> None:
    write_files(tmp_path, {"t.yaml": TUNE})
    outcome = run_main(("plan", "t.yaml"), tmp_path)
    assert outcome.code == 1
    assert "`casslab tune t.yaml --dry-run` shows its plan" in " ".join(outcome.err.split())


@pytest.mark.parametrize("case", CLASSES + PROFILES + TUNES, ids=str)
def test_unknown_class_is_refused_by_plan(case: Case, tmp_path: Path) -> None:
    write_files(tmp_path, case.files)
    outcome = run_main(case.argv, tmp_path, case.env)
    assert problems(case, outcome) == [], outcome.out + outcome.err


ACCEPTED = [
    swapped(
        REPLICATION, "{class: org.apache.cassandra.locator.SimpleStrategy, replication_factor: 1}"
    ),
    swapped(REPLICATION, "{class: NetworkTopologyStrategy, datacenter1: 1}"),
    table(
        "{compaction: {class: org.apache.cassandra.db.compaction.LeveledCompactionStrategy}, "
        "compression: {class: org.apache.cassandra.io.compress.ZstdCompressor}}"
    ),
    table("{compression: {class: LZ4Compressor, chunk_length_in_kb: 16}}"),
    with_version(table("{compaction: TWCS}"), "4.0.11"),
    workload(
        "write -schema replication(strategy=NetworkTopologyStrategy,datacenter1=1) "
        "compaction(strategy=org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy) "
        "compression=LZ4Compressor"
    ),
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_short_and_full_names_of_shipped_classes_are_accepted(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the classes are checked here, not this machine's JDK (which cannot run 4.0.11: that
    # refusal has its own tests, tests/experiment/file/test_jdk_checks.py)
    monkeypatch.setattr(jdk_checks, "_found_jdk", lambda: None)
    write_files(tmp_path, {"e.yaml": text})
    outcome = run_main(("plan", "e.yaml"), tmp_path)
    assert outcome.code == 0, outcome.out + outcome.err
