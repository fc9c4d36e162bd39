"""KPIs of loading a trial's data (specs and :func:`load_kpis`): how fast the preload wrote
(``ingest_rate``) and how long the keyspace's indexes took to be built after it
(``index_build_s``, waited for by :mod:`casslab.experiment.run.index_build`).

A trial reports the figures of the load done for it: its own preload, or the preload done
on its cluster for the JVM warm-up or the discover step whose capture it restored. A trial
restored from the capture of an earlier trial's load reports None (the load was measured
once, by that trial: copying it would fake a spread across iterations). Pure.
"""

from __future__ import annotations

from casslab.analysis.kpi_record import Direction, KpiSpec, spec
from casslab.engine_contract.engine_records import SummaryRecord

LOAD_KPIS: tuple[KpiSpec, ...] = (
    spec(
        "ingest_rate",
        "rows/s",
        Direction.HIGHER_IS_BETTER,
        "rows the preload wrote per second of its run (its engine summary: operations over "
        "duration); None without a preload, or when the trial restored an earlier trial's "
        "captured load",
    ),
    spec(
        "index_build_s",
        "s",
        Direction.LOWER_IS_BETTER,
        "seconds from the end of the preload until every index of the keyspace was built "
        "on every node (SAI: queryable and not building); None when the schema has no "
        "index or the trial did not load its data",
    ),
)
LOAD_KPI_NAMES = tuple(kpi.name for kpi in LOAD_KPIS)


def ingest_rate(preload: SummaryRecord) -> float | None:
    """Operations of the preload per second of its duration; None for a preload that
    took no time."""
    if preload.duration_s <= 0:
        return None
    return preload.total.count / preload.duration_s


def load_kpis(
    preload: SummaryRecord | None, index_build_s: float | None
) -> dict[str, float | None]:
    """``ingest_rate`` and ``index_build_s`` of one load (both None: no load measured)."""
    return {
        "ingest_rate": ingest_rate(preload) if preload is not None else None,
        "index_build_s": index_build_s,
    }
