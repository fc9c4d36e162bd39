"""``casslab capacity plan``: ``--json`` and bad input through the real entry point; the
table and an infeasible problem in process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from casslab.capacity.answer import PlanAnswer
from casslab.capacity.plan_check import plan_violations
from casslab.capacity.problem_load import load_problem
from casslab.cli import capacity_plan
from casslab.errors import ConfigError
from cli_entry import casslab, flat

CASE_1 = Path(__file__).resolve().parents[2] / "experiments" / "capacity" / "seed003-case1.yaml"


def _invoke(*args: str) -> tuple[int, str]:
    app = typer.Typer()
    capacity_plan.register(app)
    app.command("other")(lambda: None)  # two commands: "plan" stays a subcommand
    result = CliRunner().invoke(app, ["plan", *args], terminal_width=200)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout


def test_json_is_the_answer_record() -> None:
    done = casslab(None, "capacity", "plan", str(CASE_1), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["status"] == "optimal"
    assert round(data["power_w"], 1) == 1199.5
    assert set(data["tenants"]) == {"A", "B", "C"}
    assert data["tenants"]["C"]["vm_type"] == "t2.small"
    assert data["tenants"]["C"]["vnodes"] == sum(data["tenants"]["C"]["placement"].values())
    assert set(data["machines"]) == {"m1", "m2", "m3"}  # only the machines in use
    assert set(data["machines"]["m1"]) == {"cpus_used", "memory_gib_used", "power_w"}
    answer = PlanAnswer.model_validate_json(done.stdout)
    assert plan_violations(load_problem(CASE_1), answer) == []


def test_the_table_shows_tenants_machines_and_power() -> None:
    code, out = _invoke(str(CASE_1))
    assert code == 0
    text = flat(out)
    assert "t2.small" in text
    assert "8 / 8" in text  # m1's CPUs
    assert "power: 1199.5 W (optimal, solved in" in text
    assert "3 machine(s) on, 5 off" in text


def test_an_infeasible_problem_says_why_and_exits_1(tmp_path: Path) -> None:
    problem = tmp_path / "p.yaml"
    problem.write_text(
        CASE_1.read_text(encoding="utf-8").replace("data_gib: 0.1}", "data_gib: 30}", 1),
        encoding="utf-8",
    )
    code, text = _invoke(str(problem), "--json")
    assert code == 1
    data = json.loads(text)
    assert plan_violations(load_problem(problem), PlanAnswer.model_validate(data)) == []
    assert data["status"] == "infeasible"
    assert data["tenants"] == {}
    assert data["power_w"] is None
    (reason,) = data["reasons"]
    assert reason.startswith("tenant A (ycsb-a, 8000 ops/s, rf 3, 30 GiB) fits no VM type")
    assert "t2.micro: its data needs 180 nodes (rf 3 x 30 GiB / 0.5 GiB heap)" in reason
    code, text = _invoke(str(problem))
    assert code == 1
    assert flat(text).startswith("infeasible tenant A (ycsb-a")


def test_bad_input_is_an_error_before_solving(tmp_path: Path) -> None:
    problem = tmp_path / "p.yaml"
    problem.write_text(
        CASE_1.read_text(encoding="utf-8").replace("k: 0.82124", "k: 1.2"), encoding="utf-8"
    )
    done = casslab(None, "capacity", "plan", str(problem))
    assert done.returncode == 1
    assert flat(done.stderr) == (
        f"Error: capacity problem {problem}: 1 problem; fix each and run again: "
        "machines.k: must be <= 1.0, got 1.2"
    )
    with pytest.raises(ConfigError, match="--time-limit: must be > 0 seconds, got 0"):
        _invoke(str(CASE_1), "--time-limit", "0")
