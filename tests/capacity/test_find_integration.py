"""``casslab capacity find`` on one real node (512M heap), through the real CLI and engine: the
rate it returns, less 20%, passes a fixed-rate run under the SLO, and 30% above it does not
(issue 16).

The workload reads a small preloaded table (no flushes or compactions while it runs), and
the SLO, 200 ms, is far above the node's pauses but reached within a run once the node
falls behind: an open loop at a rate above capacity queues the surplus, and in a 5 s run
2 s after its warm-up the queue's delay passes 200 ms as soon as the rate is a few percent
over. Address 127.0.237.1, JMX 9400 (reserved for these tests).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab.capacity.probe import EngineMeasure
from casslab.capacity.probe_spec import parse_command
from casslab.cluster import ClusterSpec, LocalCluster
from cli_entry import NEEDS_ENGINE
from cli_entry import casslab as run_casslab

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

NODE = "127.0.237.1"
SLO_MS = 200.0
KEYS = 20_000
POP = f"-pop dist=UNIFORM(1..{KEYS})"
READ = f"read {POP} -node {NODE}"
PRELOAD = f"write n={KEYS} -pop seq=1..{KEYS} -rate threads=32 -node {NODE}"
# The check runs below the answer: three passes at the answer bound the chance that a run
# there passes again only from below, by 0.37 (the search's own statement, 95% one-sided),
# and one CI run at 88,300/s after a search that passed it three times had p99 1,035 ms.
# An open loop at its knee is metastable; the answer's promise is the bracket, checked
# here from both sides with a margin: 20% under it passes, 30% over it fails.
HEADROOM = 0.8
# YCSB's -threads bounds the closed-loop ramp: 4, 8, 16, 24 threads (one node on 2 cores
# peaks at 16-24 threads), four short steps
RAMP_MAX_THREADS = 24


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    spec = ClusterSpec(name="capfind", nodes=1, heap="512M", base_address=NODE, jmx_port_base=9399)
    root = tmp_path_factory.mktemp("capfind-clusters")
    with LocalCluster.create(spec, root, remove_on_exit=True) as running:
        yield running


def casslab(*args: str) -> subprocess.CompletedProcess[str]:
    done = run_casslab(None, *args, timeout_s=240, columns=250)
    assert done.returncode == 0, f"casslab {' '.join(args)}\n{done.stdout}\n{done.stderr}"
    return done


def fixed_rate_p99_ms(rate_per_s: float, workdir: Path) -> float:
    """p99 (ms, from the intended start) of one fixed-rate run at ``rate_per_s``, measured
    as the search measures: the same 2 s warm-up, then 5 s (an open loop right at its knee
    is metastable: a run that starts with a backlog never drains it, so a check that
    skipped the warm-up would test another protocol than the one the answer is for)."""
    command = parse_command([READ], contact_points=[NODE])
    probe = EngineMeasure(command, workdir, step_duration_s=5.0, warmup_s=2.0)(rate_per_s)
    assert probe.p99_ms is not None, probe
    assert probe.errors == 0, probe
    return probe.p99_ms


def test_find_returns_a_rate_that_meets_the_slo_and_30_percent_more_does_not(
    node: LocalCluster, tmp_path: Path
) -> None:
    done = casslab(
        "capacity",
        "find",
        "--p99",
        f"{SLO_MS:g}ms",
        "--json",
        "--out",
        str(tmp_path),
        "--step-duration",
        "5s",
        "--warmup",
        "2s",
        "--first-warmup",
        "5s",
        "--start-rate",
        "2000",  # a slow ramp warms the fresh node: a cold JVM's failure caps the answer
        "--precision",
        "10%",
        "--preload",
        PRELOAD,
        READ,
    )
    found = json.loads(done.stdout)
    assert found["status"] == "found", done.stderr
    rate = found["max_rate"]
    assert found["p99_ms_at_max"] <= SLO_MS
    assert found["bracket_high_per_s"] <= rate * 1.1
    assert (tmp_path / "find.png").is_file()
    below = fixed_rate_p99_ms(rate * HEADROOM, tmp_path / "check-below")
    above = fixed_rate_p99_ms(rate * 1.3, tmp_path / "check-above")
    assert below <= SLO_MS < above, (rate, below, above, done.stderr)


def test_find_takes_a_ycsb_workload(node: LocalCluster, tmp_path: Path) -> None:
    """YCSB workload C (reads) on its own loaded records: a bracketed answer under the SLO,
    and the closed-loop ramp names a best thread count."""
    records = "recordcount=2000"
    done = casslab(
        "capacity",
        "find",
        "--p99",
        f"{SLO_MS:g}ms",
        "--json",
        "--out",
        str(tmp_path / "open"),
        "--step-duration",
        "3s",
        "--warmup",
        "1s",
        "--start-rate",
        "16000",  # warm from the search above (alone, a cold node only lowers the answer)
        "--precision",
        "30%",
        "--repeats",
        "2",
        "--preload",
        f"ycsb load -P workloadc -p {records} -p hosts={NODE}",
        f"ycsb run -P workloadc -p {records} -p hosts={NODE}",
    )
    found = json.loads(done.stdout)
    assert found["status"] == "found", done.stderr
    assert found["p99_ms_at_max"] <= SLO_MS
    assert found["runs_at_max"] >= 2
    ramp = casslab(
        "capacity",
        "find",
        "--closed-loop",
        "--json",
        "--out",
        str(tmp_path / "ramp"),
        "--step-duration",
        "2s",
        f"ycsb run -P workloadc -p {records} -p hosts={NODE} -threads {RAMP_MAX_THREADS}",
    )
    steps = json.loads(ramp.stdout)
    assert steps["best_threads"] is not None
    assert 4 <= steps["best_threads"] <= RAMP_MAX_THREADS
    assert max(step["threads"] for step in steps["steps"]) <= RAMP_MAX_THREADS
