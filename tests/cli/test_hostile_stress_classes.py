"""Class names given to ``casslab stress`` and ``capacity find`` (its workload and
``--preload``) directly, through the real entry point: a
``-schema`` replication strategy, compaction strategy or compressor, and the replication,
compaction and compression classes in a user profile's ``keyspace_definition`` and
``table_definition``, are checked against the classes of the version the command runs
against (the current casslab cluster's, else the default version's, said so) and refused
before anything starts, every unknown one at once (:mod:`casslab.cluster.class_names`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from casslab.cluster import state
from casslab.cluster.external.attach import external_state
from casslab.cluster.external.external_state import DiscoveredNode, External
from hostile_entry import Case, problems, run_main, write_files

V5 = "Cassandra 5.0.9"
DEFAULT = "checked against casslab's default version: 127.0.0.1:9042 is no casslab cluster"


def stress(*schema: str, names: str) -> Case:
    return Case(("stress", "write", "n=10", "-schema", *schema, "--dry-run"), 1, names)


PROFILE = """\
keyspace: stresscql
keyspace_definition: |
  CREATE KEYSPACE stresscql WITH replication = {REPLICATION};
table: typestest
table_definition: |
  CREATE TABLE typestest (name text, choice int, value blob, PRIMARY KEY(name, choice)){WITH}
queries:
  simple1:
    cql: select * from typestest where name = ? LIMIT 100
