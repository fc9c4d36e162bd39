"""cassandra.yaml settings: what keys a version accepts, of what type, and checks on values.

The catalogue is read from the ``Config`` class of the Cassandra jar that will run (see
:mod:`casslab.cluster.classfile`), so it is exact for every version. Checking is pure:
:func:`check_settings` takes values and a catalogue and returns every problem, each one
naming the key, the value and the accepted form.
"""

from __future__ import annotations

import difflib
import re
import zipfile
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

import yaml

from casslab.cluster.classfile import class_entry, descriptor_class, parse_class
from casslab.cluster.limits import range_problem
from casslab.errors import ConfigError
from casslab.record import Record

CATALOGUE_SCHEMA_VERSION = 1
CONFIG_CLASS = "org.apache.cassandra.config.Config"


class SettingKind(StrEnum):
    BOOL = "bool"
    INT = "int"
    FLOAT = "float"
    STRING = "string"
    DATA_STORAGE = "data_storage"  # 64MiB, 1GiB, 512KiB, 100B
    DURATION = "duration"  # 10s, 500ms, 2h, 1d, 100us, 1000ns, 5m
    DATA_RATE = "data_rate"  # 16MiB/s, 512KiB/s, 100B/s
    ENUM = "enum"
    STRUCTURE = "structure"  # mappings, lists and option classes: YAML structure


_UNIT_PATTERNS = {
    SettingKind.DATA_STORAGE: (re.compile(r"^\d+(GiB|MiB|KiB|B)$"), "a size like 2048MiB or 1GiB"),
    SettingKind.DURATION: (
        re.compile(r"^\d+(d|h|m|s|ms|us|µs|ns)$"),
        "a duration like 10s, 500ms or 2h",
    ),
    SettingKind.DATA_RATE: (
        re.compile(r"^\d+(MiB/s|KiB/s|B/s)$"),
        "a rate like 16MiB/s or 512KiB/s",
    ),
}

_PRIMITIVES = {
    "Z": SettingKind.BOOL,
    "I": SettingKind.INT,
    "J": SettingKind.INT,
    "S": SettingKind.INT,
    "D": SettingKind.FLOAT,
    "F": SettingKind.FLOAT,
    "Ljava/lang/Boolean;": SettingKind.BOOL,
    "Ljava/lang/Integer;": SettingKind.INT,
    "Ljava/lang/Long;": SettingKind.INT,
    "Ljava/lang/Double;": SettingKind.FLOAT,
    "Ljava/lang/Float;": SettingKind.FLOAT,
    "Ljava/lang/String;": SettingKind.STRING,
}


class SettingType(Record):
    kind: SettingKind
    java_type: str
    choices: tuple[str, ...] = ()  # ENUM constants, as Cassandra spells them


class SettingsCatalogue(Record):
    """Every cassandra.yaml key of one Cassandra version with its type."""

    schema_version: int = CATALOGUE_SCHEMA_VERSION
    cassandra_version: str
    settings: dict[str, SettingType]


def _kind_of(descriptor: str) -> tuple[SettingKind, str | None]:
    if descriptor in _PRIMITIVES:
        return _PRIMITIVES[descriptor], None
    cls = descriptor_class(descriptor)
    if cls is None:
        return SettingKind.STRUCTURE, None
    if cls.startswith("org.apache.cassandra.config.DataStorageSpec$"):
        return SettingKind.DATA_STORAGE, None
    if cls.startswith("org.apache.cassandra.config.DurationSpec$"):
        return SettingKind.DURATION, None
    if cls.startswith("org.apache.cassandra.config.DataRateSpec$"):
        return SettingKind.DATA_RATE, None
    return SettingKind.STRUCTURE, cls  # may turn out to be an enum


