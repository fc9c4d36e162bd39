"""An external cluster for real: a one-node local cluster that requires a login
(PasswordAuthenticator) and client encryption stands in for a cluster casslab did not
start. Through the real CLI it is attached with a user, a password variable and a CA;
``status`` shows its ring, ``stress`` loads it, ``metrics`` samples it over CQL only,
``cqlsh`` logs in, what casslab does not own is refused, ``reset --truncate`` empties the
workload's keyspace only, and ``down`` forgets it while the node keeps running.
Address 127.0.239.1, JMX 9550."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from casslab.cluster import LocalCluster, NodeStatus, cluster_spec
from casslab.cqlaccess import CqlAccess, driver_options
from cli_entry import NEEDS_ENGINE, casslab, flat
from jit import LIGHT

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

ADDRESS = "127.0.239.1"
VARIABLE = "CASSLAB_TEST_EXTERNAL_PW"
SECRET = "Ext3rnal-Secret-casslab"
STORE_PASSWORD = "casslab"


def _keytool(*args: str) -> str:
    keytool = str(Path(os.path.realpath(shutil.which("java") or "java")).parent / "keytool")
    done = subprocess.run([keytool, *args], check=True, capture_output=True, text=True, timeout=120)
    return done.stdout


def _keystore(directory: Path) -> tuple[Path, Path]:
    """A self-signed PKCS12 keystore for the node, and its certificate as the CA (PEM)."""
    store, pem = directory / "node.p12", directory / "ca.pem"
    secrets = ["-storetype", "PKCS12", "-storepass", STORE_PASSWORD]
    _keytool(
        "-genkeypair", "-alias", "node", "-keyalg", "RSA", "-keysize", "2048",
        "-validity", "2", "-dname", f"CN={ADDRESS}", "-ext", f"SAN=IP:{ADDRESS}",
        "-keystore", str(store), *secrets, "-keypass", STORE_PASSWORD,
    )  # fmt: skip
    pem.write_text(
        _keytool("-exportcert", "-rfc", "-alias", "node", "-keystore", str(store), *secrets)
    )
    return store, pem


def _session(access: CqlAccess, password: str) -> Any:
    from cassandra.auth import PlainTextAuthProvider
    from cassandra.cluster import Cluster

    options = driver_options(access.model_copy(update={"username": None, "password_env": None}))
    provider = PlainTextAuthProvider(access.username, password)
    return Cluster([ADDRESS], auth_provider=provider, connect_timeout=10, **options)


def _login(access: CqlAccess, password: str, statement: str | None = None) -> bool:
    driver = _session(access, password)
    try:
        session = driver.connect()
        if statement is not None:
            session.execute(statement)
        return True
    except Exception:  # noqa: BLE001 - the driver raises several types until login works
        return False
    finally:
        driver.shutdown()


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalCluster, Path, Path]]:
    """The node (in CASSLAB_HOME ``home``), its CA, and a role ``alice`` with SECRET."""
    home = tmp_path_factory.mktemp("external-home")
    store, ca = _keystore(home)
    spec = cluster_spec(
        name="source",
        nodes=1,
        heap="512M",
        base_address=ADDRESS,
        jmx_port_base=9549,
        jvm_options=LIGHT,
        settings={
            "authenticator": "PasswordAuthenticator",
            "client_encryption_options": {
                "enabled": True,
                "optional": False,
                "keystore": str(store),
                "keystore_password": STORE_PASSWORD,
                "store_type": "PKCS12",
            },
        },
    )
    with LocalCluster.create(spec, home / "clusters", remove_on_exit=True) as cluster:
        admin = CqlAccess(username="cassandra", password_env="UNUSED", tls_ca_file=ca)
        deadline = time.monotonic() + 120
        while not _login(admin, "cassandra"):  # the default superuser comes a little later
            assert time.monotonic() < deadline, "the default superuser never appeared"
            time.sleep(1)
        role = (
            f"CREATE ROLE IF NOT EXISTS alice WITH PASSWORD = '{SECRET}' "
            "AND LOGIN = true AND SUPERUSER = true"
        )
        assert _login(admin, "cassandra", role)
        yield cluster, home, ca


def _casslab(home: Path, *args: str, secret: bool = True) -> subprocess.CompletedProcess[str]:
    env = {VARIABLE: SECRET} if secret else {}
    unset = () if secret else (VARIABLE,)
    return casslab(home, *args, env=env, unset=unset, columns=400, timeout_s=300)


def _attach(home: Path, ca: Path, *extra: str, name: str = "ext") -> Any:
    return _casslab(
        home, "attach", "--contact-points", ADDRESS, "--user", "alice",
        "--password-env", VARIABLE, "--tls-ca", str(ca), "--name", name, *extra,
    )  # fmt: skip


def test_attach_load_metrics_refusals_and_forget(
    node: tuple[LocalCluster, Path, Path], tmp_path: Path
) -> None:
    cluster, home, ca = node
    attached = _attach(home, ca, "--dc", "datacenter1")
    assert attached.returncode == 0, attached.stderr
    said = flat(attached.stdout)
    assert "cluster ext attached (external): 1 node(s) in datacenter1 (1)" in said
    assert "user alice (password from $CASSLAB_TEST_EXTERNAL_PW)" in said
    stored = (home / "clusters" / "ext" / "state.json").read_text()
    assert SECRET not in stored
    assert VARIABLE in stored

    status = _casslab(home, "status")
    assert status.returncode == 0, status.stderr
    row = next(line for line in status.stdout.splitlines() if f"{ADDRESS}:9042" in line)
    assert "up" in row
    assert "datacenter1" in row
    assert "rack1" in row
    assert " 5.0." in row

    stress = _casslab(home, "stress", "write", "n=1000", "-rate", "threads=4")
    assert stress.returncode == 0, stress.stdout[-2000:] + stress.stderr[-2000:]
    assert SECRET not in stress.stdout + stress.stderr

    parquet = tmp_path / "metrics.parquet"
    recorded = _casslab(home, "metrics", "record", "--duration", "3s", "-o", str(parquet))
    assert recorded.returncode == 0, recorded.stderr
    assert "CQL-visible metrics only" in flat(recorded.stdout)
    from casslab import metrics

    frame = metrics.load(parquet)
    assert set(frame["node"]) == {ADDRESS}
    names = set(frame["metric"])
    assert "clock.offset_ms" in names
    assert not {n for n in names if n.startswith(("host.", "process."))}

    cqlsh = _casslab(home, "cqlsh", "-e", "SELECT release_version FROM system.local")
    assert cqlsh.returncode == 0, cqlsh.stdout + cqlsh.stderr
    assert "5.0." in cqlsh.stdout

    restart = _casslab(home, "restart")
    assert restart.returncode == 1
    assert "restart refused: cluster 'ext' is external" in flat(restart.stderr)
    dropped = _casslab(home, "reset")
    assert dropped.returncode == 1
    assert "drop refused" in flat(dropped.stderr)
    truncated = _casslab(home, "reset", "--truncate", "--keyspace", "keyspace1")
    assert truncated.returncode == 0, truncated.stderr
    assert "truncated keyspace1 in" in flat(truncated.stdout)
    access = CqlAccess(username="alice", password_env=VARIABLE, tls_ca_file=ca)
    driver = _session(access, SECRET)
    try:
        count = driver.connect().execute("SELECT count(*) FROM keyspace1.standard1").one()[0]
    finally:
        driver.shutdown()
    assert count == 0

    down = _casslab(home, "down")
    assert down.returncode == 0, down.stderr
    assert "casslab forgot it" in flat(down.stdout)
    assert not (home / "clusters" / "ext").exists()
    pid = cluster.nodes[0].pid
    assert pid is not None
    assert psutil.pid_exists(pid)
    assert [view.status for view in cluster.status()] == [NodeStatus.UP]


def test_bad_input_against_a_real_node_saves_nothing(
    node: tuple[LocalCluster, Path, Path],
) -> None:
    _, home, ca = node
    wrong_dc = _attach(home, ca, "--dc", "dc9", name="bad")
    assert wrong_dc.returncode == 1
    assert "--dc dc9: the cluster at 127.0.239.1:9042 has no such datacenter" in flat(
        wrong_dc.stderr
    )
    assert "its datacenters are datacenter1" in flat(wrong_dc.stderr)
    plain = _casslab(
        home, "attach", "-c", ADDRESS, "--user", "alice", "--password-env", VARIABLE,
        "--name", "bad",
    )  # fmt: skip
    assert plain.returncode == 1
    assert "none of the contact points 127.0.239.1:9042 answered" in flat(plain.stderr)
    missing = _casslab(
        home, "attach", "-c", ADDRESS, "--user", "alice", "--password-env", VARIABLE,
        "--tls-ca", str(ca), "--name", "bad", secret=False,
    )  # fmt: skip
    assert missing.returncode == 1
    assert "which is not set" in flat(missing.stderr)
    assert not (home / "clusters" / "bad").exists()


EXPERIMENT = """
name: on-attached
description: threads 2 and 4 on an attached cluster, its login and CA from the attach
cluster: {use: lab}
schema: {keyspace: ks_attached}
factors: {threads: [2, 4]}
preload: "write n=500 -pop seq=1..500 -rate threads=4 -schema keyspace=ks_attached"
workload: "write -schema keyspace=ks_attached"
measure: "duration=3s -pop dist=UNIFORM(1..500)"
iterations: 1
order: sequential
reset: truncate
kpis: [op_rate]
"""


def test_an_experiment_runs_on_the_attached_cluster_and_empties_only_its_keyspace(
    node: tuple[LocalCluster, Path, Path], tmp_path: Path
) -> None:
    """Both trials run with the attach's login and CA; the node is neither restarted nor
    stopped, the state stays attached, and a table outside the trial's keyspace keeps
    its row through the trials' truncations."""
    cluster, home, ca = node
    pid = cluster.nodes[0].pid
    assert _attach(home, ca, name="lab").returncode == 0
    access = CqlAccess(username="alice", password_env=VARIABLE, tls_ca_file=ca)
    driver = _session(access, SECRET)
    try:
        session = driver.connect()
        session.execute(
            "CREATE KEYSPACE IF NOT EXISTS kept WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 1}"
        )
        session.execute("CREATE TABLE IF NOT EXISTS kept.t (k int PRIMARY KEY, v int)")
        session.execute("INSERT INTO kept.t (k, v) VALUES (1, 1)")
        path = tmp_path / "on-attached.yaml"
        path.write_text(EXPERIMENT)
        done = _casslab(home, "run", str(path), "--results", str(tmp_path / "results"))
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert SECRET not in done.stdout + done.stderr
        kept = session.execute("SELECT count(*) FROM kept.t").one()[0]
        loaded = session.execute("SELECT count(*) FROM ks_attached.standard1").one()[0]
    finally:
        driver.shutdown()
    assert kept == 1
    assert loaded == 500  # the last trial's preload, its writes over the same keys
    [run] = (tmp_path / "results" / "on-attached").iterdir()
    rows = [json.loads(p.read_text()) for p in sorted(run.glob("trials/*/*/summary.json"))]
    assert [r["status"] for r in rows] == ["ok", "ok"], [r.get("error") for r in rows]
    assert all(r["kpis"]["op_rate"] > 0 for r in rows)
    assert (run / "report.html").is_file()
    assert cluster.nodes[0].pid == pid
    assert psutil.pid_exists(pid)
    assert (home / "clusters" / "lab" / "state.json").is_file()
    assert _casslab(home, "down", "--name", "lab").returncode == 0
