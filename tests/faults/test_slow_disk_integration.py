"""The slow-disk fault on a real isolated node (a JVM in its own cgroup, cgroup v1 blkio or
v2 io): during the fault the node's cgroup throttles its data disk, so 8 MiB written with
direct I/O by a process in that cgroup take the throttled time (4 s at 2 MiB/s), and after
it the throttle is lifted and the same write is fast. By hand (``casslab fault
slow-disk``, ended early by Ctrl-C), on a timeline (the experiment's ``faults:``), and a
throttle left behind dies with the cgroup at ``down``. A plain local node is refused by
the faults test module (tests/faults/test_faults_integration.py)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab.cluster import cluster_spec, create
from casslab.cluster.backend import Cluster
from casslab.faults import actions
from casslab.faults.kinds.slow_disk.block_throttle import data_device
from casslab.faults.model import Fault
from casslab.faults.timeline import FaultTimeline
from casslab.host.cgroups import join, read_hierarchy

# measuring: an unthrottled disk must write 8 MiB direct within 1.5 s
pytestmark = [
    pytest.mark.integration,
    pytest.mark.measuring,
    pytest.mark.skipif(os.geteuid() != 0, reason="cgroups need root"),
]

NAME = "slowdisk1"
RATE = 2 * 2**20  # 2 MiB/s
PROBE_MIB = 8  # 4 s at RATE


@pytest.fixture(scope="module")
def node() -> Iterator[Cluster]:
    """One isolated node: a plain process on 127.0.246.1 in its own cgroup (--cpus)."""
    spec = cluster_spec(
        name=NAME, nodes=1, heap="512M", cpus=1.0, base_address="127.0.246.1", jmx_port_base=9820
    )
    with create(spec, remove_on_exit=True) as cluster:
        yield cluster


def _io_dir(cluster: Cluster) -> tuple[Path, int]:
    hierarchy = read_hierarchy()
    controller = "blkio" if hierarchy.version == 1 else "io"
    relative = cluster.node(1).cgroup
    assert relative is not None
    return hierarchy.mounts[controller] / relative, hierarchy.version


def _limits(cluster: Cluster) -> str:
    """What the node's cgroup throttles on its data disk ("" when nothing)."""
    directory, version = _io_dir(cluster)
    device = data_device(cluster.node(1).directory)
    names = ["io.max"] if version == 2 else ["blkio.throttle.read_bps_device"]
    names += [] if version == 2 else ["blkio.throttle.write_bps_device"]
    lines = [
        line
        for name in names
        for line in (directory / name).read_text().splitlines()
        if line.startswith(device + " ")
    ]
    return "\n".join(lines)


def _direct_write_s(cluster: Cluster) -> float:
    """Seconds to write PROBE_MIB MiB with O_DIRECT into the node's data directory, from
    a process placed in the node's I/O cgroup."""
    directory, _ = _io_dir(cluster)
    target = cluster.node(1).directory / "slow-disk-probe"
    started = time.monotonic()
    subprocess.run(
        ["dd", "if=/dev/zero", f"of={target}", "bs=1M", f"count={PROBE_MIB}", "oflag=direct"],
        check=True,
        capture_output=True,
        timeout=60,
        preexec_fn=join([directory / "cgroup.procs"]),
    )
    took = time.monotonic() - started
    target.unlink()
    return took


def _expect_throttled(cluster: Cluster) -> None:
    device = data_device(cluster.node(1).directory)
    _, version = _io_dir(cluster)
    if version == 1:
        assert _limits(cluster) == f"{device} {RATE}\n{device} {RATE}"
    else:
        assert f"rbps={RATE} wbps={RATE}" in _limits(cluster)
    took = _direct_write_s(cluster)
    assert took >= 0.9 * PROBE_MIB * 2**20 / RATE, took  # 4 s at 2 MiB/s


def _expect_free(cluster: Cluster) -> None:
    assert str(RATE) not in _limits(cluster)
    assert _direct_write_s(cluster) < 1.5


@pytest.mark.skipif(shutil.which("dd") is None, reason="needs dd")
def test_casslab_fault_slow_disk_throttles_and_ctrl_c_lifts_it(node: Cluster) -> None:
    command = [sys.executable, "-m", "casslab", "fault", "slow-disk", "1", "--rate", "2MiB/s"]
    environment = {**os.environ, "COLUMNS": "200"}
    faulting = subprocess.Popen(
        [*command, "--for", "60s", "--name", NAME],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while str(RATE) not in _limits(node) and time.monotonic() < deadline:
            time.sleep(0.2)
        _expect_throttled(node)
    finally:
        faulting.send_signal(signal.SIGINT)  # Ctrl-C ends the fault now
        out, err = faulting.communicate(timeout=30)
    assert faulting.returncode == 0, out + err
    assert "node 1: slow-disk (for 60 s; Ctrl-C ends it now)" in out
    assert "ending the fault now" in out
    _expect_free(node)


def test_a_timeline_slows_the_disk_for_its_window(node: Cluster) -> None:
    fault = Fault.model_validate(
        {"at": "0s", "kind": "slow-disk", "target": 1, "for": "7s", "rate": "2MiB/s"}
    )
    timeline = FaultTimeline(node, [fault])
    timeline.start()
    try:
        deadline = time.monotonic() + 10
        while str(RATE) not in _limits(node) and time.monotonic() < deadline:
            time.sleep(0.1)
        _expect_throttled(node)
        deadline = time.monotonic() + 15
        while timeline.records[0].ended_s is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert timeline.records[0].ended_s is not None  # ended at 7 s, by the timeline
        _expect_free(node)
    finally:
        [record] = timeline.stop()
    assert record.error is None
    assert (record.kind, record.fields) == ("slow-disk", {"rate_bps": RATE, "iops": None})
    assert record.began_s is not None
    assert record.ended_s is not None
    assert 6.9 < record.ended_s - record.began_s < 8
    assert timeline.hints is not None
    assert timeline.hints.written == 0  # nothing was written


def test_a_throttle_left_behind_dies_with_the_cgroup_at_down(node: Cluster) -> None:
    directory, _ = _io_dir(node)
    slow = {"at": 0, "kind": "slow-disk", "target": 1, "for": 60, "rate": RATE}
    actions.begin(node, Fault.model_validate(slow))  # never ended
    assert str(RATE) in _limits(node)
    node.stop()
    assert not directory.exists()  # down removed the node's cgroups, throttles and all
    node.start()
    assert directory.is_dir()
    assert str(RATE) not in _limits(node)
