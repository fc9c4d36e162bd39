"""Write the studies gallery from run directories: ``docs/studies/<study>/`` and its index.

For each study (:data:`STUDIES`: the scaled study of each seed, in the order ``make studies``
runs them), the latest run under the results root is read, its report rebuilt
(:func:`casslab.report.write_report`), and its light outputs copied into the study's
folder: ``summary.md`` and ``figures/*.png`` (the summary's links keep working); then the
study's page (``README.md``) and the index across studies (:mod:`casslab.report.gallery`).
The trials' raw files stay in the results root.

Each study folder also keeps the entry its page was written from (``entry.json``): a study
with no run under this results root keeps its page and its rows of the index from that
entry, so the studies can be run a few at a time (``scripts/studies.py --run --study NAME``)
and the gallery still shows all of them.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from casslab.analysis.claim_records import Claim
from casslab.record import Record
from casslab.report import read_run, write_report
from casslab.report.gallery import Reading, StudyEntry, gallery_index, study_entry, study_page
from casslab.report.gallery_readings import READINGS
from casslab.store.io import atomic_write
from casslab.store.layout import RunLayout
from casslab.store.runs import latest_run


class Study(Record):
    """A study of the gallery: its experiment file (``experiments/<name>.yaml``), the extra
    options of its ``casslab run`` and its full-size file (None: it is full size)."""

    name: str
    run_options: tuple[str, ...] = ()
    full_size: str | None = None
    # the experiment file's claims, judged instead of the run's (None: the run's own)
    claims: tuple[Claim, ...] | None = None
    # what to take from the committed run, by hand; None: the study's entry in READINGS
    reading: Reading | None = None

    def command(self, results_root: str) -> str:
        words = ["casslab", "run", *self.run_options, f"experiments/{self.name}.yaml"]
        return " ".join([*words, "--results", results_root])


STUDIES: tuple[Study, ...] = (
    Study(
        name="workload-mix-container-scaled",
        full_size="experiments/workload-mix-container.yaml",
    ),  # seed 000, 26 minutes
    Study(
        name="quick-compaction",
        full_size="experiments/compaction-strategies.yaml",
    ),  # seed 001, 17.5 minutes
    Study(
        name="container-overhead-scaled",
        full_size="experiments/container-overhead.yaml",
    ),  # seed 002, 26 minutes
    Study(
        name="seed003-vm-sizes-scaled",
        run_options=("--jvm-warmup", "30"),
        full_size="experiments/seed003-vm-sizes.yaml",
    ),  # seed 003, 47 minutes
    Study(
        name="topologies-scaled",
        full_size="experiments/topologies.yaml",
    ),  # seed 004, 24 minutes
    Study(
        name="clock-lww-scaled",
        full_size="experiments/clock-lww.yaml",
    ),  # seed 004, 10 minutes
)
"""About 2 hours 30 minutes in all on a 2-core machine (each file's header has its run time;
the gallery's runs of 2026-11-29 took 2 h 30 min)."""


ENTRY = "entry.json"  # in each study's folder: the entry its page was written from


def kept_entry(docs_root: Path, name: str) -> StudyEntry | None:
    """The entry an earlier gallery wrote for study ``name``, if its folder has one."""
    path = docs_root / name / ENTRY
    if not path.is_file():
        return None
    return StudyEntry.model_validate_json(path.read_text(encoding="utf-8"))


def _copy_outputs(run_dir: Path, folder: Path) -> None:
    layout = RunLayout(root=run_dir)
    figures = folder / "figures"
    if figures.exists():
        shutil.rmtree(figures)
    figures.mkdir(parents=True)
    for png in sorted(layout.figures_dir.glob("*.png")):
        shutil.copyfile(png, figures / png.name)
    shutil.copyfile(layout.summary_md, folder / "summary.md")


def write_study(run_dir: Path, docs_root: Path, study: Study, results_root: str) -> StudyEntry:
    """Rebuild one run's report and write its study folder; returns the study's entry."""
    write_report(run_dir, claims=study.claims)
    entry = study_entry(
        read_run(run_dir),
        command=study.command(results_root),
        full_size=study.full_size,
        claims=study.claims,
    )
    folder = docs_root / entry.study
    _copy_outputs(run_dir, folder)
    drawn = [f"figures/{name}" for name in entry.figures if (folder / "figures" / name).is_file()]
    entry = entry.model_copy(update={"figures": drawn})
    atomic_write(folder / "README.md", study_page(entry, study.reading or READINGS.get(study.name)))
    atomic_write(folder / ENTRY, entry.model_dump_json(indent=1) + "\n")
    return entry


def write_gallery(
    results_root: Path, docs_root: Path, studies: Sequence[Study] = STUDIES
) -> tuple[list[StudyEntry], list[str]]:
    """Every study's folder and ``docs_root/README.md``; the entries of the index (written
    now or kept from an earlier gallery, see :func:`kept_entry`), and the studies with
    neither a run under ``results_root`` nor a kept entry (named, so the caller can say so)."""
    entries: list[StudyEntry] = []
    missing: list[str] = []
    for study in studies:
        run_dir = latest_run(results_root, study.name)
        if run_dir is not None:
            entries.append(write_study(run_dir, docs_root, study, results_root.as_posix()))
        elif (kept := kept_entry(docs_root, study.name)) is not None:
            entries.append(kept)
        else:
            missing.append(study.name)
    docs_root.mkdir(parents=True, exist_ok=True)
    atomic_write(docs_root / "README.md", gallery_index(entries))
    return entries, missing
