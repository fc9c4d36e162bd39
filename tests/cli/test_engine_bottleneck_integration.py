"""`casslab stress` names the load engine as the bottleneck when it is: the engine held to
2% of a CPU (a cgroup's CFS quota; the engine alone is moved into the group, so that
casslab's own start-up is not held to it) against a real node, at as high a rate as 64
threads can drive; and says nothing at a low rate without the quota. On the session's
shared node, emptied before and after. (A tenth of a CPU is not always too little: a node
on a busy two-core machine can take fewer writes than the engine can send on it.)"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from casslab.cluster import LocalCluster
from cli_entry import NEEDS_ENGINE, flat
from cli_entry import casslab as run_casslab
from shared_clusters import SHARED_NODE, emptied

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

CPU = Path("/sys/fs/cgroup/cpu")
WARNING = "the load engine was the bottleneck"


@pytest.fixture(scope="module")
def cluster(shared_node: LocalCluster) -> Iterator[LocalCluster]:
    yield from emptied(shared_node)


@pytest.fixture
def small_cpu_share() -> Iterator[Path]:
    """A cgroup v1 cpu group allowed 0.02 CPU, removed afterwards."""
    if not os.access(CPU, os.W_OK):
        pytest.skip("the cgroup v1 cpu hierarchy is not writable here")
    group = CPU / f"casslab-test-{uuid.uuid4().hex[:8]}"
    group.mkdir()
    try:
        period = int((group / "cpu.cfs_period_us").read_text())
        (group / "cpu.cfs_quota_us").write_text(str(period // 50))
        yield group
    finally:
        for _ in range(50):  # the kernel empties the group shortly after its last task ends
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)


def _engine_of(process: subprocess.Popen[str], deadline_s: float) -> psutil.Process:
    """The load engine casslab ``process`` started (waits for it up to ``deadline_s``)."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        for child in psutil.Process(process.pid).children(recursive=True):
            if child.name().startswith("casslab-engine"):
                return child
        time.sleep(0.05)
    raise AssertionError(f"no load engine under casslab (PID {process.pid}) in {deadline_s} s")


def test_an_engine_held_to_a_small_cpu_share_is_named_the_bottleneck(
    cluster: LocalCluster, small_cpu_share: Path
) -> None:
    stress = [sys.executable, "-m", "casslab", "stress", "write", "duration=10s", "no-warmup"]
    stress += ["-rate", "threads=64", "-node", SHARED_NODE]
    process = subprocess.Popen(
        stress,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "250"},
    )
    try:
        engine = _engine_of(process, 60)
        # the engine alone into the group, as it connects: its measured phase runs there
        (small_cpu_share / "cgroup.procs").write_text(str(engine.pid))
        stdout, stderr = process.communicate(timeout=240)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr
    warning = flat(stderr)
    assert WARNING in warning, stdout[-2000:]
    assert "of the 0.02 cores it may use" in warning


def test_a_light_load_with_cpu_to_spare_is_not(cluster: LocalCluster) -> None:
    done = run_casslab(
        None, "stress", "write", "n=1000", "-rate", "threads=4", "fixed=200/s", "-node", SHARED_NODE
    )
    assert done.returncode == 0, done.stderr
    assert WARNING not in flat(done.stderr)
