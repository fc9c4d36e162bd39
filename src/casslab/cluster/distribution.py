"""Obtain a Cassandra distribution: jars from Maven Central into a per-version cache,
or an official tarball install named by ``CASSANDRA_HOME``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from casslab.cluster.class_catalogue import ClassCatalogue, class_catalogue_from_jar
from casslab.cluster.settings import SettingsCatalogue, catalogue_from_jar
from casslab.errors import SetupError
from casslab.paths import cache_root
from casslab.record import Record

DEFAULT_VERSION = "5.0.9"  # newest 5.0.x on Maven Central when this was written
MAVEN_GROUP = "org.apache.cassandra"
MAVEN_ARTIFACT = "cassandra-all"
_VERSION_RE = re.compile(r"^\d+\.\d+\.\d+$")
_CATALOGUE_FILE = "settings-catalogue.json"
_CLASS_CATALOGUE_FILE = "class-catalogue.json"

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>casslab</groupId>
  <artifactId>cassandra-resolve</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>{group}</groupId>
      <artifactId>{artifact}</artifactId>
      <version>{version}</version>
    </dependency>
  </dependencies>
</project>
"""


class Distribution(Record):
    """A Cassandra install casslab can start: its version and its jar directory."""

    version: str
    lib_dir: Path
    source: str  # "maven" or "CASSANDRA_HOME"
    main_jar: Path

    @property
    def classpath(self) -> str:
        return f"{self.lib_dir}/*"


def _find_main_jar(lib_dir: Path) -> Path | None:
    for pattern in ("cassandra-all-*.jar", "apache-cassandra-*.jar"):
        for jar in sorted(lib_dir.glob(pattern)):
            if "thrift" not in jar.name and "test" not in jar.name:
                return jar
    return None


def _version_of_home(home: Path, jar: Path) -> str:
    match = re.search(r"(\d+\.\d+\.\d+)", jar.name)
    if match is None:
        raise SetupError(f"CASSANDRA_HOME={home}: cannot tell the version from {jar.name}")
    return match.group(1)


def from_home(home: Path) -> Distribution:
    """An official binary tarball install (``bin/``, ``conf/``, ``lib/``)."""
    lib_dir = home / "lib"
    jar = _find_main_jar(lib_dir) if lib_dir.is_dir() else None
    if jar is None:
        raise SetupError(
            f"CASSANDRA_HOME={home} holds no lib/apache-cassandra-*.jar; point it at an "
            "unpacked official tarball (apache-cassandra-5.0.x-bin.tar.gz) or unset it to "
            "let casslab fetch Cassandra from Maven Central"
        )
    return Distribution(
        version=_version_of_home(home, jar), lib_dir=lib_dir, source="CASSANDRA_HOME", main_jar=jar
    )


def version_dir(version: str) -> Path:
    return cache_root() / "cassandra" / version


def cached(version: str) -> Distribution | None:
    """The cached Maven distribution of ``version``, if complete."""
    lib_dir = version_dir(version) / "lib"
    jar = lib_dir / f"{MAVEN_ARTIFACT}-{version}.jar"
    if (version_dir(version) / "complete").is_file() and jar.is_file():
        return Distribution(version=version, lib_dir=lib_dir, source="maven", main_jar=jar)
    return None


