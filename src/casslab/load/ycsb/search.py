"""A ``ycsb run`` as a capacity search's workload (``capacity find``, an experiment's
``discover:``), refusing in YCSB's words what the search sets itself: ``-target`` (the
rate) and a ``ycsb load``; ``operationcount`` and ``maxexecutiontime`` are ignored, since
every workload file sets one and each run lasts ``--step-duration``. ``-threads N`` bounds
the operations in flight (with ``--closed-loop``: the ramp's upper bound)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from casslab.engine_contract.workload_spec import Connection
from casslab.errors import WorkloadSyntaxError
from casslab.load import defaults
from casslab.load.front_end import OPEN_LOOP_IN_FLIGHT, SearchLoad
from casslab.load.ycsb.parse import YcsbCommand, YcsbPhase


def ycsb_search_load(
    command: YcsbCommand,
    words: Sequence[str],
    connection: Connection,
    *,
    seed: int,
    data_seed: int,
) -> SearchLoad:
    """``command`` (typed as ``words``) as the search's workload."""
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
    return SearchLoad(
        front_end="ycsb",
        display="ycsb " + shlex.join(words),
        spec=spec,
        max_in_flight=command.threads if given else OPEN_LOOP_IN_FLIGHT,
        ramp_min_threads=min(low, command.threads) if given else low,
        ramp_max_threads=command.threads if given else defaults.STRESS_RAMP_MAX_THREADS,
    )
