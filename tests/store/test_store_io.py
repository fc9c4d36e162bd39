"""Atomic writes and versioned reads: a newer schema_version is an error, never a load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from casslab import __version__
from casslab.errors import NewerSchemaError, StoreError
from casslab.store.io import (
    atomic_write,
    check_schema_version,
    read_record,
    supported_version,
    write_record,
)


class Thing(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = 2
    name: str
    count: int = 0


def test_atomic_write_replaces_the_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "file.json"
    atomic_write(path, "first")
    atomic_write(path, b"second")
    assert path.read_text(encoding="utf-8") == "second"
    assert sorted(p.name for p in path.parent.iterdir()) == ["file.json"]


def test_atomic_write_into_a_file_is_a_store_error_naming_the_path(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a directory")
    with pytest.raises(StoreError) as caught:
        atomic_write(blocker / "x.json", "text")
    assert str(caught.value) == (
        f"write {blocker}/x.json: {blocker} is in the way: it exists and is not a directory; "
        "move or remove it, or choose another folder"
    )


def test_atomic_write_through_a_file_on_the_path_names_it(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a directory")
    with pytest.raises(StoreError, match=r"a part of .*blocker/deeper is a file, not a dir"):
        atomic_write(blocker / "deeper" / "x.json", "text")


def test_write_record_then_read_record_round_trips(tmp_path: Path) -> None:
    path = write_record(tmp_path / "thing.json", Thing(name="a", count=3))
    assert read_record(path, Thing, "thing") == Thing(name="a", count=3)


def test_supported_version_is_the_models_default() -> None:
    assert supported_version(Thing) == 2


@pytest.mark.parametrize(
    ("found", "raises"),
    [
        (1, False),  # older: the model's validation says what it lacks
        (2, False),  # this casslab's
        (3, True),  # newer
        (99, True),
        (None, False),  # absent: the model's default applies
        ("3", False),  # not a number: the model's validation rejects it
        (True, False),  # a bool is not a version
    ],
)
def test_check_schema_version(found: object, raises: bool) -> None:
    if raises:
        with pytest.raises(NewerSchemaError):
            check_schema_version(Path("x.json"), found, 2, "thing")
    else:
        check_schema_version(Path("x.json"), found, 2, "thing")


def test_a_newer_file_names_file_versions_and_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "thing.json"
    # a newer casslab may add fields this one does not know: the version says why first
    path.write_text(json.dumps({"schema_version": 3, "name": "a", "new_field": 1}))

    with pytest.raises(NewerSchemaError) as caught:
        read_record(path, Thing, "thing")

    message = str(caught.value)
    assert str(path) in message
    assert "schema_version 3" in message
    assert "up to schema_version 2" in message
    assert f"this casslab ({__version__})" in message
    assert "upgrade casslab" in message


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        ('{"schema_version": 2, "name": "a"', "not valid JSON ("),
        ("", "not valid JSON ("),
        ('{"schema_version": 2}', "name: required, but missing"),
        ('{"schema_version": 2, "name": "a", "count": "many"}', "count: expected an integer"),
        ('{"schema_version": 2, "name": "a", "colour": 1}', "unknown field 'colour'"),
        ("[1, 2]", "expected a mapping"),
    ],
)
def test_unreadable_records_are_store_errors_with_a_detail(
    tmp_path: Path, content: str, detail: str
) -> None:
    path = tmp_path / "thing.json"
    path.write_text(content)

    with pytest.raises(StoreError) as caught:
        read_record(path, Thing, "thing")

    assert not isinstance(caught.value, NewerSchemaError)
    assert detail in caught.value.detail
    assert str(caught.value).startswith(f"read thing {path}: ")


def test_a_missing_record_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="not found") as caught:
        read_record(tmp_path / "absent.json", Thing, "thing")
    assert caught.value.detail == "not found"
