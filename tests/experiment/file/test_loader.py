"""Loading experiment files: one error that lists every problem with its path."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest
import yaml

from casslab.errors import ExperimentError, ExperimentValidationError, SetupError
from casslab.experiment.file import experiment_loader, file_checks
from casslab.experiment.file.experiment_model import Experiment

GOOD = """
name: demo
cluster: {nodes: 1, heap: 1G, config: {auto_snapshot: false}}
factors:
  table.compaction: [STCS, LCS, UCS]
  config.memtable_flush_writers: [6, 8, 10]
preload: "write n=1000 -rate threads=4"
warmup: 5s
workload: "mixed ratio(write=9,read=1)"
measure: "duration=30s cl=ONE -pop dist=UNIFORM(1..1000) -rate threads=4"
iterations: 2
order: {kind: randomized, seed: 3}
reset: recreate
kpis: [op_rate, latency_p99_ms, read.latency_p99_ms]
"""


def problems_of(text: str) -> list[str]:
    with pytest.raises(ExperimentValidationError) as caught:
        experiment_loader.parse(textwrap.dedent(text), "bad.yaml")
    return caught.value.problems


def test_good_file_loads() -> None:
    experiment = experiment_loader.parse(GOOD)
    assert isinstance(experiment, Experiment)
    assert list(experiment.factors) == ["table.compaction", "config.memtable_flush_writers"]
    assert experiment.warmup_s == 5.0
    assert experiment.order.seed == 3


def test_load_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "demo.yaml"
    path.write_text(GOOD, encoding="utf-8")
    assert experiment_loader.load(path).name == "demo"


def test_load_names_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ExperimentError, match=r"experiment file .*nope\.yaml: No such file"):
        experiment_loader.load(tmp_path / "nope.yaml")


BAD = """
name: demo
cluster: {nodes: 0, heap: lots}
table: {gc_grace_secs: 3}
factors:
  table.compaction: [STCS, LCS, DateTieredCompactionStrategy]
  config.memtable_flush_writers: [6, 8, ten]
  config.memtable_cleanup_threshold+memtable_offheap_space: [[0.11, 64MiB], [0.2]]
  threads: [0, 4]
  rate: [-5]
  colour: [red]
