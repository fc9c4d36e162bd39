"""``casslab capacity model``: the throughput table from run directories, with the
mean and 95% CI worked out by hand, ready for a problem file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner

from casslab.analysis.analysis_records import TrialKpis
from casslab.capacity.plan import plan
from casslab.capacity.plan_check import plan_violations
from casslab.capacity.problem_load import parse_problem
from casslab.capacity.throughput_fit import RunTrials, fit_throughput, throughput_yaml
from casslab.capacity.throughput_runs import read_runs
from casslab.cli import capacity_plan
from casslab.errors import AnalysisError
from casslab.store.io import write_record
from casslab.store.layout import RunLayout
from run_literals import manifest, trial


def _trial(cell: str, iteration: int, op_rate: float, **factors: str) -> TrialKpis:
    return TrialKpis(
        trial_id=f"{cell}/{iteration}",
        cell_id=cell,
        iteration=iteration,
        factors=factors,
        kpis={"op_rate": op_rate},
    )


def test_the_highest_group_over_other_factors_gives_the_point() -> None:
    """3 iterations of 2700, 2800, 2900: mean 2800, s = 100, 95% CI 2800 -/+ t(0.975, 2)
    x 100 / sqrt(3) = 2800 -/+ 248.4; the 16-thread group (mean 1000) is lower."""
    size = {"cluster.node_size": "t2.micro", "nodes": "3", "workload": "ycsb-a"}
    trials = [_trial("t64", i, v, threads="64", **size) for i, v in enumerate((2700, 2800, 2900))]
    trials += [_trial("t16", i, 1000.0, threads="16", **size) for i in range(2)]
    (point,) = fit_throughput([RunTrials("run1", trials)])
    assert (point.workload, point.vm_type, point.nodes) == ("ycsb-a", "t2.micro", 3)
    assert point.ops_mean == pytest.approx(2800)
    assert point.ci_low == pytest.approx(2800 - 4.302653 * 100 / 3**0.5)
    assert point.ci_high == pytest.approx(2800 + 4.302653 * 100 / 3**0.5)
    assert (point.n, point.groups, point.group) == (3, 2, "threads=64")


def test_levels_a_run_fixes_stand_in_for_factors_and_runs_pool() -> None:
    """Two runs of one experiment at t2.small x 6 nodes (fixed in its cluster section, its
    name the workload): their iterations form one group; one iteration alone has no CI."""
    fixed = {"workload": "ycsb-b", "cluster.node_size": "t2.small", "nodes": "6"}
    one = RunTrials("r1", [_trial("all", 1, 8000.0)], fixed)
    two = RunTrials("r2", [_trial("all", 1, 9000.0)], fixed)
    (pooled,) = fit_throughput([one, two])
    assert (pooled.n, pooled.ops_mean, pooled.sources) == (2, 8500, ("r1", "r2"))
    (single,) = fit_throughput([one])
    assert single.ci_low is None
    assert single.ci_undetermined == "n=1: a confidence interval needs at least 2 iterations"
    assert "no CI (n=1: a confidence interval needs at least 2 iterations)" in throughput_yaml(
        [single]
    )


def test_a_run_without_node_size_is_refused() -> None:
    run = RunTrials("results/x/1", [_trial("c", 1, 10.0, nodes="3")], {"workload": "x"})
    with pytest.raises(AnalysisError, match=r"no cluster.node_size level; model runs of"):
        fit_throughput([run])


def _write_run(root: Path, name: str, cluster: dict[str, object], rates: list[float]) -> Path:
    layout = RunLayout(root=root)
    write_record(
        layout.manifest,
        manifest(experiment_name=name, experiment={"name": name, "cluster": cluster}),
    )
    for iteration, rate in enumerate(rates, start=1):
        result = trial("all", iteration, iteration, factors={}, kpis={"op_rate": rate})
        write_record(layout.trial_summary(result.cell_id, result.iteration), result)
    return root


def test_model_from_run_directories_feeds_the_planner(tmp_path: Path) -> None:
    micro3 = _write_run(
        tmp_path / "a", "ycsb-a", {"node_size": "t2.micro", "nodes": 3}, [2700, 2900]
    )
    micro6 = _write_run(
        tmp_path / "b", "ycsb-a", {"node_size": "t2.micro", "nodes": 6}, [7800, 8000]
    )
    points = fit_throughput(read_runs([micro3, micro6]))
    block = throughput_yaml(points)
    assert yaml.safe_load(block) == {"throughput": {"ycsb-a": {"t2.micro": {3: 2800, 6: 7900}}}}
    problem = parse_problem(
        "machines: {count: 3, cpus: 8, memory_gib: 16, pmax_w: 300, k: 0.6}\n"
        "vm_types: {t2.micro: {cpus: 1, memory_gib: 1, heap_gib: 0.5}}\n"
        "tenants: {A: {workload: ycsb-a, min_ops: 7900, rf: 3, data_gib: 0.1}}\n" + block
    )
    answer = plan(problem)
    assert plan_violations(problem, answer) == []
    assert answer.tenants["A"].vnodes == 6
    app = typer.Typer()
    capacity_plan.register(app)
    result = CliRunner().invoke(app, ["model", str(micro3), str(micro6), "--json"])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.stdout)
    assert [(p["vm_type"], p["nodes"], p["ops_mean"]) for p in listed] == [
        ("t2.micro", 3, 2800),
        ("t2.micro", 6, 7900),
    ]
    text = CliRunner().invoke(app, ["model", str(micro3), str(micro6)]).stdout
    assert text == block
