"""The Claims section that opens a report: each claim of the study the run repeats, the
study's number, casslab's estimate with its 95% CI and a verdict (pure).

The claims are the experiment file's ``claims:`` as the manifest recorded them; the verdicts
are :func:`casslab.analysis.claim_verdicts.judge_claims` on the trials the rest of the
report analyses. The estimate of a pair of cells is a's mean against b's, in the KPI's unit,
and the change a/b - 1 with Fieller's 95% interval; a claim over a factor shows one
estimate per matched pair, named by the levels the two cells share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from casslab.analysis import AnalysisOptions, TrialKpis
from casslab.analysis.claim_records import Claim
from casslab.analysis.claim_verdicts import ClaimResult, ClaimVerdict, PairResult, judge_claims
from casslab.analysis.pooled_share import PooledShares
from casslab.report import text
from casslab.report.report_document import Section, Table, TableRow, Tone

TONES = {
    ClaimVerdict.HOLDS: Tone.GOOD,
    ClaimVerdict.CONTRADICTED: Tone.BAD,
    ClaimVerdict.NOT_SIGNIFICANT: Tone.UNKNOWN,
    ClaimVerdict.UNDETERMINED: Tone.UNKNOWN,
    ClaimVerdict.NOT_TESTABLE: Tone.NEUTRAL,
}
COLUMNS = ["claim", "source", "study's number", "casslab's estimate (95% CI)", "verdict", "why"]
METHOD = (
    "Each claim compares cells a with cells b as the verdicts below compare a cell with the "
    "baseline: Welch's t-test of a - b (alpha {alpha:g}), Holm-adjusted over the matched "
    "pairs of cells of one claim, and the change a/b - 1 with Fieller's 95% interval. "
    "'Not significant here' gives the iterations per cell that would tell, from the observed "
    "variance and the study's effect (or the claimed size), at 80% power. A share of counts "
    "whose trials do not vary at all in either cell (lost updates: every trial lost all of "
    "them, or none) is judged on the counts pooled over each cell's trials instead: "
    "Fisher's exact test, and Newcombe's interval of the difference in percentage points."
)


def _shared(pair: PairResult) -> str:
    """The levels the two cells share (the other factors' combination), or ''."""
    a_parts = pair.a_cell.split(",")
    shared = [part for part in a_parts if part in pair.b_cell.split(",")]
    return ",".join(shared)


def pooled_estimate(pooled: PooledShares) -> str:
    """``100% vs 0% (2,000 of 2,000 vs 0 of 1,990 lww_acknowledged): +100 points [+99.8,
    +100]``: the pooled shares and Newcombe's interval of their difference."""
    a, b, ci = pooled.a, pooled.b, pooled.difference_ci
    shares = f"{100.0 * a.fraction:.3g}% vs {100.0 * b.fraction:.3g}%"
    counts = f"{a.hits:,} of {a.n:,} vs {b.hits:,} of {b.n:,} {pooled.of}"
    change = f"{pooled.difference_points:+.3g} points"
    return f"{shares} ({counts}): {change} [{ci.low:+.3g}, {ci.high:+.3g}]"


def pair_estimate(pair: PairResult) -> str:
    """``120.0 vs 100.0 ops/s: +20.0% [+17.6%, +22.4%]``."""
    if pair.pooled is not None:
        return pooled_estimate(pair.pooled)
    a, b = pair.a.mean, pair.b.mean
    if a is None or b is None:
        return text.DASH
    means = f"{text.number(a)} vs {text.number(b)} {pair.unit}".rstrip()
    ratio = pair.ratio
    if ratio.ratio is None:
        return means
    change = text.percent(100.0 * (ratio.ratio - 1.0))
    if ratio.ci is None:
        return f"{means}: {change} [CI undetermined]"
    low = text.percent(100.0 * (ratio.ci.low - 1.0))
    high = text.percent(100.0 * (ratio.ci.high - 1.0))
    return f"{means}: {change} [{low}, {high}]"


def claim_estimate(result: ClaimResult) -> str:
    if not result.pairs:
        return text.DASH
    if len(result.pairs) == 1:
        return pair_estimate(result.pairs[0])
    return "; ".join(f"{_shared(p) or p.a_cell}: {pair_estimate(p)}" for p in result.pairs)


def verdict_text(result: ClaimResult) -> str:
    if result.verdict is ClaimVerdict.NOT_SIGNIFICANT and result.needed_n is not None:
        return f"{result.verdict_text} (~{result.needed_n} iterations per cell to tell)"
    return result.verdict_text


def claims_table(results: Sequence[ClaimResult]) -> Table:
    rows = [
        TableRow(
            cells=[
                r.claim.says,
                r.claim.source,
                r.claim.seed_value.shown() if r.claim.seed_value is not None else text.DASH,
                claim_estimate(r),
                verdict_text(r),
                r.reason,
            ],
            tone=TONES[r.verdict],
        )
        for r in results
    ]
    return Table(id="claims", title="Claims", columns=COLUMNS, rows=rows)


def recorded_claims(experiment: Mapping[str, Any]) -> tuple[list[Claim], list[str]]:
    """The claims of a manifest's experiment, and a problem per claim that does not read."""
    raw = experiment.get("claims")
    claims: list[Claim] = []
    problems: list[str] = []
    for index, item in enumerate(raw if isinstance(raw, list) else []):
        try:
            claims.append(Claim.model_validate(item))
        except ValidationError as error:
            first = error.errors()[0]["msg"] if error.errors() else str(error)
            problems.append(f"claims[{index}] of the manifest does not read ({first}): left out")
    return claims, problems


def claims_section(
    experiment: Mapping[str, Any],
    trials: Sequence[TrialKpis],
    options: AnalysisOptions,
    given: Sequence[Claim] | None = None,
) -> Section | None:
    """The Claims section, or None when there is no claim: the claims of the manifest's
    experiment, or ``given`` (an experiment file's, for a run made before it had them)."""
    if given is not None:
        claims, problems = (
            list(given),
            ["The claims are the experiment file's, given to the report."],
        )
    else:
        claims, problems = recorded_claims(experiment)
    if not claims:
        return None
    results = judge_claims(claims, trials, options)
    counts: dict[str, int] = {}
    for result in results:
        counts[result.verdict_text] = counts.get(result.verdict_text, 0) + 1
    summary = ", ".join(f"{n} {label}" for label, n in counts.items()) or "none read"
    return Section(
        id="claims",
        title="Claims",
        paragraphs=[
            f"The claims of the study this experiment repeats, against this run: {summary}.",
            METHOD.format(alpha=options.alpha),
            *problems,
        ],
        tables=[claims_table(results)],
    )