baseline: {table.compaction: FooStrategy, bogus: 1}
workload: "mixed ratio(write=9,read=1)"
warmup: soon
iterations: 0
order: random
reset: reboot
kpis: [op_rate, latency_p99_ms, cpu_busy_pct, op_rat, op_rate]
itertions: 3
"""

BAD_EXPECTED = [
    "cluster.nodes: must be >= 1, got 0",
    "cluster.heap: expected a heap size like 512M or 1G, got 'lots'",
    "table.gc_grace_secs: unknown field 'gc_grace_secs' (did you mean 'gc_grace_seconds'?)",
    "factors.table.compaction[2]: DateTieredCompactionStrategy was removed in Cassandra 4.0",
    "factors.config.memtable_flush_writers[2]: expected an integer, got 'ten'",
    "factors.config.memtable_cleanup_threshold+memtable_offheap_space[1]: expected a list of 2",
    "factors.threads[0]: expected an integer >= 1 or best (the thread ramp's), got 0",
    "factors.rate[0]: expected a rate in operations per second (> 0) or a share such as 66%",
    "factors.colour: unknown factor kind 'colour'",
    "baseline.table.compaction: 'FooStrategy' is not one of the levels",
    "baseline.bogus: not a factor of this experiment",
    "warmup: expected a duration like 10s, 5m or 1h, got 'soon'",
    "iterations: must be >= 1, got 0",
    "order: expected 'randomized' or 'sequential', got 'random'",
    "reset: expected 'truncate', 'recreate', 'restart' or 'none', got 'reboot'",
    "kpis[3]: unknown KPI 'op_rat' (did you mean 'op_rate'?)",
    "kpis[4]: 'op_rate' is listed twice",
    "itertions: unknown field 'itertions' (did you mean 'iterations'?)",
]


def test_bad_file_lists_every_problem_with_its_path() -> None:
    with pytest.raises(ExperimentValidationError) as caught:
        experiment_loader.parse(BAD, "bad.yaml")
    problems = caught.value.problems
    for expected in BAD_EXPECTED:
        assert any(p.startswith(expected) for p in problems), (expected, problems)
    assert len(problems) == len(BAD_EXPECTED), problems
    message = str(caught.value)
    assert message.startswith(f"experiment bad.yaml: {len(BAD_EXPECTED)} problems")
    assert all(p in message for p in problems)


def test_problems_follow_the_order_of_the_file() -> None:
    problems = problems_of(BAD)
    sections = [p.split(".")[0].split(":")[0].split("[")[0] for p in problems]
    order = ["cluster", "table", "factors", "baseline", "warmup", "iterations", "order"]
    order += ["reset", "kpis", "itertions"]
    assert sections == sorted(sections, key=order.index)


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        ("name: 'bad name!'", "name: use letters, digits"),
        ("schema: {replication: {class: SimpleStrategy}}", "schema.replication: SimpleStrategy"),
        ("schema: {keyspace: 1ks}", "schema.keyspace: use letters"),
        ("measure: 5", "measure: expected a string or a mapping, got 5"),
        ("design: fractional", "design: expected 'factorial' or 'ofat'"),
        ("iterations: 2.5", "iterations: expected an integer, got 2.5"),
        ("extra_cells: [{config.memtable_flush_writers: 7}]", "extra_cells[0].config"),
        ("table: {compaction: {class: LCS, min_sstable_size: 3}}", "table.compaction: unknown"),
        ("cluster: {version: five}", "cluster.version: expected a Cassandra version"),
        ("cluster: {version: 5.0}", "cluster.version: expected a Cassandra version like 5.0.9"),
        ("order: {kind: randomized, seed: x}", "order.seed: expected an integer, got 'x'"),
        ("kpis: [read.cpu_busy_pct]", "kpis[0]: KPI 'cpu_busy_pct' is not reported per"),
        ("table: {compaction: 5}", "table.compaction: expected a strategy name or a mapping"),
        ("measure: {stress: 1}", "measure.stress: expected a string, got 1"),
        ("factors: {threads: 4}", "factors.threads: expected a list, got 4"),
        ("factors: {threads: []}", "factors.threads: expected at least one level"),
        ("cluster: {nodes: true}", "cluster.nodes: expected an integer, got True"),
        ("schema_version: 2", "schema_version: expected 1, got 2"),
        ("baseline: [1]", "baseline: expected a mapping, got [1]"),
        # the cluster backend's limits, met here rather than at the first trial
        ("cluster: {nodes: 10}", "cluster.nodes: must be <= 9, got 10"),
        ("cluster: {heap: 64M}", "cluster.heap: heap '64M': Cassandra needs at least 256M"),
        ("factors: {nodes: [1, 10]}", "factors.nodes[1]: must be <= 9, got 10"),
        # the nodes' isolation and limits, by the isolated backend's rules, in file words
        (
            "cluster: {node_size: t2.huge}",
            "cluster.node_size: node size 't2.huge' is not known; the sizes are: t2.nano "
            "(1 vCPU, 0.5 GiB), t2.micro (1 vCPU, 1 GiB), t2.small (1 vCPU, 2 GiB), t2.medium",
        ),
        ("cluster: {isolation: docker}", "cluster.isolation: expected 'process' or 'netns'"),
        ("cluster: {memory: 2XB}", "cluster.memory: memory '2XB': expected a size like 2GiB"),
        ("cluster: {cpus: 0}", "cluster.cpus: must be > 0"),
        ("cluster: {cpu_scale: 100}", "cluster.cpu_scale: must be <= 64"),
        ("cluster: {cpuset: a-b}", "cluster.cpuset: cpuset 'a-b': expected CPU numbers"),
        ("cluster: {io_write: fast}", "cluster.io_write: io_write 'fast': expected a size"),
        (
            "cluster: {heap: 1G, node_size: t2.micro}",
            "cluster.heap: heap 1G does not fit in the memory limit of 1024 MiB per node "
            "(t2.micro); choose a smaller heap or more memory",
        ),
        (
            "factors: {cluster.isolation: [process, lxc]}",
            "factors.cluster.isolation[1]: expected 'process' or 'netns', got 'lxc'",
        ),
        (
            "factors: {cluster.node_size: [t2.small, t3.small]}",
            "factors.cluster.node_size[1]: node size 't3.small' is not known; the sizes are: ",
        ),
        (  # the section's heap 1G in each level's memory
            "factors: {cluster.node_size: [t2.micro, t2.small]}",
            "factors.cluster.node_size[0]: heap 1G does not fit in the memory limit of 1024 MiB",
        ),
        ("factors: {cluster.cpus: [1, 0]}", "factors.cluster.cpus[1]: must be > 0"),
        ("factors: {cluster.memory: [2GiB, lots]}", "factors.cluster.memory[1]: memory 'lots'"),
        ("factors: {cluster.nodes: [1, 2]}", "factors.cluster.nodes: unknown cluster factor"),
    ],
)
def test_single_problems(fragment: str, expected: str) -> None:
    data = yaml.safe_load(GOOD)
    data.update(yaml.safe_load(fragment))
    problems = problems_of(yaml.safe_dump(data, sort_keys=False))
    assert len(problems) == 1, problems
    assert problems[0].startswith(expected), problems
    assert "Value error" not in problems[0]
    assert "Input should" not in problems[0]


def test_isolated_nodes_load() -> None:
    data = yaml.safe_load(GOOD)
    data["cluster"] = {
        "nodes": 2,
        "heap": "512M",
        "isolation": "netns",
        "node_size": "t2.small",
        "cpu_scale": 0.5,
        "cpuset": "0-1",
        "io_read": "50MiB",
        "io_write": "20MiB",
        "config": {"auto_snapshot": False},
    }
    data["factors"] = {
        "cluster.isolation": ["process", "netns"],
        "cluster.node_size": ["t2.micro", "t2.small", "t2.medium"],
        "cluster.cpus": [0.5, 1],
        "cluster.memory": ["1GiB", "2GiB"],
    }
    experiment = experiment_loader.parse(yaml.safe_dump(data, sort_keys=False))
    assert experiment.cluster.node_isolation.io_write == "20MiB"
    assert list(experiment.factors) == list(data["factors"])


def test_a_heap_is_checked_against_the_memory_each_level_gives() -> None:
    """The section's node size (1 GiB) does not limit a node whose memory a level gives:
    only the level that leaves the 1G heap no room is a problem."""
    data = yaml.safe_load(GOOD)
    data["cluster"] = {"heap": "1G", "node_size": "t2.micro"}
    data["factors"] = {"cluster.memory": ["512MiB", "4GiB"]}
    assert problems_of(yaml.safe_dump(data, sort_keys=False)) == [
        "factors.cluster.memory[0]: heap 1G does not fit in the memory limit of 512 MiB per "
        "node; choose a smaller heap or more memory"
    ]


def test_workload_required_or_factor_not_both() -> None:
    missing = GOOD.replace('workload: "mixed ratio(write=9,read=1)"\n', "")
    assert any(p.startswith("workload: required") for p in problems_of(missing))
    both = GOOD.replace("factors:\n", 'factors:\n  workload: ["write", "read"]\n')
    assert any(p.startswith("workload: also given as a factor") for p in problems_of(both))


def test_factor_sharing_a_config_key_with_another() -> None:
    text = GOOD.replace(
        "factors:\n",
        "factors:\n  config.memtable_flush_writers+memtable_cleanup_threshold: [[6, 0.14]]\n",
    )
    problems = problems_of(text)
    assert any("memtable_flush_writers is already varied by" in p for p in problems), problems


def test_duplicate_level() -> None:
    text = GOOD.replace("[STCS, LCS, UCS]", "[STCS, LCS, LeveledCompactionStrategy]")
    assert problems_of(text) == [
        "factors.table.compaction[2]: 'LeveledCompactionStrategy' repeats level [1]; "
        "list each level once"
    ]


def test_bad_stress_command_is_reported_at_its_level() -> None:
    pytest.importorskip("casslab.load.stress")
    text = GOOD.replace(
        'workload: "mixed ratio(write=9,read=1)"\n',
        "",
    ).replace("factors:\n", 'factors:\n  workload: ["mixed ratio(write=9,read=1)", "mixd"]\n')
    problems = problems_of(text)
    assert len(problems) == 1, problems
    assert problems[0].startswith("factors.workload[1]: ")
    assert "mixd" in problems[0]


def test_bad_preload_is_reported() -> None:
    pytest.importorskip("casslab.load.stress")
    problems = problems_of(GOOD.replace("write n=1000 -rate", "write n=lots -rate"))
    assert len(problems) == 1, problems
    assert problems[0].startswith("preload: "), problems


def test_mixed_tools_need_a_measure_per_tool() -> None:
    text = GOOD.replace('workload: "mixed ratio(write=9,read=1)"\n', "").replace(
        "factors:\n",
        'factors:\n  workload: ["mixed ratio(write=9,read=1)", "ycsb run -P workloada"]\n',
    )
    assert any(p.startswith("measure: the workloads mix") for p in problems_of(text))
    per_tool = text.replace(
        'measure: "duration=30s cl=ONE -pop dist=UNIFORM(1..1000) -rate threads=4"',
        'measure: {stress: "duration=30s cl=ONE", ycsb: "-p operationcount=1000"}',
    )
    experiment = experiment_loader.parse(per_tool)
    assert experiment.measure != ""


@pytest.mark.parametrize(("text", "kind"), [("", "empty"), ("- a\n- b\n", "a list")])
def test_document_must_be_a_mapping(text: str, kind: str) -> None:
    problems = problems_of(text)
    assert len(problems) == 1
    assert problems[0].endswith(f"got {kind}")


def test_unknown_cassandra_setting_in_cluster_config() -> None:
    pytest.importorskip("casslab.cluster.config")
    text = GOOD.replace("{auto_snapshot: false}", "{memtable_flush_writer: 2}")
    problems = problems_of(text)
    assert len(problems) == 1, problems
    assert problems[0].startswith("cluster.config.memtable_flush_writer: unknown")


PROFILE = """
keyspace: ks
keyspace_definition: |
  CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
