"""The report's "Discovered capacity" section (pure): what the run's discover step found
for each group of cells (:mod:`casslab.experiment.steps.discover.discover_section`), from the
manifest: the capacity the cells' rate shares are of, how it was found, and the best thread
count."""

from __future__ import annotations

from casslab.report import text
from casslab.report.report_document import Section, Table, TableRow, Tone
from casslab.store.run_data import RunData
from casslab.store.run_records import Discovered


def _number(value: float | None, digits: int = 0) -> str:
    return text.DASH if value is None else f"{value:,.{digits}f}"


def _how(found: Discovered) -> str:
    if found.search_status is not None:
        bracket = f"[{_number(found.max_rate_per_s)}, {_number(found.bracket_high_per_s)})"
        return (
            f"open-loop search, p99 <= {found.p99_slo_ms:g} ms: {found.search_status}, "
            f"bracket {bracket} ops/s, p99 at it {_number(found.p99_ms_at_max, 1)} ms, "
            f"{found.runs} runs"
        )
    return "thread ramp: its best op rate (closed loop, maximum throughput)"


def discovered_section(run: RunData) -> Section | None:
    """The section, or None when the run had no discover step."""
    found = run.manifest.discovered
    if not found:
        return None
    rows = [
        TableRow(
            cells=[
                group,
                _number(d.capacity_per_s),
                _how(d),
                text.DASH if d.best_threads is None else str(d.best_threads),
                _number(d.best_op_rate),
                f"{d.elapsed_s:,.0f}",
                d.error or "",
            ],
            tone=Tone.BAD if d.error else Tone.NEUTRAL,
        )
        for group, d in found.items()
    ]
    table = Table(
        id="discovered",
        title="Capacity discovered per group of cells (100% of their rate shares)",
        columns=[
            "group (levels shared)",
            "capacity, ops/s",
            "how",
            "best threads",
            "ramp's best ops/s",
            "took, s",
            "error",
        ],
        rows=rows,
        note=(
            "Run once per group, before its first trial, on that trial's cluster and data "
            "(then reset). A rate of 66% is 0.66 x the capacity; threads: best is the thread "
            "ramp's best count, which also bounds the search's operations in flight. The "
            "search's runs are under discover/ in the run directory."
        ),
    )
    return Section(id="discovered", title="Discovered capacity", tables=[table])
