"""Finding and making run directories under a results root.

``<results root>/<experiment name>/<run id>``, where a run id is the UTC start time
(``20261122T170549Z``): sorting run ids sorts runs by age.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from casslab.errors import StoreError
from casslab.store.layout import RUN_DIR_MODE, RunLayout


def new_run_id(now: datetime) -> str:
    return now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def latest_run(results_root: Path, experiment_name: str) -> Path | None:
    """The newest run directory of an experiment, or None when it has none."""
    runs = sorted(p for p in (results_root / experiment_name).glob("*") if p.is_dir())
    return runs[-1] if runs else None


def new_run(results_root: Path, experiment_name: str, now: datetime | None = None) -> RunLayout:
    """Make a new run directory, readable by its owner only (its files may hold secrets)."""
    moment = now or datetime.now(UTC)
    root = results_root / experiment_name / new_run_id(moment)
    try:
        root.parent.mkdir(parents=True, exist_ok=True)
        root.mkdir(mode=RUN_DIR_MODE)
        root.chmod(RUN_DIR_MODE)  # whatever the umask
    except FileExistsError as error:
        raise StoreError(
            f"make run directory {root}: it exists already (a run of {experiment_name!r} "
            "started this second); wait a second and run again"
        ) from error
    except OSError as error:
        raise StoreError(
            f"make run directory {root}: {error}; check that {results_root} is writable"
        ) from error
    return RunLayout(root=root)


def open_run(results_root: Path, experiment_name: str, *, resume: bool | Path = False) -> RunLayout:
    """The run directory of a run: a new one, the latest of this experiment
    (``resume=True``), or the one given (which must hold a ``manifest.json``)."""
    if isinstance(resume, Path):
        if not RunLayout(root=resume).manifest.is_file():
            raise StoreError(
                f"--resume-dir {resume}: no manifest.json there; not a run directory (give "
                "results/<experiment>/<run-id>)"
            )
        return RunLayout(root=resume)
    if resume:
        latest = latest_run(results_root, experiment_name)
        if latest is None:
            raise StoreError(
                f"--resume: no earlier run of {experiment_name!r} under {results_root}; "
                "run without --resume"
            )
        return RunLayout(root=latest)
    return new_run(results_root, experiment_name)
