"""An engine failure seen from `casslab stress` / `casslab ycsb`: the error carries what the
engine said, cites no file of a deleted temporary directory, and names the options the user
types (real CLI, real engine; nothing listens on 127.0.169.1:9, so the connection is refused).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from cli_entry import NEEDS_ENGINE, casslab

pytestmark = [
    *NEEDS_ENGINE,
]

NOWHERE = "127.0.169.1"
CLOSED_PORT = "9"


def _casslab(tmp: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], str]:
    tmpdir = tmp / "tmpdir"
    tmpdir.mkdir()
    done = casslab(tmp / "home", *args, env={"TMPDIR": str(tmpdir)}, timeout_s=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert sorted(tmpdir.iterdir()) == []  # the temporary load directory is gone
    return done, " ".join(done.stderr.split())


def _cited_paths(text: str) -> list[str]:
    return re.findall(r"(/[^\s,;()]+)", text)


def test_stress_connect_error_names_transport_and_cites_no_deleted_file(tmp_path: Path) -> None:
    _, stderr = _casslab(
        tmp_path, "stress", "write", "n=10", "-node", NOWHERE, "-port", f"native={CLOSED_PORT}"
    )
    assert f'cannot connect to ["{NOWHERE}:{CLOSED_PORT}"]' in stderr, stderr
    assert "-transport truststore=FILE" in stderr
    assert "-node HOST, -port native=N" in stderr
    assert "tls_ca_file" not in stderr
    assert "connection.tls" not in stderr
    assert _cited_paths(stderr) == [], stderr


def test_stress_with_workdir_cites_the_kept_files(tmp_path: Path) -> None:
    work = tmp_path / "work"
    _, stderr = _casslab(
        tmp_path,
        "stress",
        "write",
        "n=10",
        "-node",
        NOWHERE,
        "-port",
        f"native={CLOSED_PORT}",
        "--workdir",
        str(work),
    )
    cited = _cited_paths(stderr)
    assert cited == [str(work / "spec.json"), str(work / "engine.stderr")], stderr
    assert all(Path(path).is_file() for path in cited)


def test_ycsb_connect_error_names_its_properties(tmp_path: Path) -> None:
    _, stderr = _casslab(
        tmp_path,
        "ycsb",
        "load",
        "-P",
        "workloada",
        "-p",
        f"hosts={NOWHERE}",
        "-p",
        f"port={CLOSED_PORT}",
        "-p",
        "recordcount=10",
    )
    assert "cannot connect to" in stderr, stderr
    assert "-p hosts=HOST, -p port=N" in stderr
    assert "casslab ycsb does not offer" in stderr
    assert "-transport truststore=FILE" in stderr
    assert "tls_ca_file" not in stderr
    assert _cited_paths(stderr) == [], stderr
