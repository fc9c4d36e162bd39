"""The closed-loop maximum as the studies found it (``capacity find --closed-loop``):
cassandra-stress's thread ramp (``-rate auto``), thread counts 4, 8, 16, 24, 36, 54, ...
each for a step, until three steps in a row gain less than 5% op rate over the best so far
(the engine runs it: ``engine/src/runner/ramp.rs``). The answer is the step with the
highest op rate, as seed 000 picked 609 and 406 threads.

Closed loop hides queueing (a thread waits for its answer before it sends the next
request), so its p99 is a service time, not the response time users see at that rate; with
an SLO, the best step whose p99 meets it is reported beside, for comparison with the
open-loop search. :func:`ramp_result` is pure; :func:`run_ramp` runs the engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, Literal

from pydantic import Field

from casslab.capacity.probe_spec import ramp_spec
from casslab.engine_contract.engine_records import SummaryRecord
from casslab.errors import EngineError
from casslab.load.front_end import SearchLoad
from casslab.load.session import LoadSession
from casslab.record import Record

SCHEMA_VERSION: Final[Literal[1]] = 1


class RampPoint(Record):
    threads: int
    op_rate: float  # ops/s
    p99_ms: float
    errors: int
    meets_slo: bool | None = None  # None without an SLO


class RampResult(Record):
    """The thread ramp: every step, the best one, and (with an SLO) the best meeting it."""

    schema_version: Literal[1] = SCHEMA_VERSION
    best_threads: int | None
    op_rate: float | None  # of the best step
    p99_ms_at_best: float | None
    p99_slo_ms: float | None = None
    best_threads_under_slo: int | None = None
    op_rate_under_slo: float | None = None
    steps: list[RampPoint] = Field(default_factory=list)
    elapsed_s: float | None = None


def ramp_result(summary: SummaryRecord, p99_slo_ms: float | None) -> RampResult:
    """The result of a ramp run from the engine's summary (its ``ramp`` steps)."""
    steps = [
        RampPoint(
            threads=s.threads,
            op_rate=s.op_rate,
            p99_ms=s.p99_ms,
            errors=s.errors,
            meets_slo=None if p99_slo_ms is None else (s.p99_ms <= p99_slo_ms and s.errors == 0),
        )
        for s in summary.ramp
    ]
    best = next((s for s in steps if s.threads == summary.best_threads), None)
    under = [s for s in steps if s.meets_slo]
    best_under = max(under, key=lambda s: s.op_rate) if under else None
    return RampResult(
        best_threads=best.threads if best else None,
        op_rate=best.op_rate if best else None,
        p99_ms_at_best=best.p99_ms if best else None,
        p99_slo_ms=p99_slo_ms,
        best_threads_under_slo=best_under.threads if best_under else None,
        op_rate_under_slo=best_under.op_rate if best_under else None,
        steps=steps,
    )


def run_ramp(
    command: SearchLoad,
    workdir: Path,
    *,
    step_duration_s: float,
    warmup_s: float,
    p99_slo_ms: float | None,
    session: LoadSession | None = None,
) -> RampResult:
    """Run the thread ramp of ``command`` once; the engine's files stay in ``workdir``."""
    spec = ramp_spec(command, step_duration_s=step_duration_s, warmup_s=warmup_s)
    result = (session or LoadSession()).run(spec, workdir, wording=command.wording)
    if not result.summary.ramp:
        raise EngineError(
            f"capacity find --closed-loop: the engine reported no ramp step; see {workdir}"
        )
    return ramp_result(result.summary, p99_slo_ms)
