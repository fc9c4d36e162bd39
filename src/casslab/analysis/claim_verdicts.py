"""A study's claims against a run's trials: casslab's estimate and a verdict per claim (pure).

Each claim (:class:`casslab.analysis.claim_records.Claim`) compares cells ``a`` with cells
``b``; a group that names only some factors gives one matched pair of cells per combination
of the other factors' levels. Each pair is compared exactly as the report compares a cell with
the baseline (:func:`casslab.analysis.compare.compare_stats`: Welch's t-test of a - b, the
Student-t CI of each mean, Fieller's 95% interval of the ratio a/b), and the p-values of one
claim's pairs are Holm-adjusted (:func:`casslab.analysis.inference.holm_adjust`, the
report's correction for several comparisons). A pair's verdict:

==============================================  ====================================
condition (p Holm-adjusted, ratio r = a/b)      verdict
==============================================  ====================================
no trial in a cell                              NOT_TESTABLE (the cell is not in the run)
Welch's test undefined (n < 2, no variation)    UNDETERMINED (the reason), except below
higher: p < alpha and a > b                     HOLDS (with a size: r's CI low >= 1 + s)
higher: p < alpha and a < b                     CONTRADICTED
higher with a size: r's CI high < 1 + s         CONTRADICTED (the claimed size is excluded)
lower: the mirror image
equal within s: r's CI inside [1 - s, 1 + s]    HOLDS
equal: p < alpha and r's CI outside the band    CONTRADICTED
otherwise                                       NOT_SIGNIFICANT, with the n per cell needed
==============================================  ====================================

A share of counts (a KPI with ``share_of``, e.g. ``lww_lost_pct``) whose trials do not vary
at all in either cell (two trials or more each, every trial the same share) is judged on its
counts instead, pooled over each cell's trials (:mod:`casslab.analysis.pooled_share`):
Fisher's exact p (Holm-adjusted with the claim's other pairs) takes the place of Welch's, the
difference's interval is Newcombe's, and a size or a band is checked against the ratio's
conservative bounds from the two Wilson intervals. Trials that vary keep Welch's test over
trials, which counts the variation between trials that pooling would hide.

A claim's verdict: CONTRADICTED if a pair contradicts it, HOLDS if every pair holds, else
NOT_SIGNIFICANT (or UNDETERMINED when no pair could be tested). The n per cell needed to
tell (:func:`needed_n`) is the normal approximation to the two-sample test (two-sided alpha,
80% power; e.g. Chow, Shao & Wang, *Sample Size Calculations in Clinical Research*, §3.2):
``n = 2 s² (z_{1-alpha/2} + z_{0.8})² / d²`` with ``s²`` the mean of the two cells' observed
variances and ``d`` the effect to detect: the study's own effect (``seed_value`` a/b) or
else the claim's size, relative to the observed mean of ``b``. For ``equal``, the n that
narrows the difference's interval to the margin the band leaves around the observed
difference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import StrEnum

from scipy import stats as scipy_stats

from casslab.analysis.analysis_records import (
    AnalysisOptions,
    CellStats,
    Comparison,
    ConfidenceInterval,
    RatioEstimate,
    TrialKpis,
)
from casslab.analysis.claim_records import Claim, ClaimDirection, matched_pairs
from casslab.analysis.compare import compare_stats
from casslab.analysis.inference import holm_adjust
from casslab.analysis.pooled_share import PooledShares, pool_cells
from casslab.analysis.stats import cell_order, describe, values_by_cell
from casslab.record import Record

POWER = 0.8
NEEDED_N_METHOD = "normal approximation to the two-sample test, two-sided alpha, 80% power"


class ClaimVerdict(StrEnum):
    HOLDS = "holds"
    CONTRADICTED = "contradicted"
    NOT_SIGNIFICANT = "not_significant"
    NOT_TESTABLE = "not_testable"
    UNDETERMINED = "undetermined"


VERDICT_TEXT = {
    ClaimVerdict.HOLDS: "holds here",
    ClaimVerdict.CONTRADICTED: "contradicted here",
    ClaimVerdict.NOT_SIGNIFICANT: "not significant here",
    ClaimVerdict.NOT_TESTABLE: "not testable here",
    ClaimVerdict.UNDETERMINED: "undetermined here",
}


class PairResult(Record):
    """Cell ``a_cell`` against cell ``b_cell`` on the claim's KPI."""

    a_cell: str
    b_cell: str
    unit: str
    a: CellStats
    b: CellStats
    difference_ci: ConfidenceInterval | None  # of a - b (Welch; Newcombe when pooled)
    ratio: RatioEstimate  # a / b (Fieller)
    p_value: float | None
    p_value_adjusted: float | None  # Holm over the claim's pairs
    verdict: ClaimVerdict
    reason: str
    needed_n: int | None = None  # per cell, when NOT_SIGNIFICANT and it can be computed
    pooled: PooledShares | None = None  # the counts' test, when it replaced Welch's


