"""The one base of every typed record casslab passes across a boundary (disk, processes,
packages): frozen, and strict about unknown fields, so a typo or a newer writer is an
error, never a silently dropped value."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    """A frozen pydantic model that refuses unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
