"""Facts about the machine and the code that a run records in its manifest, and what this
machine warns of for a plan's clusters."""

from __future__ import annotations

import platform
import socket
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import psutil
from pydantic import ValidationError

from casslab.errors import ConfigError, SetupError
from casslab.experiment.design.cluster_setup import in_file_words
from casslab.experiment.design.plan_records import Trial
from casslab.store.run_records import HostFacts


def host_facts() -> HostFacts:
    return HostFacts(
        hostname=socket.gethostname(),
        os=platform.platform(),
        kernel=platform.release(),
        cpus=psutil.cpu_count() or 0,
        memory_bytes=psutil.virtual_memory().total,
        python=sys.version.split()[0],
    )


def git_revision(directory: Path | None = None) -> str | None:
    """The git revision of the casslab checkout (``+dirty`` with local changes), if any."""
    where = directory or Path(__file__).resolve().parent
    try:
        revision = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if revision.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    suffix = "+dirty" if dirty.stdout.strip() else ""
    return revision.stdout.strip() + suffix


def cluster_warnings(trials: Iterable[Trial], engine_cpus: str | None = None) -> list[str]:
    """What this host warns of before the clusters of ``trials`` start (isolated nodes
    that together ask for more CPUs or memory than it has: see
    :func:`casslab.cluster.warnings_for`), once per distinct cluster setup, in the
    experiment file's words, which datacenter the load runs against where the file
    leaves it to the default, and a load engine pinned to CPUs the nodes' cpuset also
    holds (``--engine-cpus``). ``casslab plan`` prints them; ``casslab run`` emits them
    before its first trial."""
    from casslab.cluster import cluster_spec, warnings_for

    trials = list(trials)
    if engine_cpus is not None:
        return engine_overlaps(trials, engine_cpus) + cluster_warnings(trials)
    out: list[str] = []
    for setup in dict.fromkeys(trial.setup for trial in trials):
        try:
            found = warnings_for(cluster_spec(**setup.spec_fields()))
        except (ValidationError, ConfigError):
            continue  # the loader reports a bad setup, and so would its trial's cluster
        about = setup.describe(settings=False)
        out += [f"cluster of {about}: {in_file_words(warning)}" for warning in found]
    return out + client_dc_notes(trials)


def engine_overlaps(trials: Iterable[Trial], engine_cpus: str) -> list[str]:
    """One line per cluster setup whose nodes' cpuset shares CPUs with ``--engine-cpus``:
    the engine then takes CPU from the nodes it measures, which pinning was to prevent."""
    from casslab.host.cpus import cpu_ranges, parse_cpuset

    try:
        engine = set(parse_cpuset(engine_cpus, "--engine-cpus"))
    except ConfigError:
        return []  # refused with its reason before the first trial
    out = []
    for setup in dict.fromkeys(trial.setup for trial in trials):
        try:
            cpuset = setup.node_isolation.cpuset
            shared = engine & set(parse_cpuset(cpuset)) if cpuset else set()
        except ConfigError:
            continue  # the loader reports a bad cpuset
        if shared:
            out.append(
                f"cluster of {setup.describe(settings=False)}: --engine-cpus {engine_cpus} "
                f"shares CPU(s) {cpu_ranges(sorted(shared))} with the nodes' cpuset "
                f"{cpuset}: the load engine takes CPU from the nodes it measures; give "
                "the engine CPUs outside the nodes' cpuset"
            )
    return out


def client_dc_notes(trials: Iterable[Trial]) -> list[str]:
    """One line per topology of several datacenters whose trials leave ``client_dc`` to
    its default, naming the datacenter the load engine runs against (the topology's
    first; with one datacenter there is no choice to state)."""
    defaulted = {
        trial.topology.text: trial.local_dc
        for trial in trials
        if trial.topology is not None
        and len(trial.topology.datacenters) > 1
        and trial.client_dc is None
    }
    return [
        f"topology {name}: no client_dc given: the load engine runs against datacenter "
        f"{dc} (the topology's first; set client_dc to choose another)"
        for name, dc in defaulted.items()
    ]


def preset_problems(trials: Iterable[Trial]) -> list[str]:
    """One line per version whose trials run preset latest and this machine has no source
    for it (:func:`casslab.cluster.presets.source_problem`): ``casslab run`` refuses them
    before anything starts, so the default preset's cells are not measured in vain;
    ``casslab plan`` warns of them."""
    from casslab.cluster import presets

    asked = dict.fromkeys(t.version for t in trials if t.preset == presets.LATEST)
    found = (presets.source_problem(version) for version in asked)
    return [f"cluster.preset: {problem}" for problem in found if problem is not None]


def check_presets(trials: Iterable[Trial]) -> None:
    """A SetupError naming every :func:`preset_problems` line, if any."""
    problems = preset_problems(trials)
    if problems:
        raise SetupError("\n".join(problems))
