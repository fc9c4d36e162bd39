"""What limited each cell (pure): every finished trial diagnosed by
:func:`casslab.analysis.bottleneck.diagnose` from its KPIs, its engine summary and the run's
host facts, and per cell the bottleneck most of its trials share, with the evidence of the
first of them -- the table the report puts next to the verdicts. An isolated node's CPU is
judged against the quota its records hold (``node<N>.container_cpu_limit_cpus``); a run
recorded without it is judged by throttled periods only, and the section says so."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from casslab.analysis.bottleneck import Bottleneck, Diagnosis, diagnose
from casslab.analysis.bottleneck_evidence import LoadFacts, evidence_of, quota_unrecorded
from casslab.analysis.kpi_catalogue import NODE_KPI
from casslab.analysis.run_frames import trial_kpis_of
from casslab.report.report_document import Section, Table, TableRow, Tone
from casslab.store.run_data import RunData, TrialData
from casslab.store.run_records import TrialStatus

_NOTE = (
    "Thresholds and method: casslab.analysis.bottleneck. A trial is diagnosed from its KPIs "
    "over the steady window; the engine's cores are --engine-cpus, else the host's; an "
    "isolated node's CPU is set against its cgroup's quota as recorded "
    "(node<N>.container_cpu_limit_cpus). An open loop's in-flight limit is judged by "
    "`casslab stress`, not here (the run keeps no spec)."
)
_NO_QUOTA = (
    "The nodes' CPU quota is not in the records of {trials} (an unlimited cgroup, or a run "
    "recorded before casslab sampled cgroup.cpu_limit_cpus): their node CPU is judged by "
    "throttled periods only, not by their CPU against their quota."
)


def _cpus(text: str) -> int:
    """How many CPUs a cpuset such as ``0-1,3`` names."""
    count = 0
    for low, high in re.findall(r"(\d+)(?:-(\d+))?", text):
        count += int(high or low) - int(low) + 1
    return count


def _diagnosed(
    run: RunData, trial: TrialData
) -> tuple[Diagnosis, Mapping[str, float | None]] | None:
    """The diagnosis of a finished trial with a measure window and the KPIs it read; None
    for any other trial."""
    result = trial.result
    if result.status is not TrialStatus.OK or result.measure_start_s is None:
        return None
    if result.measure_end_s is None:
        return None
    window_s = result.measure_end_s - result.measure_start_s - (result.steady_start_s or 0.0)
    if window_s <= 0:
        return None
    kpis = trial_kpis_of(trial).kpis  # computed from the records when the runner kept none
    host_cores = float(run.manifest.host.cpus)
    engine_cpus = run.manifest.engine_cpus
    prefixes = {k.partition(".")[0] for k in kpis if "." in k}
    nodes = {p for p in prefixes if NODE_KPI.fullmatch(p)}
    facts = LoadFacts(
        window_s=window_s,
        nodes=max(1, len(nodes)),
        host_cores=host_cores,
        engine_cores=float(_cpus(engine_cpus)) if engine_cpus else host_cores,
    )
    return diagnose(evidence_of(kpis, trial.engine_summary, facts)), kpis


def trial_diagnosis(run: RunData, trial: TrialData) -> Diagnosis | None:
    """The diagnosis of a finished trial with a measure window; None for any other."""
    found = _diagnosed(run, trial)
    return None if found is None else found[0]


def _trials_text(trials: Sequence[str], total: int) -> str:
    """``"every trial"``, or how many and the first three."""
    if len(trials) == total:
        return "every trial"
    shown = ", ".join(trials[:3]) + (", ..." if len(trials) > 3 else "")
    return f"{len(trials)} of {total} trials ({shown})"


def bottleneck_section(run: RunData, cells: Sequence[str]) -> Section | None:
    """One row per cell: its most common bottleneck over its trials and the evidence; None
    when no trial could be diagnosed."""
    rows: list[TableRow] = []
    unrecorded: list[str] = []
    total = 0
    for cell in cells:
        diagnosed = [
            (t.result.trial_id, d)
            for t in run.trials
            if t.result.cell_id == cell and (d := _diagnosed(run, t)) is not None
        ]
        unrecorded += [trial for trial, (_, kpis) in diagnosed if quota_unrecorded(kpis)]
        found = [d for _, (d, _) in diagnosed]
        total += len(found)
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
    paragraphs = [
        "What limited each cell: the bottleneck most of its trials show, and the numbers "
        "of the first of them. 'engine' means the load engine itself was the limit: "
        "those numbers measure the client, not Cassandra."
    ]
    if unrecorded:
        paragraphs.append(_NO_QUOTA.format(trials=_trials_text(unrecorded, total)))
    return Section(
        id="bottlenecks",
        title="Bottlenecks",
        paragraphs=paragraphs,
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
