"""Put what a node needs on its host: the Cassandra distribution (the local cache's jars,
sent as one tar stream, checked by sha256 on the host, skipped when already there; or,
with the inventory's ``cassandra_home``, an install already on the host, checked to be
the cluster's version and never written to) and the Java found there (the inventory's
``java_home``, else ``java`` on the host's PATH), checked against the Cassandra version
before anything starts."""

from __future__ import annotations

import hashlib
import io
import tarfile
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from casslab.cluster.distribution import Distribution
from casslab.errors import RemoteCommandError, SetupError
from casslab.host import jdk
from casslab.record import Record

if TYPE_CHECKING:
    from casslab.remote.ssh import RemoteHost

SUMS_FILE = "SHA256SUMS"
MAIN_JARS = ("apache-cassandra", "cassandra-all")  # a release's or package's; Maven's
DEPLOY_TIMEOUT_S = 600.0
# Exit 0 when folder $1 holds SUMS_FILE equal to stdin and every file matches it.
_CHECK_SCRIPT = f"""\
cd "$1" 2>/dev/null || exit 3
cmp -s - {SUMS_FILE} || exit 3
sha256sum --quiet --strict -c {SUMS_FILE} >/dev/null 2>&1 || exit 4
"""


class Deployed(Record):
    """What :func:`deploy_distribution` did on one host."""

    host: str
    dist_dir: str
    copied_bytes: int  # 0 when the distribution was already there


class Package(Record):
    """The distribution as sent: the sums file (``<sha256>  lib/<name>`` lines) and the
    tar stream of ``lib/``."""

    sums: bytes
    tar: bytes

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.sums).hexdigest()


@lru_cache(maxsize=2)
def package(lib_dir: Path) -> Package:
    """The tar stream and sums of ``lib_dir`` (built once per process)."""
    files = sorted(p for p in lib_dir.iterdir() if p.is_file())
    if not files:
        raise SetupError(f"Cassandra distribution {lib_dir} holds no files; `casslab fetch`")
    lines = []
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in files:
            data = path.read_bytes()
            lines.append(f"{hashlib.sha256(data).hexdigest()}  lib/{path.name}\n")
            info = tarfile.TarInfo(f"lib/{path.name}")
            info.size = len(data)
            info.mode = 0o644
            info.mtime = int(path.stat().st_mtime)
            tar.addfile(info, io.BytesIO(data))
    return Package(sums="".join(lines).encode(), tar=buffer.getvalue())


def dist_dir(base_dir: str, version: str) -> str:
    return f"{base_dir.rstrip('/')}/dist/{version}"


def deploy_distribution(host: RemoteHost, dist: Distribution) -> Deployed:
    """Make ``<base_dir>/dist/<version>/lib`` on ``host`` hold exactly ``dist``'s jars:
    nothing is sent when its sums file matches and every file checks; otherwise the tar
    stream is unpacked beside it, checked, and moved into place. A host with a
    ``cassandra_home`` uses that install instead (:func:`installed_distribution`)."""
    if host.host.cassandra_home is not None:
        return installed_distribution(host, dist.version)
    pack = package(dist.lib_dir)
    target = dist_dir(host.host.base_dir, dist.version)
    check = ["sh", "-c", _CHECK_SCRIPT, "casslab-check"]
    if host.run([*check, target], check=False, stdin=pack.sums).exit_code == 0:
        return Deployed(host=host.host.address, dist_dir=target, copied_bytes=0)
    part = f"{target}.casslab-part"
    host.run(["rm", "-rf", "--", part])
    host.run(["mkdir", "-p", "--", part])
    host.run(["tar", "-x", "-f", "-", "-C", part], stdin=pack.tar, timeout_s=DEPLOY_TIMEOUT_S)
    host.put_bytes(pack.sums, f"{part}/{SUMS_FILE}")
    result = host.run([*check, part], check=False, stdin=pack.sums, timeout_s=DEPLOY_TIMEOUT_S)
    if result.exit_code != 0:
        host.run(["rm", "-rf", "--", part], check=False)
        raise RemoteCommandError(
            f"host {host.host.label}: the Cassandra {dist.version} files unpacked in {part} "
            "do not match their sha256 sums (removed); run again, and check the host's disk",
            result.exit_code,
            result.stderr,
        )
    host.run(["rm", "-rf", "--", target])
    host.run(["mv", "--", part, target])
    return Deployed(host=host.host.address, dist_dir=target, copied_bytes=len(pack.tar))


def installed_distribution(host: RemoteHost, version: str) -> Deployed:
    """The host's own Cassandra install (``cassandra_home``), checked to hold the main jar
    of ``version`` in its ``lib/`` (``apache-cassandra-<v>.jar`` of a release or package,
    or ``cassandra-all-<v>.jar`` of a Maven layout); a :class:`SetupError` naming what is
    there and the fix."""
    home = str(host.host.cassandra_home).rstrip("/") or "/"
    jars = [f"{home}/lib/{name}-{version}.jar" for name in MAIN_JARS]
    either = ["sh", "-c", 'test -f "$1" || test -f "$2"', "casslab-jar", *jars]
    if host.run(either, check=False).exit_code == 0:
        return Deployed(host=host.host.address, dist_dir=home, copied_bytes=0)
    names = [arg for name in MAIN_JARS for arg in ("-o", "-name", f"{name}-*.jar")][1:]
    found = host.run(["find", f"{home}/lib", "-maxdepth", "1", *names], check=False)
    there = sorted(line.rsplit("/", 1)[-1] for line in found.stdout.split())
    held = ", ".join(there) if there else "no Cassandra jar"
    raise SetupError(
        f"host {host.host.label}: cassandra_home {home} holds {held} in lib/, not Cassandra "
        f"{version}; point cassandra_home at a {version} install, run the cluster at that "
        "version (--version), or remove cassandra_home to copy the jars from this machine"
    )


def find_java(host: RemoteHost, cassandra_version: str) -> jdk.Jdk:
    """The host's Java (``java_home``'s ``bin/java``, else ``java`` on its PATH), checked
    to run ``cassandra_version``; a :class:`SetupError` naming the host and the fix."""
    spec = host.host
    if spec.java_home is not None:
        java = f"{spec.java_home.rstrip('/')}/bin/java"
        if host.run(["test", "-x", java], check=False).exit_code != 0:
            raise SetupError(
                f"host {spec.label}: java_home {spec.java_home} has no executable bin/java; "
                "fix java_home in the inventory (a JDK 11 or 17 install on that host, e.g. "
                "/usr/lib/jvm/java-17-openjdk-amd64) or remove it to use java on the host's PATH"
            )
    else:
        found = host.run(["sh", "-c", "command -v java"], check=False)
        java = found.stdout.strip()
        if found.exit_code != 0 or not java:
            raise SetupError(
                f"host {spec.label}: no java on the host's PATH; install a JDK 11 or 17 there "
                "(Debian: apt-get install openjdk-17-jdk-headless) or give java_home in the "
                "inventory"
            )
    result = host.run([java, "-version"], check=False)
    try:
        version, feature = jdk.parse_java_version(result.stderr + result.stdout)
        found_jdk = jdk.Jdk(java=Path(java), version=version, feature=feature)
        jdk.check_supported(found_jdk, cassandra_version)
    except SetupError as error:
        raise SetupError(f"host {spec.label}: {error}") from None
    return found_jdk


def available_memory_bytes(host: RemoteHost) -> int:
    """MemAvailable of the host's /proc/meminfo."""
    for line in host.read_text("/proc/meminfo").splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    raise SetupError(f"host {host.host.label}: /proc/meminfo has no MemAvailable line")
