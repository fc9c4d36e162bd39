"""``casslab stress ... -transport truststore=...`` through the real CLI and engine, against a
node that requires client encryption (address block 127.0.13.x, JMX 7130)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from casslab.cluster import LocalCluster
from casslab.engine_contract.engine_records import SummaryRecord
from load.test_engine_integration import _keystore, have_engine, tls_node_spec

pytestmark = [pytest.mark.integration, pytest.mark.engine]

ADDRESS = "127.0.13.1"


def casslab_stress(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "casslab", "stress", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "250"},
        cwd=cwd,
        check=False,
    )


def test_stress_over_tls_with_a_java_truststore(tmp_path: Path) -> None:
    """The node's PKCS12 store as the truststore: keytool exports it to PEM, the engine
    verifies the node with it; 500 writes, no errors. Without -transport the run fails."""
    if not have_engine():
        pytest.skip("engine not built: run `make engine`")
    store, _ = _keystore(tmp_path, ADDRESS)
    spec = tls_node_spec("k13tls", ADDRESS, 7130, store)
    with LocalCluster.create(spec, tmp_path / "clusters", remove_on_exit=True):
        common = ["write", "n=500", "-rate", "threads=4", "-node", ADDRESS, "--json"]
        done = casslab_stress(
            *common[:-1],
            "-transport",
            f"truststore={store.name}",  # relative to the working directory
            "truststore-password=casslab",
            "--json",
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
        [summary] = [SummaryRecord.model_validate(r) for r in records if r["type"] == "summary"]
        assert summary.total.count == 500
        assert summary.total.errors == 0
        exported = list((Path(os.environ["CASSLAB_HOME"]) / "truststores").glob("node-*.pem"))
        assert len(exported) == 1
        assert exported[0].read_text().startswith("-----BEGIN CERTIFICATE-----")

        plain = casslab_stress(*common, cwd=tmp_path)
        assert plain.returncode != 0
        assert "requires client encryption needs TLS" in plain.stderr + plain.stdout
