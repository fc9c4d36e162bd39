"""A small synthetic but realistic run directory, written from literal records.

Two cells (``compaction=STCS`` the baseline, ``compaction=LCS``) x 3 iterations, plus one
failed LCS trial with no engine or metrics file. LCS is clearly faster (op rate ~6,000 vs
~5,000 ops/s); p99 latency does not differ significantly. Each trial has 3 warm-up and
20 measured one-second intervals with write/read operations, a summary, and a metrics
Parquet file for one node. Each finished trial records a steady state (:data:`STEADY`):
steady from a few seconds in, STCS #3 from 0 s, and LCS #2 not steady. ``with_plan=False``
leaves out ``plan.json``: the layout of a run written before plan.json existed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from casslab.analysis import trial_kpis
from casslab.engine_contract.engine_records import (
    IntervalRecord,
    LatencyStats,
    OpStats,
    SummaryRecord,
)
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.design.stored_plan import plan_json
from casslab.experiment.file.experiment_model import Experiment
from casslab.store.layout import RunLayout
from casslab.store.plan_file import write_plan_file
from casslab.store.run_records import HostFacts, RunManifest, TrialResult, TrialStatus

STCS = "compaction=STCS"
LCS = "compaction=LCS"
KPIS = ["op_rate", "latency_p99_ms", "latency_mean_ms", "cpu_busy_pct", "sstables"]

# (cell, iteration, op rate ops/s, p99 ms, p50 ms, cpu busy %, sstables)
TRIALS: tuple[tuple[str, int, float, float, float, float, float], ...] = (
    (STCS, 1, 5012.0, 12.4, 2.10, 61.0, 9.0),
    (STCS, 2, 4890.0, 12.9, 2.25, 63.5, 11.0),
    (STCS, 3, 5105.0, 12.1, 2.05, 60.2, 10.0),
    (LCS, 1, 6020.0, 12.7, 1.80, 71.0, 5.0),
    (LCS, 2, 5930.0, 12.2, 1.86, 69.4, 6.0),
    (LCS, 3, 6110.0, 12.6, 1.78, 72.3, 5.0),
)
# (cell, iteration) -> where the steady part begins (s into the measure phase); None: not steady
STEADY: dict[tuple[str, int], float | None] = {
    (STCS, 1): 4.0,
    (STCS, 2): 6.0,
    (STCS, 3): 0.0,
    (LCS, 1): 5.0,
    (LCS, 2): None,
    (LCS, 3): 3.0,
}
NOT_STEADY_REASON = (
    "trends throughout: MSER-5 puts the end of the transient in the second half of the "
    "measured phase (op_rate at 12 s, 12 of 20 intervals); the KPIs cover the whole measured "
    "phase: measure longer or check the load"
)
INTERVALS = 20
WARMUP = 3
START = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)
TRIAL_SECONDS = 60
MEASURE_START_S = 25.0


def _latency(count: int, p50: float, p99: float, wobble: float) -> LatencyStats:
    return LatencyStats(
        count=count,
        mean_ms=round(p50 * 1.3 + wobble * 0.1, 3),
        p50_ms=round(p50 + wobble * 0.05, 3),
        p95_ms=round(p50 * 3.1 + wobble * 0.2, 3),
        p99_ms=round(p99 + wobble, 3),
        p999_ms=round(p99 * 2.4 + wobble * 2, 3),
        max_ms=round(p99 * 5.5 + wobble * 4, 3),
    )


def _op(rate: float, p50: float, p99: float, wobble: float, errors: int = 0) -> OpStats:
    count = int(rate)
    latency = _latency(count, p50, p99, wobble)
    return OpStats(count=count, errors=errors, op_rate=rate, response=latency, service=latency)


def _mixed(
    rate: float, p50: float, p99: float, wobble: float
) -> tuple[OpStats, dict[str, OpStats]]:
    writes = _op(round(rate * 0.9, 1), p50 * 0.9, p99 * 0.95, wobble)
    reads = _op(round(rate * 0.1, 1), p50 * 1.8, p99 * 1.3, wobble)
    return _op(rate, p50, p99, wobble), {"write": writes, "read": reads}


def intervals_for(rate: float, p99: float, p50: float, phase_shift: float) -> list[IntervalRecord]:
    out: list[IntervalRecord] = []
    for second in range(WARMUP + INTERVALS):
        # a slow wave (compaction) plus a faster wobble: autocorrelated like real runs
        wave = math.sin((second + phase_shift) / 3.0)
        wobble = 0.6 * math.sin(second * 1.7 + phase_shift)
        jitter = ((second * 7919 + int(phase_shift * 100)) % 23 - 11) / 11.0  # in [-1, 1]
        interval_rate = round(rate * (1 + 0.015 * wave + 0.02 * jitter) + 15 * wobble, 1)
        total, ops = _mixed(interval_rate, p50, p99 * (1 + 0.05 * wave), wobble)
        out.append(
            IntervalRecord(
                phase="warmup" if second < WARMUP else "measure",
                t_start_s=float(second),
                t_end_s=float(second + 1),
                threads=16,
                total=total,
                ops=ops,
            )
        )
    return out


def metrics_table(start_unix: float, cpu: float, sstables: float, phase_shift: float) -> pa.Table:
    times: list[float] = []
    nodes: list[str] = []
    metrics: list[str] = []
    values: list[float] = []
    for second in range(TRIAL_SECONDS):
        t = start_unix + second + 0.2
        wave = math.sin((second + phase_shift) / 4.0)
        for metric, value in (
            ("host.cpu_busy_pct", cpu + 4.0 * wave),
            ("cassandra.compactions_pending", max(0.0, round(2 + 2 * wave))),
            ("cassandra.sstables", sstables + round(2 * wave)),
            ("cassandra.bytes_compacted", 1.5e6 * second),
        ):
            times.append(t)
            nodes.append("node1")
            metrics.append(metric)
            values.append(float(value))
        for node, offset in (("node1", 0.5), ("node2", -500.0)):  # node 2's clock behind
            for metric, value in (
                ("clock.offset_ms", offset + wave),
                ("clock.delay_ms", 1.5),
                ("cassandra.stage_pending/MutationStage", max(0.0, round(cpu / 10 * wave))),
            ):
                times.append(t)
                nodes.append(node)
                metrics.append(metric)
                values.append(value)
    return pa.table(
        {"time": times, "node": nodes, "metric": metrics, "value": values},
        schema=pa.schema(
            [
                ("time", pa.float64()),
                ("node", pa.string()),
                ("metric", pa.string()),
                ("value", pa.float64()),
            ]
        ),
    )


def experiment_dict(
    name: str = "synthetic", iterations: int = 3, claims: Sequence[Mapping[str, Any]] = ()
) -> dict[str, object]:
    experiment = Experiment.model_validate(
        {
            "name": name,
            "factors": {"table.compaction": ["STCS", "LCS"]},
            "iterations": iterations,
            "kpis": KPIS,
            "workload": "mixed ratio(write=9,read=1)",
            "measure": "duration=20s cl=ONE -rate threads=16",
            "claims": list(claims),
        }
    )
    return experiment.to_file_dict()


def manifest(name: str, run_id: str, planned: int, experiment: dict[str, object]) -> RunManifest:
    return RunManifest(
        experiment_name=name,
        run_id=run_id,
        casslab_version="0.1.0",
        cassandra_version="5.0.9",
        jdk_version="17.0.12",
        engine_version="0.1.0",
        git_revision="8171839",
        host=HostFacts(
            hostname="lab",
            os="Linux",
            kernel="6.1.0",
            cpus=2,
            memory_bytes=8 * 2**30,
            python="3.11",
        ),
        experiment=experiment,
        started_at=START,
        ended_at=START + timedelta(seconds=TRIAL_SECONDS * (planned + 1)),
        trials_planned=planned,
    )


def write_trial(
    layout: RunLayout,
    cell: str,
    iteration: int,
    order_index: int,
    values: tuple[float, float, float, float, float],
    *,
    with_metrics: bool = True,
    record_kpis: bool = True,
    record_steady: bool = True,
) -> TrialResult:
    rate, p99, p50, cpu, sstables = values
    started = START + timedelta(seconds=TRIAL_SECONDS * order_index)
    directory = layout.trial_dir(cell, iteration)
    directory.mkdir(parents=True, exist_ok=True)
    shift = 1.3 * order_index
    intervals = intervals_for(rate, p99, p50, shift)
    measured = [i for i in intervals if i.phase == "measure"]
    total, ops = _mixed(rate, p50, p99, 0.0)
    summary = SummaryRecord(
        duration_s=float(len(measured)), total=total, ops=ops, engine_version="0.1.0"
    )
    lines = [i.model_dump_json() for i in intervals] + [summary.model_dump_json()]
    layout.engine_jsonl(cell, iteration).write_text("\n".join(lines) + "\n", encoding="utf-8")
    frame = None
    if with_metrics:
        table = metrics_table(started.timestamp(), cpu, sstables, shift)
        pq.write_table(table, layout.metrics_parquet(cell, iteration))
        frame = table.to_pandas()
    factors = {"table.compaction": cell.split("=", 1)[1]}
    trial_id = f"{cell}/{iteration}"
    kpis: dict[str, float | None] = {}
    if record_kpis:
        measure_start = started.timestamp() + MEASURE_START_S
        kpis = trial_kpis(
            trial_id=trial_id,
            cell_id=cell,
            iteration=iteration,
            factors=factors,
            summary=summary,
            metrics=frame,
            start=measure_start,
            end=measure_start + INTERVALS,
        ).kpis
    steady_fields: dict[str, Any] = {}
    if record_steady and (cell, iteration) in STEADY:
        start = STEADY[(cell, iteration)]
        steady_fields = {
            "steady": start is not None,
            "steady_start_s": 0.0 if start is None else start,
            "steady_reason": None if start is not None else NOT_STEADY_REASON,
        }
    result = TrialResult(
        trial_id=trial_id,
        cell_id=cell,
        iteration=iteration,
        order_index=order_index,
        factors=factors,
        status=TrialStatus.OK,
        started_at=started,
        ended_at=started + timedelta(seconds=TRIAL_SECONDS),
        measure_start_s=MEASURE_START_S,
        measure_end_s=MEASURE_START_S + INTERVALS,
        engine=summary,
        kpis=kpis,
        **steady_fields,
    )
    layout.trial_summary(cell, iteration).write_text(
        result.model_dump_json(indent=2), encoding="utf-8"
    )
    return result


def write_failed_trial(layout: RunLayout, cell: str, iteration: int, order_index: int) -> None:
    started = START + timedelta(seconds=TRIAL_SECONDS * order_index)
    directory = layout.trial_dir(cell, iteration)
    directory.mkdir(parents=True, exist_ok=True)
    result = TrialResult(
        trial_id=f"{cell}/{iteration}",
        cell_id=cell,
        iteration=iteration,
        order_index=order_index,
        factors={"table.compaction": cell.split("=", 1)[1]},
        status=TrialStatus.FAILED,
        error="node 1 stopped during preload (OutOfMemoryError)",
        started_at=started,
        ended_at=started + timedelta(seconds=7),
    )
    layout.trial_summary(cell, iteration).write_text(result.model_dump_json(), encoding="utf-8")


RunFactory = Callable[..., Path]


def build_run(
    root: Path,
    trials: tuple[tuple[str, int, float, float, float, float, float], ...] = TRIALS,
    *,
    failed: bool = True,
    scale: float = 1.0,
    with_metrics: bool = True,
    record_kpis: bool = True,
    record_steady: bool = True,
    iterations: int = 3,
    with_plan: bool = True,
    claims: Sequence[Mapping[str, Any]] = (),
) -> Path:
    """Write the synthetic run into ``root`` (created); returns ``root``."""
    layout = RunLayout(root=root)
    root.mkdir(parents=True)
    planned = len(trials) + (1 if failed else 0)
    experiment = experiment_dict(iterations=iterations, claims=claims)
    layout.manifest.write_text(
        manifest("synthetic", root.name, planned, experiment).model_dump_json(indent=2),
        encoding="utf-8",
    )
    if with_plan:
        write_plan_file(layout, plan_json(expand(Experiment.model_validate(experiment))))
    # a randomized-looking order: cells alternate
    order = sorted(range(len(trials)), key=lambda i: (trials[i][1], i % 2 == 0))
    for position, index in enumerate(order):
        cell, iteration, rate, p99, p50, cpu, sst = trials[index]
        write_trial(
            layout,
            cell,
            iteration,
            position,
            (rate * scale, p99, p50, cpu, sst),
            with_metrics=with_metrics,
            record_kpis=record_kpis,
            record_steady=record_steady,
        )
    if failed:
        write_failed_trial(layout, LCS, 4, len(trials))
    return root


@pytest.fixture
def make_run(tmp_path: Path) -> RunFactory:
    """``make_run(run_id, trials=TRIALS, failed=True, ...)``: a run directory in tmp_path."""

    def make(run_id: str = "run-a", *args: Any, **kwargs: Any) -> Path:
        return build_run(tmp_path / "results" / "synthetic" / run_id, *args, **kwargs)

    return make


@pytest.fixture(scope="session")
def build_run_at() -> RunFactory:
    """:func:`build_run` itself, for a module fixture (``make_run`` is the test's own)."""
    return build_run


@pytest.fixture(scope="session")
def written_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic run with its report written once (rendering takes seconds)."""
    from casslab.report import write_report

    root = build_run(tmp_path_factory.mktemp("written") / "run-a")
    write_report(root)
    return root


@pytest.fixture
def base_trials() -> tuple[tuple[str, int, float, float, float, float, float], ...]:
    """The literal trials of the synthetic run (cell, iteration, rate, p99, p50, cpu, sst)."""
    return TRIALS


@pytest.fixture
def run_dir(make_run: RunFactory) -> Path:
    return make_run()
