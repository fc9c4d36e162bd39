"""The workload of a capacity search, from a load command line, and the engine spec of each
of its runs. Pure: the command's front end (:mod:`casslab.load.front_ends`, chosen by the
command's first word: ``ycsb run ...``; else cassandra-stress) parses it and refuses what
the search sets itself; this module sets that per run.

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
from pathlib import Path

from casslab.engine_contract.workload_spec import (
    Connection,
    OpenLoop,
    Output,
    Stop,
    ThreadRamp,
    WorkloadSpec,
)
from casslab.errors import UsageError, WorkloadSyntaxError
from casslab.load.front_end import FrontEnd, SearchLoad
from casslab.load.front_ends import split_selector
from casslab.load.stress.build import stress_thread_steps

RAMP_MIN_PATIENCE = 3  # cassandra-stress: three steps without a gain end the ramp
RAMP_MIN_GAIN_PCT = 5.0


def split_words(args: Sequence[str]) -> tuple[FrontEnd, list[str]]:
    """The front end and its words: one argument is a quoted command line, several are words."""
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
    return split_selector(words)


def parse_command(
    args: Sequence[str],
    *,
    contact_points: Sequence[str],
    closed_loop: bool = False,
    seed: int = 0,
    data_seed: int = 0,
    cwd: Path | None = None,
) -> SearchLoad:
    """The workload of a search (module docstring); ``contact_points`` when the command
    names no node (stress ``-node``, YCSB ``-p hosts=``)."""
    front_end, words = split_words(args)
    return front_end.search_load(
        words,
        contact_points=contact_points,
        closed_loop=closed_loop,
        seed=seed,
        data_seed=data_seed,
        base_dir=cwd or Path.cwd(),
    )


def preload_spec(
    args: Sequence[str], *, contact_points: Sequence[str], data_seed: int, cwd: Path | None = None
) -> WorkloadSpec:
    """The spec of a load before the search (a stress or ``ycsb load`` command run as
    given, to its own end), with the search's data seed so reads find what it wrote."""
    front_end, words = split_words(args)
    parsed = front_end.parse(words, base_dir=cwd)
    connection = Connection(contact_points=parsed.contact_points(contact_points))
    return parsed.to_spec(connection, data_seed=data_seed)


def open_loop_spec(
    command: SearchLoad,
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


def ramp_spec(command: SearchLoad, *, step_duration_s: float, warmup_s: float) -> WorkloadSpec:
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


def require_recall(command: SearchLoad, option: str = "--min-recall") -> None:
    """Refuse a recall floor for a workload that counts no recall: one without a vector
    dataset, or whose queries include no ANN search against its ground truth."""
    if command.spec.vectors is not None and any(
        op.recall_k is not None for op in command.spec.operations
    ):
        return
    raise UsageError(
        f"capacity find {option}: {command.display} counts no recall@k (it has no vector "
        "dataset with ground truth, or no unfiltered ANN query); search a vector workload, "
        "e.g. user profile=@vector 'ops(ann=1)', or leave out " + option
    )
