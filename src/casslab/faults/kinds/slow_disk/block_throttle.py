"""The slow-disk fault: a block-I/O throttle on a node's cgroup for the fault's window.

The throttle acts on the disk holding the node's data directory (``os.stat(...).st_dev``;
a partition is mapped to its whole disk, as the block throttles act on disks), at ``rate``
bytes per second for reads and writes alike and/or ``iops`` operations per second: cgroup
v1 ``blkio.throttle.{read,write}_{bps,iops}_device``, v2 ``io.max``. Whatever the
cgroup held for that device before (the cluster's own ``--io-read``/``--io-write``) is
put back at the window's end.

What cgroup v1 cannot throttle: buffered writes are written back later by kernel threads
outside the node's cgroup and pass unthrottled (see :mod:`casslab.host.cgroups`);
reads that miss the page cache, direct I/O and the commit log's syncs are throttled. v2's
``io.max`` throttles writeback too.

Only nodes that run in a casslab cgroup take it: isolated nodes (``--isolation netns``,
or any node limit such as ``--cpus``). Plain local nodes, nodes on SSH hosts and attached
clusters are refused before anything is throttled, naming the node and the fix. A stop
(``down``) removes the nodes' cgroups, so no throttle outlives the cluster's run.

The pure part (:func:`whole_disk`, :func:`throttle_writes`, :func:`restore_writes`, the
refusals) says what to write where; :func:`begin` and :func:`end` do it.
"""

from __future__ import annotations

import os
from pathlib import Path

from casslab.cluster import Cluster
from casslab.cluster.capabilities import node_hosts_of
from casslab.errors import ClusterError, ConfigError
from casslab.host.cgroups import Hierarchy, read_hierarchy
from casslab.record import Record

SYS_DEV_BLOCK = Path("/sys/dev/block")
V1_FILES = {
    "read_bps": "blkio.throttle.read_bps_device",
    "write_bps": "blkio.throttle.write_bps_device",
    "read_iops": "blkio.throttle.read_iops_device",
    "write_iops": "blkio.throttle.write_iops_device",
}
V2_FILE = "io.max"
FIX = (
    "slow-disk throttles a node's cgroup, so the cluster must run with isolation: start it "
    "with `casslab up --isolation netns` or a node limit (e.g. --cpus 2), or in an "
    "experiment file cluster: {isolation: netns}"
)


class Throttled(Record):
    """A throttle in place: where, and what to write back at its end."""

    directory: str  # the node's cgroup directory of the blkio (v1) or io (v2) controller
    device: str  # major:minor of the whole disk
    restore: tuple[tuple[str, str], ...]  # (file, value) that undo the throttle


def whole_disk(device: str, sys_block: Path = SYS_DEV_BLOCK) -> str:
    """``major:minor`` of the disk that ``device`` (``major:minor``) is, or is a partition
    of; :class:`ConfigError` when it is no block device (tmpfs, overlay)."""
    entry = sys_block / device
    if not entry.exists():
        raise ConfigError(
            f"device {device} is not a block device (a tmpfs or overlay file system?): a "
            "block-I/O throttle cannot act on it; keep the nodes' data on a disk"
        )
    if (entry / "partition").exists():
        return (entry.resolve().parent / "dev").read_text().strip()
    return device


def data_device(directory: Path, sys_block: Path = SYS_DEV_BLOCK) -> str:
    """``major:minor`` of the disk holding ``directory``."""
    stat = directory.stat()
    return whole_disk(f"{os.major(stat.st_dev)}:{os.minor(stat.st_dev)}", sys_block)


def throttle_writes(
    version: int, device: str, rate_bps: int | None, iops: int | None
) -> list[tuple[str, str]]:
    """(file, value) to write into a node's cgroup to throttle ``device``: v1, one file
    per direction and unit; v2, one ``io.max`` line."""
    if version == 1:
        writes: list[tuple[str, str]] = []
        for unit, value in (("bps", rate_bps), ("iops", iops)):
            if value is not None:
                writes += [
                    (V1_FILES[f"{way}_{unit}"], f"{device} {value}") for way in ("read", "write")
                ]
        return writes
    parts = [device]
    if rate_bps is not None:
        parts += [f"rbps={rate_bps}", f"wbps={rate_bps}"]
    if iops is not None:
        parts += [f"riops={iops}", f"wiops={iops}"]
    return [(V2_FILE, " ".join(parts))]


