"""casslab.analysis: pure statistics, records in and records out.

Per-trial KPIs over the steady part of each trial (:mod:`.trial`: MSER-5 steady state in
:mod:`.steady`, exact latency percentiles from the engine's HdrHistogram log
(:mod:`casslab.engine_contract.hdr`) in :mod:`.window`, engine and metric KPIs in :mod:`.kpis`, the
latter by the rules of :mod:`.metric_rules`, named in :mod:`.kpi_catalogue`), per-cell descriptive
statistics with Student-t confidence intervals (:mod:`.stats`), the precision stopping rule
(:mod:`.stopping`), comparisons against a baseline cell with Welch's t-test, Fieller's
ratio interval, effect sizes, verdicts and warnings (:mod:`.compare`, :mod:`.inference`),
autocorrelation-corrected comparison of two runs' interval series (:mod:`.autocorr`), and a
study's claims judged on a run's trials (:mod:`.claim_records`, :mod:`.claim_verdicts`).
No files, clocks or printing here.

The package loads its modules on first use (PEP 562), so importing a light part such as
:mod:`.kpi_catalogue` (the KPI names experiment files are checked against) does not load
SciPy and pandas into every ``casslab`` command.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from casslab.analysis.analysis_records import (
        Analysis,
        AnalysisOptions,
        AnalysisWarning,
        CellInfo,
        CellStats,
        Comparison,
        ConfidenceInterval,
        Correction,
        EffectSize,
        KpiWindow,
        RatioEstimate,
        SteadyState,
        TrialKpis,
        Verdict,
        WarningCode,
        WelchTest,
    )
    from casslab.analysis.autocorr import (
        SeriesComparison,
        SeriesStats,
        compare_series,
        effective_sample_size,
        lag1_autocorrelation,
        series_stats,
    )
    from casslab.analysis.compare import (
        analyse,
        apply_correction,
        cell_warnings,
        compare_kpi,
        compare_stats,
        error_warnings,
    )
    from casslab.analysis.inference import (
        SampleSummary,
        effect_size,
        fieller_ratio,
        hedges_correction,
        holm_adjust,
        welch_test,
    )
    from casslab.analysis.kpi_catalogue import (
        DEFAULT_KPIS,
        KPI_CATALOGUE,
        Direction,
        KpiSpec,
        kpi_spec,
    )
    from casslab.analysis.kpis import (
        counter_increase,
        interval_series,
        kpis_from_intervals,
        kpis_from_metrics,
        kpis_from_summary,
    )
    from casslab.analysis.metric_rules import METRIC_RULES, AcrossNodes, MetricRule, Reduction
    from casslab.analysis.stats import cell_stats, describe, t_quantile, values_by_cell
    from casslab.analysis.steady import detect_steady_state, mser_truncation, steady_state
    from casslab.analysis.stopping import KpiPrecision, StoppingDecision, StoppingRule, decide
    from casslab.analysis.trial import trial_kpis
    from casslab.analysis.verdict import decide_verdict
    from casslab.analysis.window import window_summary

_HOME: dict[str, str] = {
    "AcrossNodes": "casslab.analysis.metric_rules",
    "Analysis": "casslab.analysis.analysis_records",
    "AnalysisOptions": "casslab.analysis.analysis_records",
    "AnalysisWarning": "casslab.analysis.analysis_records",
    "CellInfo": "casslab.analysis.analysis_records",
    "CellStats": "casslab.analysis.analysis_records",
    "Comparison": "casslab.analysis.analysis_records",
    "ConfidenceInterval": "casslab.analysis.analysis_records",
    "Correction": "casslab.analysis.analysis_records",
    "DEFAULT_KPIS": "casslab.analysis.kpi_catalogue",
    "Direction": "casslab.analysis.kpi_catalogue",
    "EffectSize": "casslab.analysis.analysis_records",
    "KPI_CATALOGUE": "casslab.analysis.kpi_catalogue",
    "KpiPrecision": "casslab.analysis.stopping",
    "KpiSpec": "casslab.analysis.kpi_catalogue",
    "KpiWindow": "casslab.analysis.analysis_records",
    "METRIC_RULES": "casslab.analysis.metric_rules",
    "MetricRule": "casslab.analysis.metric_rules",
    "RatioEstimate": "casslab.analysis.analysis_records",
    "Reduction": "casslab.analysis.metric_rules",
    "SampleSummary": "casslab.analysis.inference",
    "SeriesComparison": "casslab.analysis.autocorr",
    "SeriesStats": "casslab.analysis.autocorr",
    "SteadyState": "casslab.analysis.analysis_records",
    "StoppingDecision": "casslab.analysis.stopping",
    "StoppingRule": "casslab.analysis.stopping",
    "TrialKpis": "casslab.analysis.analysis_records",
    "Verdict": "casslab.analysis.analysis_records",
    "WarningCode": "casslab.analysis.analysis_records",
    "WelchTest": "casslab.analysis.analysis_records",
    "analyse": "casslab.analysis.compare",
    "apply_correction": "casslab.analysis.compare",
    "cell_stats": "casslab.analysis.stats",
    "cell_warnings": "casslab.analysis.compare",
    "compare_kpi": "casslab.analysis.compare",
    "compare_series": "casslab.analysis.autocorr",
    "compare_stats": "casslab.analysis.compare",
    "counter_increase": "casslab.analysis.kpis",
    "decide": "casslab.analysis.stopping",
    "decide_verdict": "casslab.analysis.verdict",
    "describe": "casslab.analysis.stats",
    "detect_steady_state": "casslab.analysis.steady",
    "effect_size": "casslab.analysis.inference",
    "effective_sample_size": "casslab.analysis.autocorr",
    "error_warnings": "casslab.analysis.compare",
    "fieller_ratio": "casslab.analysis.inference",
    "hedges_correction": "casslab.analysis.inference",
    "holm_adjust": "casslab.analysis.inference",
    "interval_series": "casslab.analysis.kpis",
    "kpi_spec": "casslab.analysis.kpi_catalogue",
    "kpis_from_intervals": "casslab.analysis.kpis",
    "kpis_from_metrics": "casslab.analysis.kpis",
    "kpis_from_summary": "casslab.analysis.kpis",
    "lag1_autocorrelation": "casslab.analysis.autocorr",
    "mser_truncation": "casslab.analysis.steady",
    "series_stats": "casslab.analysis.autocorr",
    "steady_state": "casslab.analysis.steady",
    "t_quantile": "casslab.analysis.stats",
    "trial_kpis": "casslab.analysis.trial",
    "values_by_cell": "casslab.analysis.stats",
    "welch_test": "casslab.analysis.inference",
    "window_summary": "casslab.analysis.window",
}


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'casslab.analysis' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "DEFAULT_KPIS",
    "KPI_CATALOGUE",
    "METRIC_RULES",
    "AcrossNodes",
    "Analysis",
    "AnalysisOptions",
    "AnalysisWarning",
    "CellInfo",
    "CellStats",
    "Comparison",
    "ConfidenceInterval",
    "Correction",
    "Direction",
    "EffectSize",
    "KpiPrecision",
    "KpiSpec",
    "KpiWindow",
    "MetricRule",
    "RatioEstimate",
    "Reduction",
    "SampleSummary",
    "SeriesComparison",
    "SeriesStats",
    "SteadyState",
    "StoppingDecision",
    "StoppingRule",
    "TrialKpis",
    "Verdict",
    "WarningCode",
    "WelchTest",
    "analyse",
    "apply_correction",
    "cell_stats",
    "cell_warnings",
    "compare_kpi",
    "compare_series",
    "compare_stats",
    "counter_increase",
    "decide",
    "decide_verdict",
    "describe",
    "detect_steady_state",
    "effect_size",
    "effective_sample_size",
    "error_warnings",
    "fieller_ratio",
    "hedges_correction",
    "holm_adjust",
    "interval_series",
    "kpi_spec",
    "kpis_from_intervals",
    "kpis_from_metrics",
    "kpis_from_summary",
    "lag1_autocorrelation",
    "mser_truncation",
    "series_stats",
    "steady_state",
    "t_quantile",
    "trial_kpis",
    "values_by_cell",
    "welch_test",
    "window_summary",
]
