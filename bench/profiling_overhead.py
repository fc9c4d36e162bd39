"""What profiling costs: the same short write trial with and without ``profile: [cpu]`` on
one local node (issue 35: at most 3 % of the op rate at JDK Flight Recorder's default
sampling interval).

Starts a real 1-node cluster, creates the workload's schema, runs one discarded phase of
``--jit-warmup`` seconds (a cold node's JIT compiler multiplies its op rate several times in
its first minute: measured 1,700 -> 9,400 ops/s over four 10 s phases, which no alternation
of two rounds evens out), then runs ``--rounds`` rounds
of two measured phases of ``--duration`` seconds each, a saturating write load over a fixed
key range (the data stays the same size): one plain, one profiled, their order alternating
from round to round (plain first in odd rounds) so that a drift of the node (compaction,
JIT, page cache) falls on both arms alike. Each phase is ``trial_phases.measure`` as the
runner calls it, with the metrics recording on in both arms; the profiled one records JFR
from its first measured interval and writes its collapsed stacks and flame graph, as a
profiled trial does (the recording's start and the files' writing are part of the cost).

The node starts with Flight Recorder set up at boot, as a profiled run's nodes do
(:data:`casslab.host.jfr.AT_BOOT`): the first ``JFR.start`` in a running JVM sets JFR up and
the JIT then recompiles, which left a node at a third of its op rate for about 30 s here
(17,700 ops/s before, 5,200, 6,700 and 12,700 in three 10 s phases after one start/stop
with no load while it recorded; none of that with JFR set up at boot), so both arms run on
such a node and the ratio is the recordings' own cost.

Printed: per round the op rate and p99 of each arm, and the ratio profiled / plain of the
mean op rate and of the mean p99 with Fieller's 95 % interval (Welch-Satterthwaite df;
:func:`casslab.analysis.inference.fieller_ratio`). Usage::

    flock /tmp/casslab-nodes.lock .venv/bin/python bench/profiling_overhead.py \\
        [--rounds 2] [--duration 10] [--threads 16] [--jit-warmup 30] \\
        [--base-address 127.0.221.31] [--jmx-port-base 8930]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from casslab.analysis.inference import SampleSummary, fieller_ratio
from casslab.analysis.paired_ratio import paired_ratio
from casslab.analysis.profile_kind import ProfileKind
from casslab.cluster import LocalCluster, cluster_spec
from casslab.engine_contract.engine_records import SummaryRecord
from casslab.engine_contract.workload_spec import Connection, WorkloadSpec
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.design.plan_records import Trial
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.run import trial_phases
from casslab.experiment.run.engine_specs import spec_for
from casslab.experiment.run.recording import LazyRecording
from casslab.experiment.steps.profile.profile_phase import Profiler, boot_options, recorded

ARMS = ("plain", "profiled")


def phase(
    cluster: LocalCluster,
    trial: Trial,
    workload: WorkloadSpec,
    directory: Path,
    recording: LazyRecording,
    *,
    profiled: bool,
    timeout_s: float,
) -> SummaryRecord:
    """One measured phase; with ``profiled``, JFR's CPU profile of the node over it."""
    profiler = None
    if profiled:
        pids = {n.number: n.pid for n in cluster.nodes if n.pid is not None}
        profiler = Profiler(pids, [ProfileKind.CPU], directory / "profile")
        (directory / "profile").mkdir(parents=True, exist_ok=True)
    with recorded(profiler) as profiles:
        summary = trial_phases.measure(
            cluster,
            trial,
            workload,
            directory,
            hdr_log=directory / "latency.hlog",
            metrics_path=directory / "metrics.parquet",
            clock=trial_phases.TrialClock(),
            recording=recording,
            timeout_s=timeout_s,
            emit=lambda _event: None,
            profiler=profiler,
        )
    if profiled and not profiles:
        raise SystemExit(f"the profiled phase in {directory} wrote no profile")
    return summary


def trial_of(duration_s: int, threads: int) -> Trial:
    """The write trial of ``duration_s`` measured seconds (2 s of engine warm-up first)."""
    experiment = Experiment.model_validate(
        {
            "name": "profilingbench",
            "workload": "write",
            "warmup": "2s",
            "measure": f"duration={duration_s}s cl=ONE -pop dist=UNIFORM(1..100000) "
            f"-rate threads={threads}",
        }
    )
    return expand(experiment).trials[0]


