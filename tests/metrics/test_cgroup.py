"""The cgroup sampler over fake v1 and v2 trees, and once over a real cgroup v1."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from casslab.errors import ConfigError
from casslab.metrics.catalogue import names
from casslab.metrics.cgroup import CgroupPaths, CgroupSource
from casslab.metrics.source import Sample, SourceUnavailableError

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="making cgroups needs root")


def _by_metric(samples: list[Sample]) -> dict[str, float]:
    return {s.metric: s.value for s in samples}


def _write(p: Path, text: str) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def _v1_tree(root: Path, g: str = "casslab/ab12cd/node1") -> None:
    """Every file the sampler reads, cpu and cpuacct co-mounted, as on most v1 machines."""
    _write(root / f"cpu,cpuacct/{g}/cpuacct.usage", "2000000000\n")
    _write(
        root / f"cpu,cpuacct/{g}/cpu.stat",
        "nr_periods 100\nnr_throttled 10\nthrottled_time 1500000000\n",
    )
    _write(root / f"cpu,cpuacct/{g}/cpu.cfs_quota_us", "150000\n")
    _write(root / f"cpu,cpuacct/{g}/cpu.cfs_period_us", "100000\n")
    _write(root / f"cpu,cpuacct/{g}/tasks", "7\n8\n")
    _write(root / f"memory/{g}/memory.usage_in_bytes", "4096\n")
    _write(root / f"memory/{g}/memory.limit_in_bytes", "1073741824\n")
    _write(
        root / f"memory/{g}/memory.stat",
        "cache 100\nrss 200\ntotal_cache 1000\ntotal_rss 2000\n",
    )
    _write(root / f"blkio/{g}/blkio.throttle.io_service_bytes", "8:0 Read 0\n8:0 Write 0\n")
    _write(root / f"blkio/{g}/blkio.throttle.write_bps_device", "8:0 1048576000\n")
    _write(root / f"pids/{g}/pids.current", "61\n")


def test_cgroup_v1_files(tmp_path: Path) -> None:
    _v1_tree(tmp_path)
    src = CgroupSource("n1", "/casslab/ab12cd/node1", root=tmp_path)
    assert src.paths.version == 1
    assert _by_metric(src.sample(10.0)) == {
        "cgroup.cpu_throttled_s": 1.5,
        "cgroup.cpu_limit_cpus": 1.5,  # cpu.cfs_quota_us / cpu.cfs_period_us
        "cgroup.memory_usage_bytes": 4096.0,
        "cgroup.memory_limit_bytes": float(1 << 30),
        "cgroup.memory_cache_bytes": 1000.0,  # total_*: the descendants too
        "cgroup.memory_rss_bytes": 2000.0,
        "cgroup.pids": 61.0,  # pids.current, not the lines of tasks
    }
    g = tmp_path / "cpu,cpuacct/casslab/ab12cd/node1"
    _write(g / "cpuacct.usage", "2500000000\n")
    _write(g / "cpu.stat", "nr_periods 110\nnr_throttled 12\nthrottled_time 1600000000\n")
    _write(
        tmp_path / "blkio/casslab/ab12cd/node1/blkio.throttle.io_service_bytes",
        "8:0 Read 4096\n8:0 Write 1000000\n8:0 Total 1004096\nTotal 1004096\n",
    )
    m = _by_metric(src.sample(12.0))
    assert m["cgroup.cpu_usage_pct"] == pytest.approx(25.0)  # 0.5 s of CPU in 2 s
    assert m["cgroup.cpu_throttled_pct"] == pytest.approx(5.0)  # 0.1 s throttled in 2 s
    assert m["cgroup.cpu_throttled_periods_pct"] == pytest.approx(20.0)  # 2 of 10 periods
    assert m["cgroup.block_read_bytes_per_s"] == pytest.approx(2048.0)
    assert m["cgroup.block_write_bytes_per_s"] == pytest.approx(500_000.0)
    assert set(m) <= names()


def test_cgroup_v1_recursive_blkio_file_and_unlimited_memory(tmp_path: Path) -> None:
    _v1_tree(tmp_path, "g")
    _write(tmp_path / "memory/g/memory.limit_in_bytes", "9223372036854771712\n")
    _write(tmp_path / "blkio/g/blkio.throttle.io_service_bytes_recursive", "8:0 Read 7\n")
    paths = CgroupPaths("g", tmp_path)
    assert paths.io == tmp_path / "blkio/g/blkio.throttle.io_service_bytes_recursive"
    m = _by_metric(CgroupSource("n1", "g", root=tmp_path).sample(1.0))
    assert "cgroup.memory_limit_bytes" not in m


def test_v1_block_counters_without_a_throttle_rule_are_left_out(tmp_path: Path) -> None:
    # v1 counts a cgroup's bios only where a throttle rule is set: without one its
    # counters stay 0 however much it writes, so no block metric is better than a false 0
    _v1_tree(tmp_path, "g")
    _write(tmp_path / "blkio/g/blkio.throttle.write_bps_device", "")
    assert CgroupPaths("g", tmp_path).io is None
    m = _by_metric(CgroupSource("n1", "g", root=tmp_path).sample(1.0))
    assert not [name for name in m if name.startswith("cgroup.block_")]


def test_cgroup_v1_separate_mounts_and_missing_controllers(tmp_path: Path) -> None:
    """Only cpu, cpuacct and memory, mounted apart (as here): no blkio, no pids metrics,
    and the tasks are counted from the tasks file."""
    _write(tmp_path / "cpuacct/g/cpuacct.usage", "1000000000\n")
    _write(tmp_path / "cpu/g/cpu.stat", "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n")
    _write(tmp_path / "cpu/g/tasks", "7\n8\n9\n")
    _write(tmp_path / "cpu/g/cpu.cfs_quota_us", "-1\n")  # no quota: no limit metric
    _write(tmp_path / "cpu/g/cpu.cfs_period_us", "100000\n")
    _write(tmp_path / "memory/g/memory.usage_in_bytes", "4096\n")
    src = CgroupSource("n1", "g", root=tmp_path)
    assert src.paths.io is None
    assert src.paths.pids is None
    src.sample(0.0)
    _write(tmp_path / "cpuacct/g/cpuacct.usage", "3000000000\n")
    assert _by_metric(src.sample(1.0)) == {
        "cgroup.cpu_usage_pct": pytest.approx(200.0),
        "cgroup.cpu_throttled_pct": 0.0,
        "cgroup.cpu_throttled_periods_pct": 0.0,  # no quota: never throttled
        "cgroup.cpu_throttled_s": 0.0,
        "cgroup.memory_usage_bytes": 4096.0,
        "cgroup.pids": 3.0,
    }


def test_cgroup_v2_files(tmp_path: Path) -> None:
    _write(tmp_path / "cgroup.controllers", "cpu io memory pids\n")
    g = tmp_path / "casslab/ab12cd/node1"
    _write(
        g / "cpu.stat",
        "usage_usec 1000000\nuser_usec 800000\nsystem_usec 200000\n"
        "nr_periods 50\nnr_throttled 5\nthrottled_usec 250000\n",
    )
    _write(g / "cpu.max", "50000 100000\n")
    _write(g / "memory.current", "8192\n")
    _write(g / "memory.max", "max\n")
    _write(g / "memory.stat", "anon 5000\nfile 3000\nkernel 192\n")
    _write(g / "io.stat", "8:0 rbytes=0 wbytes=0 rios=0 wios=0 dbytes=0 dios=0\n")
    _write(g / "pids.current", "12\n")
    _write(g / "cgroup.threads", "1\n2\n")
    src = CgroupSource("n1", "casslab/ab12cd/node1", root=tmp_path)
    assert CgroupPaths("casslab/ab12cd/node1", tmp_path).version == 2
    src.sample(0.0)
    _write(
        g / "cpu.stat",
        "usage_usec 3000000\nnr_periods 60\nnr_throttled 10\nthrottled_usec 750000\n",
    )
    _write(g / "io.stat", "8:0 rbytes=100 wbytes=2000 rios=1 wios=2 dbytes=0 dios=0\n")
    assert _by_metric(src.sample(1.0)) == {
        "cgroup.cpu_usage_pct": pytest.approx(200.0),
        "cgroup.cpu_throttled_pct": pytest.approx(50.0),
        "cgroup.cpu_throttled_periods_pct": pytest.approx(50.0),
        "cgroup.cpu_throttled_s": 0.75,
        "cgroup.cpu_limit_cpus": 0.5,  # cpu.max
        "cgroup.memory_usage_bytes": 8192.0,  # memory.max "max": no limit metric
        "cgroup.memory_cache_bytes": 3000.0,
        "cgroup.memory_rss_bytes": 5000.0,
        "cgroup.block_read_bytes_per_s": pytest.approx(100.0),
        "cgroup.block_write_bytes_per_s": pytest.approx(2000.0),
        "cgroup.pids": 12.0,
    }


def test_cgroup_v2_limit_and_thread_count_without_pids(tmp_path: Path) -> None:
    _write(tmp_path / "cgroup.controllers", "cpu memory\n")
    _write(tmp_path / "g/cpu.stat", "usage_usec 1000000\n")
    _write(tmp_path / "g/cpu.max", "max 100000\n")  # no quota: no limit metric
    _write(tmp_path / "g/memory.max", "536870912\n")
    _write(tmp_path / "g/cgroup.threads", "1\n2\n3\n")
    m = _by_metric(CgroupSource("n1", "g", root=tmp_path).sample(0.0))
    assert m == {"cgroup.memory_limit_bytes": float(512 << 20), "cgroup.pids": 3.0}


def test_missing_cgroup_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        CgroupSource("n1", "nope", root=tmp_path)


def test_a_removed_cgroup_is_a_gap_then_starts_afresh(tmp_path: Path) -> None:
    _v1_tree(tmp_path, "g")
    src = CgroupSource("n1", "g", root=tmp_path)
    src.sample(0.0)
    (tmp_path / "memory/g/memory.stat").unlink()
    with pytest.raises(SourceUnavailableError, match="reading cgroup g"):
        src.sample(1.0)
    _write(tmp_path / "memory/g/memory.stat", "total_cache 1\ntotal_rss 2\n")
    assert "cgroup.cpu_usage_pct" not in _by_metric(src.sample(2.0))  # no rate over a gap


@needs_root
@pytest.mark.measuring  # a busy machine (load average 12) left the child unthrottled twice
def test_real_cgroup_v1_quota_limit_and_throttling(throttled_cgroup: str) -> None:
    """A busy process in a cgroup allowed a tenth of a CPU and 64 MiB (conftest): at most
    ~10 % of a core, throttled, and the CPU quota and memory limit read back. The bound
    on its CPU is the quota plus 5 points: the 2 s window and the periods do not align."""
    src = CgroupSource("n1", throttled_cgroup)
    time.sleep(0.3)  # the child allocates its 8 MiB
    src.sample(time.time())
    time.sleep(2.0)
    m = _by_metric(src.sample(time.time()))
    assert set(m) <= names()
    assert 0 < m["cgroup.cpu_usage_pct"] <= 15  # spins, under a quota of a tenth of a CPU
    assert m["cgroup.cpu_throttled_periods_pct"] > 0
    assert m["cgroup.cpu_throttled_pct"] > 0
    assert m["cgroup.cpu_limit_cpus"] == 0.1  # its quota, read back
    assert m["cgroup.memory_limit_bytes"] == 64 << 20
    assert 8 << 20 < m["cgroup.memory_usage_bytes"] < 64 << 20
    assert m["cgroup.memory_rss_bytes"] > 4 << 20
    assert m["cgroup.pids"] >= 1
    # no throttle rule on this cgroup: v1 would count nothing, so nothing is reported
    assert "cgroup.block_write_bytes_per_s" not in m
