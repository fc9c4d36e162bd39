"""The JVM warm-up on nodes that just started: a rehearsal of the trial, until the JIT is done.

Why (issue 11, defect 2): a HotSpot JVM runs new code interpreted, then compiled by C1,
then by C2 with the profile it gathered; until C2 has compiled the hot paths, Cassandra
is slower, and on a small machine the compiler threads also take CPU from it. Measured on
2 cores (one node, the demo's 90/10 mix at 16 threads, per-thread CPU from /proc): the C2
compiler thread used 25-53% of a core for the first ~60 s of load and went quiet only
after ~80 s, so after the old 30 s warm-up the first measured phase ran at 21,159 op/s
against 33,088-36,254 for the next three. Running longer is not enough: the old warm-up
ran the measured workload on an *empty* table, and a warm-up that had let C2 finish that
way (90 s at 4 threads) still saw C2 start again in the first trial (20-51% of a core for
~15 s, 13-20k op/s against 27-42k after): reads that find rows in SSTables, at the
trial's concurrency, are other hot paths.

So the warm-up rehearses the trial: the runner loads the trial's data (its preload, which
it captures for the trials to come), then :func:`rehearse` runs the measured workload
with the trial's own concurrency, and the runner discards what it wrote (the trial's
reset, then the captured data restored). It stops when the nodes' JIT compiler threads
have gone quiet (their CPU, read from ``/proc/<pid>/task``, below
:attr:`WarmupRule.quiet_pct` of a core over the last :attr:`WarmupRule.window_s` seconds,
on every node), after at least ``min_s`` and at most ``max_s`` seconds. Nodes without a
local PID (remote backends) cannot be watched: the warm-up then runs ``max_s``.

How quiet is quiet (measured, same machine and workload, 1 s samples of the C2 thread):
a first rule, under 10% over 5 s, stopped at 58-61 s on a one-second lull, and C2 then
ran at 30% of a core (48% over the first 10 s) through the whole first trial, which
measured 30.5-31.8k op/s against 33.8-38.4k for trials 2-5 (C2 at 1.4-7% during those).
Under continuous load C2's tail is long: 6.7% of a core over 60-90 s of load, 2.6% over
90-120 s, 1% after; and the op rate follows it (36.5k, 38.3k, then 40-41k op/s). So the
rule is now under 3% over 20 s.

Why the rehearsal resets and restores the data before it runs the workload: their first
run sets the JIT off again. Measured (one node, the demo's workload), a rehearsal that had
ended with the node at 37k op/s was followed by a first trial that ran at 14-22k op/s for
8 s after its reset and restore (C2 at 73% of a core during the restore and 48% over the
trial's first 10 s), while every later trial, after the same reset and restore, started at
30-34k. Rehearsed first, they leave the first trial inside the spread of the later ones
(``bench/first_trial.py``).

The compilers get the CPU first while the rehearsal runs: on a saturated 2-core machine
the C2 thread gets only ~35% of a core next to the database's request threads, which is
what makes its tail long. :class:`CompilerBoost` raises the compiler threads' scheduling
priority (nice :data:`BOOST_NICE`) for the rehearsal only and puts back each thread's own
value before the trial; the code they compile is the same, from the same profile at the
trial's concurrency. Measured: C2 at 70-100% of a core for the first 15-20 s, under 3%
from about 60 s (against 90-120 s without); the rule then stops at 74-106 s. Lowering a
nice value needs root (CAP_SYS_NICE); without it the rehearsal runs unboosted, only
longer.

``bench/first_trial.py --runs 3`` (trial 1 against trials 2-5 of one cell, each run on a
fresh node): before, 0.812 of the later trials' mean (95% CI 0.631-0.993); with this
warm-up, the reset and restore rehearsed and the stock JVM options, 0.954 (0.899-1.008)
over 6 runs, trial 1 inside the 95% prediction interval of the later trials in all 6.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from casslab.cluster import Cluster
from casslab.engine_contract.engine_records import IntervalRecord
from casslab.engine_contract.workload_spec import Output, Stop, WorkloadSpec
from casslab.load.session import LoadSession

COMPILER_THREADS = ("C1 CompilerThre", "C2 CompilerThre")  # HotSpot names, cut to 15 chars
BOOST_NICE = -10  # the compiler threads' nice value during the rehearsal (default 0)


@dataclass(frozen=True)
class WarmupRule:
    """When the warm-up may stop: compilers quiet over a window, within [min_s, max_s]."""

    min_s: float = 30.0
    max_s: float = 180.0
    window_s: int = 20
    quiet_pct: float = 3.0  # compiler CPU, % of one core, per node, mean over the window


@dataclass
class WarmupOutcome:
    """What the warm-up did: how long it ran, and the compilers' CPU per second."""

    seconds: float = 0.0
    quiet: bool = False  # stopped because the compilers went quiet (else: max_s reached)
    compiler_pct: list[float] = field(default_factory=list)  # busiest node, per second
    boosted: bool = False  # the compiler threads ran at a raised priority


