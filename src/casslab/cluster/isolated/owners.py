"""Which cluster directory owns which namespaces, veths, bridge and cgroups, kept where
they live (``/run``, gone at a reboot as they are), so that a later ``up`` or ``down``
removes what a crashed or killed casslab left behind.

An owner file is written before anything is made; a cluster whose directory (or its
``state.json``) no longer exists owns nothing any more, and its resources are removed.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from casslab.cluster.isolated import network, wan
from casslab.cluster.isolated.isolated_state import Bridge
from casslab.host.cgroups import MOUNTINFO, Cgroups, parse_mountinfo

OWNERS_DIR = Path("/run/casslab/isolated")


def claim(cluster_id: str, directory: Path, cgroup_root: str, bridge: Bridge | None) -> None:
    """Record that ``directory``'s cluster owns the resources named with ``cluster_id``
    (and the blackhole route of its bridge's subnet while it is stopped)."""
    OWNERS_DIR.mkdir(parents=True, exist_ok=True)
    record = {
        "directory": str(directory.resolve()),
        "cgroup_root": cgroup_root,
        "bridge": bridge.model_dump() if bridge is not None else None,
    }
    (OWNERS_DIR / f"{cluster_id}.json").write_text(json.dumps(record) + "\n")


def release(cluster_id: str, cgroup_root: str, bridge: Bridge | None = None) -> None:
    """Remove every resource of ``cluster_id``: processes left in its cgroups (they are
    its nodes) are killed, then the WAN links' keeper and pipelines, the cgroups,
    namespaces, veths, taps, bridges and the blackhole route of ``bridge``'s subnet go."""
    wan.remove(cluster_id)
    hierarchy = parse_mountinfo(MOUNTINFO.read_text())
    if hierarchy is not None:
        Cgroups(hierarchy, cgroup_root, list(hierarchy.mounts)).remove()
    network.remove(cluster_id)
    if bridge is not None:
        network.unguard(bridge)
    with contextlib.suppress(FileNotFoundError):
        (OWNERS_DIR / f"{cluster_id}.json").unlink()


def release_recorded(cluster_id: str) -> None:
    """Release ``cluster_id`` as its owner file records it (cgroups, network and the
    blackhole route of a stopped cluster), if it has one: before a new cluster takes the
    same directory."""
    path = OWNERS_DIR / f"{cluster_id}.json"
    try:
        record = json.loads(path.read_text())
        found = record.get("bridge")
        bridge = Bridge.model_validate(found) if found is not None else None
        cgroup_root = str(record["cgroup_root"])
    except (OSError, ValueError, KeyError, TypeError):
        return
    release(cluster_id, cgroup_root, bridge)


def sweep() -> list[str]:
    """Release the resources of every cluster whose directory is gone; their ids."""
    if not OWNERS_DIR.is_dir() or os.geteuid() != 0:
        return []
    swept: list[str] = []
    for path in sorted(OWNERS_DIR.glob("*.json")):
        try:
            record = json.loads(path.read_text())
            directory = Path(record["directory"])
            cgroup_root = str(record["cgroup_root"])
            found = record.get("bridge")
            bridge = Bridge.model_validate(found) if found is not None else None
        except (OSError, ValueError, KeyError, TypeError):
            path.unlink(missing_ok=True)  # unreadable: nothing can be found from it
            continue
        if not (directory / "state.json").is_file():
            release(path.stem, cgroup_root, bridge)
            swept.append(path.stem)
    return swept
