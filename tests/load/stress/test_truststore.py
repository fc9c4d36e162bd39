"""casslab.load.stress.truststore: PEM detection, certificate extraction, keytool errors."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.truststore import (
    ca_file,
    is_pem,
    keytool_failure,
    keytool_path,
    pem_certificates,
    store_path,
)

CERT_A = "-----BEGIN CERTIFICATE-----\nQUFB\n-----END CERTIFICATE-----"
CERT_B = "-----BEGIN CERTIFICATE-----\nQkJC\n-----END CERTIFICATE-----"


@pytest.mark.parametrize(
    ("head", "pem"),
    [
        (b"-----BEGIN CERTIFICATE-----\nMIIC", True),
        (b"-----BEGIN TRUSTED CERTIFICATE-----", True),
        (b"\n\n  -----BEGIN CERTIFICATE-----", True),
        (b"\xef\xbb\xbf-----BEGIN CERTIFICATE-----", True),
        (b"\xfe\xed\xfe\xed\x00\x00\x00\x02", False),  # JKS magic
        (b"0\x82\n\x8e\x02\x01\x030\x82", False),  # PKCS12 (DER SEQUENCE)
        (b"Bag Attributes\n-----BEGIN CERTIFICATE-----", False),  # openssl text before it
        (b"", False),
        (b"-----END CERTIFICATE-----", False),
    ],
)
def test_is_pem(head: bytes, pem: bool) -> None:
    assert is_pem(head) is pem


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("", []),
        ("Your keystore contains 0 entries\n", []),
        (CERT_A, [CERT_A]),
        (
            # keytool -list -rfc: header lines, entries, a repeated certificate, star lines
            f"Keystore type: JKS\n\nAlias name: a\n{CERT_A}\n\n*****\n"
            f"Alias name: b\nCertificate[1]:\n{CERT_B}\nCertificate[2]:\n{CERT_A}\n",
            [CERT_A, CERT_B],
        ),
        (
            # CRLF line ends and 76-column lines are normalised to 64 columns
            "-----BEGIN CERTIFICATE-----\r\n" + "A" * 76 + "\r\n-----END CERTIFICATE-----\r\n",
            [
                "-----BEGIN CERTIFICATE-----\n"
                + "A" * 64
                + "\n"
                + "A" * 12
                + "\n-----END CERTIFICATE-----"
            ],
        ),
        ("-----BEGIN RSA PRIVATE KEY-----\nQUFB\n-----END RSA PRIVATE KEY-----", []),
    ],
)
def test_pem_certificates(text: str, found: list[str]) -> None:
    assert pem_certificates(text) == found


@pytest.mark.parametrize(
    ("output", "fix"),
    [
        (
            "keytool error: java.io.IOException: keystore password was incorrect",
            "fix truststore-password=",
        ),
        (
            "keytool error: java.io.IOException: Keystore was tampered with, or password was "
            "incorrect",
            "fix truststore-password=",
        ),
        (
            "keytool error: java.security.KeyStoreException: Unrecognized keystore format.",
            "neither a Java keystore (JKS, PKCS12) nor PEM",
        ),
        ("keytool error: java.lang.Exception: Keystore file does not exist: x", "does not exist"),
        ("keytool error: something else", "keytool could not list the truststore (keytool error"),
    ],
)
def test_keytool_failure_names_the_file_and_the_fix(output: str, fix: str) -> None:
    message = str(keytool_failure(Path("/etc/t.jks"), output))
    assert message.startswith("-transport truststore=/etc/t.jks: ")
    assert fix in message


def test_store_path(tmp_path: Path) -> None:
    assert store_path("t.jks", tmp_path) == tmp_path / "t.jks"
    assert store_path("/abs/t.jks", tmp_path) == Path("/abs/t.jks")
    assert store_path("t.jks") == Path("t.jks")
    assert store_path("~/t.jks", tmp_path) == Path.home() / "t.jks"


def test_pem_file_without_a_certificate_is_refused(tmp_path: Path) -> None:
    key = tmp_path / "key.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nQUFB\n-----END PRIVATE KEY-----\n")
    with pytest.raises(WorkloadSyntaxError, match="holds no CERTIFICATE block"):
        ca_file(key, None, pem_dir=tmp_path / "out")


def test_java_store_without_password_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "t.jks"
    store.write_bytes(b"\xfe\xed\xfe\xed\x00\x00\x00\x02")
    with pytest.raises(WorkloadSyntaxError, match="add truststore-password=PW"):
        ca_file(store, None, pem_dir=tmp_path / "out")


@pytest.mark.skipif(shutil.which("java") is None, reason="needs a JDK")
def test_not_a_keystore_is_named(tmp_path: Path) -> None:
    store = tmp_path / "t.jks"
    store.write_bytes(b"this is not a keystore")
    with pytest.raises(WorkloadSyntaxError, match="neither a Java keystore"):
        ca_file(store, "pw", pem_dir=tmp_path / "out", keytool=keytool_path())
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(shutil.which("java") is None, reason="needs a JDK")
def test_empty_keystore_says_import_the_ca(tmp_path: Path) -> None:
    keytool = keytool_path()
    store = tmp_path / "empty.p12"
    common = ["-keystore", str(store), "-storetype", "PKCS12", "-storepass", "casslab"]
    for args in (
        ["-genkeypair", "-alias", "x", "-keyalg", "RSA", "-dname", "CN=x", *common],
        ["-delete", "-alias", "x", *common],
    ):
        subprocess.run([str(keytool), *args], check=True, capture_output=True, timeout=120)
    with pytest.raises(WorkloadSyntaxError, match="holds no certificates; import the cluster's CA"):
        ca_file(store, "casslab", pem_dir=tmp_path / "out", keytool=keytool)
