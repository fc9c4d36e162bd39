"""Design expansion: cells, trials and their resolved settings, table and commands."""

from __future__ import annotations

from typing import Any

import pytest

from casslab.errors import ExperimentError
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.file.load_commands import Command


def experiment(**fields: Any) -> Experiment:
    data: dict[str, Any] = {"name": "t", "workload": "mixed ratio(write=9,read=1)"}
    data.update(fields)
    return Experiment.model_validate(data)


def _three_by_two(seed: int, kind: str = "randomized") -> Experiment:
    return experiment(
        factors={"table.compaction": ["STCS", "LCS", "UCS"], "threads": [8, 16]},
        iterations=4,
        order={"kind": kind, "seed": seed},
    )


# ---------------------------------------------------------------- cell counts


@pytest.mark.parametrize(
    ("design", "sizes", "cells"),
    [
        ("factorial", [3], 3),
        ("factorial", [3, 2], 6),
        ("factorial", [2, 2, 2], 8),
        ("factorial", [4, 3, 2], 24),
        ("factorial", [], 1),
        ("ofat", [3], 3),
        ("ofat", [3, 2], 4),  # baseline + 2 + 1
        ("ofat", [6, 4, 4, 4], 15),  # baseline + 5 + 3 + 3 + 3
        ("ofat", [1, 1], 1),
        ("ofat", [], 1),
    ],
)
def test_cell_counts(design: str, sizes: list[int], cells: int) -> None:
    keys = ["concurrent_compactors", "memtable_flush_writers", "concurrent_reads"]
    factors: dict[str, list[Any]] = {}
    for index, size in enumerate(sizes):
        if index == 0:
            factors["threads"] = [4 * (n + 1) for n in range(size)]
        else:
            factors[f"config.{keys[index - 1]}"] = [n + 1 for n in range(size)]
    plan = expand(experiment(factors=factors, design=design, iterations=3))
    assert len(plan.cells) == cells
    assert len(plan.trials) == cells * 3
    assert len({c.id for c in plan.cells}) == cells
    assert sum(c.baseline for c in plan.cells) == 1
    assert len({t.trial_id for t in plan.trials}) == cells * 3


def test_ofat_varies_one_factor_at_a_time_around_a_chosen_baseline() -> None:
    plan = expand(
        experiment(
            factors={"table.compaction": ["STCS", "LCS", "UCS"], "threads": [8, 16]},
            design="ofat",
            baseline={"table.compaction": "LeveledCompactionStrategy", "threads": 16},
            iterations=1,
        )
    )
    assert [c.id for c in plan.cells] == [
        "compaction=LCS,threads=16",
        "compaction=STCS,threads=16",
        "compaction=UCS,threads=16",
        "compaction=LCS,threads=8",
    ]
    assert plan.baseline_cell_id == "compaction=LCS,threads=16"
    assert plan.cells[0].baseline
    # the baseline names the level as the file lists it
    assert plan.cells[0].levels == {"table.compaction": "LCS", "threads": 16}


def test_extra_cells_follow_and_do_not_repeat() -> None:
    plan = expand(
        experiment(
            factors={
                "config.concurrent_compactors": [1, 24],
                "config.memtable_heap_space": ["2048MiB", "5120MiB"],
            },
            design="ofat",
            extra_cells=[
                {"config.concurrent_compactors": 24, "config.memtable_heap_space": "5120MiB"},
                {"config.concurrent_compactors": 24},  # already an ofat cell
            ],
        )
    )
    assert [c.id for c in plan.cells] == [
        "concurrent_compactors=1,memtable_heap_space=2048MiB",
        "concurrent_compactors=24,memtable_heap_space=2048MiB",
        "concurrent_compactors=1,memtable_heap_space=5120MiB",
        "concurrent_compactors=24,memtable_heap_space=5120MiB",
    ]


