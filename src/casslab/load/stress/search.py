"""A cassandra-stress command as a capacity search's workload (``capacity find``, an
experiment's ``discover:``), refusing in stress's words what the search sets itself: the
rate (``fixed=``/``throttle=``), how long a run lasts (``n=``/``duration=``) and the files a
run writes (``-log file=``/``hdrfile=``, ``-graph file=``). ``-rate threads=N`` bounds the
operations in flight of the open loop; with ``--closed-loop``, ``threads>=A threads<=B``
bound the ramp instead."""

from __future__ import annotations

from pathlib import Path

from casslab.engine_contract.workload_spec import Connection
from casslab.errors import WorkloadSyntaxError
from casslab.load import defaults
from casslab.load.front_end import OPEN_LOOP_IN_FLIGHT, SearchLoad
from casslab.load.stress.model import StressCommand


def _conflicts(command: StressCommand, closed_loop: bool) -> None:
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


def stress_search_load(
    command: StressCommand,
    connection: Connection,
    *,
    closed_loop: bool,
    seed: int,
    data_seed: int,
    base_dir: Path,
) -> SearchLoad:
    """``command`` as the search's workload (see the module docstring)."""
    _conflicts(command, closed_loop)
    spec = command.to_spec(connection, seed=seed, data_seed=data_seed, profile_dir=base_dir)
    rate = command.rate
    low = defaults.STRESS_RAMP_MIN_THREADS
    high = defaults.STRESS_RAMP_MAX_THREADS
    if rate is not None:
        low = rate.threads_min or low
        high = max(low, rate.threads_max or high)
    in_flight = rate.threads if rate is not None and rate.threads else OPEN_LOOP_IN_FLIGHT
    return SearchLoad(
        front_end="stress",
        display=command.display(),
        spec=spec,
        max_in_flight=in_flight,
        ramp_min_threads=low,
        ramp_max_threads=high,
    )
