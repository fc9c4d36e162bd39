"""Which tables of a keyspace are flushed and compacted after their preload (those with a
vector index), judged on literal schema rows; and the runner's trial preparation on a fake
cluster: the loading trial settles its vector table before the capture, the restoring
trials do not (their SSTables are the settled ones). On a real node:
tests/cli/test_stress_vector_integration.py."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from casslab.errors import ExperimentError
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.run import index_build, vector_settle
from casslab.experiment.run.runner import Runner
from casslab.experiment.run.runner_options import RunnerOptions
from casslab.experiment.run.vector_settle import (
    ColumnType,
    IndexTarget,
    target_column,
    vector_tables,
)
from casslab.store.layout import RunLayout
from casslab.store.run_records import read_trial_result
from fakes import Calls, fake_factory, install_fake_engine


@pytest.mark.parametrize(
    ("target", "column"),
    [
        ("embedding", "embedding"),
        ('"Embedding"', "Embedding"),
        ('"odd""name"', 'odd"name'),
        ("values(tags)", "tags"),
        ('keys("Map")', "Map"),
    ],
)
def test_an_index_target_names_its_column(target: str, column: str) -> None:
    assert target_column(target) == column


def test_only_tables_with_an_index_on_a_vector_column_are_settled() -> None:
    columns = [
        ColumnType(table="items", column="embedding", type="vector<float, 128>"),
        ColumnType(table="items", column="category", type="int"),
        ColumnType(table="docs", column="body", type="text"),
        ColumnType(table="raw", column="v", type="vector<float, 3>"),  # not indexed
    ]
    indexes = [
        IndexTarget(table="items", column="category"),
        IndexTarget(table="docs", column="body"),
    ]
    assert vector_tables(indexes, columns) == []
    indexes.append(IndexTarget(table="items", column="embedding"))
    assert vector_tables(indexes, columns) == ["items"]


SAI = {"class_name": "StorageAttachedIndex"}


def _vector_schema(calls: Calls) -> None:
    """The fake nodes' answers: keyspace1.items has an SAI index on its vector column and
    one on an int column, both built."""
    indexes = [
        SimpleNamespace(table_name="items", index_name=n, options=SAI | {"target": t})
        for n, t in (("items_embedding", "embedding"), ("items_category", "category"))
    ]
    calls.answers["system_schema.indexes"] = indexes
    calls.answers["system_schema.columns"] = [
        SimpleNamespace(table_name="items", column_name="embedding", type="vector<float, 8>"),
        SimpleNamespace(table_name="items", column_name="category", type="int"),
    ]
    calls.answers["sai_column_indexes"] = [
        SimpleNamespace(index_name=i.index_name, is_queryable=True, is_building=False)
        for i in indexes
    ]


def _run(tmp_path: Path, calls: Calls) -> list[Any]:
    experiment = Experiment.model_validate(
        {
            "name": "unit",
            "workload": "write",
            "preload": "write n=100",
            "measure": "duration=2s -rate threads=4",
            "iterations": 3,
            "order": "sequential",
            "reset": "recreate",
        }
    )
    layout = RunLayout(root=tmp_path / "run")
    layout.root.mkdir()
    options = RunnerOptions(
        results_root=tmp_path, jvm_warmup_s=0, write_report=False, cluster_root=tmp_path / "c"
    )
    runner = Runner(
        experiment,
        layout,
        options,
        create_cluster=fake_factory(calls),
        metrics_sources=lambda _cluster, _pid: [],
    )
    runner.run()
    return [read_trial_result(path) for path in layout.trial_summaries()]


def test_the_loading_trial_settles_its_vector_table_before_the_capture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_fake_engine(tmp_path, monkeypatch)
    calls = Calls()
    _vector_schema(calls)
    results = _run(tmp_path, calls)
    data = [
        (name, arg)
        for name, arg in calls.log
        if name in ("nodetool", "capture", "restore", "reset")
    ]
    key = data[2][1]
    assert data == [
        ("nodetool", ("flush", "keyspace1", "items")),
        ("nodetool", ("compact", "keyspace1", "items")),
        ("capture", key),  # of the compacted SSTables, which the next trials restore
        *[("reset", data[3][1]), ("restore", key)] * 2,
    ]
    with_compaction = [r.trial_id for r in results if "vector compaction" in r.phase_s]
    assert with_compaction == [results[0].trial_id]
    # the index build time is the load's, before the compaction: only the loading trial's
    assert [r.kpis["index_build_s"] is not None for r in results] == [True, False, False]


def test_a_schema_without_a_vector_index_keeps_the_sstables_of_its_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_fake_engine(tmp_path, monkeypatch)
    calls = Calls()
    _vector_schema(calls)
    calls.answers["system_schema.columns"][0].type = "blob"
    results = _run(tmp_path, calls)
    assert "nodetool" not in calls.names()
    assert calls.names().count("capture") == 1
    assert not any("vector compaction" in r.phase_s for r in results)


class _Unreachable:
    """A cluster whose driver session cannot be had (no host answers)."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.closed = 0

    def session(self, node: int | None = None) -> Any:
        raise RuntimeError("no host available")

    def close_sessions(self) -> None:
        self.closed += 1


def test_a_driver_error_names_what_was_asked_and_the_sessions_close() -> None:
    cluster = _Unreachable()
    with pytest.raises(ExperimentError, match="reading its vector indexes from the schema failed"):
        vector_settle.tables_to_settle(cluster, "ks")  # type: ignore[arg-type]
    with pytest.raises(ExperimentError, match="whether its indexes are built failed: no host"):
        index_build.wait_built(cluster, "ks", timeout_s=1)  # type: ignore[arg-type]
    assert cluster.closed == 2
