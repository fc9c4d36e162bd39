"""Problems of an experiment file as ``<path>: <message>`` lines (pure).

pydantic's errors become lines with the file's own hints (the closest field name, what a
name pattern allows), and the problems of a file are listed in the order of its fields.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from casslab.experiment.file.experiment_model import (
    ClusterSection,
    Experiment,
    Order,
    SchemaSection,
)
from casslab.experiment.file.table_options import TableOptions
from casslab.validation import plain_message, validation_problems

_SECTIONS: dict[str, type[BaseModel]] = {
    "cluster": ClusterSection,
    "schema": SchemaSection,
    "table": TableOptions,
    "order": Order,
}

_PATTERN_HELP = {
    "name": "use letters, digits, '.', '_' or '-' (at most 64, starting with a letter or digit)",
    "keyspace": "use letters, digits and '_' (at most 48, starting with a letter)",
}


def _fields_at(path: Sequence[str | int]) -> list[str]:
    if len(path) == 1:
        return [f.alias or name for name, f in Experiment.model_fields.items()]
    section = _SECTIONS.get(str(path[0]))
    return list(section.model_fields) if section is not None and len(path) == 2 else []


def _message(error: Mapping[str, Any], path: Sequence[str | int]) -> str:
    """:func:`~casslab.validation.plain_message`, with the experiment file's own hints:
    the closest field name, and what a pattern allows."""
    kind = str(error["type"])
    if kind == "extra_forbidden":
        name = str(path[-1]) if path else "?"
        close = difflib.get_close_matches(name, _fields_at(path), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"unknown field {name!r}{hint}"
    if kind == "string_pattern_mismatch":
        last = str(path[-1]) if path else ""
        ctx = error.get("ctx") or {}
        default = f"does not match {ctx.get('pattern')}"
        return _PATTERN_HELP.get(last, default) + f", got {error.get('input')!r}"
    return plain_message(error)


def pydantic_problems(
    error: ValidationError, data: Any, prefix: Sequence[str | int] = ()
) -> list[str]:
    """Each error as ``<path>: <message>``; union alternatives at one path become one line."""
    return validation_problems(error, data, prefix=prefix, describe=_message)


def in_file_order(problems: list[str], keys: list[Any]) -> list[str]:
    """``problems`` sorted (stably) by where their top-level field is in the file."""
    position = {str(key): index for index, key in enumerate(keys)}

    def where(problem: str) -> int:
        head = re.split(r"[.\[:]", problem, maxsplit=1)[0]
        return position.get(head, len(position))

    return sorted(problems, key=where)