def ratio_line(name: str, plain: list[float], profiled: list[float]) -> str:
    """Profiled / plain of the means, with Fieller's 95 % interval when it exists."""

    def summary(values: list[float]) -> SampleSummary:
        var = statistics.variance(values) if len(values) > 1 else 0.0
        return SampleSummary(mean=statistics.fmean(values), var=var, n=len(values))

    estimate = fieller_ratio(summary(plain), summary(profiled))
    if estimate.ratio is None:
        return f"{name}: undetermined ({estimate.undetermined_reason})"
    interval = (
        f"[{estimate.ci.low:.3f}, {estimate.ci.high:.3f}]"
        if estimate.ci is not None
        else f"(no interval: {estimate.undetermined_reason})"
    )
    return f"{name}: profiled / plain = {estimate.ratio:.3f} {interval}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="rounds of one phase per arm")
    parser.add_argument("--duration", type=int, default=10, help="seconds per measured phase")
    parser.add_argument("--threads", type=int, default=16, help="engine threads (no rate cap)")
    parser.add_argument(
        "--jit-warmup", type=int, default=30, help="seconds of discarded load before round 1"
    )
    parser.add_argument("--base-address", default="127.0.221.31")
    parser.add_argument("--jmx-port-base", type=int, default=8930)
    args = parser.parse_args()

    spec = cluster_spec(
        name="profilingbench",
        nodes=1,
        heap="512M",
        base_address=args.base_address,
        jmx_port_base=args.jmx_port_base,
        # as a profiled run's nodes: Flight Recorder set up at boot, in both arms
        jvm_options=boot_options([ProfileKind.CPU]),
    )
    trial, warm = trial_of(args.duration, args.threads), trial_of(args.jit_warmup, args.threads)
    rates: dict[str, list[float]] = {arm: [] for arm in ARMS}
    p99s: dict[str, list[float]] = {arm: [] for arm in ARMS}
    with tempfile.TemporaryDirectory(prefix="casslab-profiling-bench-") as tmp:
        root = Path(tmp)
        t0 = time.monotonic()
        with LocalCluster.create(spec, root=root / "clusters", remove_on_exit=True) as cluster:
            print(f"1 node up in {time.monotonic() - t0:.0f} s", flush=True)
            connection = Connection(contact_points=cluster.contact_points)
            workload = spec_for(trial.workload, connection, 1)
            trial_phases.create_schema(cluster, trial, [workload])
            recording = LazyRecording()
            try:
                phase(
                    cluster,
                    warm,
                    spec_for(warm.workload, connection, 0),
                    root / "jit-warmup",
                    recording,
                    profiled=False,
                    timeout_s=args.jit_warmup + 120,
                )
                print(f"JIT warm-up: {args.jit_warmup} s of load, discarded", flush=True)
                for n in range(1, args.rounds + 1):
                    order = ARMS if n % 2 == 1 else ARMS[::-1]
                    for arm in order:
                        summary = phase(
                            cluster,
                            trial,
                            workload,
                            root / f"round{n}-{arm}",
                            recording,
                            profiled=arm == "profiled",
                            timeout_s=args.duration + 120,
                        )
                        rates[arm].append(summary.total.op_rate)
                        p99s[arm].append(summary.total.response.p99_ms)
                        print(
                            f"round {n} {arm:<8}: {summary.total.op_rate:8.0f} ops/s, "
                            f"p99 {summary.total.response.p99_ms:7.2f} ms",
                            flush=True,
                        )
            finally:
                recording.close()
    print()
    print(
        f"{args.rounds} rounds of {args.duration} s write phases ({args.threads} threads, "
        "1 node), plain and profile: [cpu] alternating:"
    )
    print(ratio_line("op rate", rates["plain"], rates["profiled"]))
    print(ratio_line("p99    ", p99s["plain"], p99s["profiled"]))
    print(paired_ratio(rates["plain"], rates["profiled"]).line("op rate, paired"))
    print(paired_ratio(p99s["plain"], p99s["profiled"]).line("p99, paired    "))
    cost = 100.0 * (1 - statistics.fmean(rates["profiled"]) / statistics.fmean(rates["plain"]))
    print(f"op rate lost to profiling: {cost:.1f} % (target: at most 3 %)")


if __name__ == "__main__":
    main()
