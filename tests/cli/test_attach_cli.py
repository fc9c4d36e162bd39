"""``casslab attach`` and the commands on an external cluster through the real entry
point, without a Cassandra node: bad input saves nothing, what casslab does not own is
refused by name, ``status`` of an unreachable ring shows its stored nodes down, ``stress``
takes the cluster's user, CA and datacenter, and ``down`` only forgets."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest

from casslab.cluster import state
from casslab.cluster.external.attach import external_state
from casslab.cluster.external.external_state import DiscoveredNode, External
from casslab.cqlaccess import CqlAccess
from cli_entry import casslab, flat

VARIABLE = "CASSLAB_TEST_ATTACH_PASSWORD"
SECRET = "attach-Secret-99"


def _run(home: Path, *args: str, secret: bool = False) -> subprocess.CompletedProcess[str]:
    if secret:
        return casslab(home, *args, env={VARIABLE: SECRET}, columns=400, timeout_s=120)
    return casslab(home, *args, columns=400, timeout_s=120, unset=(VARIABLE,))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def attached(tmp_path: Path) -> Path:
    """An external cluster ``far`` in ``tmp_path`` whose one node does not answer (a
    loopback port nothing listens on), as ``attach`` would have saved it; current."""
    root = tmp_path / "clusters"
    directory = root / "far"
    port = _free_port()
    ca, key = tmp_path / "ca.pem", tmp_path / "ca.key"
    command = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
    command += ["-subj", "/CN=casslab-test-ca", "-keyout", str(key), "-out", str(ca)]
    if subprocess.run(command, capture_output=True, check=False).returncode != 0:
        pytest.skip("openssl could not make a CA")
    access = CqlAccess(
        username="bench", password_env=VARIABLE, tls_ca_file=tmp_path / "ca.pem", local_dc="dc1"
    )
    found = [DiscoveredNode(address="127.0.0.1", native_port=port, datacenter="dc1", rack="r1")]
    external = External(contact_points=(f"127.0.0.1:{port}",), access=access)
    state.save(external_state("far", directory, found, external, version="5.0.9"))
    state.set_current("far", root)
    return tmp_path


def test_an_unset_password_variable_saves_nothing(tmp_path: Path) -> None:
    done = _run(
        tmp_path, "attach", "-c", "127.0.0.1", "--name", "x", "--user", "u",
        "--password-env", VARIABLE,
    )  # fmt: skip
    assert done.returncode == 1
    assert f"{VARIABLE}, which is not set" in flat(done.stderr)
    assert not (tmp_path / "clusters" / "x").exists()


def test_unreachable_contact_points_are_named(tmp_path: Path) -> None:
    port = _free_port()
    done = _run(tmp_path, "attach", "-c", f"127.0.0.1:{port}", "--name", "x")
    assert done.returncode == 1
    message = flat(done.stderr)
    assert f"none of the contact points 127.0.0.1:{port} answered over CQL" in message
    assert "nothing was saved" in message
    assert not (tmp_path / "clusters" / "x").exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["restart"], "restart refused: cluster 'far' is external"),
        (["nodetool", "1", "status"], "nodetool refused: cluster 'far' is external"),
        (["reset"], "drop refused: cluster 'far' is external"),
        (["reset", "--truncate"], "name the workload's own"),
        (["logs", "1"], "logs refused: cluster 'far' is external"),
        (["up", "--name", "far"], "it is attached already"),
    ],
)
def test_what_casslab_does_not_own_is_refused(attached: Path, args: list[str], words: str) -> None:
    done = _run(attached, *args)
    assert done.returncode == 1
    assert words in flat(done.stderr)


def test_status_of_an_unreachable_ring_shows_its_nodes_down(attached: Path) -> None:
    done = _run(attached, "status", secret=True)
    assert done.returncode == 0, done.stderr
    line = next(row for row in done.stdout.splitlines() if "127.0.0.1:" in row)
    assert "down" in line
    assert "dc1" in line
    assert "r1" in line
    assert "external" in done.stdout


def test_stress_takes_the_cluster_s_user_ca_and_datacenter(attached: Path) -> None:
    done = _run(attached, "stress", "--dry-run", "write", "n=10", secret=True)
    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stdout + done.stderr
    connection = json.loads(done.stdout)["connection"]
    assert connection["username"] == "bench"
    assert connection["password_env"] == VARIABLE
    assert connection["password"] is None
    assert connection["tls"] is True
    assert connection["tls_ca_file"] == str(attached / "ca.pem")
    assert connection["local_dc"] == "dc1"
    assert connection["contact_points"][0].startswith("127.0.0.1:")


def test_stress_with_its_own_nodes_takes_nothing_of_the_cluster(attached: Path) -> None:
    done = _run(attached, "stress", "--dry-run", "write", "n=10", "-node", "127.0.0.9")
    assert done.returncode == 0, done.stderr
    connection = json.loads(done.stdout)["connection"]
    assert connection["username"] is None
    assert connection["tls"] is False


def test_status_needs_the_password_variable(attached: Path) -> None:
    done = _run(attached, "status")
    assert done.returncode == 1
    assert f"{VARIABLE}, which is not set" in flat(done.stderr)


@pytest.mark.parametrize("args", [["down"], ["down", "--remove"], ["down", "--name", "far"]])
def test_down_forgets_an_external_cluster(attached: Path, args: list[str]) -> None:
    done = _run(attached, *args)
    assert done.returncode == 0, done.stderr
    assert "casslab forgot it" in flat(done.stdout)
    assert "its nodes were not touched" in flat(done.stdout)
    assert not (attached / "clusters" / "far").exists()
    assert not (attached / "clusters" / "current").exists()