class ClaimResult(Record):
    claim: Claim
    verdict: ClaimVerdict
    reason: str
    pairs: list[PairResult]
    needed_n: int | None = None  # the largest of the pairs'

    @property
    def verdict_text(self) -> str:
        return VERDICT_TEXT[self.verdict]


def needed_n(sd_a: float, sd_b: float, delta: float, alpha: float) -> int | None:
    """Iterations per cell to detect a difference ``delta`` (module docstring)."""
    if delta <= 0.0:
        return None
    z = float(scipy_stats.norm.ppf(1.0 - alpha / 2.0) + scipy_stats.norm.ppf(POWER))
    variance = (sd_a**2 + sd_b**2) / 2.0
    return max(2, math.ceil(2.0 * variance * z * z / delta**2))


def _effect_pct(claim: Claim) -> float | None:
    seed = claim.seed_value.effect_pct() if claim.seed_value is not None else None
    return abs(seed) if seed is not None and seed != 0.0 else claim.size_pct()


def _needed(claim: Claim, c: Comparison, alpha: float) -> tuple[int | None, str]:
    a, b = c.candidate, c.baseline
    if a.sd is None or b.sd is None or b.mean is None or a.mean is None:
        return None, ""
    if claim.direction is ClaimDirection.EQUAL:
        margin = (claim.size_pct() or 0.0) / 100.0 * abs(b.mean) - abs(a.mean - b.mean)
        n = needed_n(a.sd, b.sd, margin, alpha)
        why = "to bound the difference within the claimed band"
    else:
        effect = _effect_pct(claim)
        if effect is None:
            return None, ("; no n can be given: the study gives one number and the claim no size")
        n = needed_n(a.sd, b.sd, effect / 100.0 * abs(b.mean), alpha)
        why = f"to detect a {effect:.3g}% difference"
    if n is None:
        return None, "; the observed difference already fills the band: no n would tell"
    had = min(a.n, b.n)
    if n <= had:
        return None, (
            f"; {n} iterations per cell suffice {why} ({NEEDED_N_METHOD}) and this run had "
            f"{had}: a difference that large is unlikely here"
        )
    return n, f"; about {n} iterations per cell {why} ({NEEDED_N_METHOD})"


