"""manifest.json and summary.json: round trips, and a newer casslab's file is refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import BaseModel

from casslab.errors import NewerSchemaError, StoreError
from casslab.store.io import write_record
from casslab.store.run_records import (
    RUN_SCHEMA_VERSION,
    read_manifest,
    read_trial_result,
)
from run_literals import manifest, trial

READERS: list[tuple[str, Callable[[Path], BaseModel], BaseModel]] = [
    ("manifest.json", read_manifest, manifest()),
    ("summary.json", read_trial_result, trial("size=big")),
    ("summary.json", read_trial_result, trial("size=big", ok=False)),
]


@pytest.mark.parametrize(("name", "read", "record"), READERS)
def test_round_trip(
    tmp_path: Path, name: str, read: Callable[[Path], BaseModel], record: BaseModel
) -> None:
    path = write_record(tmp_path / name, record)
    assert read(path) == record
    assert json.loads(path.read_text())["schema_version"] == RUN_SCHEMA_VERSION


@pytest.mark.parametrize(("name", "read", "record"), READERS)
def test_a_newer_file_is_refused_with_the_fix(
    tmp_path: Path, name: str, read: Callable[[Path], BaseModel], record: BaseModel
) -> None:
    data = json.loads(record.model_dump_json())
    data["schema_version"] = RUN_SCHEMA_VERSION + 1
    data["field_of_the_future"] = True
    path = tmp_path / name
    path.write_text(json.dumps(data))

    with pytest.raises(NewerSchemaError, match="upgrade casslab") as caught:
        read(path)
    assert str(path) in str(caught.value)
    assert f"schema_version {RUN_SCHEMA_VERSION + 1}" in str(caught.value)


@pytest.mark.parametrize(("name", "read", "record"), READERS)
def test_a_file_cut_short_is_a_store_error(
    tmp_path: Path, name: str, read: Callable[[Path], BaseModel], record: BaseModel
) -> None:
    path = tmp_path / name
    path.write_text(record.model_dump_json()[:40])
    with pytest.raises(StoreError, match="not valid JSON") as caught:
        read(path)
    assert not isinstance(caught.value, NewerSchemaError)


def test_a_manifest_without_schema_version_reads_as_version_1(tmp_path: Path) -> None:
    data = json.loads(manifest().model_dump_json())
    del data["schema_version"]
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(data))
    assert read_manifest(path).schema_version == 1


def test_a_summary_without_the_steady_state_fields_still_loads(tmp_path: Path) -> None:
    data = json.loads(trial("size=big").model_dump_json())
    for field in ("steady_start_s", "steady", "steady_reason"):
        del data[field]
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(data))

    result = read_trial_result(path)

    assert (result.steady_start_s, result.steady, result.steady_reason) == (None, None, None)


def test_the_steady_state_fields_round_trip(tmp_path: Path) -> None:
    record = trial("size=big", steady_start_s=12.5, steady=True)
    unsteady = trial("size=big", steady_start_s=0.0, steady=False, steady_reason="too short")

    for result in (record, unsteady):
        assert read_trial_result(write_record(tmp_path / "summary.json", result)) == result


def test_a_manifest_records_the_stop_rule_and_the_data_seed(tmp_path: Path) -> None:
    data = json.loads(manifest().model_dump_json())
    del data["stop_rule"], data["data_seed"]
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(data))
    assert (read_manifest(path).stop_rule, read_manifest(path).data_seed) == (None, None)

    record = manifest(stop_rule="precision", data_seed=7)
    assert read_manifest(write_record(tmp_path / "m.json", record)) == record


def test_a_manifest_records_the_engine_cpus_and_older_ones_read_as_unpinned(
    tmp_path: Path,
) -> None:
    data = json.loads(manifest().model_dump_json())
    del data["engine_cpus"]  # written before --engine-cpus existed
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(data))
    assert read_manifest(path).engine_cpus is None

    record = manifest(engine_cpus="1")
    assert read_manifest(write_record(tmp_path / "m.json", record)) == record
