"""The directory of a tuning run: ``<runs dir>/<name>/<run id>/`` as ``casslab run`` makes
them (:mod:`casslab.store.runs`), holding ``tune-file.json`` (the checked tune file the run
started with), ``study.db`` (the Optuna study), ``journal.json``, ``trials/<label>/1/``
(each trial's files, as an experiment run's) and the outputs (:mod:`casslab.tune.output`).
"""

from __future__ import annotations

from pathlib import Path

from casslab.errors import StoreError
from casslab.store.io import atomic_write
from casslab.store.layout import RunLayout
from casslab.store.runs import new_run
from casslab.tune.loader import TuneFile

TUNE_FILE = "tune-file.json"


def open_tune_run(runs_dir: Path, tune_file: TuneFile, resume: Path | None) -> RunLayout:
    """A new run directory, or the one to resume (which must hold a study started from the
    same tune file: an edited file would mix two searches in one study)."""
    if resume is None:
        layout = new_run(runs_dir, tune_file.experiment.name)
        atomic_write(layout.root / TUNE_FILE, tune_file.model_dump_json(indent=1, by_alias=True))
        return layout
    stored = resume / TUNE_FILE
    if not (resume / "study.db").is_file() or not stored.is_file():
        raise StoreError(
            f"--resume {resume}: no study.db and {TUNE_FILE} there; not a tuning run "
            "directory (give the directory casslab tune printed, results/<name>/<run-id>)"
        )
    before = TuneFile.model_validate_json(stored.read_text(encoding="utf-8"))
    if before != tune_file:
        raise StoreError(
            f"--resume {resume}: the tune file differs from the one this run started with "
            f"({stored}); resume with that file, or start a new run without --resume"
        )
    return RunLayout(root=resume)
