"""The measured table's CQL options: strategies, compaction, the WITH clause."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from casslab.experiment.file.table_options import (
    Compaction,
    TableOptions,
    canonical_strategy,
    option_text,
    strategy_alias,
)


@pytest.mark.parametrize(
    ("name", "canonical", "alias"),
    [
        ("STCS", "SizeTieredCompactionStrategy", "STCS"),
        ("lcs", "LeveledCompactionStrategy", "LCS"),
        ("TimeWindowCompactionStrategy", "TimeWindowCompactionStrategy", "TWCS"),
        (
            "org.apache.cassandra.db.compaction.UnifiedCompactionStrategy",
            "UnifiedCompactionStrategy",
            "UCS",
        ),
        ("com.example.MyStrategy", "com.example.MyStrategy", "MyStrategy"),
    ],
)
def test_canonical_strategy(name: str, canonical: str, alias: str) -> None:
    assert canonical_strategy(name) == canonical
    assert strategy_alias(canonical) == alias


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("DateTieredCompactionStrategy", "removed in Cassandra 4.0"),
        ("DTCS", "removed in Cassandra 4.0"),
        ("FooStrategy", "unknown compaction strategy 'FooStrategy'"),
    ],
)
def test_canonical_strategy_rejects(name: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        canonical_strategy(name)


def test_compaction_from_name_and_mapping() -> None:
    assert Compaction.model_validate("LCS") == Compaction(strategy="LeveledCompactionStrategy")
    lcs = Compaction.model_validate({"class": "LCS", "sstable_size_in_mb": 160})
    assert lcs.options == {"sstable_size_in_mb": 160}
    assert lcs.to_cql_map() == {"class": "LeveledCompactionStrategy", "sstable_size_in_mb": "160"}
    # a dumped record reads back (the manifest stores the resolved experiment)
    assert Compaction.model_validate(lcs.model_dump()) == lcs


def test_compaction_rejects_unknown_option() -> None:
    with pytest.raises(ValidationError, match="unknown option"):
        Compaction.model_validate({"class": "STCS", "sstable_size_in_mb": 160})


def test_table_options_cql() -> None:
    options = TableOptions.model_validate(
        {
            "compaction": {"class": "UCS", "scaling_parameters": "T4", "enabled": True},
            "gc_grace_seconds": 0,
            "comment": "it's",
        }
    )
    assert options.to_cql() == (
        "compaction = {'class': 'UnifiedCompactionStrategy', 'scaling_parameters': 'T4', "
        "'enabled': 'true'} AND gc_grace_seconds = 0 AND comment = 'it''s'"
    )
    assert TableOptions().to_cql() == ""
    changed = options.with_option("compaction", "LCS")
    assert changed.compaction == Compaction(strategy="LeveledCompactionStrategy")
    assert changed.gc_grace_seconds == 0


@pytest.mark.parametrize(
    ("value", "text"), [(True, "true"), (False, "false"), (160, "160"), (0.5, "0.5"), ("T4", "T4")]
)
def test_option_text(value: object, text: str) -> None:
    assert option_text(value) == text