def fetch(version: str, mvn: str | None = None) -> Distribution:
    """Resolve ``cassandra-all:<version>`` and its runtime dependencies with Maven, once."""
    if not _VERSION_RE.match(version):
        raise SetupError(
            f"Cassandra version {version!r} is not of the form X.Y.Z; e.g. --version 5.0.9"
        )
    found = cached(version)
    if found is not None:
        return found
    maven = mvn or shutil.which("mvn")
    if maven is None:
        raise SetupError(
            f"Cassandra {version} is not cached and Maven (mvn) is not on PATH; install it "
            "(Debian: apt-get install maven) or set CASSANDRA_HOME to an unpacked tarball"
        )
    target = version_dir(version)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="casslab-mvn-", dir=target.parent) as tmp:
        work = Path(tmp)
        (work / "pom.xml").write_text(
            _POM.format(group=MAVEN_GROUP, artifact=MAVEN_ARTIFACT, version=version)
        )
        command = [
            maven,
            "-B",
            "-q",
            "-Dstyle.color=never",
            "-f",
            str(work / "pom.xml"),
            "dependency:copy-dependencies",
            f"-DoutputDirectory={work / 'lib'}",
            "-DincludeScope=runtime",
        ]
        try:
            result = subprocess.run(
                command, capture_output=True, text=True, timeout=1800, check=False
            )
        except subprocess.TimeoutExpired as error:
            raise SetupError(
                f"Maven did not resolve Cassandra {version} within 30 minutes; check the "
                "network access to Maven Central and run again"
            ) from error
        if result.returncode != 0:
            output = (result.stdout + result.stderr).strip()
            missing = ("Could not find artifact", "was not found in", "could not be resolved")
            if any(m in output for m in missing):
                raise SetupError(
                    f"Cassandra {version} is not on Maven Central ({MAVEN_GROUP}:"
                    f"{MAVEN_ARTIFACT}:{version}); choose a released version such as "
                    f"{DEFAULT_VERSION} or 5.0.x / 4.1.x as listed on Maven Central"
                )
            tail = "\n".join(output.splitlines()[-15:])
            raise SetupError(f"Maven failed to resolve Cassandra {version}:\n{tail}")
        if target.exists():
            shutil.rmtree(target)
        (work / "lib").rename(target.parent / f".{version}.lib")
        target.mkdir()
        (target.parent / f".{version}.lib").rename(target / "lib")
    (target / "complete").write_text(version + "\n")
    found = cached(version)
    if found is None:
        raise SetupError(
            f"Maven finished but {target / 'lib'} has no {MAVEN_ARTIFACT}-{version}.jar; "
            f"delete {target} and run again"
        )
    return found


def home_for(version: str | None = None) -> Distribution | None:
    """CASSANDRA_HOME's distribution when it is set and is ``version`` (None: any), else
    None; nothing is fetched."""
    home = os.environ.get("CASSANDRA_HOME")
    if not home:
        return None
    dist = from_home(Path(home))
    return dist if version is None or version == dist.version else None


def resolve(version: str | None = None) -> Distribution:
    """The distribution to run: CASSANDRA_HOME if set (and no other version asked), else
    the Maven cache, fetching ``version`` (default :data:`DEFAULT_VERSION`) if needed."""
    return home_for(version) or fetch(version or DEFAULT_VERSION)


def settings_catalogue(dist: Distribution) -> SettingsCatalogue:
    """The cassandra.yaml catalogue of ``dist``, cached beside its jars."""
    cache = dist.lib_dir.parent / _CATALOGUE_FILE
    if dist.source == "maven" and cache.is_file():
        try:
            return SettingsCatalogue.model_validate(json.loads(cache.read_text()))
        except ValueError:
            cache.unlink()
    catalogue = catalogue_from_jar(dist.main_jar, dist.version)
    if dist.source == "maven":
        cache.write_text(catalogue.model_dump_json())
    return catalogue


def class_catalogue(dist: Distribution) -> ClassCatalogue:
    """The replication, compaction and compression classes of ``dist``, cached beside its
    jars (reading them takes a few seconds)."""
    cache = dist.lib_dir.parent / _CLASS_CATALOGUE_FILE
    if dist.source == "maven" and cache.is_file():
        try:
            return ClassCatalogue.model_validate(json.loads(cache.read_text()))
        except ValueError:
            cache.unlink()
    catalogue = class_catalogue_from_jar(dist.main_jar, dist.version)
    if dist.source == "maven":
        cache.write_text(catalogue.model_dump_json())
    return catalogue
