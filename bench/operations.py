"""Benchmark: two operations on one local cluster, each against what bounds it (issue 34).

One 2-node cluster (512M heaps, RF 2, ``-Dcassandra.ring_delay_ms=5000`` as the
operations' real-node tests start theirs), preloaded by the engine with ``--rows`` rows of
``casslab stress write`` and flushed, then:

(a) add-node: a third node bootstraps, through the add-node operation (the Cluster
    protocol's ring capability), from its start to every node seeing it UP/NORMAL. The
    bytes it streamed are what the operation records (JMX ``TotalIncomingBytes`` of the
    new node, the counter ``nodetool netstats`` reports per session). Its streaming is the
    time between the new node's log lines ``Executing streaming plan for Bootstrap`` and
    ``All sessions completed``; the rest is joining (JVM start, gossip, the ring delay,
    the ring's agreement). Printed: the streaming throughput (bytes over streaming time,
    and over the whole bootstrap) and each part's share.
(b) rolling restart: first every node restarted on its own (drained and stopped, not
    timed, then started and timed until every node sees it UP/NORMAL: a single-node
    start), then a rolling restart of every node, one after the other, through the restart
    operation (drain, stop, start each). Printed: the rolling restart's time, the sum of
    the single-node starts, and their ratio.

The cluster is always taken down and its directory removed, on Ctrl-C and on error.

    flock /tmp/casslab-nodes.lock .venv/bin/python bench/operations.py [--rows 200000] \\
        [--rounds 1] [--base-address 127.0.121.1] [--jmx-port-base 7760]

With ``--rounds N`` (N >= 2) each round makes a new cluster, and the end prints the means
over rounds with Student-t 95 % intervals, and the rolling restart over the sum of single
starts as a ratio paired by round (geometric mean of the rounds' ratios, interval on their
logs).

Measured 2026-11-28 (Cassandra 5.0 default version, 2 cores shared with other sessions),
``flock /tmp/casslab-nodes.lock .venv/bin/python bench/operations.py``::

    preload: 200000 rows at RF 2, flushed, in 59.0 s
    (a) add node 3 to 2 nodes (200000 rows, RF 2)
      bootstrap, start to UP/NORMAL      23.4 s
      bytes streamed (JMX)               30.4 MiB
      throughput over the bootstrap  1.30 MiB/s
      streaming                           3.8 s (16 %)
      joining (the rest)                 19.6 s (84 %)
      throughput while streaming     7.99 MiB/s
    (b) rolling restart of 3 nodes
      node 1 started alone                9.4 s
      node 2 started alone                9.7 s
      node 3 started alone               10.2 s
      sum of single-node starts          29.4 s
      rolling restart                    44.2 s
        of which drain                   15.5 s
        of which stop                     1.6 s
        of which start                   27.0 s
      rolling / sum of starts           1.50x

On this machine a small bootstrap is mostly joining, not streaming: the new JVM's start
and the ring delay dwarf 4 s of streaming at ~8 MiB/s. A rolling restart costs 1.5 times
its nodes' starts, the difference almost all ``nodetool drain`` (about 5 s a node).

Three rounds on 2026-11-29, the machine otherwise idle,
``flock /tmp/casslab-nodes.lock .venv/bin/python bench/operations.py --rounds 3``::

    over 3 rounds (mean [95 % CI], Student t):
      bootstrap, start to UP/NORMAL   18.80 [16.27, 21.34] s
      throughput over the bootstrap   1.62 [1.40, 1.84] MiB/s
      throughput while streaming      11.41 [5.28, 17.54] MiB/s (3 rounds with the log lines)
      streaming share of a bootstrap  14.53 [9.15, 19.90] %
      sum of single-node starts       18.74 [14.02, 23.46] s
      rolling restart                 36.01 [31.97, 40.05] s
      rolling / sum of starts: per round 2.066, 1.873, 1.848; geometric mean 1.927 [1.657, 2.240]

Each round streamed the same 30.4 MiB. On the idle machine the single starts were faster
(5-7 s a node against 9-10 s) while drain kept its ~5 s a node, so the rolling restart
came to about twice the sum of the starts, its interval clear of 1.5: drain, not the
start, is what a rolling restart of small nodes adds.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from casslab.analysis.paired_ratio import paired_ratio
from casslab.analysis.stats import t_quantile
from casslab.cluster import ClusterSpec, LocalCluster, cluster_spec, distribution
from casslab.faults.kinds.add_node.add_node_operation import ADD_NODE
from casslab.faults.kinds.restart.restart_operation import RESTART, restart_node
from casslab.faults.model import Fault
from casslab.faults.operation import OperationDone, Stopwatch

RING_DELAY_MS = 5000
MIB = 1024 * 1024
_TIME = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})")
STREAM_BEGIN = "Executing streaming plan for Bootstrap"
STREAM_END = "All sessions completed"


def _line_time(line: str) -> float | None:
    found = _TIME.search(line)
    if found is None:
        return None
    return datetime.strptime(found.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()


def stream_window(log_text: str) -> tuple[float, float] | None:
    """(start, end) epoch seconds of a node's bootstrap streaming, from its system.log:
    the plan's ``Executing streaming plan for Bootstrap`` line to that plan's ``All
    sessions completed`` (None: no such pair)."""
    plan: str | None = None
    start: float | None = None
    for line in log_text.splitlines():
        if plan is None and STREAM_BEGIN in line:
            found = re.search(r"\[Stream #([0-9a-f-]+)", line)
            start = _line_time(line)
            plan = found.group(1) if found else ""
        elif plan is not None and STREAM_END in line and plan in line:
            end = _line_time(line)
            if start is not None and end is not None:
                return start, end
    return None


def throughput_mib_s(bytes_streamed: int, seconds: float) -> float | None:
    """Bytes over seconds in MiB/s (None: no time to divide by)."""
    return bytes_streamed / MIB / seconds if seconds > 0 else None


def shares(total_s: float, streaming_s: float) -> tuple[float, float]:
    """(streaming, joining) shares of a bootstrap of ``total_s`` seconds, in percent:
    joining is whatever of it was not streaming."""
    streaming = min(max(streaming_s, 0.0), total_s)
    return 100 * streaming / total_s, 100 * (total_s - streaming) / total_s


def ratio(numerator_s: float, denominator_s: float) -> float | None:
    """``numerator_s`` over ``denominator_s`` (None: nothing to divide by)."""
    return numerator_s / denominator_s if denominator_s > 0 else None


def _preload(home: Path, cluster: LocalCluster, rows: int) -> float:
    """``casslab stress write`` of ``rows`` rows at RF 2, then a flush of every node (a
    bootstrap streams SSTables, not memtables); its seconds."""
    began = time.monotonic()
    command = [sys.executable, "-m", "casslab", "stress", "write", f"n={rows}"]
    command += ["-schema", "replication(factor=2)", "-rate", "threads=16"]
    command += ["-node", ",".join(node.address for node in cluster.nodes)]
    done = subprocess.run(
        command,
        env={**os.environ, "CASSLAB_HOME": str(home)},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the preload failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    for node in cluster.nodes:
        cluster.nodetool(node.number, "flush", timeout_s=300)
    return time.monotonic() - began


def add_node(cluster: LocalCluster) -> tuple[float, int, tuple[float, float] | None]:
    """(wall seconds, bytes streamed, streaming window) of the add-node operation."""
    number = len(cluster.nodes) + 1
    fault = Fault.model_validate({"at": 0, "kind": "add-node", "target": number})
    began = time.monotonic()
    done = ADD_NODE.begin(cluster, fault)
    wall_s = time.monotonic() - began
    assert isinstance(done, OperationDone)
    [step] = [s for s in done.steps if s.step == "bootstrap"]
    if step.bytes_streamed is None:
        raise SystemExit(f"node {number}'s streamed bytes could not be read (JMX)")
    window = stream_window(cluster.node(number).log_file.read_text(errors="replace"))
    return wall_s, step.bytes_streamed, window


def single_starts(cluster: LocalCluster) -> list[float]:
    """Each node's start alone: drained and stopped (not timed), then started."""
    starts = []
    for node in cluster.nodes:
        watch = Stopwatch()
        restart_node(cluster, node.number, watch)
        starts.append(next(s.duration_s for s in watch.steps if s.step == "start"))
    return starts


