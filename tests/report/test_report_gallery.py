"""The studies gallery written from a run directory (conftest.py's synthetic run, with claims):
the index across studies, the study's page, its links and its figures."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from casslab.analysis.claim_records import Claim
from casslab.report.gallery import Reading, StudyEntry
from casslab.report.gallery_files import STUDIES, Study, write_gallery
from claim_literals import CLAIMS

RunFactory = Callable[..., Path]
LINK = re.compile(r"\]\(([^)]+)\)")


def links(markdown: Path) -> list[Path]:
    return [markdown.parent / target for target in LINK.findall(markdown.read_text())]


@dataclass(frozen=True)
class Written:
    """The gallery of one synthetic run with claims: its study and the absent one."""

    run_dir: Path
    docs: Path
    study: Study
    entries: list[StudyEntry]
    missing: list[str]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory, build_run_at: RunFactory) -> Written:
    """Written once for the module (a gallery rebuilds the run's report: seconds); its
    tests only read the run and the docs, or copy the docs before writing to them."""
    root = tmp_path_factory.mktemp("gallery")
    run_dir = build_run_at(root / "results" / "synthetic" / "20261127T120000Z", claims=CLAIMS)
    docs = root / "docs" / "studies"
    study = Study(name="synthetic", full_size="experiments/synthetic-full.yaml")
    entries, missing = write_gallery(run_dir.parents[1], docs, [study, Study(name="absent")])
    return Written(run_dir, docs, study, entries, missing)


def test_the_gallery_of_a_run(written: Written) -> None:
    run_dir, docs, entries, missing = (
        written.run_dir,
        written.docs,
        written.entries,
        written.missing,
    )
    results = run_dir.parents[1]
    assert missing == ["absent"]
    (entry,) = entries
    assert [r.verdict_text for r in entry.results] == [
        "holds here",
        "not significant here",
        "not testable here",
    ]
    index = (docs / "README.md").read_text()
    assert (
        "| [synthetic](synthetic/README.md) | LCS sustains more operations per second than "
        "STCS | 2358 vs 2350 op/s | 6,020 vs 5,002 ops/s: +20.3% [" in index
    )
    assert index.count("](synthetic/README.md)") == 3  # one row per claim
    page = docs / "synthetic" / "README.md"
    text = page.read_text()
    assert "## What to conclude" in text
    assert "casslab tested 2 on this machine. Holds here: 1; contradicted here: 0" in text
    assert "`experiments/synthetic-full.yaml`" in text
    assert f"`casslab run experiments/synthetic.yaml --results {results.as_posix()}`" in text
    for markdown in (docs / "README.md", page, docs / "synthetic" / "summary.md"):
        for target in links(markdown):
            assert target.is_file(), f"{markdown}: {target}"
    # the key figures are the run's own: the bar charts of the claims' KPIs
    assert entry.figures == ["figures/bars-op_rate.png", "figures/bars-latency_p99_ms.png"]
    shown = [t for t in links(page) if t.suffix == ".png"]
    assert [t.name for t in shown] == ["bars-op_rate.png", "bars-latency_p99_ms.png"]
    for figure in shown:
        assert figure.read_bytes() == (run_dir / "figures" / figure.name).read_bytes()


def test_a_hand_reading_shows_on_the_page_of_its_own_run_only(
    make_run: RunFactory, tmp_path: Path
) -> None:
    run_dir = make_run("20261127T120000Z", claims=CLAIMS)
    results, docs = run_dir.parents[1], tmp_path / "docs" / "studies"
    said = "LCS wins here by a fifth: the study's 0.3% was within its noise."
    own = Reading(run_id=run_dir.name, text=said)
    write_gallery(results, docs, [Study(name="synthetic", reading=own)])
    page = (docs / "synthetic" / "README.md").read_text()
    assert f"## What to conclude\n\n{said}\n\nOf the 3 claims" in page
    other = Reading(run_id="20261101T000000Z", text=said)
    write_gallery(results, docs, [Study(name="synthetic", reading=other)])
    page = (docs / "synthetic" / "README.md").read_text()
    assert said not in page
    assert "is of run 20261101T000000Z; this page shows run 20261127T120000Z" in page


def test_the_gallery_runs_the_scaled_study_of_every_seed() -> None:
    experiments = Path(__file__).resolve().parents[2] / "experiments"
    for study in STUDIES:
        assert (experiments / f"{study.name}.yaml").is_file()
        assert study.full_size is not None
        assert (experiments.parent / study.full_size).is_file()
    assert len(STUDIES) == 6


def test_a_run_made_before_its_file_had_claims_is_judged_on_the_files(
    make_run: RunFactory, tmp_path: Path
) -> None:
    run_dir = make_run("20261127T130000Z")  # its manifest records no claim
    claims = tuple(Claim.model_validate(c) for c in CLAIMS)
    study = Study(name="synthetic", full_size=None, claims=claims)
    (entry,), _ = write_gallery(run_dir.parents[1], tmp_path / "docs", [study])
    assert [r.verdict.value for r in entry.results] == [
        "holds",
        "not_significant",
        "not_testable",
    ]
    assert "## Claims" in (run_dir / "summary.md").read_text()  # the report judged them too
    assert "This study ran at its full size" in (tmp_path / "docs/synthetic/README.md").read_text()


def test_a_study_run_on_an_earlier_day_keeps_its_page_and_its_rows(
    written: Written, tmp_path: Path
) -> None:
    """The studies run a few at a time: a gallery written from a results root that lacks a
    study's run keeps that study's page and its rows of the index from the entry the earlier
    gallery wrote; a study that never ran is still missing."""
    docs = tmp_path / "docs" / "studies"  # a copy: the module's gallery stays as written
    shutil.copytree(written.docs, docs)
    (first,) = written.entries
    page = (docs / "synthetic" / "README.md").read_text()
    index = (docs / "README.md").read_text()
    empty = tmp_path / "later-results"  # another day's results root: no run of this study
    empty.mkdir()
    entries, missing = write_gallery(empty, docs, [written.study, Study(name="absent")])
    assert entries == [first]
    assert missing == ["absent"]
    assert (docs / "synthetic" / "README.md").read_text() == page
    assert (docs / "README.md").read_text() == index


def test_the_committed_gallery_shows_each_study_run_with_its_figures_and_links() -> None:
    """docs/studies/ as `make studies` wrote it from the runs on this machine: a page per
    study of STUDIES that has run (with the entry it was written from), every link of the
    index, the pages and their summaries resolves, and each page shows the figures its
    run drew (the PNGs in its folder, none missing, none stray)."""
    docs = Path(__file__).resolve().parents[2] / "docs" / "studies"
    index = docs / "README.md"
    assert index.is_file(), "run `make studies` and commit docs/studies/"
    names = {study.name for study in STUDIES}
    folders = sorted(p for p in docs.iterdir() if p.is_dir())
    assert folders, "docs/studies/ has no study"
    assert {f.name for f in folders} <= names
    for target in links(index):
        assert target.is_file(), f"{index}: {target}"
    for folder in folders:
        entry = StudyEntry.model_validate_json((folder / "entry.json").read_text())
        assert entry.study == folder.name
        assert f"]({folder.name}/README.md)" in index.read_text()
        page = folder / "README.md"
        for markdown in (page, folder / "summary.md"):
            for target in links(markdown):
                assert target.is_file(), f"{markdown}: {target}"
        shown = sorted(t.name for t in links(page) if t.suffix == ".png")
        assert shown == sorted(name.rsplit("/", 1)[-1] for name in entry.figures)
        assert f"- **run directory**: {entry.run_id};" in page.read_text()
        assert entry.results, f"{folder.name}: no claim judged"
