"""KPIs of vector search (specs here): recall@k of the ANN queries a trial ran, counted by
the engine against exact ground truth (``RecallStats`` of
:mod:`casslab.engine_contract.engine_records`), in total and per operation
(``ann.recall_at_k``). Computed in :mod:`casslab.analysis.kpis` (mean and percentiles)
and :mod:`casslab.analysis.recall_ci` (the CI across intervals)."""

from __future__ import annotations

from casslab.analysis.kpi_record import Direction, KpiSpec, spec

_H, _N = Direction.HIGHER_IS_BETTER, Direction.NEUTRAL
_SHARE = "a share, 0 to 1"

RECALL_KPIS: tuple[KpiSpec, ...] = (
    spec(
        "recall_at_k",
        "share",
        _H,
        "recall@k of the ANN queries: the share of each query's k true nearest neighbours "
        f"the search returned, mean over the queries of the window ({_SHARE}; exact, from "
        "the engine's per-query counts)",
        per_op=True,
    ),
    spec(
        "recall_p5",
        "share",
        _H,
        f"recall@k that 5% of the ANN queries were at or below (nearest rank; {_SHARE})",
        per_op=True,
    ),
    spec(
        "recall_p1",
        "share",
        _H,
        f"recall@k that 1% of the ANN queries were at or below (nearest rank; {_SHARE})",
        per_op=True,
    ),
    spec(
        "recall_unjudged",
        "count",
        _N,
        "ANN queries of a search while loading that could not be judged: their true "
        "neighbours were not yet inserted deep enough to tell k of them; not counted in "
        "recall_at_k (0 when every query was judged)",
        per_op=True,
    ),
    spec(
        "recall_ci_low",
        "share",
        _N,
        "lower bound of the 95% confidence interval of the trial's recall@k across its "
        "intervals (Student t on the per-interval recalls, autocorrelation-corrected "
        "sample size); a bound, not a goal",
        per_op=True,
    ),
    spec(
        "recall_ci_high",
        "share",
        _N,
        "upper bound of the 95% confidence interval of the trial's recall@k across its "
        "intervals (as recall_ci_low)",
        per_op=True,
    ),
)
