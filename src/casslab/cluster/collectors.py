"""The JVM garbage collector a node runs (pure): Cassandra's own G1 settings unless a
cluster asks for another collector (``casslab up --gc ZGC``, an experiment's ``cluster.gc``).

G1's flags are the G1 section of Cassandra 5.0's ``conf/jvm17-server.options``; the other
collectors run with the JDK's own defaults for them (Cassandra ships no section for them on
JDK 17), so a comparison is "Cassandra as shipped" against "the same node with only the
collector changed"."""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

G1 = "G1"
COLLECTORS: dict[str, tuple[str, ...]] = {
    G1: (
        "-XX:+UseG1GC",
        "-XX:+ParallelRefProcEnabled",
        "-XX:MaxTenuringThreshold=1",
        "-XX:G1HeapRegionSize=16m",
        "-XX:G1RSetUpdatingPauseTimePercent=5",
        "-XX:MaxGCPauseMillis=300",
        "-XX:InitiatingHeapOccupancyPercent=70",
    ),
    "ZGC": ("-XX:+UseZGC",),
    "Shenandoah": ("-XX:+UseShenandoahGC",),
    "Parallel": ("-XX:+UseParallelGC",),
}
_ALIASES = {name.lower(): name for name in COLLECTORS} | {
    "g1gc": G1,
    "zgc": "ZGC",
    "shenandoahgc": "Shenandoah",
    "parallelgc": "Parallel",
}


def canonical(name: str) -> str:
    """``zgc`` -> ``ZGC``; ValueError naming the collectors for an unknown one."""
    found = _ALIASES.get(name.strip().lower())
    if found is None:
        raise ValueError(
            f"gc {name!r}: expected one of {', '.join(COLLECTORS)} (G1 is Cassandra's default)"
        )
    return found


def flags(name: str | None) -> tuple[str, ...]:
    """The JVM flags of collector ``name`` (None: Cassandra's G1)."""
    return COLLECTORS[canonical(name) if name is not None else G1]


@cache
def unsupported(java: Path, name: str) -> str | None:
    """Why the JVM ``java`` cannot run collector ``name`` (not every JDK build has
    Shenandoah), or None when it can: asked of the JVM itself."""
    command = [str(java), *flags(name), "-version"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{java} could not be asked ({error})"
    if done.returncode == 0:
        return None
    said = (done.stderr.strip().splitlines() or ["no reason given"])[0]
    return f"{java} cannot run the {name} collector: {said}"
