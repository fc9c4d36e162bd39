"""The workload of a capacity search, from a cassandra-stress or YCSB command line, and the
engine spec of each of its runs. Pure: the stress and YCSB front ends
(:mod:`casslab.load.stress`, :mod:`casslab.load.ycsb`) parse the command; this module refuses
what the search sets itself and sets it per run.

A command is a cassandra-stress command (``write -pop seq=1..100000 -rate threads=64``), the
same after a leading ``stress``, or a YCSB ``run`` after ``ycsb`` (``ycsb run -P workloada -p
recordcount=10000``), as separate words or one quoted string.

What the search sets, so the command must not: the rate (stress ``fixed=``/``throttle=``,
YCSB ``-target``), how long a run lasts (stress ``n=``/``duration=``; YCSB's
``operationcount`` and ``maxexecutiontime`` are ignored, since every workload file sets
one) and the files a run writes (``-log file=``/``hdrfile=``, ``-graph file=``). Stress
``-rate threads=N`` and YCSB ``-threads N`` bound the operations in flight of the open loop
(default 1024); with ``--closed-loop`` they are the ramp's bounds instead (stress
``threads>=A threads<=B``; YCSB ``-threads N`` the upper one).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path

from casslab.engine_contract.workload_spec import (
    Connection,
    OpenLoop,
    OpKind,
    Output,
    Stop,
    ThreadRamp,
    WorkloadSpec,
)
from casslab.errors import WorkloadSyntaxError
from casslab.load import defaults, wording
from casslab.load.engine import Wording
from casslab.load.stress import StressCommand, parse_stress
from casslab.load.stress.build import stress_thread_steps
from casslab.load.ycsb import YcsbCommand, YcsbPhase, parse_ycsb
from casslab.record import Record

READ_KINDS = (OpKind.READ, OpKind.SCAN, OpKind.COUNTER_READ, OpKind.READ_MODIFY_WRITE)
OPEN_LOOP_IN_FLIGHT: int = OpenLoop(rate_per_s=1.0).max_in_flight  # the engine default
RAMP_MIN_PATIENCE = 3  # cassandra-stress: three steps without a gain end the ramp
RAMP_MIN_GAIN_PCT = 5.0


class Tool(StrEnum):
    STRESS = "stress"
    YCSB = "ycsb"


class LoadCommand(Record):
    """A parsed workload of the search: its base spec (rate and stop replaced per run)."""

    tool: Tool
    display: str  # the command as typed, passwords masked
    spec: WorkloadSpec
    max_in_flight: int  # open loop: operations in flight at most
    ramp_min_threads: int  # closed loop: the thread ramp's bounds
    ramp_max_threads: int

    @property
    def wording(self) -> Wording:
        """How engine failures are worded for this command's users."""
        if self.tool is Tool.YCSB:
            return wording.ycsb(files_kept=True)
        return wording.stress(files_kept=True)

    @property
    def reads(self) -> bool:
        """Whether the workload reads rows some earlier load must have written."""
        return any(op.kind in READ_KINDS for op in self.spec.operations)


def split_words(args: Sequence[str]) -> tuple[Tool, list[str]]:
    """The tool and its words: one argument is a quoted command line, several are words."""
    words = list(args)
    if len(words) == 1:
        try:
            words = shlex.split(words[0])
        except ValueError as error:
            raise WorkloadSyntaxError(
                f"capacity find: cannot split {args[0]!r} into words ({error}); close every quote"
            ) from None
    if not words:
        raise WorkloadSyntaxError(
            "capacity find: give the workload, a cassandra-stress command (e.g. write "
            "-pop seq=1..100000) or a YCSB one (ycsb run -P workloada -p recordcount=10000)"
        )
    first = words[0].lower()
    if first == "ycsb":
        return Tool.YCSB, words[1:]
    if first == "stress":
        return Tool.STRESS, words[1:]
    return Tool.STRESS, words


def _stress_conflicts(command: StressCommand, closed_loop: bool) -> None:
    rate = command.rate
    own = "capacity find sets it per run"
    if rate is not None and (rate.fixed_per_s is not None or rate.throttle_per_s is not None):
        keep = "" if closed_loop else " (keep threads=N: the most operations in flight)"
        raise WorkloadSyntaxError(f"-rate fixed=/throttle=: {own}; remove it from -rate{keep}")
    if command.ops_count is not None:
        raise WorkloadSyntaxError(
            f"n={command.ops_count}: each run of the search lasts --step-duration; remove n= "
            "(for the key range give -pop, e.g. -pop dist=UNIFORM(1..N))"
        )
    if command.duration_s is not None:
        raise WorkloadSyntaxError(
            f"duration={command.duration_s:g}s: each run of the search lasts --step-duration; "
            "remove duration= and set --step-duration instead"
        )
    if command.log.file or command.log.hdrfile or command.graph.file:
        raise WorkloadSyntaxError(
            "-log file=/hdrfile= and -graph file=: capacity find writes its own files to "
            "--out; remove them"
        )
    ramp = rate is not None and (
        rate.threads_min is not None or rate.threads_max is not None or rate.auto
    )
    if closed_loop and rate is not None and rate.threads is not None:
        raise WorkloadSyntaxError(
            f"-rate threads={rate.threads}: --closed-loop ramps the thread count itself; "
            "remove threads=N, or bound the ramp with -rate threads>=A threads<=B"
        )
    if not closed_loop and ramp:
        raise WorkloadSyntaxError(
            "-rate threads>=/threads<=/auto ramps the thread count: that is --closed-loop; "
            "the open-loop search takes -rate threads=N (operations in flight) or no -rate"
        )


