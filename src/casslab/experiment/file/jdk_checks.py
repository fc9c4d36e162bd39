"""The experiment file's Cassandra versions and collectors against the JDK casslab runs its
nodes with (the cluster's ``java_home``, else ``$JAVA_HOME``, else ``java`` on PATH): a
``cluster.version`` level, the ``cluster`` section's ``version`` and ``node_versions``, a
``cluster.gc`` level, and each level of a ``cluster.java_home`` factor against every
version the file runs. Each is refused before anything starts with the JDK, the versions
it needs and how to fix it. Not checked here: a cluster casslab does not start on this
machine (``use:``, an attached one; ``hosts:``, each host's own JDK, checked when casslab
deploys to it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from casslab.errors import CasslabError

if TYPE_CHECKING:
    from casslab.host.jdk import Jdk

VERSION_FORM = re.compile(r"\d+\.\d+\.\d+")
THIS_HOST: Sequence[str | None] = (None,)
"""The JDK of this host's environment ($JAVA_HOME, else java on PATH), as ``homes``."""


@cache
def _found_jdk(java_home: str | None = None) -> Jdk | None:
    """The JDK at ``java_home`` (None: this host's), asked once per process for every
    level's check (None: none found; the run says so before it starts)."""
    from casslab.host import jdk

    try:
        return jdk.probe(jdk.find_java(java_home=java_home) if java_home else None)
    except CasslabError:
        return None


def java_home_level_problems(level: object, versions: Sequence[str | None]) -> list[str]:
    """Problems of a ``cluster.java_home`` level: not an absolute path, no JDK there, or a
    JDK that cannot run one of ``versions`` (None: the default 5.0.x)."""
    if not isinstance(level, str) or not level.startswith("/"):
        return [
            f"expected the absolute path of a JDK's home, e.g. "
            f"/usr/lib/jvm/java-17-openjdk-amd64, got {level!r}"
        ]
    from casslab.cluster import distribution
    from casslab.host import jdk

    try:
        java = jdk.probe(jdk.find_java(java_home=level))
    except CasslabError as error:
        return [str(error)]
    problems = []
    for version in dict.fromkeys(v or distribution.DEFAULT_VERSION for v in versions):
        if not VERSION_FORM.fullmatch(version):
            continue  # the version's own check says so
        try:
            jdk.check_supported(java, version)
        except CasslabError as error:
            problems.append(str(error).replace("point JAVA_HOME at it", "give its home"))
    return problems


def version_level_problems(level: object, homes: Sequence[str | None] = THIS_HOST) -> list[str]:
    """Problems of a ``cluster.version`` level: not a version like 5.0.8, or a version a
    JDK of ``homes`` cannot run (a JDK not found: the run says so before it starts)."""
    if not isinstance(level, str) or not VERSION_FORM.fullmatch(level):
        return [f"expected a Cassandra version like 5.0.8, got {level!r}"]
    from casslab.host import jdk

    problems = []
    for home in homes:
        java = _found_jdk(home)
        if java is None:
            continue
        try:
            jdk.check_supported(java, level)
        except CasslabError as error:
            problems.append(str(error).replace("--version 5.0.x", "a 5.0.x level"))
    return problems


def gc_level_problems(level: object, homes: Sequence[str | None] = THIS_HOST) -> list[str]:
    """Problems of a ``cluster.gc`` level: not a collector casslab knows, or one a JDK of
    ``homes`` cannot run (asked of the JVM)."""
    from casslab.cluster import collectors

    try:
        name = collectors.canonical(str(level))
    except ValueError as error:
        return [str(error)]
    problems = []
    for home in homes:
        java = _found_jdk(home)
        refused = collectors.unsupported(java.java, name) if java is not None else None
        if refused is not None:
            problems.append(refused)
    return problems


def section_version_problems(data: Mapping[str, Any]) -> list[str]:
    """Problems of the ``cluster`` section's ``version`` and ``node_versions`` (when no
    ``cluster.version`` factor replaces the version) that the JDK casslab found cannot
    run, as ``cluster.<field>: ...``; none for a cluster casslab does not start here."""
    cluster = data.get("cluster")
    if not isinstance(cluster, Mapping) or cluster.get("use") or cluster.get("hosts"):
        return []
    factors = data.get("factors")
    if isinstance(factors, Mapping) and "cluster.java_home" in factors:
        return []  # each JDK level is checked with the versions
    wanted: dict[str, str] = {}
    if not (isinstance(factors, Mapping) and "cluster.version" in factors):
        wanted["version"] = str(cluster.get("version"))
    others = cluster.get("node_versions")
    for node, version in others.items() if isinstance(others, Mapping) else ():
        wanted.setdefault(f"node_versions.{node}", str(version))
    home = cluster.get("java_home")
    if isinstance(home, str) and home.startswith("/"):  # else the model says what it takes
        levels = factors.get("cluster.version") if isinstance(factors, Mapping) else None
        versions: list[str | None] = [str(v) for v in levels] if isinstance(levels, list) else []
        versions += [None if v == "None" else v for v in wanted.values()]  # None: the default
        return [f"cluster.java_home: {p}" for p in java_home_level_problems(home, versions)]
    java = _found_jdk() if any(VERSION_FORM.fullmatch(v) for v in wanted.values()) else None
    if java is None:
        return []
    from casslab.host import jdk

    problems = []
    for field, version in wanted.items():
        if not VERSION_FORM.fullmatch(version):
            continue  # the model says what a version looks like
        try:
            jdk.check_supported(java, version)
        except CasslabError as error:
            problems.append(f"cluster.{field}: {str(error).replace('--version', 'version')}")
    return problems
