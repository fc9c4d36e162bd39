"""``casslab doctor``: check what casslab needs on this machine, and say how to fix it."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path

import psutil

from casslab.cluster import distribution
from casslab.cluster.heap import OVERHEAD_MIB
from casslab.cluster.wait import port_free
from casslab.errors import EngineError, SetupError
from casslab.host import jdk
from casslab.record import Record

GIB = 1024**3


class Verdict(StrEnum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"


class Check(Record):
    name: str
    verdict: Verdict
    detail: str
    fix: str = ""


def check_jdk(version: str) -> Check:
    try:
        found = jdk.probe()
        jdk.check_supported(found, version)
    except SetupError as error:
        return Check(name="JDK", verdict=Verdict.FAIL, detail=str(error))
    return Check(name="JDK", verdict=Verdict.OK, detail=f"Java {found.version} at {found.java}")


def check_maven() -> Check:
    mvn = shutil.which("mvn")
    if mvn is None:
        return Check(
            name="Maven",
            verdict=Verdict.WARN,
            detail="mvn not on PATH: Cassandra versions not yet cached cannot be fetched",
            fix="apt-get install maven, or set CASSANDRA_HOME to an unpacked tarball",
        )
    return Check(name="Maven", verdict=Verdict.OK, detail=mvn)


def check_cache(version: str) -> Check:
    found = distribution.cached(version)
    if found is None:
        return Check(
            name="Cassandra",
            verdict=Verdict.WARN,
            detail=f"Cassandra {version} is not cached in {distribution.version_dir(version)}",
            fix=f"`casslab fetch --version {version}` (or the first `casslab up`) downloads it",
        )
    return Check(name="Cassandra", verdict=Verdict.OK, detail=f"{version} in {found.lib_dir}")


def check_memory(nodes: int = 3, heap_mib: int = 1024) -> Check:
    available = psutil.virtual_memory().available
    need = nodes * (heap_mib + OVERHEAD_MIB) * 1024 * 1024
    detail = f"{available / GIB:.1f} GiB available; {nodes} nodes of {heap_mib}M heap need about "
    detail += f"{need / GIB:.1f} GiB"
    if available < need:
        return Check(
            name="Memory",
            verdict=Verdict.WARN,
            detail=detail,
            fix="use fewer nodes or a smaller --heap (512M is enough for tests)",
        )
    return Check(name="Memory", verdict=Verdict.OK, detail=detail)


def check_disk(path: Path) -> Check:
    path.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(path).free
    if free < 5 * GIB:
        return Check(
            name="Disk",
            verdict=Verdict.WARN,
            detail=f"{free / GIB:.1f} GiB free under {path}",
            fix="free disk space or set CASSLAB_HOME to a larger filesystem",
        )
    return Check(name="Disk", verdict=Verdict.OK, detail=f"{free / GIB:.1f} GiB free under {path}")


def check_ports(address: str = "127.0.0.1") -> Check:
    busy = [p for p in (9042, 7000) if not port_free(address, p)]
    if busy:
        return Check(
            name="Ports",
            verdict=Verdict.WARN,
            detail=f"{address} ports {busy} are in use",
            fix="`casslab down` if it is a casslab cluster, or use --base-address 127.0.1.1",
        )
    return Check(name="Ports", verdict=Verdict.OK, detail=f"{address}:9042 and :7000 are free")


def check_engine() -> Check:
    """The load engine every load runs on: a wheel carries it; a checkout builds it."""
    from casslab.load import engine_finder

    try:
        found = engine_finder.find()
    except EngineError as error:
        reason = str(error)
        fix = reason.split("; ", 1)[1] if "; " in reason else ""
        return Check(name="Engine", verdict=Verdict.FAIL, detail=reason.split("; ")[0], fix=fix)
    return Check(name="Engine", verdict=Verdict.OK, detail=str(found))


class Tool(Record):
    """Debian commands a feature needs, and the packages that have them."""

    name: str
    commands: tuple[str, ...]
    needed_for: str
    packages: tuple[str, ...]


TOOLS = (
    Tool(
        name="Isolation",
        commands=("ip", "nsenter"),
        needed_for="isolated nodes (`casslab up --isolation netns`)",
        packages=("iproute2", "util-linux"),
    ),
    Tool(
        name="WAN links",
        commands=("wirefilter", "dpipe", "vde_plug"),
        needed_for="datacenters joined by emulated WAN links (topologies)",
        packages=("vde2",),
    ),
    Tool(
        name="sshd",
        commands=("sshd",),
        needed_for="only to test the ssh backend on this machine (`make test`)",
        packages=("openssh-server",),
    ),
    Tool(
        name="Chromium",
        commands=("chromium",),
        needed_for="only the report's browser check (`make test`)",
        packages=("chromium",),
    ),
)


def _which(command: str) -> str | None:
    """``command`` on PATH, or in the system directories (sshd is in /usr/sbin)."""
    return shutil.which(command) or shutil.which(command, path="/usr/sbin:/sbin")


def check_tool(tool: Tool, which: Callable[[str], str | None] = _which) -> Check:
    """A warning naming the missing commands, what needs them and the one command that
    installs them; the features that need none work without them."""
    missing = [c for c in tool.commands if which(c) is None]
    if missing:
        return Check(
            name=tool.name,
            verdict=Verdict.WARN,
            detail=f"{', '.join(missing)} not found: needed for {tool.needed_for}",
            fix=f"apt-get update && apt-get install -y {' '.join(tool.packages)}",
        )
    return Check(name=tool.name, verdict=Verdict.OK, detail=", ".join(tool.commands))


def run_checks(version: str, data_root: Path) -> list[Check]:
    return [
        check_jdk(version),
        check_maven(),
        check_cache(version),
        check_engine(),
        *(check_tool(tool) for tool in TOOLS),
        check_memory(),
        check_disk(data_root),
        check_ports(),
    ]
