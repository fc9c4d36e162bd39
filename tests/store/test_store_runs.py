"""Making run directories and finding the latest run."""

from __future__ import annotations

import stat
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from casslab.errors import StoreError
from casslab.store.layout import RUN_DIR_MODE
from casslab.store.runs import latest_run, new_run, new_run_id, open_run

NOW = datetime(2026, 11, 22, 17, 5, 49, tzinfo=UTC)


@pytest.mark.parametrize(
    ("moment", "run_id"),
    [
        (NOW, "20261122T170549Z"),
        (NOW.astimezone(timezone(timedelta(hours=2))), "20261122T170549Z"),  # always UTC
        (datetime(2027, 1, 2, 3, 4, 5, tzinfo=UTC), "20270102T030405Z"),
    ],
)
def test_run_id_is_the_utc_start(moment: datetime, run_id: str) -> None:
    assert new_run_id(moment) == run_id


def test_a_new_run_is_private_and_named_by_its_start(tmp_path: Path) -> None:
    layout = new_run(tmp_path / "results", "exp", NOW)
    assert layout.root == tmp_path / "results" / "exp" / "20261122T170549Z"
    assert stat.S_IMODE(layout.root.stat().st_mode) == RUN_DIR_MODE


def test_two_runs_in_one_second_is_a_store_error(tmp_path: Path) -> None:
    new_run(tmp_path, "exp", NOW)
    with pytest.raises(StoreError, match="exists already"):
        new_run(tmp_path, "exp", NOW)


def test_latest_run_is_the_newest_directory(tmp_path: Path) -> None:
    assert latest_run(tmp_path, "exp") is None
    for moment in (NOW, NOW + timedelta(days=1), NOW - timedelta(days=1)):
        new_run(tmp_path, "exp", moment)
    (tmp_path / "exp" / "zz-a-file").write_text("not a run")
    assert latest_run(tmp_path, "exp") == tmp_path / "exp" / "20261123T170549Z"


def test_open_run_resumes_the_latest_or_the_given_run(tmp_path: Path) -> None:
    older = new_run(tmp_path, "exp", NOW)
    newer = new_run(tmp_path, "exp", NOW + timedelta(hours=1))
    older.manifest.write_text("{}")

    assert open_run(tmp_path, "exp", resume=True) == newer
    assert open_run(tmp_path, "exp", resume=older.root) == older


@pytest.mark.parametrize(
    ("resume", "message"),
    [
        (True, "--resume: no earlier run of 'exp'"),
        (Path("nowhere"), "--resume-dir nowhere: no manifest.json there"),
    ],
)
def test_open_run_without_a_run_to_resume_is_a_store_error(
    tmp_path: Path, resume: bool | Path, message: str
) -> None:
    with pytest.raises(StoreError, match=message):
        open_run(tmp_path, "exp", resume=resume)
