"""The measure of a capacity search: one fixed-rate, open-loop run of the load engine per call
(:class:`EngineMeasure`), against the cluster the workload names; and what the search does
before its first run: check a node answers (:func:`check_reachable`) and load data
(:func:`run_preload`).

A run is a discarded warm-up then ``step_duration_s`` measured, its p99 the engine's HDR
percentile of the response time from each operation's intended start. An open loop runs
every operation due in the window even when the cluster falls behind, so a rate far above
capacity would run for long: a run still going at its deadline (warm-up + twice the step
+ :data:`GRACE_S`) is stopped, its engine killed, and it counts as saturated with what its
intervals measured.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from casslab.capacity.find import Probe
from casslab.capacity.probe_spec import open_loop_spec
from casslab.engine_contract.engine_records import ErrorRecord, IntervalRecord, SummaryRecord
from casslab.engine_contract.recall import merged_recall
from casslab.engine_contract.workload_spec import WorkloadSpec
from casslab.errors import ClusterError, EngineError
from casslab.load.front_end import READ_KINDS, SearchLoad
from casslab.load.front_ends import front_end
from casslab.load.session import LoadSession

GRACE_S = 20.0  # engine start, connection and (first run) schema, beyond the run itself
HARD_TIMEOUT_EXTRA_S = 60.0  # the engine's own timeout, past the deadline: a stuck read
CONNECT_TIMEOUT_S = 3.0
NOT_FOUND_LIMIT = 0.5  # share of reads finding no row above which the data is missing


def split_host_port(contact_point: str) -> tuple[str, int]:
    """``host:port`` or ``[v6]:port`` into its parts."""
    if contact_point.startswith("["):
        host, _, port = contact_point[1:].partition("]:")
    else:
        host, _, port = contact_point.rpartition(":")
    if not host or not port.isdigit():
        raise ClusterError(f"contact point {contact_point!r}: write it as HOST:PORT")
    return host, int(port)


def check_reachable(contact_points: Sequence[str], timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Raise :class:`ClusterError` unless one contact point accepts a TCP connection."""
    failures: list[str] = []
    for point in contact_points:
        host, port = split_host_port(point)
        try:
            with socket.create_connection((host, port), timeout=timeout_s):
                return
        except OSError as error:
            failures.append(f"{point} ({error.strerror or error})")
    raise ClusterError(
        f"capacity find: no Cassandra node answers at {', '.join(failures)}; start one with "
        "`casslab up`, or name a running node (stress -node HOST, ycsb -p hosts=HOST)"
    )


def probe_from_summary(rate_per_s: float, summary: SummaryRecord, first_error: str | None) -> Probe:
    """A finished run's measure, from its summary (the HDR percentiles of the whole run)."""
    total = summary.total
    measured = total.count > 0
    return Probe(
        rate_asked_per_s=rate_per_s,
        rate_achieved_per_s=total.op_rate,
        ops=total.count,
        errors=total.errors,
        p50_ms=total.response.p50_ms if measured else None,
        p99_ms=total.response.p99_ms if measured else None,
        p999_ms=total.response.p999_ms if measured else None,
        duration_s=summary.duration_s,
        first_error=first_error,
        recall=total.recall.mean if total.recall is not None else None,
    )


def probe_from_intervals(
    rate_per_s: float, intervals: Sequence[IntervalRecord], first_error: str | None
) -> Probe:
    """A run stopped at its deadline: counts of its measured intervals, and the highest
    percentiles of any interval (a bound from below: the queue was still growing)."""
    measured = [i for i in intervals if i.phase == "measure"]
    seen = [i for i in (measured or intervals) if i.total.count > 0]
    ops = sum(i.total.count for i in measured)
    duration_s = sum(i.t_end_s - i.t_start_s for i in measured)
    return Probe(
        rate_asked_per_s=rate_per_s,
        rate_achieved_per_s=ops / duration_s if duration_s > 0 else 0.0,
        ops=ops,
        errors=sum(i.total.errors for i in measured),
        p50_ms=max((i.total.response.p50_ms for i in seen), default=None),
        p99_ms=max((i.total.response.p99_ms for i in seen), default=None),
        p999_ms=max((i.total.response.p999_ms for i in seen), default=None),
        duration_s=duration_s,
        truncated=True,
        first_error=first_error,
        recall=_recall(measured),
    )