def catalogue_from_jar(jar: Path, cassandra_version: str) -> SettingsCatalogue:
    """Read the settings catalogue from the Cassandra jar holding ``Config``."""
    try:
        with zipfile.ZipFile(jar) as archive:
            config = parse_class(archive.read(class_entry(CONFIG_CLASS)))
            names = set(archive.namelist())
            settings: dict[str, SettingType] = {}
            for field in config.fields:
                if not field.is_public_instance:
                    continue
                kind, cls = _kind_of(field.descriptor)
                choices: tuple[str, ...] = ()
                if cls is not None and class_entry(cls) in names:
                    parsed = parse_class(archive.read(class_entry(cls)))
                    constants = tuple(f.name for f in parsed.fields if f.is_enum_constant)
                    if constants:
                        kind, choices = SettingKind.ENUM, constants
                java_type = descriptor_class(field.descriptor) or field.descriptor
                settings[field.name] = SettingType(kind=kind, java_type=java_type, choices=choices)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as error:
        raise ConfigError(
            f"reading cassandra.yaml settings from {jar}: {error}; the Cassandra jar is damaged, "
            "delete the cache directory it is in and run again to download it afresh"
        ) from error
    return SettingsCatalogue(cassandra_version=cassandra_version, settings=settings)


def parse_assignment(text: str) -> tuple[str, Any]:
    """``key=value`` from the command line; the value is read as a YAML scalar or flow node."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(
            f"setting {text!r}: expected key=value, e.g. --set memtable_flush_writers=6"
        )
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError as error:
        raise ConfigError(f"setting {key}: value {raw!r} is not valid YAML: {error}") from error
    return key, value


def _check_value(key: str, value: Any, setting: SettingType) -> str | None:
    kind = setting.kind
    if value is None:
        return None  # YAML null: Cassandra's default
    if kind is SettingKind.BOOL and not isinstance(value, bool):
        return f"{key}: expected true or false, got {value!r}"
    if kind is SettingKind.INT and (isinstance(value, bool) or not isinstance(value, int)):
        return f"{key}: expected an integer, got {value!r}"
    if kind is SettingKind.FLOAT and (
        isinstance(value, bool) or not isinstance(value, int | float)
    ):
        return f"{key}: expected a number, got {value!r}"
    if kind is SettingKind.STRING and not isinstance(value, str | int | float):
        return f"{key}: expected a string, got {value!r}"
    if kind in _UNIT_PATTERNS:
        pattern, form = _UNIT_PATTERNS[kind]
        if not isinstance(value, str) or not pattern.match(value):
            return f"{key}: expected {form}, got {value!r}"
    if kind is SettingKind.ENUM:
        lowered = {c.lower(): c for c in setting.choices}
        if not isinstance(value, str) or value.lower() not in lowered:
            return f"{key}: expected one of {', '.join(setting.choices)}, got {value!r}"
    return None


def suggest(key: str, catalogue: SettingsCatalogue) -> str:
    """The closest valid names, as a hint for an unknown key."""
    names = list(catalogue.settings)
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.6)
    if not close:
        parts = [p for p in key.split("_") if len(p) > 3]
        close = [n for n in names if any(p in n for p in parts)][:3]
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def check_settings(settings: Mapping[str, Any], catalogue: SettingsCatalogue) -> list[str]:
    """Every problem with ``settings`` for this catalogue's Cassandra version, in order."""
    problems: list[str] = []
    for key, value in settings.items():
        setting = catalogue.settings.get(key)
        if setting is None:
            problems.append(
                f"{key}: unknown cassandra.yaml setting in Cassandra "
                f"{catalogue.cassandra_version}{suggest(key, catalogue)}"
            )
            continue
        problem = _check_value(key, value, setting) or range_problem(
            key, value, catalogue.cassandra_version
        )
        if problem:
            problems.append(problem)
    return problems


def normalize(settings: Mapping[str, Any], catalogue: SettingsCatalogue) -> dict[str, Any]:
    """Checked settings with enum values spelled as Cassandra spells them.

    Raises ConfigError listing every problem.
    """
    problems = check_settings(settings, catalogue)
    if problems:
        raise ConfigError(
            "invalid cassandra.yaml settings (nothing was started):\n  " + "\n  ".join(problems)
        )
    result: dict[str, Any] = {}
    for key, value in settings.items():
        setting = catalogue.settings[key]
        if setting.kind is SettingKind.ENUM and isinstance(value, str):
            value = {c.lower(): c for c in setting.choices}[value.lower()]
        result[key] = value
    return result
