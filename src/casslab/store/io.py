"""Writing and reading the files of a run directory: atomic writes, versioned reads.

Every write goes to a temporary file beside the target, is flushed to disk and renamed
over it, so a reader (or a run resumed after a crash) sees the old file or the new one,
never half of one. Every read of a versioned record checks its ``schema_version`` before
anything else: a file written by a newer casslab raises
:class:`~casslab.errors.NewerSchemaError` naming the file, its version, the one this
casslab reads and the fix (upgrade casslab); it is never loaded silently.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from casslab import __version__
from casslab.errors import NewerSchemaError, StoreError
from casslab.os_words import os_error_words
from casslab.validation import validation_message

Model = TypeVar("Model", bound=BaseModel)


def atomic_write(path: Path, content: str | bytes) -> Path:
    """Write ``content`` to ``path`` through a temporary file and a rename; returns ``path``.

    Raises :class:`StoreError` naming the file, what the system refused in words and the
    fix (:func:`casslab.os_words.os_error_words`) when the disk refuses.
    """
    temporary = path.with_name(path.name + ".tmp")
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with temporary.open("wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        temporary.replace(path)
    except OSError as error:
        raise StoreError(f"write {path}: {os_error_words(error, path)}") from error
    return path


def write_record(path: Path, record: BaseModel) -> Path:
    """A record as indented JSON, written atomically (see :func:`atomic_write`)."""
    return atomic_write(path, record.model_dump_json(indent=2))


def supported_version(model: type[BaseModel]) -> int:
    """The ``schema_version`` this casslab writes for ``model`` (and the newest it reads)."""
    default = model.model_fields["schema_version"].default
    if not isinstance(default, int):
        raise TypeError(f"{model.__name__}.schema_version has no integer default")
    return default


def check_schema_version(path: Path, found: object, supported: int, what: str) -> None:
    """Raise :class:`NewerSchemaError` when ``found`` is a version above ``supported``.

    Older versions pass: a record's own validation says what an old file lacks.
    """
    if isinstance(found, int) and not isinstance(found, bool) and found > supported:
        raise NewerSchemaError(
            f"read {what} {path}: it has schema_version {found}, but this casslab "
            f"({__version__}) reads {what} files up to schema_version {supported}; the "
            "file was written by a newer casslab: upgrade casslab to read it"
        )


def read_json(path: Path, what: str) -> Any:
    """The JSON value in ``path``; :class:`StoreError` when it is missing or not JSON."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise StoreError(f"read {what} {path}: not found", detail="not found") from error
    except (OSError, UnicodeDecodeError) as error:
        detail = f"cannot read ({str(error).splitlines()[0]})"
        raise StoreError(f"read {what} {path}: {detail}", detail=detail) from error
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        detail = f"not valid JSON ({error}); the file is cut short or corrupt"
        raise StoreError(f"read {what} {path}: {detail}", detail=detail) from error


def read_record(path: Path, model: type[Model], what: str) -> Model:
    """Read a versioned record: JSON, then the ``schema_version`` check, then validation.

    Raises :class:`NewerSchemaError` for a file of a newer casslab and
    :class:`StoreError` (``detail``: the problem alone) for a missing, unreadable or
    invalid one.
    """
    data = read_json(path, what)
    if isinstance(data, dict):
        check_schema_version(path, data.get("schema_version"), supported_version(model), what)
    try:
        return model.model_validate(data)
    except ValidationError as error:
        detail = validation_message(error, data=data)
        raise StoreError(
            f"read {what} {path}: not a casslab {what} ({detail}); check that the "
            "file was written by casslab and not edited",
            detail=detail,
        ) from error
