"""Records a run leaves on disk, and the layout of a run directory.

```
results/<experiment>/<run-id>/
  manifest.json                 RunManifest
  trials/<cell-id>/<iteration>/ engine.jsonl, latency.hlog, metrics.parquet, summary.json
  trials.parquet, trials.csv    one row per finished trial: factor levels + every KPI
  report.html, summary.md, figures/*.png
```
Each trial's ``summary.json`` (:class:`TrialResult`) is written when the trial ends, so a
crash loses at most the trial in flight and ``--resume`` skips finished trials.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from casslab.load.spec import SummaryRecord

RUN_SCHEMA_VERSION = 1


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TrialStatus(StrEnum):
    OK = "ok"  # measured; KPIs valid
    FAILED = "failed"  # an error ended it; KPIs absent or partial, see `error`


class HostFacts(Frozen):
    hostname: str
    os: str
    kernel: str
    cpus: int
    memory_bytes: int
    python: str


class RunManifest(Frozen):
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
    started_at: datetime
    ended_at: datetime | None = None
    trials_planned: int = 0


class TrialResult(Frozen):
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


class RunLayout(Frozen):
    """Paths inside one run directory (pure: no file is touched)."""

    root: Path

    @property
    def manifest(self) -> Path:
        return self.root / "manifest.json"

    @property
    def trials_dir(self) -> Path:
        return self.root / "trials"

    def trial_dir(self, cell_id: str, iteration: int) -> Path:
        return self.trials_dir / cell_id / str(iteration)

    def trial_summary(self, cell_id: str, iteration: int) -> Path:
        return self.trial_dir(cell_id, iteration) / "summary.json"

    def engine_jsonl(self, cell_id: str, iteration: int) -> Path:
        return self.trial_dir(cell_id, iteration) / "engine.jsonl"

    def latency_hlog(self, cell_id: str, iteration: int) -> Path:
        return self.trial_dir(cell_id, iteration) / "latency.hlog"

    def metrics_parquet(self, cell_id: str, iteration: int) -> Path:
        return self.trial_dir(cell_id, iteration) / "metrics.parquet"

    @property
    def trials_table(self) -> Path:
        return self.root / "trials.parquet"

    @property
    def trials_csv(self) -> Path:
        return self.root / "trials.csv"

    @property
    def report_html(self) -> Path:
        return self.root / "report.html"

    @property
    def summary_md(self) -> Path:
        return self.root / "summary.md"

    @property
    def figures_dir(self) -> Path:
        return self.root / "figures"
