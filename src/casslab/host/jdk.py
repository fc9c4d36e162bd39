"""Find the JDK and check it can run a Cassandra version."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from casslab.errors import SetupError
from casslab.record import Record

# Java feature releases each Cassandra series supports (from its release notes).
SUPPORTED_JDKS: dict[str, tuple[int, ...]] = {
    "4.0": (8, 11),
    "4.1": (8, 11),
    "5.0": (11, 17),
}


class Jdk(Record):
    java: Path
    version: str  # e.g. 17.0.15
    feature: int  # e.g. 17


def series(cassandra_version: str) -> str:
    """``5.0.4`` -> ``5.0``."""
    return ".".join(cassandra_version.split(".")[:2])


def checked_java_home(value: str) -> str:
    """A JDK's home as a cluster field takes it: an absolute path (without a trailing
    slash); a ValueError naming the value and the form otherwise."""
    if not value.startswith("/"):
        raise ValueError(
            f"java_home {value!r}: give the JDK's absolute path, e.g. "
            "/usr/lib/jvm/java-17-openjdk-amd64"
        )
    return value.rstrip("/") or "/"


def find_java(path: str | None = None, java_home: str | None = None) -> Path:
    """The java executable: ``java_home``'s ``bin/java`` when given, else
    ``$JAVA_HOME/bin/java`` if set, else ``java`` on PATH."""
    home = java_home if java_home is not None else os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home) / "bin" / "java"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
        if java_home is not None:  # asked for (--java-home, cluster.java_home)
            raise SetupError(
                f"java_home {home} has no executable bin/java; give the home of a JDK 11 or "
                "17 install (e.g. /usr/lib/jvm/java-17-openjdk-amd64)"
            )
        raise SetupError(
            f"JAVA_HOME={home} has no executable bin/java; point JAVA_HOME at a JDK 11 or 17 "
            "install (e.g. /usr/lib/jvm/java-17-openjdk-amd64) or unset it to use java on PATH"
        )
    found = shutil.which("java", path=path)
    if found is None:
        raise SetupError(
            "no java on PATH and JAVA_HOME is not set; Cassandra 5.0 needs JDK 11 or 17: "
            "install one (Debian: apt-get install openjdk-17-jdk-headless) or set JAVA_HOME"
        )
    return Path(found)


def parse_java_version(text: str) -> tuple[str, int]:
    """Parse the output of ``java -version``: ('17.0.15', 17) or ('1.8.0_392', 8)."""
    match = re.search(r'version "([^"]+)"', text)
    if match is None:
        raise SetupError(f"cannot read the Java version from `java -version`: {text.strip()!r}")
    version = match.group(1)
    parts = version.split(".")
    feature = int(parts[1]) if parts[0] == "1" else int(re.sub(r"\D.*", "", parts[0]) or 0)
    return version, feature


def probe(java: Path | None = None) -> Jdk:
    """Run ``java -version`` and return what it is."""
    exe = java or find_java()
    try:
        result = subprocess.run(
            [str(exe), "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SetupError(f"running {exe} -version failed: {error}") from error
    version, feature = parse_java_version(result.stderr + result.stdout)
    return Jdk(java=exe, version=version, feature=feature)


def check_supported(jdk: Jdk, cassandra_version: str) -> None:
    """Raise SetupError when this JDK cannot run this Cassandra version."""
    wanted = SUPPORTED_JDKS.get(series(cassandra_version))
    if wanted is None:
        known = ", ".join(f"{s}.x" for s in SUPPORTED_JDKS)
        raise SetupError(
            f"Cassandra {cassandra_version} is not a series casslab runs; use one of {known}"
        )
    if jdk.feature not in wanted:
        names = " or ".join(str(v) for v in wanted)
        raise SetupError(
            f"Cassandra {cassandra_version} needs JDK {names}, but {jdk.java} is Java "
            f"{jdk.version}; install JDK {wanted[-1]} and point JAVA_HOME at it, or choose a "
            f"Cassandra version this JDK runs (--version 5.0.x runs on JDK 11 and 17)"
        )