def rolling_restart(cluster: LocalCluster) -> tuple[float, dict[str, float]]:
    """(wall seconds, seconds per step kind) of a restart of every node in turn."""
    watch = Stopwatch()
    began = time.monotonic()
    for node in cluster.nodes:
        fault = Fault.model_validate({"at": 0, "kind": "restart", "target": node.number})
        RESTART.run(cluster, fault, watch)
    wall_s = time.monotonic() - began
    steps: dict[str, float] = {}
    for step in watch.steps:
        steps[step.step] = steps.get(step.step, 0.0) + step.duration_s
    return wall_s, steps


def _figure(value: float | None, unit: str) -> str:
    return "undetermined" if value is None else f"{value:.2f}{unit}"


@dataclass(frozen=True)
class Round:
    """One round's figures: a new cluster preloaded, a node added, the restarts."""

    bootstrap_s: float
    streamed_bytes: int
    streaming_s: float | None  # None: the log lines of the streaming were not found
    starts_s: tuple[float, ...]
    rolling_s: float


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> str:
    """``mean [low, high]`` of ``values`` (Student t), or the values when fewer than 2."""
    if len(values) < 2:
        return ", ".join(f"{v:.2f}" for v in values) + " (an interval needs 2 rounds)"
    mean = statistics.fmean(values)
    half = t_quantile(confidence, len(values) - 1) * statistics.stdev(values)
    half /= math.sqrt(len(values))
    return f"{mean:.2f} [{mean - half:.2f}, {mean + half:.2f}]"


