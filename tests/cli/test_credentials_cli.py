"""Passwords never reach the terminal: ``stress --dry-run``, ``ycsb --dry-run`` and
``casslab plan`` through the real entry point (``python -m casslab``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cli_entry import casslab

SECRET = "S3cretPa55-casslab"
MASK = "*suppressed*"


def _casslab(
    home: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    # wide enough that no table wraps a command: a password split over two lines would
    # hide a leak from the checks below
    return casslab(
        home, *args, env=env, columns=500, timeout_s=300, unset=("CASSLAB_TEST_PW_UNSET",)
    )


def test_stress_dry_run_masks_the_password(tmp_path: Path) -> None:
    done = _casslab(
        tmp_path,
        "stress",
        "--dry-run",
        "write",
        "n=10",
        "-mode",
        "native",
        "cql3",
        "user=alice",
        f"password={SECRET}",
        "-node",
        "127.0.150.1",
    )
    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert f'"password": "{MASK}"' in done.stdout
    assert '"username": "alice"' in done.stdout


def test_ycsb_dry_run_masks_the_password(tmp_path: Path) -> None:
    done = _casslab(
        tmp_path,
        "ycsb",
        "run",
        "--dry-run",
        "-P",
        "workloada",
        "-p",
        "hosts=127.0.150.1",
        "-p",
        "cassandra.username=alice",
        "-p",
        f"cassandra.password={SECRET}",
    )
    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert f'"password": "{MASK}"' in done.stdout


def test_plan_masks_the_password(tmp_path: Path) -> None:
    experiment = tmp_path / "secret.yaml"
    experiment.write_text(
        "name: secret-plan\n"
        "cluster: {nodes: 1, heap: 512M}\n"
        "factors:\n"
        "  workload:\n"
        f'    - "write -mode native cql3 user=alice password={SECRET}"\n'
        f'    - "read -mode user=a password={SECRET}"\n'
        'measure: "duration=5s -rate threads=4"\n'
        "iterations: 1\n",
        encoding="utf-8",
    )
    done = _casslab(tmp_path, "plan", str(experiment))
    assert done.returncode == 0, done.stdout + done.stderr
    output = done.stdout + done.stderr
    assert SECRET[:6] not in output  # not in a command, and not in a cell id either
    assert f"password={MASK}" in output


def test_an_unset_password_env_stops_stress_before_it_starts(tmp_path: Path) -> None:
    done = _casslab(
        tmp_path,
        "stress",
        "write",
        "n=10",
        "-mode",
        "user=alice",
        "password-env=CASSLAB_TEST_PW_UNSET",
        "-node",
        "127.0.150.254",
    )
    assert done.returncode != 0
    message = " ".join(done.stderr.split())
    assert "CASSLAB_TEST_PW_UNSET is not set" in message, done.stderr
    assert "Running" not in done.stdout  # nothing started
