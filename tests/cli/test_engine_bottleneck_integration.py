"""`casslab stress` names the load engine as the bottleneck when it is: the engine held to a
tenth of a CPU (a cgroup's CFS quota that casslab and so its engine run in) against a real
node, at as high a rate as 64 threads can drive; and says nothing at a low rate without the
quota. On the session's shared node, emptied before and after."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

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
def tenth_of_a_cpu() -> Iterator[Path]:
    """A cgroup v1 cpu group allowed 0.1 CPU, removed afterwards."""
    if not os.access(CPU, os.W_OK):
        pytest.skip("the cgroup v1 cpu hierarchy is not writable here")
    group = CPU / f"casslab-test-{uuid.uuid4().hex[:8]}"
    group.mkdir()
    try:
        period = int((group / "cpu.cfs_period_us").read_text())
        (group / "cpu.cfs_quota_us").write_text(str(period // 10))
        yield group
    finally:
        for _ in range(50):  # the kernel empties the group shortly after its last task ends
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)


def test_an_engine_held_to_a_tenth_of_a_cpu_is_named_the_bottleneck(
    cluster: LocalCluster, tenth_of_a_cpu: Path
) -> None:
    stress = [sys.executable, "-m", "casslab", "stress", "write", "duration=8s", "no-warmup"]
    stress += ["-rate", "threads=64", "-node", SHARED_NODE]
    # the shell moves itself into the group, then becomes casslab: the engine starts inside
    script = f'echo $$ > {tenth_of_a_cpu}/cgroup.procs && exec "$@"'
    done = subprocess.run(
        ["sh", "-c", script, "sh", *stress],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        env={**os.environ, "COLUMNS": "250"},
    )
    assert done.returncode == 0, done.stderr
    warning = flat(done.stderr)
    assert WARNING in warning, warning
    assert "of the 0.1 cores it may use" in warning


def test_a_light_load_with_cpu_to_spare_is_not(cluster: LocalCluster) -> None:
    done = run_casslab(
        None, "stress", "write", "n=1000", "-rate", "threads=4", "fixed=200/s", "-node", SHARED_NODE
    )
    assert done.returncode == 0, done.stderr
    assert WARNING not in flat(done.stderr)