def jit_quiet(compiler_pct: Sequence[float], elapsed_s: float, rule: WarmupRule) -> bool:
    """Whether the warm-up may stop now (pure): ``compiler_pct`` is the busiest node's
    compiler CPU in each second so far."""
    if elapsed_s < rule.min_s or len(compiler_pct) < rule.window_s:
        return False
    window = compiler_pct[-rule.window_s :]
    return sum(window) / len(window) < rule.quiet_pct


def compiler_tasks(pid: int) -> dict[int, int] | None:
    """The JIT compiler threads of process ``pid``: thread id -> CPU clock ticks used, or
    None when the process cannot be read (gone, or not on this machine)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    found: dict[int, int] = {}
    for task in tasks:
        try:
            text = Path(f"/proc/{pid}/task/{task}/stat").read_text()
        except OSError:
            continue  # the thread ended
        name = text[text.index("(") + 1 : text.rindex(")")]
        if name.startswith(COMPILER_THREADS):
            fields = text[text.rindex(")") + 2 :].split()
            found[int(task)] = int(fields[11]) + int(fields[12])  # utime, stime
    return found


def compiler_cpu_s(pid: int) -> float | None:
    """CPU seconds the JIT compiler threads of process ``pid`` have used, or None when
    the process cannot be read (gone, or not on this machine)."""
    tasks = compiler_tasks(pid)
    return None if tasks is None else sum(tasks.values()) / os.sysconf("SC_CLK_TCK")


class CompilerBoost:
    """Raises the nice value of JIT compiler threads for a while, then puts each back.

    :meth:`apply` is called every second (HotSpot starts and stops compiler threads as
    its queues grow and drain); :meth:`restore` gives every thread it changed its own
    earlier value. Without the right to lower nice values it does nothing."""

    def __init__(self, nice: int) -> None:
        self.nice = nice
        self.allowed = True
        self.saved: dict[int, int] = {}  # thread id -> its nice value before

    def apply(self, threads: Sequence[int]) -> None:
        for tid in threads:
            if not self.allowed or tid in self.saved:
                continue
            try:
                before = os.getpriority(os.PRIO_PROCESS, tid)
                os.setpriority(os.PRIO_PROCESS, tid, self.nice)
            except PermissionError:
                self.allowed = False
            except OSError:
                continue  # the thread ended
            else:
                self.saved[tid] = before

    def restore(self) -> None:
        for tid, before in self.saved.items():
            try:
                os.setpriority(os.PRIO_PROCESS, tid, before)
            except OSError:
                continue  # the thread ended
        self.saved.clear()


class _CompilerWatch:
    """Per-second compiler CPU of the nodes with a local PID (the busiest node's), and
    their compiler threads boosted while it watches."""

    def __init__(self, pids: Sequence[int], boost: CompilerBoost) -> None:
        self.pids = list(pids)
        self.boost = boost
        self.last = {pid: self._read(pid) for pid in self.pids}
        self.at = time.monotonic()

    def _read(self, pid: int) -> float | None:
        tasks = compiler_tasks(pid)
        if tasks is None:
            return None
        self.boost.apply(list(tasks))
        return sum(tasks.values()) / os.sysconf("SC_CLK_TCK")

    @property
    def watching(self) -> bool:
        return any(value is not None for value in self.last.values())

    def sample(self) -> float:
        now = time.monotonic()
        elapsed = max(now - self.at, 1e-3)
        busiest = 0.0
        for pid in self.pids:
            value = self._read(pid)
            previous = self.last.get(pid)
            if value is not None and previous is not None:
                busiest = max(busiest, 100.0 * (value - previous) / elapsed)
            self.last[pid] = value
        self.at = now
        return busiest


def rehearse(
    cluster: Cluster,
    measure: WorkloadSpec,
    workdir: Path,
    *,
    rule: WarmupRule,
    timeout_s: float | None,
    session: LoadSession | None = None,
) -> WarmupOutcome:
    """Run ``measure`` on the trial's data until the JIT is quiet (see the module
    docstring), its engine in the run's ``session`` as the trial's will be (``--engine-cpus``).
    The schema and the preloaded data must be there; the caller resets the data
    afterwards."""
    started = time.monotonic()
    boost = CompilerBoost(BOOST_NICE)
    outcome = WarmupOutcome()
    spec = measure.model_copy(
        update={
            "schema_cql": [],
            "warmup_s": 0.0,
            "stop": Stop(duration_s=rule.max_s),
            "output": Output(interval_s=1.0),
        }
    )
    watch = _CompilerWatch([n.pid for n in cluster.nodes if n.pid is not None], boost)
    try:
        records = (session or LoadSession()).stream(spec, workdir, timeout_s=timeout_s)
        try:
            for record in records:
                if not isinstance(record, IntervalRecord) or not watch.watching:
                    continue
                outcome.compiler_pct.append(watch.sample())
                if jit_quiet(outcome.compiler_pct, time.monotonic() - started, rule):
                    outcome.quiet = True
                    break
        finally:
            records.close()  # stops the engine when the compilers went quiet first
    finally:
        outcome.boosted = bool(boost.saved)
        boost.restore()  # the trial runs with the threads' own priorities
    outcome.seconds = time.monotonic() - started
    return outcome
