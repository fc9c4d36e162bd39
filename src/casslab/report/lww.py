"""The report's "Lost updates" section (pure): for a run whose trials ran the
last-write-wins probe (:mod:`casslab.experiment.steps.skew.skew_section`), each cell's acknowledged
updates lost, pooled over its finished trials, with a 95% Wilson interval (a proportion near 0 or
1, where a mean of a few trials' percentages with a t-interval says little), the v2
writes that failed, and the messages dropped as expired."""

from __future__ import annotations

from collections.abc import Sequence

from casslab.analysis.proportion import wilson
from casslab.report import text
from casslab.report.report_document import Section, Table, TableRow, Tone
from casslab.store.run_data import RunData
from casslab.store.run_records import TrialStatus


def _sum(values: Sequence[float | None]) -> float:
    return sum(v for v in values if v is not None)


def lww_section(run: RunData, cells: Sequence[str]) -> Section | None:
    """The section, or None when no finished trial ran the probe."""
    rows: list[TableRow] = []
    for cell in cells:
        kpis = [
            t.result.kpis
            for t in run.trials
            if t.result.cell_id == cell
            and t.result.status is TrialStatus.OK
            and "lww_acknowledged" in t.result.kpis
        ]
        if not kpis:
            continue
        lost = int(_sum([k.get("lww_lost") for k in kpis]))
        acknowledged = int(_sum([k.get("lww_acknowledged") for k in kpis]))
        failed = [k.get("lww_unacknowledged_pct") for k in kpis]
        expired = [k.get("expired_messages") for k in kpis]
        if acknowledged:
            share = wilson(lost, acknowledged)
            lost_text = f"{lost}/{acknowledged} ({share.fraction:.1%})"
            ci_text = f"{share.low:.1%} to {share.high:.1%}"
            tone = Tone.BAD if share.low > 0 else Tone.GOOD if lost == 0 else Tone.CHANGED
        else:
            lost_text, ci_text, tone = "no update acknowledged", text.DASH, Tone.UNKNOWN
        rows.append(
            TableRow(
                cells=[
                    cell,
                    str(len(kpis)),
                    lost_text,
                    ci_text,
                    text.number(_sum(failed) / len(failed)),
                    str(int(_sum(expired))),
                ],
                tone=tone,
            )
        )
    if not rows:
        return None
    table = Table(
        id="lww",
        title="Acknowledged updates lost to last-write-wins, per cell",
        columns=[
            "cell",
            "trials",
            "lost (of acknowledged)",
            "95% CI (Wilson)",
            "v2 writes failed, % (mean)",
            "messages expired (sum)",
        ],
        rows=rows,
        note=(
            "For each key: v1 through a node with a good clock, the gap, v2 through the "
            "skewed node, both at QUORUM, then every key read at ALL; a key read back as v1 "
            "lost an acknowledged update. Counts pooled over the cell's finished trials. "
            "The interval excludes 0 (red): updates are lost; nothing lost (green): the "
            "interval says how many could still go unseen. Messages expired: dropped by a "
            "node on arrival as older than their timeout by the sender's clock."
        ),
    )
    return Section(id="lost-updates", title="Lost updates", tables=[table])
