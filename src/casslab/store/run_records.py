"""The records a run leaves on disk: ``manifest.json`` and each trial's ``summary.json``.

Record pydantic models with a ``schema_version``; read them with
:func:`casslab.store.io.read_record` (or :func:`read_manifest` /
:func:`read_trial_result`), which refuses files of a newer casslab.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import Field

from casslab.engine_contract.engine_records import SummaryRecord
from casslab.record import Record
from casslab.store.io import read_record

RUN_SCHEMA_VERSION = 1


class TrialStatus(StrEnum):
    OK = "ok"  # measured; KPIs valid
    FAILED = "failed"  # an error ended it; KPIs absent or partial, see `error`


class HostFacts(Record):
    hostname: str
    os: str
    kernel: str
    cpus: int
    memory_bytes: int
    python: str


class Discovered(Record):
    """What a run's discover step found for one group of cells (``discovered.json``, and
    the manifest's ``discovered``): the capacity its rate shares are of, and the thread
    count ``threads: best`` runs with."""

    group: str  # the levels the group's cells share ("all": no other factor)
    trial_id: str  # the trial before which it ran
    # the open-loop search (discover.p99): the highest rate under the SLO, its bracket
    p99_slo_ms: float | None = None
    search_status: str | None = None  # casslab.capacity.find.FindStatus
    max_rate_per_s: float | None = None
    bracket_high_per_s: float | None = None
    p99_ms_at_max: float | None = None
    runs: int = 0
    # the closed-loop thread ramp: its best step
    best_threads: int | None = None
    best_op_rate: float | None = None
    p99_ms_at_best: float | None = None
    capacity_per_s: float | None = None  # 100%: the search's max rate, else the ramp's best
    elapsed_s: float
    error: str | None = None  # why no capacity was found (its trials fail with it)


class RunManifest(Record):
    """``manifest.json``: what ran, where, with which versions."""

    schema_version: int = RUN_SCHEMA_VERSION
    experiment_name: str
    run_id: str
    casslab_version: str
    cassandra_version: str | None = None
    jdk_version: str | None = None
    engine_version: str | None = None
    git_revision: str | None = None
    host: HostFacts
    experiment: dict[str, Any]  # the resolved experiment file
    plan_digest: str | None = None  # a resumed run must have the same plan
    jvm_warmup_s: float | None = None  # discarded load after each node (re)start
    data_seed: int | None = None  # the values written and validated are a function of it
    engine_cpus: str | None = None  # the load engine's cgroup's CPUs (None: not pinned)
    # what casslab added to the nodes' JVMs beyond stock Cassandra (None: not recorded):
    # its injectable wall clock (runs that skew or step clocks), class-data sharing (start-up)
    injectable_clock: bool | None = None
    class_sharing: bool | None = None
    stop_rule: str | None = None  # what ended the run's iterations (fixed, precision, max)
    started_at: datetime
    ended_at: datetime | None = None
    trials_planned: int = 0
    discovered: dict[str, Discovered] = Field(default_factory=dict)  # by group


class TrialResult(Record):
    """``summary.json`` of one trial."""

    schema_version: int = RUN_SCHEMA_VERSION
    trial_id: str
    cell_id: str
    iteration: int
    order_index: int  # position in the run order
    factors: dict[str, str]  # factor name -> level, as text
    status: TrialStatus
    error: str | None = None
    started_at: datetime
    ended_at: datetime
    measure_start_s: float | None = None  # engine measure window, seconds since trial start
    measure_end_s: float | None = None
    engine: SummaryRecord | None = None
    kpis: dict[str, float | None] = Field(default_factory=dict)
    phase_s: dict[str, float] = Field(default_factory=dict)  # wall seconds per trial phase
    # steady state (casslab.analysis.steady, MSER-5); None: not judged (an older casslab)
    steady_start_s: float | None = None  # where the KPIs' window begins, s into the measure
    steady: bool | None = None  # False: trends or too short; KPIs over the whole measure
    steady_reason: str | None = None  # why not steady
    # what the trial's nodes ran (None: its cluster never came up, or an older casslab)
    cassandra_version: str | None = None
    java_feature: int | None = None  # the nodes' JDK feature release, e.g. 17
    jdk: str | None = None  # the nodes' JDK, e.g. 17.0.15 at /usr/lib/jvm/.../bin/java
    gc: str | None = None  # the nodes' garbage collector, e.g. G1


def read_manifest(path: Path) -> RunManifest:
    """A ``manifest.json`` (see :func:`casslab.store.io.read_record` for the errors)."""
    return read_record(path, RunManifest, "run manifest")


def read_trial_result(path: Path) -> TrialResult:
    """A trial's ``summary.json`` (see :func:`casslab.store.io.read_record`)."""
    return read_record(path, TrialResult, "trial summary")
