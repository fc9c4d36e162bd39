"""The KPI catalogue and the TrialKpis boundary record."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from casslab.analysis import KPI_CATALOGUE, Direction, TrialKpis, kpi_spec
from casslab.errors import AnalysisError


@pytest.mark.parametrize(
    ("name", "unit", "direction"),
    [
        ("op_rate", "ops/s", Direction.HIGHER_IS_BETTER),
        ("latency_p99_ms", "ms", Direction.LOWER_IS_BETTER),
        ("latency_p999_ms", "ms", Direction.LOWER_IS_BETTER),
        ("errors", "count", Direction.LOWER_IS_BETTER),
        ("bytes_compacted", "bytes", Direction.NEUTRAL),
        ("compactions_completed", "count", Direction.NEUTRAL),
        ("cpu_busy_pct", "%", Direction.NEUTRAL),
        ("memory_used_mib", "MiB", Direction.NEUTRAL),
        ("disk_write_mb_s", "MB/s", Direction.NEUTRAL),
        ("sstables", "count", Direction.NEUTRAL),
        ("read.latency_p99_ms", "ms", Direction.LOWER_IS_BETTER),
        ("insert.op_rate", "ops/s", Direction.HIGHER_IS_BETTER),
        ("simple1.errors", "count", Direction.LOWER_IS_BETTER),
    ],
)
def test_kpi_spec_units_and_directions(name: str, unit: str, direction: Direction) -> None:
    spec = kpi_spec(name)
    assert spec.name == name
    assert spec.unit == unit
    assert spec.direction is direction


def test_catalogue_names_state_their_unit() -> None:
    suffix_units = {"_ms": "ms", "_mib": "MiB", "_pct": "%", "_mb_s": "MB/s"}
    for name, spec in KPI_CATALOGUE.items():
        for suffix, unit in suffix_units.items():
            if name.endswith(suffix):
                assert spec.unit == unit, name


@pytest.mark.parametrize("name", ["throughput", "read.cpu_busy_pct", ".op_rate", "p99"])
def test_unknown_or_not_per_operation_kpi_is_rejected(name: str) -> None:
    with pytest.raises(AnalysisError, match="unknown KPI"):
        kpi_spec(name)


def test_trial_kpis_accepts_none_and_rejects_nan_and_unknown() -> None:
    trial = TrialKpis(
        trial_id="t1",
        cell_id="stcs",
        iteration=0,
        factors={"table.compaction": "STCS"},
        kpis={"op_rate": 2350.0, "bytes_compacted": None},
    )
    assert trial.kpis["bytes_compacted"] is None
    with pytest.raises(ValidationError, match="NaN"):
        TrialKpis(trial_id="t", cell_id="c", iteration=0, kpis={"op_rate": math.nan})
    with pytest.raises(ValidationError, match="unknown KPI"):
        TrialKpis(trial_id="t", cell_id="c", iteration=0, kpis={"throughput": 1.0})
    with pytest.raises(ValidationError):
        TrialKpis(trial_id="t", cell_id="c", iteration=0, kpis={}, extra_field=1)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        trial.cell_id = "other"  # type: ignore[misc]
