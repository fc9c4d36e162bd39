"""``casslab capacity size`` on real run directories: the JSON answer, the table, and bad
input refused before the runs are read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from casslab.cli import capacity_size
from casslab.errors import ConfigError
from casslab.store.io import write_record
from casslab.store.layout import RunLayout
from run_literals import manifest, trial


def _write_run(root: Path, size: str, nodes: int, rates: list[float], p99_ms: float) -> Path:
    layout = RunLayout(root=root)
    cluster = {"node_size": size, "nodes": nodes}
    experiment = {"name": "ycsb-a", "cluster": cluster}
    write_record(layout.manifest, manifest(experiment_name="ycsb-a", experiment=experiment))
    for iteration, rate in enumerate(rates, start=1):
        kpis = {"op_rate": rate, "latency_p99_ms": p99_ms}
        result = trial("all", iteration, iteration, factors={}, kpis=kpis)
        write_record(layout.trial_summary(result.cell_id, result.iteration), result)
    return root


@pytest.fixture
def runs(tmp_path: Path) -> list[str]:
    """t2.micro: 2800 ops/s at 3 nodes, 7900 at 6 (s = 200, p99 8 ms); t2.small: 6000 at 3
    nodes, one iteration, p99 30 ms (over a 10 ms SLO)."""
    return [
        str(_write_run(tmp_path / "a", "t2.micro", 3, [2600, 2800, 3000], 8.0)),
        str(_write_run(tmp_path / "b", "t2.micro", 6, [7700, 7900, 8100], 8.0)),
        str(_write_run(tmp_path / "c", "t2.small", 3, [6000], 30.0)),
    ]


def _invoke(*args: str) -> Any:
    app = typer.Typer()
    capacity_size.register(app)

    @app.command("other")
    def other() -> None:  # a second command keeps "size" a subcommand
        """Nothing."""

    return CliRunner().invoke(app, ["size", *args], env={"COLUMNS": "200"})


def test_json_is_the_answer_record(runs: list[str]) -> None:
    """Target 7800 (see test_size.py): t2.micro 7, 6, 6; t2.small left out by the SLO."""
    result = _invoke(*runs, "--workload", "ycsb-a", "--ops", "7800", "--p99", "10ms", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["schema_version"] == 1
    assert (answer["target_ops_per_s"], answer["latency_p99_slo_ms"], answer["rf"]) == (
        7800,
        10.0,
        3,
    )
    micro, small = answer["options"]
    counts = (micro["nodes_confident"], micro["nodes_expected"], micro["nodes_optimistic"])
    assert counts == (7, 6, 6)
    assert micro["extrapolated"] is True
    assert [p["throughput"]["nodes"] for p in micro["points"]] == [3, 6]
    assert small["vm_type"] == "t2.small"
    assert small["nodes_expected"] is None
    assert small["reasons"][0] == "left out over the p99 SLO of 10 ms: 3 nodes: p99 30.0 ms"


def test_the_table_has_a_row_per_size(runs: list[str]) -> None:
    """Without an SLO t2.small counts: 2000 ops/s a node, one iteration, so no band."""
    result = _invoke(*runs, "--workload", "ycsb-a", "--ops", "7800", "--rf", "3")
    assert result.exit_code == 0, result.output
    assert "ycsb-a: 7,800 ops/s, rf 3" in result.stdout
    rows = {
        line.split("│")[1].strip(): line for line in result.stdout.splitlines() if "│ t2." in line
    }
    assert [cell.strip() for cell in rows["t2.micro"].split("│")[2:5]] == ["7*", "6", "6"]
    assert [cell.strip() for cell in rows["t2.small"].split("│")[2:5]] == ["-", "4*", "-"]


def test_no_size_meeting_the_target_exits_1(runs: list[str]) -> None:
    result = _invoke(*runs, "--workload", "ycsb-a", "--ops", "7800", "--p99", "1ms", "--json")
    assert result.exit_code == 1
    assert all(o["nodes_expected"] is None for o in json.loads(result.stdout)["options"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ops", "0"], "--ops 0: the target must be > 0 ops/s, e.g. --ops 50000"),
        (["--ops", "100", "--rf", "0"], "--rf 0: the replication factor must be at least 1"),
        (["--ops", "100", "--p99", "10"], "--p99 10: give the unit, e.g. --p99 10ms (or 10s)"),
    ],
)
def test_bad_input_is_refused_before_the_runs_are_read(
    tmp_path: Path, args: list[str], message: str
) -> None:
    result = _invoke(str(tmp_path / "no-such-run"), "--workload", "ycsb-a", *args)
    assert isinstance(result.exception, ConfigError), result.output
    assert message in str(result.exception)


def test_a_workload_not_in_the_runs_is_named_with_those_that_are(runs: list[str]) -> None:
    result = _invoke(*runs, "--workload", "ycsb-b", "--ops", "100")
    assert isinstance(result.exception, ConfigError), result.output
    assert str(result.exception) == (
        "--workload 'ycsb-b': not in the runs given; give one of theirs: ycsb-a"
    )