"""
SIMPLE = "{'class': 'SimpleStrategy', 'replication_factor': 1}"


def profile_text(replication: str = SIMPLE, with_: str = "") -> str:
    return PROFILE.replace("{REPLICATION}", replication).replace("{WITH}", with_)


def profile(names: str, replication: str = SIMPLE, with_: str = "") -> Case:
    return Case(
        ("stress", "user", "profile=p.yaml", "ops(insert=1)", "n=10", "--dry-run"),
        1,
        names,
        files={"p.yaml": profile_text(replication, with_)},
    )


def find(*argv: str, names: str) -> Case:
    return Case(("capacity", "find", "--p99", "20ms", *argv), 1, names)


REFUSED = [
    find(
        "write -schema compression=Bogus -rate threads=4",
        names="-schema compression=: 'Bogus' is not a compressor",
    ),
    find("stress write -schema compaction(strategy=Foo)", names="'Foo' is not a compaction"),
    find(
        "--preload",
        "write n=10 -schema replication(strategy=Bogus)",
        "write",
        names="--preload: -schema replication(strategy=): 'Bogus' is not a replication strategy",
    ),
    replace(
        find("user profile=p.yaml ops(simple1=1)", names="p.yaml: table_definition: compaction"),
        files={"p.yaml": profile_text(with_=" WITH compaction = {'class': 'FooStrategy'}")},
    ),
    stress(
        "replication(strategy=BogusStrategy,factor=1)",
        names=f"-schema replication(strategy=): 'BogusStrategy' is not a replication strategy "
        f"of {V5}; known: NetworkTopologyStrategy, SimpleStrategy",
    ),
    stress("replication(strategy=BogusStrategy,factor=1)", names=DEFAULT),
    stress(
        "replication(strategy=org.apache.cassandra.locator.LocalStrategy)",
        names="system keyspaces",
    ),
    stress(
        "compaction(strategy=FooCompactionStrategy)",
        names="-schema compaction(strategy=): 'FooCompactionStrategy' is not a compaction "
        f"strategy of {V5}; known: LeveledCompactionStrategy",
    ),
    stress(
        "compaction(strategy=org.example.Tiered)",
        names="'org.example.Tiered' is not a compaction strategy",
    ),
    # Cassandra loads the name as written: an alias of casslab's experiment files is no class
    stress("compaction(strategy=LCS)", names="'LCS' is not a compaction strategy"),
    stress(
        "compression=BogusCompressor",
        names=f"-schema compression=: 'BogusCompressor' is not a compressor of {V5}; known: "
        "DeflateCompressor, LZ4Compressor",
    ),
    stress(
        "replication(strategy=Bogus1)",
        "compaction(strategy=Bogus2)",
        "compression=Bogus3",
        names="the command: 3 problems",
    ),
    profile(
        "p.yaml: keyspace_definition: replication class: 'BogusStrategy' is not a "
        f"replication strategy of {V5}",
        replication="{'class': 'BogusStrategy', 'replication_factor': 1}",
    ),
    profile(
        "p.yaml: keyspace_definition: replication class: 'NetworkTopoStrategy'",
        replication="{'class' : 'NetworkTopoStrategy', 'dc1': 1}",
    ),
    profile(
        "p.yaml: table_definition: compaction class: 'FooStrategy' is not a "
        f"compaction strategy of {V5}",
        with_=" WITH compaction = {'class': 'FooStrategy'}",
    ),
    profile(
        "p.yaml: table_definition: compression class: 'Lz5Compressor' is not a compressor",
        with_="\n    WITH compaction = {'class': 'LeveledCompactionStrategy'}"
        "\n    AND COMPRESSION = {'class': 'Lz5Compressor', 'chunk_length_in_kb': 16}",
    ),
    profile(
        "table_definition: compression class: 'org.example.Zip'",
        with_=" WITH compression = {'sstable_compression': 'org.example.Zip'}",
    ),
]


@pytest.mark.parametrize("case", REFUSED, ids=str)
def test_an_unknown_class_is_refused_before_anything_starts(case: Case, tmp_path: Path) -> None:
    write_files(tmp_path, case.files)
    outcome = run_main(case.argv, tmp_path, case.env)
    assert problems(case, outcome) == [], outcome.out + outcome.err
    assert "Schema statements" not in outcome.err  # refused before the plan is printed


ACCEPTED = [
    ("stress", "write", "n=10", "-schema", "compaction(strategy=LeveledCompactionStrategy)",
     "compression=LZ4Compressor", "--dry-run"),
    ("stress", "write", "n=10", "-schema", "replication(strategy=NetworkTopologyStrategy,dc1=1)",
     "compaction(strategy=org.apache.cassandra.db.compaction.UnifiedCompactionStrategy)",
     "compression=org.apache.cassandra.io.compress.ZstdCompressor", "--dry-run"),
    ("stress", "user", "profile=p.yaml", "ops(insert=1)", "n=10", "--dry-run"),
]  # fmt: skip


@pytest.mark.parametrize("argv", ACCEPTED, ids=" ".join)
def test_shipped_classes_are_accepted(argv: tuple[str, ...], tmp_path: Path) -> None:
    with_ = (
        " WITH compaction = {'class': 'org.apache.cassandra.db.compaction.TimeWindowCompaction"
        "Strategy'} AND compression = {'class': 'DeflateCompressor'}"
    )
    write_files(tmp_path, {"p.yaml": profile_text(with_=with_)})
    outcome = run_main(argv, tmp_path)
    assert outcome.code == 0, outcome.out + outcome.err


def _current_cluster(home: Path, version: str) -> None:
    """A current external cluster of ``version`` in ``home`` (nothing needs to answer)."""
    found = [DiscoveredNode(address="127.0.0.1", native_port=9042, datacenter="dc1", rack="r1")]
    external = External(contact_points=("127.0.0.1:9042",))
    state.save(external_state("old", home / "clusters" / "old", found, external, version=version))
    state.set_current("old", home / "clusters")


def test_the_current_clusters_version_is_the_one_checked(tmp_path: Path) -> None:
    _current_cluster(tmp_path, "4.0.11")
    env = {"CASSLAB_HOME": str(tmp_path)}
    argv = ("stress", "write", "n=10", "-schema", "compaction(strategy=UnifiedCompactionStrategy)")
    outcome = run_main((*argv, "--dry-run"), tmp_path, env)
    assert outcome.code == 1, outcome.out + outcome.err
    text = outcome.text
    assert "'UnifiedCompactionStrategy' is not a compaction strategy of Cassandra 4.0.11" in text
    assert "checked against the version the current casslab cluster runs" in text
    other = (*argv[:3], "-node", "10.0.0.9", *argv[3:], "--dry-run")
    outcome = run_main(other, tmp_path, env)  # another target: the default version, said so
    assert outcome.code == 0, outcome.out + outcome.err
