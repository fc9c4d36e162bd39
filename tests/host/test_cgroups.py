"""The nodes' cgroups: the hierarchy found in mountinfo, the files written for limits
(pure), and a real cgroup made, joined, limited and removed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from casslab.errors import ConfigError
from casslab.host.cgroup_limits import NodeLimits
from casslab.host.cgroups import (
    Cgroups,
    Hierarchy,
    join,
    limit_writes,
    needed_controllers,
    parse_mountinfo,
)

# this machine's: one mount per v1 controller, and an empty unified tree (hybrid)
HYBRID = """\
30 25 0:26 / /sys/fs/cgroup/cpu rw,relatime shared:9 - cgroup cgroup rw,cpu
31 25 0:27 / /sys/fs/cgroup/cpuacct rw,relatime shared:10 - cgroup cgroup rw,cpuacct
32 25 0:28 / /sys/fs/cgroup/memory rw,relatime shared:11 - cgroup cgroup rw,memory
33 25 0:29 / /sys/fs/cgroup/unified rw,relatime shared:12 - cgroup2 cgroup2 rw
34 25 0:30 / /sys/fs/cgroup/systemd rw,relatime shared:13 - cgroup cgroup rw,name=systemd
"""
COMOUNTED = "30 25 0:26 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
UNIFIED = "29 23 0:25 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"


def test_a_hybrid_host_uses_its_v1_controllers() -> None:
    hierarchy = parse_mountinfo(HYBRID)
    assert hierarchy is not None
    assert hierarchy.version == 1
    assert hierarchy.mounts == {
        "cpu": Path("/sys/fs/cgroup/cpu"),
        "cpuacct": Path("/sys/fs/cgroup/cpuacct"),
        "memory": Path("/sys/fs/cgroup/memory"),
    }


def test_comounted_controllers_share_one_directory() -> None:
    hierarchy = parse_mountinfo(COMOUNTED)
    assert hierarchy is not None
    assert hierarchy.directories("casslab/x/node1") == [
        Path("/sys/fs/cgroup/cpu,cpuacct/casslab/x/node1")
    ]


def test_a_unified_host_uses_v2_and_none_is_none() -> None:
    hierarchy = parse_mountinfo(UNIFIED)
    assert hierarchy is not None
    assert hierarchy.version == 2
    assert set(hierarchy.mounts.values()) == {Path("/sys/fs/cgroup")}
    assert parse_mountinfo("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n") is None


LIMITS = NodeLimits(cpus=0.5, memory_mib=1024, cpuset="1", io_read_bps=100, io_write_bps=200)


def test_v1_limit_files() -> None:
    assert limit_writes(LIMITS, 1, "254:0") == [
        ("cpu", "cpu.cfs_period_us", "100000"),
        ("cpu", "cpu.cfs_quota_us", "50000"),
        ("memory", "memory.limit_in_bytes", str(2**30)),
        ("cpuset", "cpuset.cpus", "1"),
        ("blkio", "blkio.throttle.read_bps_device", "254:0 100"),
        ("blkio", "blkio.throttle.write_bps_device", "254:0 200"),
    ]
    assert needed_controllers(LIMITS, 1) == ["cpu", "cpuacct", "memory", "cpuset", "blkio"]


def test_v2_limit_files() -> None:
    assert limit_writes(LIMITS, 2, "254:0") == [
        ("cpu", "cpu.max", "50000 100000"),
        ("memory", "memory.max", str(2**30)),
        ("cpuset", "cpuset.cpus", "1"),
        ("io", "io.max", "254:0 rbps=100 wbps=200"),
    ]
    assert needed_controllers(NodeLimits(cpus=1), 2) == ["cpu", "memory"]


def test_no_limit_writes_nothing() -> None:
    assert limit_writes(NodeLimits(), 1, None) == []


def test_a_missing_controller_says_how_to_mount_it(tmp_path: Path) -> None:
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(HYBRID)
    with pytest.raises(ConfigError, match=r"cpuset are not available.*mount -t cgroup -o cpuset"):
        Cgroups.detect("casslab/t", NodeLimits(cpuset="0"), mountinfo)


root_only = pytest.mark.skipif(os.geteuid() != 0, reason="cgroups need root")


@root_only
def test_a_real_cgroup_limits_a_busy_process_and_is_removed() -> None:
    root = f"casslab-test/{uuid.uuid4().hex[:6]}"
    limits = NodeLimits(cpus=0.25, memory_mib=64)
    cgroups = Cgroups.detect(root, limits)
    busy: subprocess.Popen[bytes] | None = None
    try:
        relative = cgroups.create(1, limits, None)
        busy = subprocess.Popen(
            [sys.executable, "-c", "while True: pass"], preexec_fn=join(cgroups.procs_files(1))
        )
        time.sleep(0.3)
        lines = Path(f"/proc/{busy.pid}/cgroup").read_text().splitlines()
        assert any(line.endswith(f":cpu:/{relative}") for line in lines)
        assert cgroups.pids() == {busy.pid}
        cpuacct = cgroups.hierarchy.mounts["cpuacct"] / relative / "cpuacct.usage"
        before, start = int(cpuacct.read_text()), time.monotonic()
        time.sleep(1.5)
        used = (int(cpuacct.read_text()) - before) / 1e9 / (time.monotonic() - start)
        assert 0.1 < used <= 0.3  # a quarter of a core, however busy
        memory = cgroups.hierarchy.mounts["memory"] / relative / "memory.limit_in_bytes"
        assert int(memory.read_text()) == 64 * 2**20
    finally:
        cgroups.remove()
        if busy is not None:
            busy.wait(timeout=5)
    assert busy.returncode == -9  # the process left inside was killed by PID
    for directory in cgroups.hierarchy.directories(root):
        assert not directory.exists()


def _raced(monkeypatch: pytest.MonkeyPatch, shared: Path, happen: Callable[[], None]) -> None:
    """The first look at ``shared`` finds it as it was, then ``happen`` runs: what another
    casslab does between this one's look and its mkdir."""
    original = Path.is_dir
    looked: list[Path] = []

    def is_dir(path: Path) -> bool:
        found = original(path)
        if path == shared and not looked:
            looked.append(path)
            happen()
        return found

    monkeypatch.setattr(Path, "is_dir", is_dir)


def test_a_shared_level_another_casslab_removes_meanwhile_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another casslab's :meth:`Cgroups.remove` takes the empty ``casslab/`` away after this
    one saw it and before its mkdir below it (two engines with --engine-cpus at once)."""
    mount = tmp_path / "cpu"
    (mount / "casslab").mkdir(parents=True)
    cgroups = Cgroups(Hierarchy(1, {"cpu": mount}), "casslab/engine-1-1", ["cpu"])
    _raced(monkeypatch, mount / "casslab", (mount / "casslab").rmdir)
    cgroups.create_group(cgroups.root, NodeLimits())
    assert (mount / "casslab" / "engine-1-1").is_dir()


def test_a_level_another_casslab_makes_meanwhile_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mount = tmp_path / "cpu"
    mount.mkdir()
    cgroups = Cgroups(Hierarchy(1, {"cpu": mount}), "casslab/engine-1-1", ["cpu"])
    _raced(monkeypatch, mount / "casslab", (mount / "casslab").mkdir)
    cgroups.create_group(cgroups.root, NodeLimits())
    assert (mount / "casslab" / "engine-1-1").is_dir()
