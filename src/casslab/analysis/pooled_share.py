"""Two shares compared on their counts, pooled over each cell's trials: Fisher's exact test
and Newcombe's interval of the difference (pure).

A KPI that is a share of a count within a trial (``lww_lost_pct``: updates lost of those
acknowledged, :attr:`casslab.analysis.kpi_record.KpiSpec.share_of`) is compared over trials
like any other KPI. When every trial of each cell gave the same share, Welch's t-test over the
trials is undefined (no variance at all), although the counts may be decisive: 1,000 of 1,000
updates lost in every trial of one cell, none of 1,000 in every trial of the other. The trials
then show no variation beyond the binomial one, and the test is made on the counted items
themselves, pooled over the cell's trials:

- Fisher's exact test of the 2x2 table (hits and misses of a and b), two-sided;
- each pooled share with Wilson's score interval (:func:`casslab.analysis.proportion.wilson`);
- the difference a - b with Newcombe's hybrid score interval (Newcombe 1998, *Statistics in
  Medicine* 17:873, method 10), built from the two Wilson intervals, in percentage points;
- bounds of the ratio a/b from the two Wilson intervals (a's low over b's high, a's high over
  b's low): conservative, since each end is a 95% bound of its own; ``None`` for an unbounded
  end (b's low is 0 when b counted no hit).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from scipy.stats import fisher_exact

from casslab.analysis.analysis_records import CellStats, ConfidenceInterval, TrialKpis
from casslab.analysis.kpi_catalogue import kpi_spec
from casslab.analysis.proportion import Proportion, wilson
from casslab.record import Record

FISHER_METHOD = "Fisher's exact test on the counts pooled over each cell's trials, two-sided"
NEWCOMBE_METHOD = "Newcombe's hybrid score interval (method 10) of the pooled shares, points"


class PooledShares(Record):
    """Cell a's and cell b's pooled counts, their test and the difference's interval."""

    count: str  # the KPI counted (``lww_lost``)
    of: str  # the KPI it is counted of (``lww_acknowledged``)
    trials_a: int
    trials_b: int
    a: Proportion
    b: Proportion
    p_value: float
    method: str = FISHER_METHOD
    difference_points: float  # 100 x (a - b)
    difference_ci: ConfidenceInterval  # in percentage points
    ratio_low: float  # conservative bounds of a/b (module docstring)
    ratio_high: float | None  # None: unbounded (b counted no hit)

    def counts(self) -> str:
        """``1,000 of 1,000 against 0 of 990 lww_acknowledged, pooled over 2 and 2 trials
        that do not vary``: what the test was made on, for a verdict's reason."""
        return (
            f"{self.a.hits:,} of {self.a.n:,} against {self.b.hits:,} of {self.b.n:,} "
            f"{self.of}, pooled over {self.trials_a} and {self.trials_b} trials that do not vary"
        )


def newcombe(a: Proportion, b: Proportion) -> tuple[float, float]:
    """Newcombe's hybrid score interval of a - b (fractions), from the Wilson intervals."""
    d = a.fraction - b.fraction
    low = d - math.sqrt((a.fraction - a.low) ** 2 + (b.high - b.fraction) ** 2)
    high = d + math.sqrt((a.high - a.fraction) ** 2 + (b.fraction - b.low) ** 2)
    return max(-1.0, low), min(1.0, high)


def pooled_shares(
    count: str,
    of: str,
    a_counts: list[tuple[int, int]],
    b_counts: list[tuple[int, int]],
    confidence: float = 0.95,
) -> PooledShares:
    """Compare the pooled ``(hits, n)`` of cell a's trials with cell b's (module docstring)."""
    hits_a, n_a = (sum(h for h, _ in a_counts), sum(n for _, n in a_counts))
    hits_b, n_b = (sum(h for h, _ in b_counts), sum(n for _, n in b_counts))
    a, b = wilson(hits_a, n_a, confidence), wilson(hits_b, n_b, confidence)
    table = [[hits_a, n_a - hits_a], [hits_b, n_b - hits_b]]
    p = float(fisher_exact(table, alternative="two-sided").pvalue)
    low, high = newcombe(a, b)
    return PooledShares(
        count=count,
        of=of,
        trials_a=len(a_counts),
        trials_b=len(b_counts),
        a=a,
        b=b,
        p_value=p,
        difference_points=100.0 * (a.fraction - b.fraction),
        difference_ci=ConfidenceInterval(
            level=confidence, low=100.0 * low, high=100.0 * high, method=NEWCOMBE_METHOD
        ),
        ratio_low=a.low / b.high,  # a Wilson interval's high end is above 0 for n >= 1
        ratio_high=a.high / b.low if b.low > 0.0 else None,
    )


def _counts(trials: Sequence[TrialKpis], cell: str, count: str, of: str) -> list[tuple[int, int]]:
    """Each trial's (count, of) in ``cell``; empty when a trial lacks either."""
    out: list[tuple[int, int]] = []
    for t in trials:
        if t.cell_id != cell:
            continue
        hits, n = t.kpis.get(count), t.kpis.get(of)
        if hits is None or n is None or n < 1 or not 0 <= hits <= n:
            return []
        out.append((round(hits), round(n)))
    return out


def pool_cells(
    trials: Sequence[TrialKpis], a: CellStats, b: CellStats, confidence: float = 0.95
) -> PooledShares | None:
    """Cell a against cell b on their pooled counts, when their KPI is a share of counts
    (``share_of``), each cell has two trials or more and neither varies at all; else None."""
    share = kpi_spec(a.kpi).share_of
    if share is None or min(a.n, b.n) < 2 or a.sd != 0.0 or b.sd != 0.0:
        return None
    a_counts = _counts(trials, a.cell_id, *share)
    b_counts = _counts(trials, b.cell_id, *share)
    if not a_counts or not b_counts:
        return None
    return pooled_shares(*share, a_counts, b_counts, confidence)
