"""Host and process samplers against this machine (no Cassandra needed; the cgroup
sampler is in test_cgroup.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab import metrics
from casslab.metrics.catalogue import names
from casslab.metrics.host import HostSource, block_device_of
from casslab.metrics.process import ProcessSource
from casslab.metrics.source import Sample, SourceUnavailableError

BURN = "import time\nt = time.time()\nwhile time.time() - t < 30: pass"


def _by_metric(samples: list[Sample]) -> dict[str, float]:
    return {s.metric: s.value for s in samples}


@pytest.fixture
def busy_child() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-c", BURN])
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def test_host_source_two_samples(tmp_path: Path) -> None:
    src = HostSource(["n1", "n2"], str(tmp_path))
    first = src.sample(time.time())
    (tmp_path / "f").write_bytes(os.urandom(1 << 20))
    os.sync()
    time.sleep(0.3)
    second = src.sample(time.time())
    m1, m2 = _by_metric(first), _by_metric(second)
    assert "host.cpu_busy_pct" not in m1  # needs two readings
    assert {s.node for s in second} == {"n1", "n2"}
    assert set(m2) <= names()
    assert 0 <= m2["host.cpu_busy_pct"] <= 100
    total = sum(m2[f"host.cpu_{k}_pct"] for k in ("user", "system", "idle", "iowait", "steal"))
    assert total == pytest.approx(100, abs=0.5)
    assert (
        0
        < m2["host.memory_used_bytes"]
        < m2["host.memory_used_bytes"] + m2["host.memory_available_bytes"]
    )
    assert 0 < m2["host.disk_used_pct"] < 100
    if src.device is not None:
        assert m2["host.disk_write_bytes_per_s"] >= 0
        assert 0 <= m2["host.disk_util_pct"] <= 100


def test_block_device_of_root_is_in_diskstats() -> None:
    dev = block_device_of("/")
    if dev is None:
        pytest.skip("the root filesystem has no block device here")
    assert f" {dev} " in Path("/proc/diskstats").read_text()


def test_process_source_sees_a_busy_process(busy_child: subprocess.Popen[bytes]) -> None:
    src = ProcessSource("n1", busy_child.pid)
    src.sample(time.time())
    time.sleep(0.5)
    m = _by_metric(src.sample(time.time()))
    assert set(m) <= names()
    assert m["process.cpu_pct"] > 2  # spins a core; the machine is shared: leave slack
    assert m["process.rss_bytes"] > 1 << 20
    assert m["process.threads"] >= 1
    assert m["process.write_bytes_per_s"] >= 0


def test_process_cpu_rate_is_over_the_reads_not_the_ticks(
    busy_child: subprocess.Popen[bytes],
) -> None:
    # A tick reads its sources one after another: the instant it is stamped with is not
    # when this source read the process. Stamped 100 s apart but read 0.5 s apart, the
    # busy child's rate is over the 0.5 s, as the host's is.
    src = ProcessSource("n1", busy_child.pid)
    src.sample(1000.0)
    time.sleep(0.5)
    m = _by_metric(src.sample(1100.0))
    assert m["process.cpu_pct"] > 10  # over 100 s it would read 0.5 % at most


def test_process_source_gone_is_a_gap(busy_child: subprocess.Popen[bytes]) -> None:
    src = ProcessSource("n1", busy_child.pid)
    src.sample(time.time())
    busy_child.kill()
    busy_child.wait()
    with pytest.raises(SourceUnavailableError, match=str(busy_child.pid)):
        src.sample(time.time())


def test_engine_prefix_has_only_cpu_and_rss() -> None:
    src = ProcessSource("engine", os.getpid(), prefix="engine")
    src.sample(time.time())
    time.sleep(0.1)
    assert set(_by_metric(src.sample(time.time()))) == {
        "engine.cpu_pct",
        "engine.cpu_user_pct",
        "engine.cpu_system_pct",
        "engine.rss_bytes",
    }


def test_process_cpu_is_user_plus_system(busy_child: subprocess.Popen[bytes]) -> None:
    src = ProcessSource("n1", busy_child.pid)
    src.sample(time.time())
    time.sleep(0.5)
    m = _by_metric(src.sample(time.time()))
    assert m["process.cpu_pct"] == pytest.approx(
        m["process.cpu_user_pct"] + m["process.cpu_system_pct"]
    )
    assert m["process.cpu_user_pct"] > m["process.cpu_system_pct"]  # a Python busy loop
    assert m["process.cpu_system_pct"] >= 0


def test_host_busy_cores_counts_a_busy_process(
    tmp_path: Path, busy_child: subprocess.Popen[bytes]
) -> None:
    host, child = HostSource(["n1"], str(tmp_path)), ProcessSource("c", busy_child.pid)
    host.sample(time.time())
    child.sample(time.time())
    time.sleep(1.0)
    m = _by_metric(host.sample(time.time()))
    c = _by_metric(child.sample(time.time()))
    cpus = os.cpu_count() or 1
    assert 0 <= m["host.cpu_busy_core_pct"] <= 100 * cpus
    # the host's busy time holds the busy child's (less a little: read a moment apart)
    assert m["host.cpu_busy_core_pct"] >= c["process.cpu_pct"] - 10


def test_engine_pid_of_a_short_process(tmp_path: Path) -> None:
    """No node needed: an engine-only recording of a process that exits mid-way."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(2)"])
    out = tmp_path / "e.parquet"
    rec = metrics.Recorder(
        metrics.build_sources([], engine_pid=proc.pid), metrics.ParquetSink(out), interval_s=0.5
    )
    with rec:
        proc.wait()
        time.sleep(1.2)
    df = metrics.load(out)
    assert set(df.metric) == {
        "engine.cpu_pct",
        "engine.cpu_user_pct",
        "engine.cpu_system_pct",
        "engine.rss_bytes",
    }
    assert set(metrics.load_gaps(out).source) == {"engine"}
