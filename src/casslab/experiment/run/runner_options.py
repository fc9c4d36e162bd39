"""How a run places its cluster, its load engine and output (:class:`RunnerOptions`),
checked before a run directory is made, and the command line that resumes a stopped run
with the same options."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from casslab.cluster import cluster_spec
from casslab.errors import ConfigError
from casslab.host.engine_cgroup import check_engine_cpus
from casslab.validation import validation_message


@dataclass(frozen=True)
class RunnerOptions:
    """How the runner places its cluster and output."""

    results_root: Path = Path("results")
    cluster_root: Path | None = None  # None: casslab's clusters directory
    base_address: str = "127.0.0.1"
    jmx_port_base: int = 7190
    keep_cluster: bool = False  # leave the nodes running after the run
    metrics_interval_s: float = 1.0
    trial_timeout_s: float | None = None  # per engine phase; None: from the workload
    write_report: bool = True
    base_dir: Path | None = None  # the experiment file's folder: profiles are relative to it
    jvm_warmup_s: float = 180.0  # most rehearsal after nodes (re)start; 0 turns it off
    experiment_file: Path | None = None  # named in the hint to resume a stopped run
    engine_cpus: str | None = None  # the engine in a cgroup pinned to these CPUs, e.g. "1"


OPTION_NAMES = {"base_address": "--base-address", "jmx_port_base": "--jmx-port-base"}


def resume_command(options: RunnerOptions, run_dir: Path) -> str:
    """The command line that continues the run in ``run_dir`` with the same options (those
    that differ from the defaults), after an interrupt or a stop."""
    defaults = RunnerOptions()
    file = str(options.experiment_file or "<experiment file>")
    argv = ["casslab", "run", file, "--resume-dir", str(run_dir)]
    if (options.base_address, options.jmx_port_base) != (
        defaults.base_address,
        defaults.jmx_port_base,
    ):
        argv += ["--base-address", options.base_address]
        argv += ["--jmx-port-base", str(options.jmx_port_base)]
    if options.jvm_warmup_s != defaults.jvm_warmup_s:
        argv += ["--jvm-warmup", f"{options.jvm_warmup_s:g}"]
    if options.keep_cluster:
        argv += ["--keep-cluster"]
    if options.engine_cpus is not None:
        argv += ["--engine-cpus", options.engine_cpus]
    return shlex.join(argv)


def check_options(options: RunnerOptions) -> None:
    """Raise :class:`ConfigError` naming the option when the cluster's or the engine's
    placement is invalid: before a run directory is made or any trial is tried."""
    try:
        cluster_spec(base_address=options.base_address, jmx_port_base=options.jmx_port_base)
    except ValidationError as error:
        raise ConfigError(
            f"{validation_message(error, names=OPTION_NAMES)}; e.g. --base-address "
            "127.0.1.1 --jmx-port-base 7290"
        ) from error
    if options.engine_cpus is not None:
        check_engine_cpus(options.engine_cpus)
