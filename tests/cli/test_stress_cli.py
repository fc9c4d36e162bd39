"""`casslab stress` / `casslab ycsb` without a cluster: pass-through of raw tokens, dry runs,
errors that start nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from casslab.cli.main import app
from casslab.engine_contract.workload_spec import WorkloadSpec
from casslab.errors import WorkloadSyntaxError

runner = CliRunner()


def dry(*args: str) -> WorkloadSpec:
    result = runner.invoke(app, [*args, "--dry-run"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return WorkloadSpec.model_validate_json(result.stdout)


def test_stress_tokens_pass_through_untouched() -> None:
    spec = dry(
        "stress",
        "mixed",
        r"ratio\(write=9,read=1\)",
        "duration=20m",
        "cl=ONE",
        "-pop",
        r"dist=UNIFORM\(1..1000000\)",
        "\u2013rate",
        "threads=609",
        "-log",
        "file=x.log",
        "-node",
        "127.0.20.1",
    )
    assert [(op.name, op.weight) for op in spec.operations] == [("write", 9.0), ("read", 1.0)]
    assert spec.connection.contact_points == ["127.0.20.1:9042"]
    assert spec.stop.duration_s == 1200.0
    assert spec.rate.model_dump() == {"mode": "closed", "threads": 609}


def test_stress_options_after_tokens_and_seed() -> None:
    result = runner.invoke(
        app, ["stress", "write", "n=10", "-rate", "threads=2", "--seed", "9", "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    spec = json.loads(result.stdout)
    assert (spec["seed"], spec["data_seed"], spec["stop"]["ops"]) == (9, 0, 10)


@pytest.mark.parametrize(
    "command",
    [
        ["stress", "read", "n=10"],
        ["ycsb", "load", "-P", "workloada"],
        ["ycsb", "run", "-P", "workloada"],
    ],
)
def test_data_seed_reaches_the_spec_apart_from_the_seed(command: list[str]) -> None:
    spec = dry(*command, "--seed", "4", "--data-seed", "11")
    assert (spec.seed, spec.data_seed) == (4, 11)


@pytest.mark.parametrize(("option", "value"), [("--seed", "-1"), ("--data-seed", str(2**63))])
def test_a_seed_out_of_range_is_a_usage_error(option: str, value: str) -> None:
    result = runner.invoke(app, ["stress", "read", "n=10", option, value, "--dry-run"])
    assert result.exit_code == 2
    assert option in result.output


def test_stress_without_node_uses_a_default_contact_point() -> None:
    # no current cluster in the isolated CASSLAB_HOME: the documented fallback
    assert dry("stress", "write", "n=5").connection.contact_points == ["127.0.0.1:9042"]


def test_stress_user_profile_relative_to_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "p.yaml").write_text(
        "keyspace: ks\ntable: t\ntable_definition: CREATE TABLE t (k text PRIMARY KEY, v text)\n"
    )
    monkeypatch.chdir(tmp_path)
    spec = dry("stress", "user", "profile=p.yaml", "ops(insert=1)", "n=10", "-node", "h")
    assert spec.keyspace == "ks"
    assert spec.operations[0].name == "insert"


def test_ycsb_pass_through() -> None:
    spec = dry(
        "ycsb",
        "run",
        "-P",
        "workloada",
        "-p",
        "recordcount=100",
        "-threads",
        "4",
        "-target",
        "50",
        "-s",
        "-p",
        "hosts=127.0.20.1",
    )
    assert [op.name for op in spec.operations] == ["READ"] + ["UPDATE"] * 10  # one per field
    assert sum(op.weight for op in spec.operations if op.name == "UPDATE") == pytest.approx(0.5)
    assert spec.rate.model_dump() == {"mode": "open", "rate_per_s": 50.0, "max_in_flight": 4}
    assert spec.connection.contact_points == ["127.0.20.1:9042"]
    load = dry("ycsb", "load", "-P", "workloadc", "-p", "recordcount=100")
    assert [op.name for op in load.operations] == ["INSERT"]
    assert load.stop.ops == 100


def test_syntax_error_reaches_the_caller() -> None:
    result = runner.invoke(app, ["stress", "write", "n=abc"])
    assert isinstance(result.exception, WorkloadSyntaxError)
    assert "'abc' is not a number" in str(result.exception)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["stress", "write", "n=abc", "-node", "127.0.20.1"],
            "write 'n=abc': 'abc' is not a number",
        ),
        (["stress", "mixed", "ratio(write=9,read=1", "-node", "127.0.20.1"], "never closes"),
        (["ycsb", "run", "-P", "workloadz"], "no such file; give a property file path"),
    ],
)
def test_cli_prints_error_and_exits_1(tmp_path: Path, args: list[str], message: str) -> None:
    env = {**os.environ, "CASSLAB_HOME": str(tmp_path), "COLUMNS": "250"}
    done = subprocess.run(
        [sys.executable, "-m", "casslab", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 1
    assert "Error:" in done.stderr
    assert message in " ".join(done.stderr.split())
    assert done.stdout == ""
