"""The class names a load command hands Cassandra, found before anything starts.

``-schema replication(strategy=...)``, ``compaction(strategy=...)`` and ``compression=`` of
a cassandra-stress command, and the ``replication``, ``compaction`` and ``compression`` maps
in the WITH clauses of a user profile's ``keyspace_definition`` and ``table_definition``,
name Java classes Cassandra loads only when the statement runs. Each is returned here as
(where the user gave it, its kind, the name as written), for
:func:`casslab.cluster.class_catalogue.named_problems` to check against the catalogue of
the version the command runs against (``casslab stress`` and ``capacity find`` check
them before anything starts; experiment files through
:mod:`casslab.experiment.file.class_checks`). Pure but for reading the profiles. YCSB
creates its table with SimpleStrategy and the table's defaults: it names no class.
"""

from __future__ import annotations

import re
from pathlib import Path

from casslab.cluster.class_catalogue import ClassKind, Named
from casslab.load import defaults
from casslab.load.stress.build import command_profiles
from casslab.load.stress.model import StressCommand, StressCommandKind, StressSchema
from casslab.load.stress.profile import StressProfile

_MAPS: dict[str, ClassKind] = {
    "replication": ClassKind.REPLICATION,
    "compaction": ClassKind.COMPACTION,
    "compression": ClassKind.COMPRESSION,
}
_MAP = re.compile(r"\b(replication|compaction|compression)\s*=\s*\{([^}]*)\}", re.I | re.S)
_CLASS = re.compile(r"'(class|sstable_compression)'\s*:\s*'((?:[^']|'')*)'", re.I)


def schema_classes(
    schema: StressSchema, where: str = "-schema", *, every: bool = False
) -> list[Named]:
    """The classes a stress command's ``-schema`` names, as written (Cassandra loads them
    so); the default replication strategy (which every version ships) only when another
    was given, unless ``every``."""
    named: list[Named] = []
    if every or schema.replication_strategy != defaults.STRESS_REPLICATION_STRATEGY:
        named.append(
            (f"{where} replication(strategy=)", ClassKind.REPLICATION, schema.replication_strategy)
        )
    if schema.compaction_strategy is not None:
        strategy = schema.compaction_strategy
        named.append((f"{where} compaction(strategy=)", ClassKind.COMPACTION, strategy))
    if schema.compression is not None:
        named.append((f"{where} compression=", ClassKind.COMPRESSION, schema.compression))
    return named


def definition_classes(cql: str, where: str) -> list[Named]:
    """The ``'class'`` (or ``'sstable_compression'``) of every replication, compaction and
    compression map in a CREATE KEYSPACE or CREATE TABLE statement."""
    named: list[Named] = []
    for option in _MAP.finditer(cql):
        kind = _MAPS[option.group(1).lower()]
        for entry in _CLASS.finditer(option.group(2)):
            name = entry.group(2).replace("''", "'").strip()
            if name:
                named.append((f"{where} {option.group(1).lower()} class", kind, name))
    return named


def profile_classes(profile: StressProfile, source: str, prefix: str = "") -> list[Named]:
    """The classes of a user profile's ``keyspace_definition`` and ``table_definition``,
    each where-text starting with ``prefix``."""
    where = f"{prefix}user profile {source}:"
    named = []
    if profile.keyspace_definition:
        named += definition_classes(profile.keyspace_definition, f"{where} keyspace_definition:")
    return [*named, *definition_classes(profile.table_definition, f"{where} table_definition:")]


def stress_command_classes(
    command: StressCommand, profile_dir: Path | None, prefix: str = ""
) -> list[Named]:
    """The class names a stress command gives: its ``-schema``'s, or for ``user`` those of
    its profiles (read relative to ``profile_dir``)."""
    if command.kind is not StressCommandKind.USER:
        return schema_classes(command.schema_settings, f"{prefix}-schema")
    named: list[Named] = []
    for profile, source in command_profiles(command, profile_dir):
        named += profile_classes(profile, source, prefix)
    return named
