"""Whether a node has built a keyspace's indexes, judged on literal rows of
``system_schema.indexes``, ``system_views.sai_column_indexes`` and ``system."IndexInfo"``
(the waiting itself runs against a real node in tests/cli/test_stress_vector_integration.py)."""

from __future__ import annotations

import pytest

from casslab.experiment.run.index_build import (
    IndexDefinition,
    SaiStatus,
    definition,
    pending_indexes,
)

SAI_OPTIONS = {"class_name": "org.apache.cassandra.index.sai.StorageAttachedIndex", "target": "v"}


@pytest.mark.parametrize(
    ("options", "sai"),
    [
        (SAI_OPTIONS, True),
        ({"class_name": "StorageAttachedIndex", "target": "v"}, True),
        ({"class_name": "sai", "target": "v"}, True),
        ({"target": "category"}, False),  # a legacy CREATE INDEX: no class name
        (None, False),
        ({"class_name": "org.example.OtherIndex", "target": "v"}, False),
    ],
)
def test_an_index_is_sai_by_its_class_name(options: dict[str, str] | None, sai: bool) -> None:
    assert definition("i", options) == IndexDefinition(name="i", sai=sai)


VECTOR = IndexDefinition(name="items_embedding", sai=True)
CATEGORY = IndexDefinition(name="items_category", sai=True)
LEGACY = IndexDefinition(name="items_price_2i", sai=False)


def status(name: str, queryable: bool, building: bool) -> SaiStatus:
    return SaiStatus(name=name, queryable=queryable, building=building)


@pytest.mark.parametrize(
    ("sai", "built", "pending"),
    [
        # both SAI indexes queryable, none building, the legacy one marked built: done
        (
            [status("items_embedding", True, False), status("items_category", True, False)],
            ["items_price_2i"],
            [],
        ),
        # still building (queryable on the memtable, SSTables being indexed)
        (
            [status("items_embedding", True, True), status("items_category", True, False)],
            ["items_price_2i"],
            ["items_embedding"],
        ),
        # not yet queryable
        (
            [status("items_embedding", False, False), status("items_category", True, False)],
            ["items_price_2i"],
            ["items_embedding"],
        ),
        # the node has no status row yet for an index the schema has; the legacy one unbuilt
        ([status("items_embedding", True, False)], [], ["items_category", "items_price_2i"]),
        # a row of an index the schema does not list (dropped since) is ignored
        (
            [
                status("items_embedding", True, False),
                status("items_category", True, False),
                status("other", False, True),
            ],
            ["items_price_2i", "other"],
            [],
        ),
    ],
)
def test_pending_indexes_of_one_node(
    sai: list[SaiStatus], built: list[str], pending: list[str]
) -> None:
    assert pending_indexes([VECTOR, CATEGORY, LEGACY], sai, built) == pending


def test_no_index_is_never_pending() -> None:
    assert pending_indexes([], [status("x", False, True)], []) == []
