"""The experiment file's Cassandra versions and collectors against the JDK casslab runs its
nodes with (``$JAVA_HOME``, else ``java`` on PATH): a ``cluster.version`` level, the
``cluster`` section's ``version`` and ``node_versions``, a ``cluster.gc`` level. Each is
refused before anything starts with the JDK, the versions it needs and how to fix it.

There is no JDK factor (``cluster.java_home``): one JDK runs every trial of a run, and the
factor check refuses that name among the unknown cluster factors. Not checked here: a
cluster casslab does not start on this machine (``use:``, an attached one; ``hosts:``,
each host's own JDK, checked when casslab deploys to it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from casslab.errors import CasslabError

if TYPE_CHECKING:
    from casslab.host.jdk import Jdk

VERSION_FORM = re.compile(r"\d+\.\d+\.\d+")


@cache
def _found_jdk() -> Jdk | None:
    """The JDK casslab runs nodes with, asked once per process for every level's check
    (None: none found; the run says so before it starts)."""
    from casslab.host import jdk

    try:
        return jdk.probe()
    except CasslabError:
        return None


def version_level_problems(level: object) -> list[str]:
    """Problems of a ``cluster.version`` level: not a version like 5.0.8, or a version the
    JDK casslab found cannot run (when no JDK is found, the run says so before it starts)."""
    if not isinstance(level, str) or not VERSION_FORM.fullmatch(level):
        return [f"expected a Cassandra version like 5.0.8, got {level!r}"]
    from casslab.host import jdk

    java = _found_jdk()
    if java is None:
        return []
    try:
        jdk.check_supported(java, level)
    except CasslabError as error:
        return [str(error).replace("--version 5.0.x", "a 5.0.x level")]
    return []


def gc_level_problems(level: object) -> list[str]:
    """Problems of a ``cluster.gc`` level: not a collector casslab knows, or one the JDK
    casslab found cannot run (asked of the JVM)."""
    from casslab.cluster import collectors

    try:
        name = collectors.canonical(str(level))
    except ValueError as error:
        return [str(error)]
    java = _found_jdk()
    if java is None:
        return []
    refused = collectors.unsupported(java.java, name)
    return [refused] if refused is not None else []


def section_version_problems(data: Mapping[str, Any]) -> list[str]:
    """Problems of the ``cluster`` section's ``version`` and ``node_versions`` (when no
    ``cluster.version`` factor replaces the version) that the JDK casslab found cannot
    run, as ``cluster.<field>: ...``; none for a cluster casslab does not start here."""
    cluster = data.get("cluster")
    if not isinstance(cluster, Mapping) or cluster.get("use") or cluster.get("hosts"):
        return []
    wanted: dict[str, str] = {}
    factors = data.get("factors")
    if not (isinstance(factors, Mapping) and "cluster.version" in factors):
        wanted["version"] = str(cluster.get("version"))
    others = cluster.get("node_versions")
    for node, version in others.items() if isinstance(others, Mapping) else ():
        wanted.setdefault(f"node_versions.{node}", str(version))
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
