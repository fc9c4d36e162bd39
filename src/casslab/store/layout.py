"""Where each file of a run directory lives (pure: no file is touched here).

```
results/<experiment>/<run-id>/
  manifest.json                 RunManifest (versions, host, resolved experiment, times)
  plan.json                     PlanFile: the expanded plan, as the run started it
  trials/<cell-id>/<iteration>/ engine.jsonl, latency.hlog, metrics.parquet, summary.json,
                                faults.json (with a faults: timeline),
                                profile/ (with profile:): node<N>.jfr, node<N>-<kind>.collapsed
                                and .svg
  trials.parquet, trials.csv    one row per trial: factor levels + every KPI
  report.html, summary.md, figures/*.png, flame/*.svg (each cell's merged and differential
                                flame graphs)
```
Each trial's ``summary.json`` (:class:`~casslab.store.run_records.TrialResult`) is written when
the trial ends, so a crash loses at most the trial in flight and ``--resume`` skips
finished trials.
"""

from __future__ import annotations

from pathlib import Path

from casslab.record import Record

RUN_DIR_MODE = 0o700  # a run directory is its owner's only (trial files may name credentials)


class RunLayout(Record):
    """Paths inside one run directory."""

    root: Path

    @property
    def manifest(self) -> Path:
        return self.root / "manifest.json"

    @property
    def plan(self) -> Path:
        return self.root / "plan.json"

    @property
    def discovered(self) -> Path:
        """``discovered.json``: the capacity each discover group found."""
        return self.root / "discovered.json"

    @property
    def discover_dir(self) -> Path:
        """The discover step's own runs (engine files, ``find.json``), per group."""
        return self.root / "discover"

    @property
    def trials_dir(self) -> Path:
        return self.root / "trials"

    def trial_dir(self, cell_id: str, iteration: int) -> Path:
        return self.trials_dir / cell_id / str(iteration)

    def trial_summary(self, cell_id: str, iteration: int) -> Path:
        return self.trial_dir(cell_id, iteration) / "summary.json"

    def trial_summaries(self) -> list[Path]:
        """Every ``trials/<cell>/<iteration>/summary.json`` on disk, sorted (a trial's own
        subdirectories, e.g. ``preload``, hold no trial)."""
        if not self.trials_dir.is_dir():
            return []
        return sorted(self.trials_dir.glob("*/*/summary.json"))

    def engine_jsonl(self, cell_id: str, iteration: int) -> Path:
        return self.trial_dir(cell_id, iteration) / "engine.jsonl"

    def faults_json(self, cell_id: str, iteration: int) -> Path:
        """What the trial's faults did (written only with a ``faults:`` timeline)."""
        return self.trial_dir(cell_id, iteration) / "faults.json"

    def profile_dir(self, cell_id: str, iteration: int) -> Path:
        """The trial's server profiles (written only with ``profile:``)."""
        return self.trial_dir(cell_id, iteration) / "profile"

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

    @property
    def flame_dir(self) -> Path:
        """Each cell's merged flame graphs and its differential ones against the baseline."""
        return self.root / "flame"
