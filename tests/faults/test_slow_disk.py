"""The slow-disk fault's pure part: the disk a data directory's device maps to, what is
written into which throttle file (and written back), and who is refused with what fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.errors import ConfigError
from casslab.faults.kinds.slow_disk.block_throttle import (
    FIX,
    data_device,
    device_value,
    refusal,
    restore_writes,
    throttle_writes,
    whole_disk,
)


def _sys_block(root: Path) -> Path:
    """A /sys/dev/block of one disk 8:0 with its partition 8:1, links as the kernel's."""
    disk = root / "devices" / "pci0" / "block" / "sda"
    part = disk / "sda1"
    part.mkdir(parents=True)
    (disk / "dev").write_text("8:0\n")
    (part / "dev").write_text("8:1\n")
    (part / "partition").write_text("1\n")
    block = root / "dev" / "block"
    block.mkdir(parents=True)
    (block / "8:0").symlink_to(disk)
    (block / "8:1").symlink_to(part)
    return block


def test_a_partition_maps_to_its_disk_and_a_disk_to_itself(tmp_path: Path) -> None:
    block = _sys_block(tmp_path)
    assert whole_disk("8:1", block) == "8:0"
    assert whole_disk("8:0", block) == "8:0"
    with pytest.raises(ConfigError) as caught:
        whole_disk("0:45", block)
    assert "device 0:45 is not a block device" in str(caught.value)
    assert "keep the nodes' data on a disk" in str(caught.value)


def test_this_machines_data_directory_is_on_a_disk(tmp_path: Path) -> None:
    device = data_device(tmp_path)
    assert (Path("/sys/dev/block") / device / "partition").exists() is False
    assert Path(f"/sys/dev/block/{device}/dev").read_text().strip() == device


@pytest.mark.parametrize(
    ("version", "rate", "iops", "writes"),
    [
        (
            1,
            2 * 2**20,
            None,
            [
                ("blkio.throttle.read_bps_device", "8:0 2097152"),
                ("blkio.throttle.write_bps_device", "8:0 2097152"),
            ],
        ),
        (
            1,
            2**20,
            50,
            [
                ("blkio.throttle.read_bps_device", "8:0 1048576"),
                ("blkio.throttle.write_bps_device", "8:0 1048576"),
                ("blkio.throttle.read_iops_device", "8:0 50"),
                ("blkio.throttle.write_iops_device", "8:0 50"),
            ],
        ),
        (2, 2**20, None, [("io.max", "8:0 rbps=1048576 wbps=1048576")]),
        (2, None, 50, [("io.max", "8:0 riops=50 wiops=50")]),
    ],
)
def test_what_is_written_where(
    version: int, rate: int | None, iops: int | None, writes: list[tuple[str, str]]
) -> None:
    assert throttle_writes(version, "8:0", rate, iops) == writes


def test_what_is_written_back_is_what_was_there() -> None:
    current = {
        "blkio.throttle.read_bps_device": "8:16 100\n8:0 52428800\n",
        "blkio.throttle.write_bps_device": "",
    }
    assert device_value(current["blkio.throttle.read_bps_device"], "8:0") == "52428800"
    assert restore_writes(1, "8:0", current) == [
        ("blkio.throttle.read_bps_device", "8:0 52428800"),  # the cluster's own --io-read
        ("blkio.throttle.write_bps_device", "8:0 0"),  # 0 clears a v1 throttle
        ("blkio.throttle.read_iops_device", "8:0 0"),
        ("blkio.throttle.write_iops_device", "8:0 0"),
    ]
    assert restore_writes(2, "8:0", {"io.max": "8:0 rbps=1000 wbps=max riops=max wiops=max\n"}) == [
        ("io.max", "8:0 rbps=1000 wbps=max riops=max wiops=max")
    ]
    assert restore_writes(2, "8:0", {"io.max": ""}) == [
        ("io.max", "8:0 rbps=max wbps=max riops=max wiops=max")
    ]


def test_nodes_without_a_casslab_cgroup_are_refused_with_the_fix() -> None:
    plain = refusal("lab", 2, ssh=False, cgroup=None)
    assert plain == f"node 2 of 'lab' runs in no cgroup (a plain local node); {FIX}"
    assert "casslab up --isolation netns" in FIX
    assert "cluster: {isolation: netns}" in FIX
    remote = refusal("far", 3, ssh=True, cgroup=None)
    assert remote is not None
    assert remote.startswith("node 3 of 'far' runs on an SSH host")
    assert refusal("iso", 1, ssh=False, cgroup="casslab/3fa9c1/node1") is None