@pytest.mark.parametrize(
    ("factors", "first_id"),
    [
        (
            {"table.compaction": ["LCS"], "workload": ["mixed ratio(write=9,read=1)"]},
            "compaction=LCS,workload=mixed-9-1",
        ),
        (
            {"table.compaction": [{"class": "LeveledCompactionStrategy", "fanout_size": 8}]},
            "compaction=LCS-fanout_size-8",
        ),
        (
            {"config.memtable_flush_writers+memtable_cleanup_threshold": [[6, 0.14]]},
            "memtable_flush_writers+memtable_cleanup_threshold=6+0.14",
        ),
        ({"config.compaction_throughput": ["16MiB/s"]}, "compaction_throughput=16MiB-s"),
        ({"workload": ["ycsb run -P workloads/workloada"]}, "workload=ycsb-workloada"),
        ({"rate": [1500.0], "nodes": [3]}, "rate=1500,nodes=3"),
        ({"config.auto_snapshot": [False]}, "auto_snapshot=false"),
        (
            {"cluster.isolation": ["netns"], "cluster.node_size": ["t2.small"]},
            "isolation=netns,node_size=t2.small",
        ),
        ({"cluster.cpus": [0.5], "cluster.memory": ["2GiB"]}, "cpus=0.5,memory=2GiB"),
        ({}, "baseline"),
    ],
)
def test_cell_ids_are_readable_slugs(factors: dict[str, list[Any]], first_id: str) -> None:
    fields: dict[str, Any] = {"factors": factors}
    if "workload" in factors:
        fields["workload"] = None
    assert expand(experiment(**fields)).cells[0].id == first_id


def test_colliding_slugs_are_made_unique() -> None:
    plan = expand(experiment(factors={"table.comment": ["a b", "a-b", "a/b"]}))
    assert [c.id for c in plan.cells] == ["comment=a-b", "comment=a-b-2", "comment=a-b-3"]


def test_long_slugs_are_shortened_with_a_digest() -> None:
    long_a = "mixed ratio(write=9,read=1) -pop dist=UNIFORM(1..1000000) -col n=FIXED(10)"
    long_b = long_a.replace("FIXED(10)", "FIXED(20)")
    plan = expand(experiment(factors={"workload": [long_a, long_b]}, workload=None))
    ids = [c.labels["workload"] for c in plan.cells]
    assert all(len(i) <= 40 for i in ids)
    assert ids[0] != ids[1]


# ---------------------------------------------------------------- trials


def test_trial_resolves_settings_table_and_command() -> None:
    plan = expand(
        experiment(
            cluster={"nodes": 1, "heap": "1G", "config": {"auto_snapshot": False}},
            table={"compaction": "STCS", "gc_grace_seconds": 0},
            factors={
                "config.memtable_flush_writers+memtable_cleanup_threshold": [[6, 0.14]],
                "table.compaction": [{"class": "LCS", "sstable_size_in_mb": 64}],
                "threads": [32],
            },
            preload="write n=1000 -rate threads=8",
            warmup="10s",
            measure="duration=30s cl=ONE -rate threads=4",
            reset="recreate",
        )
    )
    trial = plan.trials[0]
    assert trial.settings == {
        "auto_snapshot": False,
        "memtable_flush_writers": 6,
        "memtable_cleanup_threshold": 0.14,
    }
    assert trial.table.to_cql() == (
        "compaction = {'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': '64'} "
        "AND gc_grace_seconds = 0"
    )
    assert trial.workload == Command(
        tool="stress", text="mixed ratio(write=9,read=1) duration=30s cl=ONE -rate threads=32"
    )
    assert trial.preload == Command(tool="stress", text="write n=1000 -rate threads=8")
    assert trial.warmup_s == 10.0
    assert (trial.nodes, trial.heap, trial.keyspace) == (1, "1G", "keyspace1")
    assert trial.reset.value == "recreate"


def test_trial_resolves_the_nodes_isolation_from_section_and_levels() -> None:
    plan = expand(
        experiment(
            cluster={"nodes": 2, "node_size": "t2.small", "cpu_scale": 0.5, "io_write": "20MiB"},
            factors={"cluster.isolation": ["process", "netns"], "cluster.memory": ["1GiB"]},
            iterations=1,
            order="sequential",
        )
    )
    isolation = [t.node_isolation for t in plan.trials]
    assert [i.isolation.value for i in isolation] == ["process", "netns"]
    for node in isolation:
        assert (node.node_size, node.memory, node.cpu_scale, node.io_write) == (
            "t2.small",
            "1GiB",
            0.5,
            "20MiB",
        )
    assert [t.restart_reason.value if t.restart_reason else None for t in plan.trials] == [
        "first",
        "isolation",
    ]
    assert plan.cells[1].labels == {"cluster.isolation": "netns", "cluster.memory": "1GiB"}


def test_plain_nodes_by_default() -> None:
    trial = expand(experiment()).trials[0]
    assert trial.node_isolation.plain
    assert trial.setup.isolation_values() == {}


