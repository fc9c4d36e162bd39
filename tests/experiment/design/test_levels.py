"""Level identity and slugs: when two levels mean the same, and the labels of cell ids."""

from __future__ import annotations

from typing import Any

import pytest

from casslab.experiment.design.factor_levels import (
    factor_labels,
    find_level,
    level_key,
    level_slug,
    level_slugs,
)
from casslab.experiment.file.experiment_model import Factor, FactorKind

COMPACTION = Factor(
    name="table.compaction",
    kind=FactorKind.TABLE,
    keys=("compaction",),
    levels=("STCS", "LCS", {"class": "UCS", "scaling_parameters": "T4"}),
)
THREADS = Factor(name="threads", kind=FactorKind.THREADS, levels=(8, 16))
LINKED = Factor(
    name="config.memtable_flush_writers+memtable_cleanup_threshold",
    kind=FactorKind.CONFIG,
    keys=("memtable_flush_writers", "memtable_cleanup_threshold"),
    levels=([6, 0.14], [8, 0.11]),
)
WORKLOAD = Factor(
    name="workload",
    kind=FactorKind.WORKLOAD,
    levels=("mixed ratio(write=9,read=1)", "ycsb run -P workloads/workloada"),
)


@pytest.mark.parametrize(
    ("factor", "one", "other", "same"),
    [
        (COMPACTION, "LCS", "LeveledCompactionStrategy", True),
        (COMPACTION, "lcs", {"class": "LCS"}, True),
        (COMPACTION, "LCS", "STCS", False),
        (THREADS, 16, 16.0, True),
        (THREADS, 16, 8, False),
        (LINKED, [6, 0.14], [6.0, 0.14], True),
        (LINKED, [6, 0.14], [0.14, 6], False),
    ],
)
def test_level_key(factor: Factor, one: Any, other: Any, same: bool) -> None:
    assert (level_key(factor, one) == level_key(factor, other)) is same


@pytest.mark.parametrize(
    ("factor", "level", "index"),
    [
        (COMPACTION, "SizeTieredCompactionStrategy", 0),
        (COMPACTION, "org.apache.cassandra.db.compaction.LeveledCompactionStrategy", 1),
        (COMPACTION, {"class": "UnifiedCompactionStrategy", "scaling_parameters": "T4"}, 2),
        (COMPACTION, "UCS", None),  # the listed UCS level has options
        (COMPACTION, "NoSuchStrategy", None),  # not a strategy at all: no match, no error
        (THREADS, 8.0, 0),
        (THREADS, 32, None),
    ],
)
def test_find_level(factor: Factor, level: Any, index: int | None) -> None:
    assert find_level(factor, level) == index


@pytest.mark.parametrize(
    ("factor", "level", "slug"),
    [
        (COMPACTION, "LeveledCompactionStrategy", "LCS"),
        (COMPACTION, {"class": "LCS", "fanout_size": 8}, "LCS-fanout_size-8"),
        (COMPACTION, {"class": "STCS", "enabled": False}, "STCS-enabled-false"),
        (THREADS, 16, "16"),
        (THREADS, 1500.0, "1500"),
        (LINKED, [6, 0.14], "6+0.14"),
        (WORKLOAD, "mixed ratio(write=9,read=1)", "mixed-9-1"),
        (WORKLOAD, "ycsb run -P workloads/workloada", "ycsb-workloada"),
        (WORKLOAD, "write -mode user=u password=secret", "write-mode-user-u-password-suppressed"),
        (Factor(name="config.auto_snapshot", kind=FactorKind.CONFIG, levels=(True,)), True, "true"),
        (
            Factor(name="config.x", kind=FactorKind.CONFIG, levels=("16MiB/s",)),
            "16MiB/s",
            "16MiB-s",
        ),
        (
            Factor(name="table.caching", kind=FactorKind.TABLE, levels=()),
            {"keys": "ALL"},
            "keys-ALL",
        ),
    ],
)
def test_level_slug(factor: Factor, level: Any, slug: str) -> None:
    assert level_slug(factor, level) == slug


def test_level_slugs_are_unique_and_short() -> None:
    comments = Factor(
        name="table.comment", kind=FactorKind.TABLE, keys=("comment",), levels=("a b", "a-b", "a/b")
    )
    assert level_slugs(comments) == ["a-b", "a-b-2", "a-b-3"]
    long_a = "mixed ratio(write=9,read=1) -pop dist=UNIFORM(1..1000000) -col n=FIXED(10)"
    workloads = Factor(
        name="workload",
        kind=FactorKind.WORKLOAD,
        levels=(long_a, long_a.replace("FIXED(10)", "FIXED(20)")),
    )
    slugs = level_slugs(workloads)
    assert all(len(slug) <= 40 for slug in slugs)
    assert slugs[0] != slugs[1]


def test_factor_labels_use_short_names_unless_they_collide() -> None:
    table_comment = Factor(
        name="table.comment", kind=FactorKind.TABLE, keys=("comment",), levels=(1,)
    )
    config_comment = Factor(
        name="config.comment", kind=FactorKind.CONFIG, keys=("comment",), levels=(1,)
    )
    assert factor_labels([COMPACTION, THREADS]) == {
        "table.compaction": "compaction",
        "threads": "threads",
    }
    assert factor_labels([table_comment, config_comment, THREADS]) == {
        "table.comment": "table.comment",
        "config.comment": "config.comment",
        "threads": "threads",
    }
