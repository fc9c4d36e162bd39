"""A loading phase of several clients whose engines fail: the phase fails naming each
client with its reason, and what was written (the merged records) is kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from casslab.engine_contract.workload_spec import Connection
from casslab.errors import ExperimentError
from casslab.experiment.run.load_clients import run_merged
from casslab.load.session import LoadClients, LoadSession
from casslab.load.stress import parse_stress
from cli_entry import NEEDS_ENGINE, casslab, flat

pytestmark = NEEDS_ENGINE


def test_failed_clients_fail_the_phase_by_name_and_keep_what_was_written(
    tmp_path: Path,
) -> None:
    """Two real engines against a port nobody listens on: both fail, each is named with
    its reason, and the merged records file is still written (empty of measurements)."""
    command = parse_stress("write n=10 -rate threads=2")
    connection = Connection(contact_points=["127.0.242.200:1"], request_timeout_s=1)
    spec = command.to_spec(connection, seed=1, data_seed=0).model_copy(update={"schema_cql": []})
    records = tmp_path / "engine.jsonl"
    with pytest.raises(ExperimentError) as caught:
        run_merged(
            spec,
            LoadClients(2),
            tmp_path / "clients",
            session=LoadSession(),
            records=records,
            hdr_log=None,
            timeout_s=60,
        )
    message = str(caught.value)
    assert "2 of 2 load clients on this machine failed" in message
    assert "client-0: " in message
    assert "client-1: " in message
    assert records.exists()
    merged = json.loads((tmp_path / "clients" / "merged.json").read_text())
    assert [f["client"] for f in merged["failed"]] == ["client-0", "client-1"]


def test_plan_names_the_clients_and_refuses_a_workload_they_cannot_share(
    tmp_path: Path,
) -> None:
    text = """
name: with-clients
factors: {threads: [2, 4]}
preload: "write n=100"
workload: write
measure: "duration=2s"
iterations: 1
clients: 2
"""
    path = tmp_path / "e.yaml"
    path.write_text(text)
    shown = casslab(tmp_path / "home", "plan", str(path), columns=200)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "preload and measured phases run from 2 load clients on this machine" in shown.stdout
    path.write_text(text.replace("clients: 2", "clients: 3"))
    refused = casslab(tmp_path / "home", "plan", str(path), columns=200)
    assert refused.returncode != 0
    assert "cannot be shared by the 3 load clients" in flat(refused.stderr)
