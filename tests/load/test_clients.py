"""casslab.load.clients with real engines and no cluster: clients that cannot connect are
each reported by name with the engine's reason and stderr tail, never dropped."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from casslab.engine_contract.workload_spec import (
    ClosedLoop,
    Connection,
    DistKind,
    Distribution,
    Operation,
    OpKind,
    Statement,
    Stop,
    WorkloadSpec,
)
from casslab.errors import EngineError
from casslab.load.clients import LocalLauncher, run_clients
from casslab.load.shares import client_seed
from cli_entry import NEEDS_ENGINE, casslab, flat
from fakes import install_fake_engine

pytestmark = NEEDS_ENGINE

NOWHERE = "127.0.10.250:1"  # nothing listens: the engine's connect fails at once


def unreachable(schema: list[str]) -> WorkloadSpec:
    return WorkloadSpec(
        connection=Connection(contact_points=[NOWHERE], request_timeout_s=2.0),
        schema_cql=schema,
        operations=[
            Operation(
                name="write",
                kind=OpKind.WRITE,
                weight=1,
                statements=[Statement(cql="INSERT INTO ks.t (k) VALUES (1)")],
            )
        ],
        keys=Distribution(kind=DistKind.FIXED, min=1, max=1),
        rate=ClosedLoop(threads=2),
        stop=Stop(ops=10),
    )


def test_clients_that_fail_are_each_reported_with_their_reason(tmp_path: Path) -> None:
    started = time.monotonic()
    merged = run_clients(unreachable([]), 2, LocalLauncher(tmp_path, timeout_s=60))

    assert time.monotonic() - started < 60
    assert [f.client for f in merged.run.failed] == ["client-0", "client-1"]
    for failure in merged.run.failed:
        assert "cannot connect" in failure.reason
        assert NOWHERE.split(":")[0] in failure.reason
    assert merged.run.summary is None
    assert merged.run.clients == []
    assert merged.hlog == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["client-0", "client-1"]


def test_a_failed_schema_run_starts_no_client(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match=r"schema statements, run once before the 2 clients"):
        run_clients(unreachable(["CREATE KEYSPACE ks ..."]), 2, LocalLauncher(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["schema"]


def test_the_cli_names_each_failed_client_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through ``casslab stress --clients 2`` with the fake engine (a real executable):
    client-1's engine exits 1 with a fatal error, client-0's writes records but no HDR
    log; both are named with their reason and the command fails."""
    install_fake_engine(tmp_path, monkeypatch)
    env = {"FAKE_ENGINE_FAIL_SEEDS": str(client_seed(0, 2, 1))}
    done = casslab(
        None,
        "stress",
        *["write", "n=10", "-rate", "threads=2", "-node", "127.0.10.250"],
        "--clients",
        "2",
        "--workdir",
        str(tmp_path / "work"),
        env={**os.environ, **env},
        timeout_s=60,
    )
    out = flat(done.stdout + done.stderr)
    assert done.returncode == 1, out
    assert "client-1 failed: load engine exited with status 1: fake failure" in out
    assert "client-0 failed: its HDR log" in out
    assert "2 of 2 load clients failed (client-0, client-1); nothing to merge" in out
