"""The real engine against a real one-node Cassandra cluster.

Runs cassandra-stress's default table (``keyspace1.standard1``): a sequential write,
a validated read of what was written, and the coordinated-omission check (the node is
frozen with SIGSTOP during an open-loop run).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab.cluster import ClusterSpec, LocalCluster, cluster_spec
from casslab.engine_contract.workload_spec import (
    ClosedLoop,
    Connection,
    Consistency,
    DistKind,
    Distribution,
    Generator,
    GenKind,
    OpenLoop,
    Operation,
    OpKind,
    Output,
    Rate,
    Statement,
    Stop,
    ThreadRamp,
    WorkloadSpec,
)
from casslab.errors import EngineError
from casslab.load import engine
from node_freeze import frozen_during
from shared_clusters import emptied

pytestmark = [pytest.mark.integration, pytest.mark.engine]

KEYS = 20_000
COLUMNS = [f'"C{i}"' for i in range(5)]
SCHEMA = [
    "CREATE KEYSPACE IF NOT EXISTS keyspace1 WITH replication = "
    "{'class': 'SimpleStrategy', 'replication_factor': 1}",
    "CREATE TABLE IF NOT EXISTS keyspace1.standard1 (key blob PRIMARY KEY, "
    + ", ".join(f"{c} blob" for c in COLUMNS)
    + ")",
]


def fixed(n: int) -> Distribution:
    return Distribution(kind=DistKind.FIXED, min=n, max=n)


KEY = Generator(kind=GenKind.KEY_BLOB, column="key", size=fixed(10))
VALUES = [Generator(kind=GenKind.BLOB, column=f"C{i}", size=fixed(34)) for i in range(5)]
WRITE = Operation(
    name="write",
    kind=OpKind.WRITE,
    weight=1.0,
    consistency=Consistency.ONE,
    statements=[
        Statement(
            cql=f"INSERT INTO standard1 (key, {', '.join(COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?)",
            binds=[KEY, *VALUES],
        )
    ],
)
READ = Operation(
    name="read",
    kind=OpKind.READ,
    weight=1.0,
    statements=[
        Statement(cql=f"SELECT {', '.join(COLUMNS)} FROM standard1 WHERE key = ?", binds=[KEY])
    ],
    validate_columns=VALUES,
)


def have_engine() -> bool:
    try:
        engine.engine_binary()
    except EngineError:
        return False
    return True


@pytest.fixture(scope="module")
def cluster(request: pytest.FixtureRequest) -> Iterator[LocalCluster]:
    if not have_engine():
        pytest.skip("engine not built: run `make engine`")
    yield from emptied(request.getfixturevalue("shared_node"))


def workload(
    cluster: LocalCluster,
    ops: list[Operation],
    keys: Distribution,
    rate: Rate,
    stop: Stop,
    **extra: object,
) -> WorkloadSpec:
    return WorkloadSpec.model_validate(
        {
            "connection": Connection(contact_points=cluster.contact_points),
            "schema_cql": SCHEMA,
            "keyspace": "keyspace1",
            "operations": ops,
            "keys": keys,
            "rate": rate,
            "stop": stop,
            "seed": 11,
            **extra,
        }
    )


def test_write_then_validated_read(cluster: LocalCluster, tmp_path: Path) -> None:
    hdr = tmp_path / "write.hlog"
    write = workload(
        cluster,
        [WRITE],
        Distribution(kind=DistKind.SEQ, min=1, max=KEYS),
        ClosedLoop(threads=16),
        Stop(ops=KEYS),
        output=Output(hdr_log=str(hdr), interval_s=0.5),
    )
    result = engine.run(write, tmp_path / "write", timeout_s=300)
    summary = result.summary
    assert summary.total.count == KEYS
    assert summary.total.errors == 0
    assert summary.ops["write"].count == KEYS
    assert sum(i.total.count for i in result.intervals) == summary.total.count
    assert all(i.phase == "measure" and i.threads == 16 for i in result.intervals)
    assert summary.engine_version
    assert summary.total.response.p50_ms > 0
    rows = cluster.session().execute("SELECT COUNT(*) FROM keyspace1.standard1").one()
    assert rows[0] == KEYS  # SEQ 1..KEYS: every key written once
    log = hdr.read_text().splitlines()
    assert log[0].startswith("#[")
    assert any(line.startswith("Tag=write,") for line in log)

    read = workload(
        cluster,
        [READ],
        Distribution(kind=DistKind.UNIFORM, min=1, max=KEYS),
        ClosedLoop(threads=8),
        Stop(ops=4000),
        validate_reads=True,
        seed=29,  # another operation sequence, the same data (data_seed 0) as the write
    )
    result = engine.run(read, tmp_path / "read", timeout_s=300)
    stats = result.summary.ops["read"]
    assert stats.count == 4000
    assert stats.errors == 0
    assert stats.rows == 4000
    assert stats.not_found == 0
    assert stats.mismatches == 0
    assert result.errors == []

    # The same reads under another data seed expect other values: every one mismatches.
    wrong = read.model_copy(update={"data_seed": 12, "stop": Stop(ops=200)})
    result = engine.run(wrong, tmp_path / "wrong-data-seed", timeout_s=300)
    assert result.summary.ops["read"].mismatches == 200
    assert 0 < len(result.errors) <= 200
    assert "validation" in result.errors[0].message
    assert "with data seed 12 and these generators?" in result.errors[0].message


def test_ramp_reports_a_curve_and_best_threads(cluster: LocalCluster, tmp_path: Path) -> None:
    spec = workload(
        cluster,
        [WRITE.model_copy(update={"weight": 9.0}), READ],
        Distribution(kind=DistKind.UNIFORM, min=1, max=KEYS),
        ThreadRamp(min=2, max=8, factor=2.0, step_duration_s=1.0, patience=3),
        Stop(duration_s=20),
    )
    result = engine.run(spec, tmp_path / "ramp", timeout_s=120)
    steps = result.summary.ramp
    assert [s.threads for s in steps] == [2, 4, 8]
    assert result.summary.best_threads in {2, 4, 8}
    assert {i.phase for i in result.intervals} == {"ramp"}
    assert {i.threads for i in result.intervals} == {2, 4, 8}
    assert sum(i.total.count for i in result.intervals) == result.summary.total.count
    assert result.summary.ops["write"].count > 5 * result.summary.ops["read"].count


@pytest.mark.measuring  # service-time p99.9 under 300 ms
def test_paused_node_shows_in_response_time_not_service_time(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """Coordinated omission: 2000 op/s for 15 s, the node frozen for 1 s in the middle."""
    pid = cluster.nodes[0].pid
    assert pid is not None
    spec = workload(
        cluster,
        [WRITE],
        Distribution(kind=DistKind.UNIFORM, min=1, max=KEYS),
        OpenLoop(rate_per_s=2000, max_in_flight=16),
        Stop(duration_s=15),
        warmup_s=2.0,
    )

    # the warm-up, then 7 s into the measured phase
    with frozen_during(pid, after_s=9.0, for_s=1.0):
        result = engine.run(spec, tmp_path / "co", timeout_s=120)
    total = result.summary.total
    assert total.count + total.errors == 30_000  # every due operation ran, none dropped
    assert total.response.p999_ms >= 900.0
    assert total.service.p999_ms < 300.0
    assert total.response.max_ms >= 900.0
    assert {i.phase for i in result.intervals} == {"warmup", "measure"}
    measured = [i for i in result.intervals if i.phase == "measure"]
    assert sum(i.total.count for i in measured) == total.count


def test_failing_schema_statement_is_fatal(cluster: LocalCluster, tmp_path: Path) -> None:
    spec = workload(
        cluster,
        [WRITE],
        fixed(1),
        ClosedLoop(threads=1),
        Stop(ops=1),
    ).model_copy(update={"schema_cql": ["CREATE TABLE nowhere.bad (k int PRIMARY KEY)"]})
    with pytest.raises(EngineError, match=r"status 1: schema statement failed"):
        engine.run(spec, tmp_path / "bad-schema", timeout_s=60)


def test_unreachable_cluster_is_fatal(tmp_path: Path) -> None:
    if not have_engine():
        pytest.skip("engine not built: run `make engine`")
    spec = WorkloadSpec(
        connection=Connection(contact_points=["127.0.10.250:1"]),
        operations=[WRITE],
        keys=fixed(1),
        rate=ClosedLoop(threads=1),
        stop=Stop(ops=1),
    )
    with pytest.raises(EngineError, match="cannot connect"):
        engine.run(spec, tmp_path / "unreachable", timeout_s=60)


def test_hdr_log_is_read_by_java_hdrhistogram_and_matches_the_summary(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """The interval log in the standard format: HdrHistogram's own Java log processor
    (the jar Cassandra ships) reads it, and its totals are the measured phase's, with the
    warm-up left out."""
    jar = next(cluster.state.lib_dir.glob("HdrHistogram-*.jar"))
    hdr = tmp_path / "mixed.hlog"
    spec = workload(
        cluster,
        [WRITE],
        Distribution(kind=DistKind.UNIFORM, min=1, max=KEYS),
        ClosedLoop(threads=8),
        Stop(duration_s=3),
        warmup_s=1.0,
        output=Output(hdr_log=str(hdr), interval_s=1.0),
    )
    result = engine.run(spec, tmp_path / "run", timeout_s=120)
    assert any(i.phase == "warmup" for i in result.intervals)
    done = subprocess.run(
        [
            str(cluster.state.java),
            "-cp",
            str(jar),
            "org.HdrHistogram.HistogramLogProcessor",
            "-i",
            str(hdr),
            "-tag",
            "write",
            "-outputValueUnitRatio",
            "1000000",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    total = re.search(r"Total count\s*=\s*(\d+)", done.stdout)
    maximum = re.search(r"#\[Max\s*=\s*([\d.]+)", done.stdout)
    assert total is not None, done.stdout[-2000:] + done.stderr[-2000:]
    assert maximum is not None
    assert int(total.group(1)) == result.summary.ops["write"].count
    # Same histogram, same maximum (HdrHistogram keeps 3 significant digits).
    assert float(maximum.group(1)) == pytest.approx(
        result.summary.ops["write"].response.max_ms, rel=2e-3
    )


def test_username_and_password_against_password_authenticator(tmp_path: Path) -> None:
    """A node that requires a login: the engine's credentials get through, wrong ones are
    a fatal error that names the cause."""
    from cassandra.auth import PlainTextAuthProvider
    from cassandra.cluster import Cluster

    spec = cluster_spec(
        name="auth",
        nodes=1,
        heap="512M",
        base_address="127.0.11.1",
        jmx_port_base=7110,
        settings={"authenticator": "PasswordAuthenticator"},
    )
    with LocalCluster.create(spec, tmp_path / "clusters", remove_on_exit=True) as cluster:
        address = cluster.nodes[0].address

        def login_works() -> bool:
            driver = Cluster(
                [address], auth_provider=PlainTextAuthProvider("cassandra", "cassandra")
            )
            try:
                driver.connect()
                return True
            except Exception:  # the default role appears a few seconds after start  # noqa: BLE001
                return False
            finally:
                driver.shutdown()

        deadline = time.monotonic() + 90
        while not login_works():
            assert time.monotonic() < deadline, "the default superuser never appeared"
            time.sleep(1)

        def run_as(user: str, password: str, where: str) -> engine.EngineResult:
            base = workload(
                cluster,
                [WRITE],
                Distribution(kind=DistKind.SEQ, min=1, max=500),
                ClosedLoop(threads=4),
                Stop(ops=500),
            )
            connection = base.connection.model_copy(update={"username": user, "password": password})
            return engine.run(
                base.model_copy(update={"connection": connection}), tmp_path / where, timeout_s=120
            )

        result = run_as("cassandra", "cassandra", "good")
        assert result.summary.total.count == 500
        with pytest.raises(EngineError, match=r"(?i)auth|credential|password|login"):
            run_as("cassandra", "wrong", "bad")


def tls_node_spec(name: str, address: str, jmx_port_base: int, store: Path) -> ClusterSpec:
    """One node that requires client encryption, serving the certificate in ``store``
    (a PKCS12 store from :func:`_keystore`)."""
    return cluster_spec(
        name=name,
        nodes=1,
        heap="512M",
        base_address=address,
        jmx_port_base=jmx_port_base,
        settings={
            "client_encryption_options": {
                "enabled": True,
                "optional": False,
                "keystore": str(store),
                "keystore_password": "casslab",
                "store_type": "PKCS12",
            }
        },
    )


def _keystore(directory: Path, address: str) -> tuple[Path, Path]:
    """A self-signed PKCS12 keystore for the node (JDK keytool) and its certificate as PEM,
    which the engine trusts as its CA."""
    keytool = str(Path(os.path.realpath(shutil.which("java") or "java")).parent / "keytool")
    store, pem = directory / "node.p12", directory / "node.pem"
    subprocess.run(
        [
            keytool,
            "-genkeypair",
            "-alias",
            "node",
            "-keyalg",
            "RSA",
            "-keysize",
            "2048",
            "-validity",
            "2",
            "-dname",
            f"CN={address}",
            "-ext",
            f"SAN=IP:{address}",
            "-keystore",
            str(store),
            "-storetype",
            "PKCS12",
            "-storepass",
            "casslab",
            "-keypass",
            "casslab",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    exported = subprocess.run(
        [
            keytool,
            "-exportcert",
            "-rfc",
            "-alias",
            "node",
            "-keystore",
            str(store),
            "-storetype",
            "PKCS12",
            "-storepass",
            "casslab",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    pem.write_text(exported.stdout)
    return store, pem


def test_tls_to_a_node_that_requires_it(tmp_path: Path) -> None:
    """Client encryption required by the node: the engine connects over TLS, verifying the
    node's certificate; without TLS it cannot connect and says so."""
    address = "127.0.12.1"
    store, pem = _keystore(tmp_path, address)
    spec = tls_node_spec("tls", address, 7120, store)
    with LocalCluster.create(spec, tmp_path / "clusters", remove_on_exit=True) as cluster:
        base = workload(
            cluster,
            [WRITE],
            Distribution(kind=DistKind.SEQ, min=1, max=500),
            ClosedLoop(threads=4),
            Stop(ops=500),
        )
        tls = base.connection.model_copy(update={"tls": True, "tls_ca_file": str(pem)})
        result = engine.run(
            base.model_copy(update={"connection": tls}), tmp_path / "tls", timeout_s=120
        )
        assert result.summary.total.count == 500
        assert result.summary.total.errors == 0
        with pytest.raises(EngineError) as plain:
            engine.run(base, tmp_path / "plain", timeout_s=120)
        assert "requires client encryption needs TLS" in str(plain.value)
