"""Named settings presets: ``default`` (cassandra.yaml as casslab renders it) and ``latest``,
what Cassandra 5.0's ``conf/cassandra_latest.yaml`` changes against its ``conf/cassandra.yaml``
(the new defaults turned on together: trie memtables, BTI SSTables, the unified compaction
strategy, SAI as the default index, ``storage_compatibility_mode: NONE``, ...).

Where the preset comes from, first found wins, and :attr:`PresetChanges.source` says which:

1. the version's own distribution, its ``conf/`` folder beside ``lib/``:
   ``$CASSANDRA_HOME/conf`` for an official tarball, or
   ``~/.cache/casslab/cassandra/<version>/conf`` when both files of that version's
   ``apache-cassandra-<version>-bin.tar.gz`` were put there;
2. the version's source: ``latest_presets.yaml`` beside this module holds the changes of the
   versions whose release tag casslab's ``scripts/derive_latest_preset.py`` read (the same
   diff, on the two files at the tag ``cassandra-<version>``, naming its commit).

Maven Central publishes the jars only, so a cached version of neither kind is refused,
naming where the files go, before anything starts. Nothing is taken from another version:
the files change between patch releases. Cassandra 4.x has no ``cassandra_latest.yaml`` (it
came with 5.0).

:func:`latest_changes` is pure (two texts in, the settings out): the top-level settings
whose value in ``cassandra_latest.yaml`` differs from ``cassandra.yaml`` or that only it sets.
A setting ``cassandra_latest.yaml`` leaves out but ``cassandra.yaml`` sets is listed in
``unset``: it takes Cassandra's built-in default in both casslab's renderings, since casslab
renders cassandra.yaml from its own lab defaults, not from the stock file. The preset's
settings come under the user's: ``--set`` and an experiment's ``config:`` still win.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import yaml

from casslab.cluster import distribution
from casslab.cluster.distribution import Distribution
from casslab.errors import ConfigError, SetupError
from casslab.record import Record

DEFAULT: Final = "default"
LATEST: Final = "latest"
PRESETS: Final = (DEFAULT, LATEST)
DEFAULT_FILE: Final = "cassandra.yaml"
LATEST_FILE: Final = "cassandra_latest.yaml"
FIRST_LATEST_MAJOR: Final = 5  # cassandra_latest.yaml came with Cassandra 5.0
DERIVED_FILE: Final = "latest_presets.yaml"  # beside this module: presets from the source
DERIVED_HEADER: Final = """\
# The latest settings preset of Cassandra versions, derived from their source: what the
# release tag's conf/cassandra_latest.yaml changes against its conf/cassandra.yaml
# (casslab.cluster.presets.latest_changes). Written by scripts/derive_latest_preset.py;
# `casslab up --preset latest` uses an entry when the version's distribution has no conf/.
"""


class PresetChanges(Record):
    """What a preset sets: ``settings`` by cassandra.yaml name, and the settings the
    stock cassandra.yaml sets that the preset's file leaves to Cassandra's default."""

    name: str
    source: str  # where the files were read, e.g. /home/u/cassandra/conf
    settings: dict[str, Any]
    unset: list[str]


def canonical(name: str) -> str:
    """``name`` as casslab spells it (``Latest`` -> ``latest``), or a ConfigError naming
    the presets."""
    lowered = name.strip().lower()
    if lowered not in PRESETS:
        raise ConfigError(
            f"settings preset {name!r}: casslab knows {', '.join(PRESETS)} (default: "
            "cassandra.yaml as casslab renders it; latest: what Cassandra 5.0's "
            "cassandra_latest.yaml changes)"
        )
    return lowered


def _mapping(text: str, source: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ConfigError(f"{source}: not valid YAML ({error}); is it the right file?") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected cassandra.yaml settings (a mapping)")
    return {str(k): v for k, v in data.items()}


def latest_changes(default_text: str, latest_text: str, *, source: str) -> PresetChanges:
    """Pure: the settings ``cassandra_latest.yaml`` (``latest_text``) changes against
    ``cassandra.yaml`` (``default_text``); see the module docstring."""
    default = _mapping(default_text, f"{source}/{DEFAULT_FILE}")
    latest = _mapping(latest_text, f"{source}/{LATEST_FILE}")
    settings = {k: v for k, v in latest.items() if k not in default or default[k] != v}
    unset = sorted(k for k in default if k not in latest)
    return PresetChanges(name=LATEST, source=source, settings=settings, unset=unset)


def version_key(version: str) -> tuple[int, ...]:
    """``5.0.10`` after ``5.0.9``: a version's numbers, for sorting."""
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def derived_path() -> Path:
    return Path(__file__).with_name(DERIVED_FILE)


def derived_entries(text: str) -> dict[str, dict[str, Any]]:
    """Pure: the entries of a ``latest_presets.yaml`` text, by version."""
    data = _mapping(text, DERIVED_FILE)
    versions = data.get("versions") or {}
    if not isinstance(versions, dict):
        raise ConfigError(f"{DERIVED_FILE}: 'versions' is not a mapping")
    return {str(version): dict(entry) for version, entry in versions.items()}