def _decide(
    claim: Claim,
    significant: bool,
    difference: float,
    ratio: tuple[float, float] | None,
    shown: str,
    interval: tuple[str, str],
    basis: str = "",
) -> tuple[ClaimVerdict, str] | None:
    """The table of the module docstring on a difference a - b, its test (``significant``,
    ``shown`` in the reason) and an interval of the ratio a/b (None: no interval, sizes and
    bands cannot be judged; ``interval``: its name and the verb "exclude" agreeing with it;
    ``basis``: what a band that holds rests on); None when only "not significant" follows."""
    name, excludes = interval
    size = (claim.size_pct() or 0.0) / 100.0
    if claim.direction is ClaimDirection.EQUAL:
        if ratio is not None and 1.0 - size <= ratio[0] and ratio[1] <= 1.0 + size:
            return ClaimVerdict.HOLDS, f"{name} inside 1 ± {size:.0%}{basis}"
        outside = ratio is not None and (ratio[0] > 1.0 + size or ratio[1] < 1.0 - size)
        if significant and outside:
            return ClaimVerdict.CONTRADICTED, f"differ beyond ±{size:.0%} ({shown})"
        return None
    higher = claim.direction is ClaimDirection.HIGHER
    if significant and difference != 0.0 and (difference > 0.0) != higher:
        word = "lower" if higher else "higher"
        return ClaimVerdict.CONTRADICTED, f"significantly {word} ({shown})"
    if ratio is not None and size > 0.0:
        # the ratio's interval on the claimed side of 1 + s (higher) or 1 - s (lower)
        low, high = ratio
        if high < 1.0 + size if higher else low > 1.0 - size:
            why = f"{name} {excludes} the claimed size ({claim.size}; {shown})"
            return ClaimVerdict.CONTRADICTED, why
        if significant and (low >= 1.0 + size if higher else high <= 1.0 - size):
            return ClaimVerdict.HOLDS, f"significantly {claim.direction} ({shown})"
    elif significant and size == 0.0:
        return ClaimVerdict.HOLDS, f"significantly {claim.direction} ({shown})"
    return None


def _pair_verdict(
    claim: Claim, c: Comparison, p_adj: float | None, alpha: float
) -> tuple[ClaimVerdict, str, int | None]:
    if c.welch is None or p_adj is None or c.difference is None:
        return ClaimVerdict.UNDETERMINED, c.verdict_reason, None
    shown = f"p={p_adj:.3g}" + (" Holm-adjusted" if p_adj != c.p_value else "")
    ci = c.ratio.ci
    ratio = (ci.low, ci.high) if ci is not None else None
    interval = ("the ratio's CI", "excludes")
    decided = _decide(claim, p_adj < alpha, c.difference, ratio, shown, interval)
    if decided is not None:
        return (*decided, None)
    n, why = _needed(claim, c, alpha)
    return ClaimVerdict.NOT_SIGNIFICANT, f"not significant ({shown}){why}", n


def _pooled_verdict(
    claim: Claim, pooled: PooledShares, p_adj: float, alpha: float
) -> tuple[ClaimVerdict, str]:
    """A pair's verdict on its pooled counts (module docstring): the same table, Fisher's
    p, and the ratio's conservative bounds from the two Wilson intervals."""
    counts = pooled.counts()
    shown = f"Fisher's exact p={p_adj:.3g}" + (" Holm-adjusted" if p_adj != pooled.p_value else "")
    high = math.inf if pooled.ratio_high is None else pooled.ratio_high
    ratio = (pooled.ratio_low, high)
    decided = _decide(
        claim,
        p_adj < alpha,
        pooled.difference_points,
        ratio,
        f"{shown}; {counts}",
        ("the ratio's bounds", "exclude"),
        basis=f" ({counts})",
    )
    if decided is not None:
        return decided
    return ClaimVerdict.NOT_SIGNIFICANT, (
        f"not significant ({shown}; {counts}): more {pooled.of} per trial would tell"
    )


