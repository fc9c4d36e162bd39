"""The load KPIs (ingest rate, index build time) from literal engine summaries, and their
catalogue entries."""

from __future__ import annotations

import pytest

from casslab.analysis import kpi_spec
from casslab.analysis.kpi_load import ingest_rate, load_kpis
from casslab.analysis.kpi_record import Direction
from casslab.engine_contract.engine_records import LatencyStats, OpStats, SummaryRecord


def summary(count: int, duration_s: float) -> SummaryRecord:
    latency = LatencyStats(
        count=count, mean_ms=1.0, p50_ms=1.0, p95_ms=2.0, p99_ms=3.0, p999_ms=4.0, max_ms=5.0
    )
    stats = OpStats(count=count, errors=0, op_rate=123.0, response=latency, service=latency)
    return SummaryRecord(
        duration_s=duration_s, total=stats, ops={"insert": stats}, engine_version="t"
    )


def test_ingest_rate_is_the_preloads_operations_over_its_duration() -> None:
    # 20,000 vectors in 16 s: 1,250 rows/s, whatever the summary's own op_rate says
    assert ingest_rate(summary(20_000, 16.0)) == pytest.approx(1250.0)


def test_a_preload_that_took_no_time_has_no_rate() -> None:
    assert ingest_rate(summary(0, 0.0)) is None


def test_load_kpis_are_both_there_and_none_when_nothing_was_loaded() -> None:
    assert load_kpis(summary(5000, 2.5), 7.25) == {"ingest_rate": 2000.0, "index_build_s": 7.25}
    assert load_kpis(summary(5000, 2.5), None) == {"ingest_rate": 2000.0, "index_build_s": None}
    assert load_kpis(None, None) == {"ingest_rate": None, "index_build_s": None}


def test_the_load_kpis_are_in_the_catalogue() -> None:
    assert kpi_spec("ingest_rate").unit == "rows/s"
    assert kpi_spec("ingest_rate").direction is Direction.HIGHER_IS_BETTER
    assert kpi_spec("index_build_s").unit == "s"
    assert kpi_spec("index_build_s").direction is Direction.LOWER_IS_BETTER
