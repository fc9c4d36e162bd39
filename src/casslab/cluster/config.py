"""Check cassandra.yaml settings for a Cassandra version (used by experiment files)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from casslab.cluster import distribution
from casslab.cluster.class_catalogue import ClassCatalogue
from casslab.cluster.settings import SettingsCatalogue, check_settings


@lru_cache(maxsize=8)
def catalogue_for(version: str | None) -> SettingsCatalogue:
    """The settings catalogue of ``version`` (default: the default 5.0.x), cached per
    process; resolves (and if needed downloads) that version once."""
    return distribution.settings_catalogue(distribution.resolve(version))


@lru_cache(maxsize=8)
def class_catalogue_for(version: str | None) -> ClassCatalogue:
    """The strategy and compressor classes of ``version`` (default: the default 5.0.x),
    cached per process and beside the version's jars."""
    return distribution.class_catalogue(distribution.resolve(version))


def validate_settings(settings: Mapping[str, Any], version: str | None = None) -> list[str]:
    """Every problem with ``settings`` (unknown keys with the closest valid names, values
    of the wrong type), one message per problem, each starting with its key."""
    return check_settings(settings, catalogue_for(version))
