"""The classes a Cassandra version ships for CQL's class options, and checks of names.

A keyspace's replication ``class``, a table's ``compaction`` ``class`` and its
``compression`` ``class`` name Java classes that Cassandra loads by name when the statement
runs; a wrong name fails only then, after the cluster is up. The catalogue is read from the
very jar that will run (as the settings catalogue is, :mod:`casslab.cluster.settings`): the
concrete classes that extend ``AbstractReplicationStrategy`` or
``AbstractCompactionStrategy``, or implement ``ICompressor``. :func:`class_problem` is pure:
a short name (``LeveledCompactionStrategy``) or the full one
(``org.apache.cassandra.db.compaction.LeveledCompactionStrategy``) is accepted, anything
else is a message naming the value, the version and the known names.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path

from casslab.cluster.classfile import JavaClass, parse_class
from casslab.errors import ConfigError
from casslab.record import Record

CLASS_CATALOGUE_SCHEMA_VERSION = 1


class ClassKind(StrEnum):
    REPLICATION = "replication strategy"
    COMPACTION = "compaction strategy"
    COMPRESSION = "compressor"


ROOTS: dict[ClassKind, str] = {
    ClassKind.REPLICATION: "org.apache.cassandra.locator.AbstractReplicationStrategy",
    ClassKind.COMPACTION: "org.apache.cassandra.db.compaction.AbstractCompactionStrategy",
    ClassKind.COMPRESSION: "org.apache.cassandra.io.compress.ICompressor",
}
"""The type every class of a kind extends or implements."""

PACKAGES: dict[ClassKind, str] = {
    ClassKind.REPLICATION: "org.apache.cassandra.locator.",
    ClassKind.COMPACTION: "org.apache.cassandra.db.compaction.",
    ClassKind.COMPRESSION: "org.apache.cassandra.io.compress.",
}
"""The package Cassandra prefixes to a short name of each kind."""

Named = tuple[str, ClassKind, str]
"""A class name as given: (where it was given, its kind, the name as written)."""

INTERNAL = frozenset({"org.apache.cassandra.locator.LocalStrategy"})
"""Classes Cassandra refuses in a user's statement (system keyspaces only)."""

_SCANNED = "org/apache/cassandra/"


class ClassCatalogue(Record):
    """The full names of every class of each kind one Cassandra version ships."""

    schema_version: int = CLASS_CATALOGUE_SCHEMA_VERSION
    cassandra_version: str
    classes: dict[ClassKind, tuple[str, ...]]


def _implements(name: str, root: str, classes: dict[str, JavaClass]) -> bool:
    """True when the class ``name`` is ``root`` or extends or implements it."""
    seen: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current == root:
            return True
        if current in seen or current not in classes:
            continue
        seen.add(current)
        found = classes[current]
        pending.extend(found.interfaces)
        if found.super_name is not None:
            pending.append(found.super_name)
    return False


def catalogue_from_classes(classes: dict[str, JavaClass], cassandra_version: str) -> ClassCatalogue:
    """The catalogue of a jar's parsed classes (by full name). Pure."""
    found: dict[ClassKind, tuple[str, ...]] = {}
    for kind, root in ROOTS.items():
        found[kind] = tuple(
            sorted(
                name
                for name, parsed in classes.items()
                if parsed.is_concrete
                and "$" not in name
                and name not in INTERNAL
                and _implements(name, root, classes)
            )
        )
    return ClassCatalogue(cassandra_version=cassandra_version, classes=found)


def class_catalogue_from_jar(jar: Path, cassandra_version: str) -> ClassCatalogue:
    """Read the class catalogue from the Cassandra jar (its ``org.apache.cassandra``
    classes; a few seconds, so callers cache it)."""
    try:
        with zipfile.ZipFile(jar) as archive:
            classes: dict[str, JavaClass] = {}
            for entry in archive.namelist():
                if entry.startswith(_SCANNED) and entry.endswith(".class"):
                    parsed = parse_class(archive.read(entry))
                    classes[parsed.name] = parsed
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as error:
        raise ConfigError(
            f"reading the strategy and compressor classes from {jar}: {error}; the Cassandra "
            "jar is damaged, delete the cache directory it is in and run again to download "
            "it afresh"
        ) from error
    return catalogue_from_classes(classes, cassandra_version)


def short_name(full: str) -> str:
    """``org.apache.cassandra.db.compaction.LeveledCompactionStrategy`` ->
    ``LeveledCompactionStrategy``."""
    return full.rsplit(".", 1)[-1]


def resolve_class(kind: ClassKind, name: str, catalogue: ClassCatalogue) -> str | None:
    """The full name ``name`` (short or full) stands for, or None when the version ships
    no such class of ``kind``."""
    known = catalogue.classes.get(kind, ())
    text = name.strip()
    if text in known:
        return text
    package = PACKAGES[kind]
    if "." not in text and package + text in known:
        return package + text
    return None


def class_problem(kind: ClassKind, name: str, catalogue: ClassCatalogue) -> str | None:
    """Why ``name`` is not a ``kind`` of this catalogue's Cassandra version (naming the
    value, the version and the known names), or None when it is one."""
    if resolve_class(kind, name, catalogue) is not None:
        return None
    known = ", ".join(short_name(full) for full in catalogue.classes.get(kind, ()))
    internal = (
        " (LocalStrategy is Cassandra's own, for system keyspaces)"
        if kind is ClassKind.REPLICATION and short_name(name.strip()) == "LocalStrategy"
        else ""
    )
    return (
        f"{name!r} is not a {kind} of Cassandra {catalogue.cassandra_version}{internal}; "
        f"known: {known} (short names, or in full as {PACKAGES[kind]}<name>)"
    )


def named_problems(named: Iterable[Named], catalogue: ClassCatalogue) -> list[str]:
    """``<where>: <message>`` for every name of ``named`` the catalogue's version does not
    ship, in the given order. Pure."""
    problems: list[str] = []
    for where, kind, name in named:
        short = name.removeprefix(PACKAGES[kind]) if kind is ClassKind.COMPACTION else name
        problem = class_problem(kind, short, catalogue)
        if problem is not None:
            problems.append(f"{where}: {problem}")
    return problems