def derived_versions() -> list[str]:
    """The versions whose preset casslab derived from their source."""
    return list(derived_entries(derived_path().read_text(encoding="utf-8")))


def derived(version: str) -> PresetChanges | None:
    """The ``latest`` preset of ``version`` derived from its source, or None."""
    entry = derived_entries(derived_path().read_text(encoding="utf-8")).get(version)
    if entry is None:
        return None
    return PresetChanges(
        name=LATEST,
        source=str(entry["source"]),
        settings=dict(entry["settings"]),
        unset=list(entry["unset"]),
    )


def conf_dir(dist: Distribution) -> Path:
    """The version's ``conf/`` folder: beside its ``lib/`` (a tarball's, or the cache's)."""
    return dist.lib_dir.parent / "conf"


def _major(version: str) -> int:
    return int(version.split(".", 1)[0])


def version_problem(name: str, version: str | None) -> str | None:
    """Why preset ``name`` cannot run on Cassandra ``version`` (None: the default
    version), before anything starts; None when it can."""
    if canonical(name) == LATEST and version is not None and _major(version) < FIRST_LATEST_MAJOR:
        return (
            f"preset latest: Cassandra {version} has no {LATEST_FILE} (it came with 5.0); "
            "use preset default, or a 5.0 version"
        )
    return None


def _missing(conf: Path) -> list[str]:
    return [f for f in (DEFAULT_FILE, LATEST_FILE) if not (conf / f).is_file()]


def _no_source(version: str, conf: Path, missing: Sequence[str]) -> str:
    return (
        f"preset latest: Cassandra {version}'s distribution has no "
        f"{' or '.join(str(conf / f) for f in missing)}, and casslab has not derived "
        f"its preset from the source (it has for {', '.join(derived_versions())}); "
        "casslab reads the preset from the version's own conf/ (Maven Central has only "
        "the jars): copy conf/cassandra.yaml and conf/cassandra_latest.yaml of "
        f"apache-cassandra-{version}-bin.tar.gz there, or set CASSANDRA_HOME to "
        "that unpacked tarball"
    )


def source_problem(version: str | None) -> str | None:
    """Why preset latest cannot run on ``version`` (None: the default) on this machine,
    asked before anything starts and without fetching: a 4.x version, or neither the
    ``conf/`` files of the distribution casslab would run (``CASSANDRA_HOME``'s when it
    is that version, else the cache's) nor a preset derived from the version's source."""
    problem = version_problem(LATEST, version)
    if problem is not None:
        return problem
    try:
        home = distribution.home_for(version)  # as distribution.resolve chooses
    except SetupError:
        home = None  # the run meets that error on its own
    wanted = home.version if home else version or distribution.DEFAULT_VERSION
    conf = conf_dir(home) if home else distribution.version_dir(wanted) / "conf"
    missing = _missing(conf)
    if not missing or derived(wanted) is not None:
        return None
    return _no_source(wanted, conf, missing)


def preset_changes(name: str, dist: Distribution) -> PresetChanges:
    """Preset ``name`` for the distribution ``dist``, its files read from ``conf_dir``."""
    preset = canonical(name)
    if preset == DEFAULT:
        return PresetChanges(name=DEFAULT, source="casslab", settings={}, unset=[])
    problem = version_problem(preset, dist.version)
    if problem is not None:
        raise SetupError(problem)
    conf = conf_dir(dist)
    missing = _missing(conf)
    if missing:
        from_source = derived(dist.version)
        if from_source is not None:
            return from_source
        raise SetupError(_no_source(dist.version, conf, missing))
    texts = [(conf / f).read_text(encoding="utf-8") for f in (DEFAULT_FILE, LATEST_FILE)]
    return latest_changes(texts[0], texts[1], source=str(conf))


def with_preset(
    name: str | None,
    dist: Distribution,
    settings: Mapping[str, Any],
    *,
    reserved: Collection[str],
) -> dict[str, Any]:
    """The user's ``settings`` over preset ``name``'s (None: none), leaving out of the
    preset the settings casslab sets for each node (``reserved``: addresses, directories)."""
    preset = preset_changes(name, dist).settings if name is not None else {}
    return {**{k: v for k, v in preset.items() if k not in reserved}, **settings}


def preset_problems(name: object, versions: Sequence[str | None]) -> list[str]:
    """Problems of preset ``name`` in an experiment file that runs ``versions`` (None: the
    default version): not a preset, or one a version cannot run."""
    try:
        preset = canonical(str(name))
    except ConfigError as error:
        return [str(error)]
    found = (version_problem(preset, version) for version in versions)
    return [problem for problem in found if problem is not None]


def field_value(value: str | None) -> str | None:
    """A ``preset`` field's value, canonical (None stays None); a ValueError naming the
    presets for a record's validator."""
    try:
        return canonical(value) if value is not None else None
    except ConfigError as error:
        raise ValueError(str(error)) from None


def refuse_too_old(name: str | None, version: str | None) -> None:
    """A SetupError when preset ``name`` (None: none) cannot run on ``version``, asked
    before any JDK probe or download."""
    problem = version_problem(name, version) if name is not None else None
    if problem is not None:
        raise SetupError(problem)