def test_trial_ids_and_digest_are_stable() -> None:
    one, two = expand(_three_by_two(5)), expand(_three_by_two(5))
    assert one == two
    assert len(one.digest) == 64
    assert expand(_three_by_two(6)).digest != one.digest
    assert one.cell(one.baseline_cell_id).baseline


def test_expand_rejects_an_unchecked_experiment() -> None:
    bad = experiment(factors={"colour": ["red"]})
    with pytest.raises(ExperimentError, match="expand experiment t: unknown factor kind"):
        expand(bad)
    lxc = experiment(factors={"cluster.isolation": ["lxc"]})
    with pytest.raises(ExperimentError, match=r"t: cluster\.isolation: expected 'process' or"):
        expand(lxc)
    with pytest.raises(ExperimentError, match="no cell 'nope'"):
        expand(experiment()).cell("nope")


def test_version_and_heap_levels_make_each_trial_a_cluster_of_its_own() -> None:
    plan = expand(
        experiment(
            cluster={"nodes": 1, "heap": "512M", "version": "5.0.9"},
            factors={"cluster.version": ["5.0.8", "5.0.9"], "cluster.heap": ["512M", "1G"]},
            iterations=1,
            order="sequential",
        )
    )
    setups = [(t.version, t.heap) for t in plan.trials]
    assert sorted(setups) == [
        ("5.0.8", "1G"),
        ("5.0.8", "512M"),
        ("5.0.9", "1G"),
        ("5.0.9", "512M"),
    ]
    reasons = [t.restart_reason.value if t.restart_reason else None for t in plan.trials]
    assert reasons[0] == "first"
    assert set(reasons[1:]) <= {"heap", "version"}
    assert all(t.restart for t in plan.trials)
    assert plan.cells[0].labels == {"cluster.version": "5.0.8", "cluster.heap": "512M"}


def test_gc_levels_are_canonical_and_restart_for_a_new_collector() -> None:
    plan = expand(
        experiment(
            cluster={"nodes": 1, "heap": "512M"},
            factors={"cluster.gc": ["G1", "zgc"]},
            iterations=1,
            order="sequential",
        )
    )
    assert [t.gc for t in plan.trials] == ["G1", "ZGC"]
    assert [t.restart_reason.value if t.restart_reason else None for t in plan.trials] == [
        "first",
        "gc",
    ]
    assert plan.trials[1].setup.spec_fields()["gc"] == "ZGC"
    assert "ZGC collector" in plan.trials[1].setup.describe()


def test_jdk_levels_restart_on_the_new_jdk_and_the_section_gives_every_trial_its_jdk() -> None:
    homes = ["/opt/jdk-11", "/opt/jdk-17/"]  # a trailing slash is the same home
    plan = expand(
        experiment(
            cluster={"nodes": 1, "heap": "512M"},
            factors={"cluster.java_home": homes},
            iterations=2,
            order="sequential",
        )
    )
    assert [t.java_home for t in plan.trials] == [
        "/opt/jdk-11",
        "/opt/jdk-11",
        *["/opt/jdk-17"] * 2,
    ]
    assert [t.restart_reason.value if t.restart_reason else None for t in plan.trials] == [
        "first",
        None,
        "java_home",
        None,
    ]
    assert plan.trials[2].setup.spec_fields()["java_home"] == "/opt/jdk-17"
    assert "JDK /opt/jdk-17" in plan.trials[2].setup.describe()
    fixed = expand(experiment(cluster={"nodes": 1, "java_home": "/opt/jdk-17/"}, iterations=1))
    assert {t.java_home for t in fixed.trials} == {"/opt/jdk-17"}
    assert "java_home" not in expand(experiment(iterations=1)).trials[0].setup.spec_fields()


def test_preset_levels_are_canonical_and_make_a_new_cluster() -> None:
    plan = expand(
        experiment(
            cluster={"nodes": 1, "heap": "512M"},
            factors={"cluster.preset": ["default", "Latest"]},
            iterations=1,
            order="sequential",
        )
    )
    assert [t.preset for t in plan.trials] == ["default", "latest"]
    assert [t.restart_reason.value if t.restart_reason else None for t in plan.trials] == [
        "first",
        "preset",
    ]
    assert plan.trials[1].setup.spec_fields()["preset"] == "latest"
    assert "preset latest" in plan.trials[1].setup.describe()
