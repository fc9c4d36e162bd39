"""Factor levels: when two mean the same, and the short labels cell ids are made of (pure).

Two levels are the same level when they mean the same (``LCS`` and
``LeveledCompactionStrategy``, ``16`` and ``16.0``): :func:`level_key` is the one test, used
by the design, the baseline and the loader's checks alike. A level's slug is a short
readable label (``LCS``, ``2048MiB``, ``mixed-9-1``) that is unique among the factor's
levels and names a directory, so it holds no password.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from casslab.cluster import collectors, presets
from casslab.errors import ConfigError
from casslab.experiment.file.experiment_model import Factor, FactorKind
from casslab.experiment.file.file_record import Level
from casslab.experiment.file.table_options import Compaction, option_text, strategy_alias
from casslab.experiment.steps.discover.discover_section import rate_share
from casslab.experiment.steps.skew.skew_section import clock_offsets
from casslab.load.command_words import clean_slug as _clean
from casslab.load.command_words import number_text
from casslab.load.credentials import mask_text
from casslab.load.front_ends import front_end_for
from casslab.net.presets import resolve_topology


def _is_topology(factor: Factor) -> bool:
    return factor.kind is FactorKind.CLUSTER and factor.keys == ("topology",)


def canonical_level(factor: Factor, level: Level) -> Level:
    """A level in a form where equal meanings compare equal (``LCS`` == the class name; a
    topology's preset and an inline definition of the same datacenters and links)."""
    if factor.kind is FactorKind.TABLE and factor.keys == ("compaction",):
        return Compaction.model_validate(level).model_dump(mode="json")
    if factor.kind is FactorKind.CLUSTER and factor.keys == ("gc",) and isinstance(level, str):
        try:
            return collectors.canonical(level)  # zgc == ZGC
        except ValueError:
            return level  # not a collector: the level's check says so
    if factor.kind is FactorKind.CLUSTER and factor.keys == ("java_home",):
        return level.rstrip("/") or "/" if isinstance(level, str) else level  # /jdk/ == /jdk
    if factor.kind is FactorKind.CLUSTER and factor.keys == ("preset",) and isinstance(level, str):
        try:
            return presets.canonical(level)  # Latest == latest
        except ConfigError:
            return level  # not a preset: the level's check says so
    if _is_topology(factor):
        try:
            choice = resolve_topology(level)
        except ConfigError as error:  # not a level: find_level says so
            raise ValueError(str(error)) from error
        return choice.model_dump(mode="json", exclude={"name"})
    if isinstance(level, list):
        return [canonical_level_scalar(item) for item in level]
    return canonical_level_scalar(level)


def canonical_level_scalar(level: Level) -> Level:
    if isinstance(level, float) and level.is_integer():
        return int(level)
    return level


def level_key(factor: Factor, level: Level) -> str:
    """A string that is equal for two levels of ``factor`` exactly when they mean the same."""
    return json.dumps(canonical_level(factor, level), sort_keys=True, default=str)


def find_level(factor: Factor, level: Level) -> int | None:
    """The index of ``level`` among the factor's levels, or None."""
    try:
        wanted = level_key(factor, level)
    except ValueError:
        return None
    for index, candidate in enumerate(factor.levels):
        try:
            if level_key(factor, candidate) == wanted:
                return index
        except ValueError:
            continue
    return None


_SLUG_MAX = 40


def _workload_slug(command: str) -> str:
    command = mask_text(command)  # a cell id names a directory: no password in it
    return front_end_for(command).slug(command)


def level_slug(factor: Factor, level: Level) -> str:
    """A short readable label of a level: ``LCS``, ``2048MiB``, ``mixed-9-1``, ``6+0.14``."""
    if isinstance(level, bool):
        return "true" if level else "false"
    if isinstance(level, int | float):
        return _clean(number_text(level))
    if factor.kind is FactorKind.TABLE and factor.keys == ("compaction",):
        compaction = Compaction.model_validate(level)
        parts = [strategy_alias(compaction.strategy)]
        parts += [f"{k}-{option_text(v)}" for k, v in compaction.options.items()]
        return _clean("-".join(parts))
    if factor.kind is FactorKind.WORKLOAD and isinstance(level, str):
        return _workload_slug(level)
    if factor.kind is FactorKind.CLOCK:
        return _clock_slug(level)
    share = rate_share(level) if factor.kind is FactorKind.RATE else None
    if share is not None:  # 66% -> 66pct
        return _clean(f"{number_text(round(100 * share, 6))}pct")
    if _is_topology(factor):
        try:
            return _clean(resolve_topology(level).name)
        except ConfigError:
            return _clean(str(level))
    if isinstance(level, list):
        return "+".join(level_slug(factor, item) for item in level)
    if isinstance(level, dict):
        return _clean("-".join(f"{k}-{option_text(v)}" for k, v in level.items()))
    return _clean(str(level))


def _clock_slug(level: Level) -> str:
    """``{2: -500ms}`` -> ``n2-500ms``; no offset -> ``on-time``."""
    try:
        offsets = clock_offsets(level)
    except ValueError:
        return _clean(str(level))
    parts = [
        f"n{node}{number_text(ms) if ms < 0 else '+' + number_text(ms)}ms"
        for node, ms in sorted(offsets.items())
        if ms != 0
    ]
    return _clean("_".join(parts)) if parts else "on-time"


def _shorten(slug: str) -> str:
    if len(slug) <= _SLUG_MAX:
        return slug
    digest = hashlib.sha256(slug.encode()).hexdigest()[:6]
    return f"{slug[: _SLUG_MAX - 7].rstrip('-.')}-{digest}"


def level_slugs(factor: Factor) -> list[str]:
    """Slugs of every level of ``factor``, made unique (``-2``, ``-3``) where they collide."""
    slugs: list[str] = []
    for level in factor.levels:
        slug = _shorten(level_slug(factor, level))
        base, count = slug, 1
        while slug in slugs:
            count += 1
            slug = f"{base}-{count}"
        slugs.append(slug)
    return slugs


def factor_labels(factors: Sequence[Factor]) -> dict[str, str]:
    """Factor name -> the label used in cell ids (the short name, unless two collide)."""
    shorts = [f.short_name for f in factors]
    return {f.name: f.short_name if shorts.count(f.short_name) == 1 else f.name for f in factors}