def one_round(spec: ClusterSpec, home: Path, rows: int) -> Round:
    """A new cluster of ``spec`` under ``home``: preloaded, a node added, each node
    started alone, then restarted in turn; printed as it goes, removed at the end."""
    with LocalCluster.create(spec, home / "clusters", remove_on_exit=True) as cluster:
        preload_s = _preload(home, cluster, rows)
        print(f"preload: {rows} rows at RF 2, flushed, in {preload_s:.1f} s")
        wall_s, streamed, window = add_node(cluster)
        print(f"\n(a) add node 3 to 2 nodes ({rows} rows, RF 2)")
        print(f"  bootstrap, start to UP/NORMAL  {wall_s:8.1f} s")
        print(f"  bytes streamed (JMX)           {streamed / MIB:8.1f} MiB")
        overall = _figure(throughput_mib_s(streamed, wall_s), " MiB/s")
        print(f"  throughput over the bootstrap  {overall:>8s}")
        streaming_s = None if window is None else window[1] - window[0]
        if streaming_s is None:
            print("  streaming: its log lines not found, its share undetermined")
        else:
            streaming, joining = shares(wall_s, streaming_s)
            rate = _figure(throughput_mib_s(streamed, streaming_s), " MiB/s")
            print(f"  streaming                      {streaming_s:8.1f} s ({streaming:.0f} %)")
            print(
                f"  joining (the rest)             {wall_s - streaming_s:8.1f} s ({joining:.0f} %)"
            )
            print(f"  throughput while streaming     {rate:>8s}")
        starts = single_starts(cluster)
        rolling_s, steps = rolling_restart(cluster)
        print(f"\n(b) rolling restart of {len(starts)} nodes")
        for number, start_s in enumerate(starts, 1):
            print(f"  node {number} started alone          {start_s:8.1f} s")
        print(f"  sum of single-node starts      {sum(starts):8.1f} s")
        print(f"  rolling restart                {rolling_s:8.1f} s")
        for name, seconds in steps.items():
            print(f"    of which {name:19s} {seconds:8.1f} s")
        slower = _figure(ratio(rolling_s, sum(starts)), "x")
        print(f"  rolling / sum of starts        {slower:>8s}", flush=True)
    return Round(wall_s, streamed, streaming_s, tuple(starts), rolling_s)


def summary(rounds: Sequence[Round]) -> list[str]:
    """The figures over rounds: means with their 95 % intervals, and the rolling restart
    against the sum of single starts as a ratio paired by round."""
    streamed = [(r, r.streaming_s) for r in rounds if r.streaming_s]  # its log lines found

    def interval(values: Iterable[float | None]) -> str:
        return mean_interval([v for v in values if v is not None])

    lines = [f"over {len(rounds)} rounds (mean [95 % CI], Student t):"]
    lines.append(f"  bootstrap, start to UP/NORMAL   {interval(r.bootstrap_s for r in rounds)} s")
    overall = interval(throughput_mib_s(r.streamed_bytes, r.bootstrap_s) for r in rounds)
    lines.append(f"  throughput over the bootstrap   {overall} MiB/s")
    if streamed:
        rate = interval(throughput_mib_s(r.streamed_bytes, s) for r, s in streamed)
        lines.append(
            f"  throughput while streaming      {rate} MiB/s ({len(streamed)} rounds with the "
            "log lines)"
        )
        share = interval(shares(r.bootstrap_s, s)[0] for r, s in streamed)
        lines.append(f"  streaming share of a bootstrap  {share} %")
    lines.append(f"  sum of single-node starts       {interval(sum(r.starts_s) for r in rounds)} s")
    lines.append(f"  rolling restart                 {interval(r.rolling_s for r in rounds)} s")
    paired = paired_ratio([sum(r.starts_s) for r in rounds], [r.rolling_s for r in rounds])
    lines.append("  " + paired.line("rolling / sum of starts"))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=1, help="rounds, each on a new cluster")
    parser.add_argument("--base-address", default="127.0.121.1")
    parser.add_argument("--jmx-port-base", type=int, default=7760)
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds {args.rounds}: give 1 or more")
    distribution.fetch(distribution.DEFAULT_VERSION)  # jars cached before timing
    spec = cluster_spec(
        name="benchops",
        nodes=2,
        heap="512M",
        base_address=args.base_address,
        jmx_port_base=args.jmx_port_base,
        jvm_options=(f"-Dcassandra.ring_delay_ms={RING_DELAY_MS}",),
    )
    rounds = []
    for number in range(1, args.rounds + 1):
        print(f"\n== round {number} of {args.rounds}", flush=True)
        with tempfile.TemporaryDirectory(prefix="casslab-bench-") as tmp:
            rounds.append(one_round(spec, Path(tmp), args.rows))
    if args.rounds > 1:
        print()
        print("\n".join(summary(rounds)))


if __name__ == "__main__":
    main()
