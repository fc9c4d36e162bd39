"""What limited each cell (pure): every finished trial diagnosed by
:func:`casslab.analysis.bottleneck.diagnose` from its KPIs, its engine summary and the run's
host facts, and per cell the bottleneck most of its trials share, with the evidence of the
first of them -- the table the report puts next to the verdicts."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from casslab.analysis.bottleneck import Bottleneck, Diagnosis, diagnose
from casslab.analysis.bottleneck_evidence import LoadFacts, evidence_of
from casslab.analysis.kpi_catalogue import NODE_KPI
from casslab.report.report_document import Section, Table, TableRow, Tone
from casslab.store.run_data import RunData, TrialData
from casslab.store.run_records import TrialStatus

_NOTE = (
    "Thresholds and method: casslab.analysis.bottleneck. A trial is diagnosed from its KPIs "
    "over the steady window; the engine's cores are --engine-cpus, else the host's. An open "
    "loop's in-flight limit is judged by `casslab stress`, not here (the run keeps no spec)."
)


def _cpus(text: str) -> int:
    """How many CPUs a cpuset such as ``0-1,3`` names."""
    count = 0
    for low, high in re.findall(r"(\d+)(?:-(\d+))?", text):
        count += int(high or low) - int(low) + 1
    return count


def trial_diagnosis(run: RunData, trial: TrialData) -> Diagnosis | None:
    """The diagnosis of a finished trial with a measure window; None for any other."""
    result = trial.result
    if result.status is not TrialStatus.OK or result.measure_start_s is None:
        return None
    if result.measure_end_s is None:
        return None
    window_s = result.measure_end_s - result.measure_start_s - (result.steady_start_s or 0.0)
    if window_s <= 0:
        return None
    host_cores = float(run.manifest.host.cpus)
    engine_cpus = run.manifest.engine_cpus
    prefixes = {k.partition(".")[0] for k in result.kpis if "." in k}
    nodes = {p for p in prefixes if NODE_KPI.fullmatch(p)}
    facts = LoadFacts(
        window_s=window_s,
        nodes=max(1, len(nodes)),
        host_cores=host_cores,
        engine_cores=float(_cpus(engine_cpus)) if engine_cpus else host_cores,
    )
    return diagnose(evidence_of(result.kpis, trial.engine_summary, facts))


def bottleneck_section(run: RunData, cells: Sequence[str]) -> Section | None:
    """One row per cell: its most common bottleneck over its trials and the evidence; None
    when no trial could be diagnosed."""
    rows: list[TableRow] = []
    for cell in cells:
        found = [
            d
            for t in run.trials
            if t.result.cell_id == cell and (d := trial_diagnosis(run, t)) is not None
        ]
        if not found:
            continue
        counts = Counter(d.primary for d in found)
        primary, n = counts.most_common(1)[0]
        first = next(d for d in found if d.primary is primary)
        evidence = first.findings[0].evidence if first.findings else "-"
        tone = Tone.BAD if primary is Bottleneck.ENGINE else Tone.NEUTRAL
        rows.append(
            TableRow(
                cells=[cell, primary.value, f"{n} of {len(found)}", evidence],
                tone=tone,
            )
        )
    if not rows:
        return None
    return Section(
        id="bottlenecks",
        title="Bottlenecks",
        paragraphs=[
            "What limited each cell: the bottleneck most of its trials show, and the numbers "
            "of the first of them. 'engine' means the load engine itself was the limit: "
            "those numbers measure the client, not Cassandra."
        ],
        tables=[
            Table(
                id="bottlenecks",
                title="Bottleneck per cell",
                columns=["cell", "bottleneck", "trials", "evidence"],
                rows=rows,
                note=_NOTE,
            )
        ],
    )