def device_value(text: str, device: str) -> str | None:
    """What a throttle file's ``text`` holds for ``device`` (the rest of its line)."""
    for line in text.splitlines():
        name, _, value = line.strip().partition(" ")
        if name == device:
            return value.strip()
    return None


def restore_writes(version: int, device: str, current: dict[str, str]) -> list[tuple[str, str]]:
    """(file, value) that put back what the throttle files held for ``device`` before
    (``current``: file -> its text): a v1 ``0`` or v2 ``max`` clears a limit."""
    if version == 1:
        return [
            (name, f"{device} {device_value(current.get(name, ''), device) or 0}")
            for name in V1_FILES.values()
        ]
    before = device_value(current.get(V2_FILE, ""), device) or ""
    values = dict(part.split("=", 1) for part in before.split() if "=" in part)
    keys = ("rbps", "wbps", "riops", "wiops")
    return [(V2_FILE, " ".join([device, *(f"{k}={values.get(k, 'max')}" for k in keys)]))]


def refusal(cluster_name: str, number: int, *, ssh: bool, cgroup: str | None) -> str | None:
    """Why node ``number`` cannot take a slow disk (None: it can)."""
    if ssh:
        return (
            f"node {number} of {cluster_name!r} runs on an SSH host: casslab puts no cgroup "
            "there, and slow-disk throttles a node's cgroup; use isolated nodes on this "
            "machine (casslab up --isolation netns)"
        )
    if cgroup is None:
        return f"node {number} of {cluster_name!r} runs in no cgroup (a plain local node); {FIX}"
    return None


def _controller(hierarchy: Hierarchy) -> str:
    return "blkio" if hierarchy.version == 1 else "io"


def check(cluster: Cluster, number: int) -> tuple[Path, str, int]:
    """Node ``number``'s cgroup directory of the I/O controller, its data disk and the
    cgroup version; :class:`ConfigError` naming the node and the fix when it has none."""
    node = cluster.node(number)
    reason = refusal(
        cluster.name, number, ssh=node_hosts_of(cluster) is not None, cgroup=node.cgroup
    )
    if reason is not None:
        raise ConfigError(reason)
    assert node.cgroup is not None
    hierarchy = read_hierarchy()
    controller = _controller(hierarchy)
    if controller not in hierarchy.mounts:
        raise ConfigError(
            f"node {number}: slow-disk needs the cgroup {controller} controller, which is not "
            f"mounted; `mkdir -p /sys/fs/cgroup/blkio && mount -t cgroup -o blkio cgroup "
            "/sys/fs/cgroup/blkio`, then restart the cluster (casslab down; casslab up)"
        )
    directory = hierarchy.mounts[controller] / node.cgroup
    if not directory.is_dir():
        raise ClusterError(
            f"node {number} of {cluster.name!r} has no {controller} cgroup at {directory} "
            "(is the cluster up? `casslab up` makes its nodes' cgroups)"
        )
    node.directory.mkdir(parents=True, exist_ok=True)
    return directory, data_device(node.directory), hierarchy.version


def begin(cluster: Cluster, number: int, rate_bps: int | None, iops: int | None) -> Throttled:
    """Throttle node ``number``'s data disk in its cgroup; what :func:`end` needs."""
    directory, device, version = check(cluster, number)
    names = list(V1_FILES.values()) if version == 1 else [V2_FILE]
    current = {name: (directory / name).read_text() for name in names}
    throttled = Throttled(
        directory=str(directory),
        device=device,
        restore=tuple(restore_writes(version, device, current)),
    )
    try:
        for name, value in throttle_writes(version, device, rate_bps, iops):
            _write(directory / name, value)
    except BaseException:
        end(throttled)
        raise
    return throttled


def end(throttled: Throttled) -> None:
    """Lift the throttle (put back what was there); a cgroup already removed (the node's
    cluster stopped) has nothing left to lift."""
    directory = Path(throttled.directory)
    if not directory.is_dir():
        return
    for name, value in throttled.restore:
        _write(directory / name, value)


def _write(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except OSError as error:
        raise ClusterError(
            f"slow-disk: cannot write {value!r} to {path}: {error.strerror or error}"
        ) from error
