"""An experiment file's class names against the classes its Cassandra version ships.

The replication class (``schema.replication``), the table's compaction and compression
classes (``table:`` and every ``table.compaction`` / ``table.compression`` level) and those a
cassandra-stress command names (``-schema replication(strategy=...)``,
``compaction(strategy=...)``, ``compression=``) are loaded by Cassandra only when the
statement runs, after the cluster is up. Here each is checked against the catalogue read
from the version's jar (:mod:`casslab.cluster.class_catalogue`), so ``casslab plan`` refuses
``BogusStrategy``. Each problem is ``<path>: <message>``; the shapes of these fields are
checked by their own models, so anything not a name is left to them. A tune file's
searched strategies and compressors (``tune.space``) are checked the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from casslab.cluster.class_catalogue import ClassCatalogue, ClassKind, Named, named_problems
from casslab.cluster.class_names import profile_classes, schema_classes
from casslab.cluster.distribution import DEFAULT_VERSION
from casslab.errors import CasslabError
from casslab.experiment.file.replication import is_keyed
from casslab.experiment.file.table_options import canonical_strategy
from casslab.load.front_ends import name_of
from casslab.load.stress.build import command_profiles
from casslab.load.stress.model import StressCommandKind
from casslab.load.stress.parse import parse_stress


def _replication(data: Mapping[str, Any]) -> Iterator[Named]:
    schema = data.get("schema")
    replication = schema.get("replication") if isinstance(schema, Mapping) else None
    if not isinstance(replication, Mapping):
        return
    maps = (
        {f".{name}": one for name, one in replication.items()}
        if is_keyed(replication)
        else {"": replication}
    )
    for suffix, one in maps.items():
        strategy = one.get("class") if isinstance(one, Mapping) else None
        if isinstance(strategy, str):
            yield f"schema.replication{suffix}.class", ClassKind.REPLICATION, strategy


def _compaction_name(level: Any) -> str | None:
    """The class a compaction level names, built-in aliases (LCS) resolved; None when it
    is not a name (the model reports it)."""
    raw = level.get("class") if isinstance(level, Mapping) else level
    if not isinstance(raw, str):
        return None
    try:
        return canonical_strategy(raw)
    except ValueError:
        return None  # the model says what is wrong with it


def _compression_name(level: Any) -> str | None:
    if not isinstance(level, Mapping):
        return None
    raw = level.get("class", level.get("sstable_compression"))
    return raw if isinstance(raw, str) and raw.strip() else None


def _table(data: Mapping[str, Any]) -> Iterator[Named]:
    levels: list[tuple[str, str, Any]] = []
    table = data.get("table")
    if isinstance(table, Mapping):
        levels += [(f"table.{key}", key, table.get(key)) for key in ("compaction", "compression")]
    factors = data.get("factors")
    if isinstance(factors, Mapping):
        for key in ("compaction", "compression"):
            given = factors.get(f"table.{key}")
            for index, level in enumerate(given if isinstance(given, list) else []):
                levels.append((f"factors.table.{key}[{index}]", key, level))
    for path, key, level in levels:
        if key == "compaction":
            name = _compaction_name(level)
            if name is not None:
                yield path, ClassKind.COMPACTION, name
        else:
            name = _compression_name(level)
            if name is not None:
                yield path, ClassKind.COMPRESSION, name


def _commands(data: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    workload = data.get("workload")
    if isinstance(workload, str):
        yield "workload", workload
    factors = data.get("factors")
    levels = factors.get("workload") if isinstance(factors, Mapping) else None
    for index, level in enumerate(levels if isinstance(levels, list) else []):
        if isinstance(level, str):
            yield f"factors.workload[{index}]", level
    preload = data.get("preload")
    if isinstance(preload, str):
        yield "preload", preload


def _stress(data: Mapping[str, Any], base_dir: Path | None) -> Iterator[Named]:
    for path, text in _commands(data):
        try:
            if name_of(text) != "stress":
                continue
            command = parse_stress(text)
            if command.kind is StressCommandKind.USER:
                for profile, source in command_profiles(command, base_dir):
                    yield from profile_classes(profile, source, prefix=f"{path}: ")
                continue
        except (CasslabError, ValueError, OSError):
            continue  # the command's own check reports it
        # as written: Cassandra loads the name, so an alias such as LCS is no class there
        yield from schema_classes(command.schema_settings, f"{path}: -schema", every=True)


def _tune(data: Mapping[str, Any]) -> Iterator[Named]:
    """A tune file's searched strategies (``tune.space.table.compaction``'s keys) and
    compressors (``tune.space.table.compression``'s choices)."""
    tune = data.get("tune")
    space = tune.get("space") if isinstance(tune, Mapping) else None
    if not isinstance(space, Mapping):
        return
    compaction = space.get("table.compaction")
    for key in compaction if isinstance(compaction, Mapping) else ():
        name = _compaction_name(key)
        if name is not None:
            yield f"tune.space.table.compaction.{key}", ClassKind.COMPACTION, name
    compression = space.get("table.compression")
    choices = compression.get("choice") if isinstance(compression, Mapping) else None
    for index, level in enumerate(choices if isinstance(choices, list) else []):
        name = _compression_name(level)
        if name is not None:
            yield f"tune.space.table.compression.choice[{index}]", ClassKind.COMPRESSION, name


def named_classes(data: Mapping[str, Any], base_dir: Path | None = None) -> list[Named]:
    """Every class name the file gives, with its path and kind, in file order; the user
    profiles its commands name are read from ``base_dir``."""
    return [*_replication(data), *_table(data), *_stress(data, base_dir), *_tune(data)]


def class_problems(
    data: Mapping[str, Any],
    version: str | None,
    catalogue_for: Callable[[str], ClassCatalogue] | None = None,
    base_dir: Path | None = None,
) -> list[str]:
    """Every class name in ``data`` that the Cassandra ``version`` (default: the default
    version) does not ship, as ``<path>: <message>``. ``catalogue_for`` gives a version's
    catalogue (default: read from its jar, fetched if needed)."""
    named = named_classes(data, base_dir)
    if not named:
        return []
    if catalogue_for is None:
        from casslab.cluster.config import class_catalogue_for

        catalogue_for = class_catalogue_for
    try:
        catalogue = catalogue_for(version or DEFAULT_VERSION)
    except CasslabError as error:
        return [f"{named[0][0]}: the class names cannot be checked: {error}"]
    return named_problems(named, catalogue)