table: t
table_definition: |
  CREATE TABLE t (k text PRIMARY KEY, v blob)
queries:
  get:
    cql: select * from t where k = ?
    fields: samerow
"""


def test_user_profile_is_found_next_to_the_experiment(tmp_path: Path) -> None:
    pytest.importorskip("casslab.load.stress.profile")
    text = GOOD.replace(
        'workload: "mixed ratio(write=9,read=1)"',
        'workload: "user profile=profiles/p.yaml ops(insert=1,get=1)"',
    )
    path = tmp_path / "e.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ExperimentValidationError) as caught:
        experiment_loader.load(path)
    assert len(caught.value.problems) == 1
    assert caught.value.problems[0].startswith("workload: profile 'profiles/p.yaml': no such")
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "p.yaml").write_text(PROFILE, encoding="utf-8")
    assert (
        experiment_loader.load(path).workload == "user profile=profiles/p.yaml ops(insert=1,get=1)"
    )


def test_ycsb_property_file_is_found_next_to_the_experiment(tmp_path: Path) -> None:
    pytest.importorskip("casslab.load.ycsb")
    text = GOOD.replace('workload: "mixed ratio(write=9,read=1)"', 'workload: "ycsb run -P mine"')
    text = text.replace(
        'measure: "duration=30s cl=ONE -pop dist=UNIFORM(1..1000) -rate threads=4"',
        'measure: "-p operationcount=1000"',
    ).replace('preload: "write n=1000 -rate threads=4"', 'preload: "ycsb load -P workloada"')
    path = tmp_path / "e.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ExperimentValidationError) as caught:
        experiment_loader.load(path)
    assert [p.split(":")[0] for p in caught.value.problems] == ["workload"]
    (tmp_path / "mine").write_text("recordcount=100\nreadproportion=1\n", encoding="utf-8")
    assert experiment_loader.load(path).workload == "ycsb run -P mine"


def test_settings_problems_get_their_paths() -> None:
    """Checked against the catalogue of the real Cassandra jar of the experiment's version."""
    text = """
    name: demo
    cluster: {version: 5.0.9, config: {memtable_flush_writer: 2}}
    factors:
      config.memtable_flush_writers: [6, 8, ten]
      config.memtable_flush_writerz: [1, 2]
      config.memtable_cleanup_threshold+memtable_flush_writers: [[0.1, 2], [0.2, x]]
    workload: write
    """
    hint = "(did you mean memtable_flush_writers?)"
    assert problems_of(text) == [
        "cluster.config.memtable_flush_writer: unknown cassandra.yaml setting in Cassandra "
        f"5.0.9 {hint}",
        "factors.config.memtable_flush_writers[2]: expected an integer, got 'ten'",
        # the same problem at every level is reported once, for the factor
        "factors.config.memtable_flush_writerz: unknown cassandra.yaml setting in Cassandra "
        f"5.0.9 {hint}",
        "factors.config.memtable_cleanup_threshold+memtable_flush_writers: "
        "memtable_flush_writers is already varied by factors.config.memtable_flush_writers",
        "factors.config.memtable_cleanup_threshold+memtable_flush_writers[1]: "
        "memtable_flush_writers: expected an integer, got 'x'",
    ]


def test_settings_that_cannot_be_checked_say_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """No weaker check behind the user's back: a catalogue that cannot be had is a problem."""

    def no_distribution(settings: Mapping[str, object], version: str) -> list[str]:
        raise SetupError(f"Cassandra {version} is not cached and Maven Central is unreachable")

    monkeypatch.setattr(file_checks, "validate_settings", no_distribution)
    text = GOOD.replace("[6, 8, 10]", "[6, 8, ten]")
    problems = problems_of(text)
    assert problems
    assert all("cannot be checked: Cassandra" in p for p in problems), problems
    assert "Maven Central is unreachable" in problems[0]
