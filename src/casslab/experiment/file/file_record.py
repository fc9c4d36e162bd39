"""The base every experiment record shares: frozen, no unknown fields, schema version 1."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

SCHEMA_VERSION: Literal[1] = 1

Level = Any
"""One level of a factor, as written in the file: a scalar, a mapping or (linked) a list."""


class Record(BaseModel):
    """Base of every experiment record: frozen, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")
