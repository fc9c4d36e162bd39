"""A cassandra-stress truststore (``-transport truststore=FILE``) as the PEM file the engine reads.

The engine verifies nodes with OpenSSL against ``Connection.tls_ca_file``, a PEM file.
cassandra-stress users hold a Java truststore (JKS or PKCS12) instead, so its certificates
are exported with the JDK's ``keytool -list -rfc`` into a PEM file named after the store's
content (``<stem>-<sha256 prefix>.pem``, under ``$CASSLAB_HOME/truststores/`` unless the
caller names a directory). A truststore that already is PEM (it starts with ``-----BEGIN``)
is used as it is.

Pure: :func:`is_pem`, :func:`pem_certificates`, :func:`keytool_failure`. I/O:
:func:`run_keytool_list` (the one function that runs keytool) and :func:`ca_file`.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path

from casslab.errors import SetupError, WorkloadSyntaxError

PEM_MARKER = b"-----BEGIN"
KEYTOOL_TIMEOUT_S = 60.0
PASSWORD_ENV = "CASSLAB_TRUSTSTORE_PASSWORD"  # keytool reads the password from here
_CERTIFICATE = re.compile(
    r"-----BEGIN CERTIFICATE-----\s+[A-Za-z0-9+/=\s]+?-----END CERTIFICATE-----"
)


def is_pem(head: bytes) -> bool:
    """True when a file starting with ``head`` is PEM text (``-----BEGIN ...``), after an
    optional UTF-8 byte-order mark and leading white space; JKS and PKCS12 are binary."""
    return head.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(PEM_MARKER)


def pem_certificates(text: str) -> list[str]:
    """Every ``CERTIFICATE`` block in ``text`` (keytool ``-rfc`` output or a PEM file), in
    order, each once, normalised to ``-----BEGIN``/``-----END`` lines around 64-column base64."""
    found: list[str] = []
    for match in _CERTIFICATE.finditer(text):
        body = "".join(match.group(0).split("-----")[2].split())
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        block = "\n".join(["-----BEGIN CERTIFICATE-----", *lines, "-----END CERTIFICATE-----"])
        if block not in found:
            found.append(block)
    return found


def keytool_failure(store: Path, output: str) -> WorkloadSyntaxError:
    """The user-facing error for a failed ``keytool -list`` of ``store`` (its output given)."""
    where = f"-transport truststore={store}"
    lowered = output.lower()
    if "password was incorrect" in lowered or "password verification failed" in lowered:
        return WorkloadSyntaxError(
            f"{where}: keytool cannot open the truststore with the given password; "
            "fix truststore-password= (the store's password)"
        )
    if "unrecognized keystore format" in lowered or "invalid keystore format" in lowered:
        return WorkloadSyntaxError(
            f"{where}: the file is neither a Java keystore (JKS, PKCS12) nor PEM; give a "
            "truststore holding the cluster's CA certificate (keytool -importcert ...) or a "
            "PEM file of it"
        )
    if "does not exist" in lowered:
        return WorkloadSyntaxError(f"{where}: the file does not exist; check the path")
    detail = " ".join(output.split())[-300:] or "no output"
    return WorkloadSyntaxError(
        f"{where}: keytool could not list the truststore ({detail}); check the file and "
        "truststore-password="
    )


def keytool_path(java: Path | None = None) -> Path:
    """``keytool`` of the JDK casslab runs Cassandra with (next to its real ``java``)."""
    if java is None:
        from casslab.host.jdk import find_java

        java = find_java()
    keytool = Path(os.path.realpath(java)).parent / "keytool"
    if not keytool.is_file() or not os.access(keytool, os.X_OK):
        raise SetupError(
            f"no keytool next to {java} (looked for {keytool}); install a full JDK (Debian: "
            "apt-get install openjdk-17-jdk-headless) or give -transport truststore= a PEM file "
            "of the CA certificate"
        )
    return keytool


def run_keytool_list(store: Path, password: str, *, keytool: Path) -> str:
    """``keytool -list -rfc`` of ``store``: every entry, certificates as PEM. The password
    goes through the environment, not the command line (which ``ps`` shows)."""
    try:
        result = subprocess.run(
            [
                str(keytool),
                "-list",
                "-rfc",
                "-keystore",
                str(store),
                "-storepass:env",
                PASSWORD_ENV,
            ],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=KEYTOOL_TIMEOUT_S,
            check=False,
            env={**os.environ, PASSWORD_ENV: password},
        )
    except subprocess.TimeoutExpired:
        raise WorkloadSyntaxError(
            f"-transport truststore={store}: keytool -list did not finish in "
            f"{KEYTOOL_TIMEOUT_S:g} s; check the file is a local keystore"
        ) from None
    except OSError as exc:
        raise SetupError(f"cannot run {keytool} ({exc.strerror}); install a full JDK") from None
    if result.returncode != 0:
        raise keytool_failure(store, result.stdout + result.stderr)
    return result.stdout


def store_path(truststore: str, base_dir: Path | None = None) -> Path:
    """``truststore=`` as a path: ``~`` expanded, a relative path taken from ``base_dir``."""
    path = Path(truststore).expanduser()
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    return path


def default_pem_dir() -> Path:
    """``$CASSLAB_HOME/truststores``: where exported truststores are kept."""
    from casslab.paths import home

    return home() / "truststores"


def ca_file(
    store: Path,
    password: str | None,
    *,
    pem_dir: Path | None = None,
    keytool: Path | None = None,
) -> Path:
    """The PEM file the engine trusts for ``store``: the store itself when it is PEM, else
    its certificates exported with keytool into ``pem_dir`` (see the module docstring)."""
    where = f"-transport truststore={store}"
    try:
        content = store.read_bytes()
    except FileNotFoundError:
        raise WorkloadSyntaxError(
            f"{where}: the file does not exist; give the path of the truststore (JKS, PKCS12 "
            "or PEM) that holds the cluster's CA certificate"
        ) from None
    except OSError as exc:
        raise WorkloadSyntaxError(
            f"{where}: cannot read it ({exc.strerror}); check the path and its permissions"
        ) from None
    if is_pem(content[:64]):
        if not pem_certificates(content.decode("utf-8", errors="replace")):
            raise WorkloadSyntaxError(
                f"{where}: the PEM file holds no CERTIFICATE block; give the CA certificate "
                "(-----BEGIN CERTIFICATE-----)"
            )
        return store.resolve()
    if password is None:
        raise WorkloadSyntaxError(
            f"{where}: a Java truststore needs its password; add truststore-password=PW "
            "(or give a PEM file of the CA certificate instead)"
        )
    listing = run_keytool_list(store, password, keytool=keytool or keytool_path())
    certificates = pem_certificates(listing)
    if not certificates:
        raise WorkloadSyntaxError(
            f"{where}: the truststore holds no certificates; import the cluster's CA "
            "certificate into it (keytool -importcert -alias ca -file ca.pem -keystore ...)"
        )
    digest = hashlib.sha256("\n".join(certificates).encode()).hexdigest()[:16]
    directory = pem_dir or default_pem_dir()
    target = directory / f"{store.stem}-{digest}.pem"
    text = "\n".join(certificates) + "\n"
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        return target
    directory.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    partial.write_text(text, encoding="utf-8")
    partial.replace(target)
    return target
