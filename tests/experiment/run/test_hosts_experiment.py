"""Experiments on real hosts (``cluster: {hosts: hosts.yaml}``): the inventory is read
relative to the experiment file, what nodes on hosts do not take is refused before
anything starts, and the runner asks for the ssh backend's cluster with the inventory and
preloads every trial (that backend keeps no captures)."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.cluster import BackendKind, ClusterSpec
from casslab.experiment.run.runner import Runner
from casslab.experiment.run.runner_options import RunnerOptions
from casslab.store.layout import RunLayout
from casslab.store.run_records import TrialStatus
from fakes import Calls, FakeCluster, install_fake_engine
from inventory_files import parse_in, problems_in, write_inventory

FILE = """
name: on-hosts
cluster: {hosts: lab/hosts.yaml, heap: 512M}
factors: {threads: [2, 4]}
preload: "write n=100"
workload: write
measure: "duration=2s"
iterations: 1
order: sequential
"""


def _inventory(folder: Path, hosts: int = 3) -> Path:
    return write_inventory(folder / "lab", hosts=hosts)


def test_the_inventory_is_read_relative_to_the_file(tmp_path: Path) -> None:
    _inventory(tmp_path)
    assert parse_in(FILE, tmp_path).cluster.hosts == "lab/hosts.yaml"
    missing = problems_in(FILE, tmp_path / "elsewhere")
    assert any(
        p.startswith("cluster.hosts: inventory ") and "No such file" in p for p in missing
    ), missing


def test_what_nodes_on_hosts_do_not_take_is_refused(tmp_path: Path) -> None:
    _inventory(tmp_path)
    text = FILE.replace("heap: 512M}", "heap: 512M, nodes: 4, cpus: 1, clock: {2: -5ms}}")
    text = text.replace("{threads: [2, 4]}", "{threads: [2, 4], nodes: [1, 3]}")
    problems = problems_in(text, tmp_path)
    assert (
        "cluster.nodes: 4, but lab/hosts.yaml lists 3 hosts, one node each; list more hosts "
        "there or ask for 3 nodes or fewer" in problems
    )
    assert any(p.startswith("cluster.cpus: not for nodes on the hosts of") for p in problems)
    assert any(p.startswith("cluster.clock: not for nodes on the hosts of") for p in problems)
    assert any(p.startswith("factors.nodes: nodes on the hosts of") for p in problems)


@pytest.mark.parametrize(
    ("nodes", "said"),
    [
        (None, None),  # every host runs a node
        (3, None),
        (2, None),  # the third host is spare for an add-node operation
        (1, "cluster.nodes: 1 of the 3 hosts of lab/hosts.yaml: a cluster on hosts runs 2"),
    ],
)
def test_nodes_on_fewer_hosts_than_listed_keep_the_others_spare(
    tmp_path: Path, nodes: int | None, said: str | None
) -> None:
    _inventory(tmp_path)
    text = FILE if nodes is None else FILE.replace("heap: 512M}", f"heap: 512M, nodes: {nodes}}}")
    if said is None:
        assert parse_in(text, tmp_path).cluster.nodes == (nodes or 1)
    else:
        problems = problems_in(text, tmp_path)
        assert [p for p in problems if p.startswith(said)], problems


def test_the_runner_asks_for_the_ssh_backend_with_the_inventory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inventory = _inventory(tmp_path)
    install_fake_engine(tmp_path, monkeypatch)
    calls = Calls()
    specs: list[ClusterSpec] = []

    def create(spec: ClusterSpec, root: Path | None, *, fresh: bool) -> FakeCluster:
        specs.append(spec)
        return FakeCluster(spec, tmp_path / "clusters", calls)

    layout = RunLayout(root=tmp_path / "run")
    layout.root.mkdir()
    options = RunnerOptions(
        results_root=tmp_path, jvm_warmup_s=0, write_report=False, base_dir=tmp_path
    )
    runner = Runner(
        parse_in(FILE, tmp_path),
        layout,
        options,
        create_cluster=create,
        metrics_sources=lambda _c, _p: [],
    )
    runner.run()
    assert [r.status for r in runner._finished_results()] == [TrialStatus.OK] * 2
    [spec] = specs
    assert spec.backend is BackendKind.SSH
    assert spec.hosts == str(inventory)
    assert spec.heap == "512M"
    assert not [name for name in calls.names() if name in {"capture", "restore"}]
    assert len(list((tmp_path / "run" / "trials").glob("*/*/preload"))) == 2