def _combine(results: Sequence[PairResult]) -> tuple[ClaimVerdict, str]:
    verdicts = [r.verdict for r in results]
    total = len(results)
    count = {v: verdicts.count(v) for v in ClaimVerdict}
    if count[ClaimVerdict.CONTRADICTED]:
        first = next(r for r in results if r.verdict is ClaimVerdict.CONTRADICTED)
        lead = "" if total == 1 else f"{count[ClaimVerdict.CONTRADICTED]} of {total} pairs: "
        return ClaimVerdict.CONTRADICTED, f"{lead}{first.reason}"
    if count[ClaimVerdict.HOLDS] == total:
        lead = "" if total == 1 else f"all {total} pairs: "
        return ClaimVerdict.HOLDS, f"{lead}{results[0].reason}"
    if count[ClaimVerdict.NOT_SIGNIFICANT]:
        first = next(r for r in results if r.verdict is ClaimVerdict.NOT_SIGNIFICANT)
        lead = "" if total == 1 else f"holds in {count[ClaimVerdict.HOLDS]} of {total} pairs; "
        return ClaimVerdict.NOT_SIGNIFICANT, f"{lead}{first.reason}"
    first = next(r for r in results if r.verdict is not ClaimVerdict.HOLDS)
    return first.verdict, first.reason


def _stats(trials: Sequence[TrialKpis], kpi: str, confidence: float) -> dict[str, CellStats]:
    by_cell = values_by_cell(trials, kpi)
    return {
        cell: describe(by_cell[cell], cell_id=cell, kpi=kpi, confidence=confidence)
        for cell in cell_order(trials)
    }


def judge_claim(
    claim: Claim, trials: Sequence[TrialKpis], options: AnalysisOptions = AnalysisOptions()
) -> ClaimResult:
    """The verdict of one claim on the finished trials of a run (module docstring)."""
    if claim.not_testable is not None:
        return ClaimResult(
            claim=claim, verdict=ClaimVerdict.NOT_TESTABLE, reason=claim.not_testable, pairs=[]
        )
    assert claim.kpi is not None
    assert claim.compare is not None
    cells = {t.cell_id: t.factors for t in trials}
    pairs = matched_pairs(claim, cells)
    if not pairs:
        return ClaimResult(
            claim=claim,
            verdict=ClaimVerdict.NOT_TESTABLE,
            reason=(
                f"no finished trial in cells {claim.compare.a} matched with {claim.compare.b} "
                "in this run"
            ),
            pairs=[],
        )
    stats = _stats(trials, claim.kpi, options.confidence)
    comparisons = [compare_stats(stats[b], stats[a], options) for a, b in pairs]
    pools = [
        None if c.welch is not None else pool_cells(trials, stats[a], stats[b], options.confidence)
        for (a, b), c in zip(pairs, comparisons, strict=True)
    ]
    p_values = [
        pool.p_value if pool is not None else c.p_value
        for c, pool in zip(comparisons, pools, strict=True)
    ]
    adjusted = holm_adjust(p_values)
    results: list[PairResult] = []
    for (a, b), c, pool, p, p_adj in zip(
        pairs, comparisons, pools, p_values, adjusted, strict=True
    ):
        if pool is not None and p_adj is not None:
            verdict, reason = _pooled_verdict(claim, pool, p_adj, options.alpha)
            n: int | None = None
        else:
            verdict, reason, n = _pair_verdict(claim, c, p_adj, options.alpha)
        results.append(
            PairResult(
                a_cell=a,
                b_cell=b,
                unit=c.unit,
                a=c.candidate,
                b=c.baseline,
                difference_ci=(
                    pool.difference_ci
                    if pool is not None
                    else c.welch.ci
                    if c.welch is not None
                    else None
                ),
                ratio=c.ratio,
                p_value=p,
                p_value_adjusted=p_adj,
                verdict=verdict,
                reason=reason,
                needed_n=n,
                pooled=pool,
            )
        )
    verdict, reason = _combine(results)
    needs = [r.needed_n for r in results if r.needed_n is not None]
    return ClaimResult(
        claim=claim,
        verdict=verdict,
        reason=reason,
        pairs=results,
        needed_n=max(needs) if needs and verdict is ClaimVerdict.NOT_SIGNIFICANT else None,
    )


def judge_claims(
    claims: Sequence[Claim],
    trials: Sequence[TrialKpis],
    options: AnalysisOptions = AnalysisOptions(),
) -> list[ClaimResult]:
    """Every claim's verdict, in the file's order."""
    return [judge_claim(claim, trials, options) for claim in claims]