def _stress(
    command: StressCommand,
    connection: Connection,
    closed_loop: bool,
    seed: int,
    data_seed: int,
    cwd: Path,
) -> LoadCommand:
    _stress_conflicts(command, closed_loop)
    spec = command.to_spec(connection, seed=seed, data_seed=data_seed, profile_dir=cwd)
    rate = command.rate
    low = defaults.STRESS_RAMP_MIN_THREADS
    high = defaults.STRESS_RAMP_MAX_THREADS
    if rate is not None:
        low = rate.threads_min or low
        high = max(low, rate.threads_max or high)
    in_flight = rate.threads if rate is not None and rate.threads else OPEN_LOOP_IN_FLIGHT
    return LoadCommand(
        tool=Tool.STRESS,
        display=command.display(),
        spec=spec,
        max_in_flight=in_flight,
        ramp_min_threads=low,
        ramp_max_threads=high,
    )


def _ycsb(
    command: YcsbCommand, words: list[str], connection: Connection, seed: int, data_seed: int
) -> LoadCommand:
    if command.phase is not YcsbPhase.RUN:
        raise WorkloadSyntaxError(
            "ycsb load: capacity find measures a `ycsb run`; load the records first, e.g. "
            "--preload 'ycsb load -P workloada -p recordcount=10000'"
        )
    if command.target_per_s is not None:
        raise WorkloadSyntaxError(
            "ycsb -target: capacity find sets the rate per run; remove -target "
            "(-threads N bounds the operations in flight)"
        )
    properties = dict(command.properties)
    properties.pop("maxexecutiontime", None)
    properties["operationcount"] = "1"  # every run's length is --step-duration instead
    command = command.model_copy(update={"properties": properties})
    spec = command.to_spec(connection, seed=seed, data_seed=data_seed)
    given = "threadcount" in command.properties
    low = defaults.STRESS_RAMP_MIN_THREADS
    return LoadCommand(
        tool=Tool.YCSB,
        display="ycsb " + shlex.join(words),
        spec=spec,
        max_in_flight=command.threads if given else OPEN_LOOP_IN_FLIGHT,
        ramp_min_threads=min(low, command.threads) if given else low,
        ramp_max_threads=command.threads if given else defaults.STRESS_RAMP_MAX_THREADS,
    )


def parse_command(
    args: Sequence[str],
    *,
    contact_points: Sequence[str],
    closed_loop: bool = False,
    seed: int = 0,
    data_seed: int = 0,
    cwd: Path | None = None,
) -> LoadCommand:
    """The workload of a search (module docstring); ``contact_points`` when the command
    names no node (stress ``-node``, YCSB ``-p hosts=``)."""
    tool, words = split_words(args)
    if tool is Tool.YCSB:
        ycsb = parse_ycsb(words)
        connection = Connection(contact_points=ycsb.contact_points(contact_points))
        return _ycsb(ycsb, words, connection, seed, data_seed)
    stress = parse_stress(words)
    connection = Connection(contact_points=stress.contact_points(contact_points))
    return _stress(stress, connection, closed_loop, seed, data_seed, cwd or Path.cwd())


def preload_spec(
    args: Sequence[str], *, contact_points: Sequence[str], data_seed: int, cwd: Path | None = None
) -> WorkloadSpec:
    """The spec of a load before the search (a stress or ``ycsb load`` command run as
    given, to its own end), with the search's data seed so reads find what it wrote."""
    tool, words = split_words(args)
    if tool is Tool.YCSB:
        ycsb = parse_ycsb(words)
        connection = Connection(contact_points=ycsb.contact_points(contact_points))
        return ycsb.to_spec(connection, data_seed=data_seed)
    stress = parse_stress(words)
    connection = Connection(contact_points=stress.contact_points(contact_points))
    return stress.to_spec(connection, data_seed=data_seed, profile_dir=cwd or Path.cwd())


def open_loop_spec(
    command: LoadCommand,
    rate_per_s: float,
    *,
    step_duration_s: float,
    warmup_s: float,
    seed: int,
    with_schema: bool,
) -> WorkloadSpec:
    """One run of the search: ``rate_per_s`` open loop for ``step_duration_s`` after a
    discarded ``warmup_s``; the schema statements only when ``with_schema`` (the first run
    creates it; a ``truncate=`` must not empty the table before every run)."""
    return command.spec.model_copy(
        update={
            "rate": OpenLoop(rate_per_s=rate_per_s, max_in_flight=command.max_in_flight),
            "stop": Stop(duration_s=step_duration_s),
            "warmup_s": warmup_s,
            "seed": seed,
            "schema_cql": command.spec.schema_cql if with_schema else [],
            "output": Output(interval_s=1.0),
        }
    )


def ramp_spec(command: LoadCommand, *, step_duration_s: float, warmup_s: float) -> WorkloadSpec:
    """The closed-loop thread ramp as cassandra-stress runs it (``-rate auto``): thread
    counts 4, 8, 16, 24, 36, 54, ... up to the bound, each for ``step_duration_s``, until
    three steps in a row gain less than 5% op rate over the best so far."""
    low, high = command.ramp_min_threads, command.ramp_max_threads
    return command.spec.model_copy(
        update={
            "rate": ThreadRamp(
                min=low,
                max=high,
                steps=stress_thread_steps(low, high),
                step_duration_s=step_duration_s,
                min_gain_pct=RAMP_MIN_GAIN_PCT,
                patience=RAMP_MIN_PATIENCE,
            ),
            "stop": Stop(),
            "warmup_s": warmup_s,
            "output": Output(interval_s=1.0),
        }
    )