def _recall(intervals: Sequence[IntervalRecord]) -> float | None:
    merged = merged_recall([i.total.recall for i in intervals])
    return merged.mean if merged is not None else None


def check_data(command: SearchLoad, summary: SummaryRecord) -> None:
    """Refuse a read workload that finds no data: reads of missing rows are cheap, and the
    capacity they show is not the workload's."""
    kinds = {op.name: op.kind for op in command.spec.operations}
    reads = [s for name, s in summary.ops.items() if kinds.get(name) in READ_KINDS]
    count = sum(s.count for s in reads)
    missing = sum(s.not_found for s in reads)
    if count and missing > NOT_FOUND_LIMIT * count:
        load = front_end(command.front_end).preload_example
        raise ClusterError(
            f"capacity find: {missing:,} of {count:,} reads found no row: the table is empty "
            f"or holds other keys; load it first, e.g. --preload '{load}' with the same "
            "key range as the workload"
        )


class EngineMeasure:
    """``measure(rate)`` for :func:`casslab.capacity.find.find_capacity`: one engine run.

    The first run creates the schema and warms up ``first_warmup_s`` longer (a node's JIT
    is cold); run *i* uses operation seed ``seed + i - 1``. Each run's spec and engine
    output stay in ``workdir/run-NN-RATE``.
    """

    def __init__(
        self,
        command: SearchLoad,
        workdir: Path,
        *,
        step_duration_s: float,
        warmup_s: float,
        first_warmup_s: float = 0.0,
        seed: int = 0,
        session: LoadSession | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.command = command
        self.workdir = workdir
        self.step_duration_s = step_duration_s
        self.warmup_s = warmup_s
        self.first_warmup_s = first_warmup_s
        self.seed = seed
        self.session = session or LoadSession()
        self.clock = clock
        self.runs = 0

    def __call__(self, rate_per_s: float) -> Probe:
        self.runs += 1
        first = self.runs == 1
        warmup_s = self.warmup_s + (self.first_warmup_s if first else 0.0)
        spec = open_loop_spec(
            self.command,
            rate_per_s,
            step_duration_s=self.step_duration_s,
            warmup_s=warmup_s,
            seed=self.seed + self.runs - 1,
            with_schema=first,
        )
        allowed_s = warmup_s + 2 * self.step_duration_s + GRACE_S
        workdir = self.workdir / f"run-{self.runs:02d}-{rate_per_s:g}"
        intervals, summary, first_error = self._run(spec, workdir, allowed_s)
        if summary is None:
            return probe_from_intervals(rate_per_s, intervals, first_error)
        if self.command.reads:
            check_data(self.command, summary)
        return probe_from_summary(rate_per_s, summary, first_error)

    def _run(
        self, spec: WorkloadSpec, workdir: Path, allowed_s: float
    ) -> tuple[list[IntervalRecord], SummaryRecord | None, str | None]:
        deadline = self.clock() + allowed_s
        intervals: list[IntervalRecord] = []
        summary: SummaryRecord | None = None
        first_error: str | None = None
        records = self.session.stream(
            spec,
            workdir,
            timeout_s=allowed_s + HARD_TIMEOUT_EXTRA_S,
            wording=self.command.wording,
        )
        try:
            for record in records:
                if isinstance(record, IntervalRecord):
                    intervals.append(record)
                elif isinstance(record, SummaryRecord):
                    summary = record
                elif isinstance(record, ErrorRecord) and first_error is None:
                    first_error = f"{record.op}: {record.message}" if record.op else record.message
                if summary is None and self.clock() > deadline:
                    break  # saturated: closing the stream kills the engine
        finally:
            records.close()
        return intervals, summary, first_error


def run_preload(
    spec: WorkloadSpec, workdir: Path, session: LoadSession | None = None
) -> SummaryRecord:
    """Run a preload to its own end; any failed operation is an error (the search would
    measure a partly loaded table)."""
    result = (session or LoadSession()).run(spec, workdir)
    failed = result.summary.total.errors
    if failed:
        sample = result.errors[0].message if result.errors else "no message"
        raise EngineError(
            f"capacity find --preload: {failed:,} operations failed (first: {sample}); "
            f"the data is incomplete; see {workdir}, fix the cluster or the command and "
            "run again"
        )
    return result.summary
