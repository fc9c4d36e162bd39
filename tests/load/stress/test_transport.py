"""``-transport`` (cassandra-stress TLS options): parsing, masking, and the engine connection."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from casslab.engine_contract.workload_spec import Connection
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress import StressTransport, parse_stress

CONNECTION = Connection(contact_points=["127.0.13.1:9042"])

GOOD: list[tuple[str, dict[str, Any]]] = [
    (
        "write n=1 -transport truststore=/etc/ts.jks truststore-password=pw",
        {"truststore": "/etc/ts.jks", "truststore_password": "pw"},
    ),
    (
        # the whole group quoted as one word, as scripts often pass it
        "write n=1 -transport 'truststore=ts.p12 truststore-password=pw ssl-protocol=TLSv1.2'",
        {"truststore": "ts.p12", "truststore_password": "pw", "ssl_protocol": "TLSv1.2"},
    ),
    (
        "write -transport truststore=ca.pem",
        {"truststore": "ca.pem", "truststore_password": None, "ssl_protocol": "TLS"},
    ),
    (
        "write -transport truststore=t.jks truststore-password=p ssl-alg=SunX509 "
        "ssl-ciphers=TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384 store-type=JKS "
        "hostname-verification=false",
        {
            "ssl_alg": "SunX509",
            "ssl_ciphers": ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384"],
            "store_type": "JKS",
            "hostname_verification": False,
        },
    ),
    (
        # the old form quoted in a public gist: factory= is recorded, not used
        "write duration=10s -mode native cql3 user=u password=p -transport "
        "factory=org.apache.cassandra.thrift.SSLTransportFactory truststore=/root/keystore.jks "
        "truststore-password=instaclustr -node 10.1.2.3",
        {
            "factory": "org.apache.cassandra.thrift.SSLTransportFactory",
            "truststore": "/root/keystore.jks",
        },
    ),
    (
        "write -transport TRUSTSTORE=t.jks Truststore-Password=p hostname-verification=TRUE",
        {"truststore": "t.jks", "truststore_password": "p", "hostname_verification": True},
    ),
    ("write -transport truststore\\=t.jks", {"truststore": "t.jks"}),
]


@pytest.mark.parametrize(("line", "expected"), GOOD)
def test_transport_options(line: str, expected: dict[str, Any]) -> None:
    transport = parse_stress(line).transport
    assert transport.tls
    for field, value in expected.items():
        assert getattr(transport, field) == value, field


def test_without_transport_tls_is_off() -> None:
    command = parse_stress("write n=1")
    assert command.transport == StressTransport()
    assert not command.transport.tls
    assert command.to_spec(CONNECTION).connection.tls is False


BAD: list[tuple[str, str]] = [
    (
        "write -transport keystore=client.jks keystore-password=x truststore=t.jks",
        "-transport 'keystore=client.jks': casslab's engine cannot present a client certificate",
    ),
    ("write -transport truststore=t.jks keystore-password=x", "keystore= and keystore-password="),
    (
        "write -transport trustore=t.jks",
        "-transport: unknown option 'trustore=t.jks'; accepted form: -transport truststore=FILE "
        "truststore-password=PW",
    ),
    ("write -transport ssl", "-transport: unknown option 'ssl'; accepted form"),
    ("write -transport truststore=", "-transport 'truststore=': give a value, e.g. truststore="),
    (
        "write -transport truststore-password=x",
        "truststore-password= without truststore=; name the store",
    ),
    ("write -transport ssl-protocol=TLS", "TLS needs truststore=FILE (JKS, PKCS12 or PEM"),
    ("write -transport", "-transport (no options): TLS needs truststore=FILE"),
    (
        "write -transport truststore=t.jks hostname-verification=maybe",
        "-transport 'hostname-verification=maybe': use hostname-verification=true|false",
    ),
    ("write -transport truststore=a.jks truststore=b.jks", "truststore= given twice"),
    ("write -transport truststore=a -transport truststore=b", "-transport given twice"),
]


@pytest.mark.parametrize(("line", "message"), BAD)
def test_bad_transport_names_the_token(line: str, message: str) -> None:
    with pytest.raises(WorkloadSyntaxError) as raised:
        parse_stress(line)
    assert message in str(raised.value)


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        (
            "write -transport truststore=t.jks truststore-password=s3cret",
            "write -transport truststore=t.jks truststore-password=*suppressed*",
        ),
        (
            "write -transport 'truststore=t.jks truststore-password=s3cret ssl-protocol=TLS'",
            "write -transport truststore=t.jks truststore-password=*suppressed* ssl-protocol=TLS",
        ),
        (
            "write -mode user=u password=a -transport truststore=t.pem",
            "password=*suppressed* -transport",
        ),
    ],
)
def test_display_masks_truststore_passwords(line: str, shown: str) -> None:
    display = parse_stress(line).display()
    assert shown in display
    assert "s3cret" not in display


def test_pem_truststore_is_the_engine_ca_file(tmp_path: Path) -> None:
    """A PEM truststore is passed as is (relative to the profile folder, like profile=)."""
    pem = tmp_path / "ca.pem"
    pem.write_text("-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n")
    command = parse_stress("write n=10 -transport truststore=ca.pem")
    connection = command.to_spec(CONNECTION, profile_dir=tmp_path).connection
    assert connection.tls is True
    assert connection.tls_ca_file == str(pem.resolve())


def test_a_given_ca_file_wins_over_the_command(tmp_path: Path) -> None:
    given = CONNECTION.model_copy(update={"tls": True, "tls_ca_file": "/etc/ssl/ours.pem"})
    command = parse_stress("write n=10 -transport truststore=missing.jks truststore-password=x")
    assert command.to_spec(given, profile_dir=tmp_path).connection.tls_ca_file == (
        "/etc/ssl/ours.pem"
    )


def test_missing_truststore_is_a_syntax_error_naming_the_file(tmp_path: Path) -> None:
    command = parse_stress("write n=10 -transport truststore=nope.jks truststore-password=x")
    with pytest.raises(WorkloadSyntaxError) as raised:
        command.to_spec(CONNECTION, profile_dir=tmp_path)
    assert f"-transport truststore={tmp_path / 'nope.jks'}: the file does not exist" in str(
        raised.value
    )


KEYTOOL = shutil.which("keytool")


@pytest.mark.skipif(KEYTOOL is None, reason="needs the JDK's keytool")
def test_jks_truststore_becomes_a_pem_under_casslab_home(tmp_path: Path) -> None:
    """A JKS truststore (as cassandra-stress users have) is exported with keytool into
    ``$CASSLAB_HOME/truststores`` (tests/conftest.py points CASSLAB_HOME at a temp dir)."""
    assert KEYTOOL is not None
    store = tmp_path / "client-truststore.jks"
    p12 = tmp_path / "node.p12"
    common = ["-storepass", "casslab", "-noprompt"]
    subprocess.run(
        [
            *(KEYTOOL, "-genkeypair", "-alias", "node", "-keyalg", "RSA", "-dname", "CN=x"),
            *("-keystore", str(p12), "-storetype", "PKCS12", *common),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    pem = subprocess.run(
        [KEYTOOL, "-exportcert", "-rfc", "-alias", "node", "-keystore", str(p12), *common],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    (tmp_path / "node.pem").write_text(pem)
    subprocess.run(
        [
            *(KEYTOOL, "-importcert", "-alias", "ca", "-file", str(tmp_path / "node.pem")),
            *("-keystore", str(store), "-storetype", "JKS", *common),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    command = parse_stress(f"write n=10 -transport truststore={store} truststore-password=casslab")
    connection = command.to_spec(CONNECTION).connection
    assert connection.tls is True
    assert connection.tls_ca_file is not None
    ca = Path(connection.tls_ca_file)
    assert ca.parent.name == "truststores"
    assert ca.name.startswith("client-truststore-")
    assert ca.read_text().split() == pem.split()
    with pytest.raises(WorkloadSyntaxError, match="fix truststore-password="):
        parse_stress(f"write n=1 -transport truststore={store} truststore-password=bad").to_spec(
            CONNECTION
        )
