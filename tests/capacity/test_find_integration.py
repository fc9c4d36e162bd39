"""``casslab capacity find`` on one real node (512M heap), through the real CLI and engine: the
rate it returns, less 20%, passes a fixed-rate run under the SLO, and 30% above it does not
(issue 16).

The workload reads a small preloaded table (no flushes or compactions while it runs). The
SLO, 500 ms, is above what p99 does below the knee on this shared 2-core machine, where
the engine and the node take turns on the cores (22 to 316 ms in three runs at one rate;
the node's GC pauses stay under 40 ms), but reached within a run once the node falls
behind: an open loop above capacity queues the surplus, and 7 s in (2 s warm-up, 5 s
measured) the queue's delay passes 500 ms once the rate is 7% over. With a 200 ms SLO,
runs below the knee failed by chance, and the answer moved by 25% from one search to the
next. On the session's shared node (in `make test`'s measuring phase, alone), emptied.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from casslab.capacity.find import Probe, Verdict, judge
from casslab.capacity.find_settings import FindSettings
from casslab.capacity.probe import EngineMeasure
from casslab.capacity.probe_spec import parse_command
from casslab.cluster import LocalCluster
from cli_entry import NEEDS_ENGINE
from cli_entry import casslab as run_casslab
from shared_clusters import SHARED_NODE, emptied

# measuring: the search finds this machine's knee; nothing else may run beside it
pytestmark = [pytest.mark.integration, pytest.mark.measuring, *NEEDS_ENGINE]

NODE = SHARED_NODE
SLO_MS = 500.0
KEYS = 20_000
POP = f"-pop dist=UNIFORM(1..{KEYS})"
READ = f"read {POP} -node {NODE}"
PRELOAD = f"write n={KEYS} -pop seq=1..{KEYS} -rate threads=32 -node {NODE}"
# The check runs below the answer: three passes at the answer bound the chance that a run
# there passes again only from below, by 0.37 (the search's own statement, 95% one-sided),
# and one CI run at 88,300/s after a search that passed it three times had p99 1,035 ms.
# An open loop at its knee is metastable; the answer's promise is the bracket, checked
# here from both sides with a margin: 20% under it passes, 30% over it fails
# (see the first test for how each side is judged).
HEADROOM = 0.8
# YCSB's -threads bounds the closed-loop ramp: 4, 8, 16, 24 threads (one node on 2 cores
# peaks at 16-24 threads), four short steps
RAMP_MAX_THREADS = 24
ATTEMPTS = 2  # of the search and its checks: see the first test


@pytest.fixture(scope="module")
def node(shared_node: LocalCluster) -> Iterator[LocalCluster]:
    yield from emptied(shared_node)


def casslab(*args: str) -> subprocess.CompletedProcess[str]:
    done = run_casslab(None, *args, timeout_s=240, columns=250)
    assert done.returncode == 0, f"casslab {' '.join(args)}\n{done.stdout}\n{done.stderr}"
    return done


def fixed_rate_check(rate_per_s: float, workdir: Path) -> tuple[Probe, Verdict]:
    """One fixed-rate run at ``rate_per_s`` and the search's own verdict on it, measured
    as the search measures: the same 2 s warm-up, then 5 s (an open loop right at its knee
    is metastable: a run that starts with a backlog never drains it, so a check that
    skipped the warm-up would test another protocol than the one the answer is for)."""
    command = parse_command([READ], contact_points=[NODE])
    probe = EngineMeasure(command, workdir, step_duration_s=5.0, warmup_s=2.0)(rate_per_s)
    verdict, _ = judge(probe, FindSettings(p99_slo_ms=SLO_MS))
    return probe, verdict


def search(out: Path, start_rate: float) -> dict[str, Any]:
    done = casslab(
        "capacity",
        "find",
        "--p99",
        f"{SLO_MS:g}ms",
        "--json",
        "--out",
        str(out),
        "--step-duration",
        "5s",
        "--warmup",
        "2s",
        "--first-warmup",
        "5s",
        "--start-rate",
        f"{start_rate:.0f}",  # a slow ramp warms the fresh node: a cold JVM caps the answer
        "--precision",
        "10%",
        "--preload",
        PRELOAD,
        READ,
    )
    found: dict[str, Any] = json.loads(done.stdout)
    assert found["status"] == "found", done.stderr
    assert found["p99_ms_at_max"] <= SLO_MS
    assert found["bracket_high_per_s"] <= found["max_rate"] * 1.1
    assert (out / "find.png").is_file()
    return found


def describe(found: dict[str, Any], checks: list[tuple[str, Probe, Verdict]]) -> str:
    runs = ", ".join(
        f"{p['probe']['rate_asked_per_s']:g}/s p99 {p['probe']['p99_ms']} {p['verdict']}"
        + (f" ({p['reason']})" if p["reason"] else "")
        for p in found["points"]
    )
    checked = ", ".join(
        f"{name} {probe.rate_asked_per_s:g}/s p99 {probe.p99_ms} "
        f"done {probe.rate_achieved_per_s:.0f}/s errors {probe.errors} {verdict.value}"
        for name, probe, verdict in checks
    )
    return f"answer {found['max_rate']:g}/s; search: {runs}; checks: {checked}"


def test_find_returns_a_rate_that_meets_the_slo_and_30_percent_more_does_not(
    node: LocalCluster, tmp_path: Path
) -> None:
    """The answer, less 20%, passes a fixed-rate run; 30% over it the search would not
    accept: one of ``FindSettings.repeats`` (3) runs there fails, by the search's own rule.

    This node's knee moves by 15% or more from run to run (one search here passed 66,000/s
    twice and failed it once, and completed 48,950/s of 55,100 asked later on), so a
    single run 30% over the answer, which the search placed at the low side of that band,
    can land in a good moment; three runs there are what the search itself would ask
    before it accepted that rate. And a 5 s run's p99 is its worst 50 ms, so a stall of
    this shared 2-core machine longer than about 550 ms fails a run at any rate: in the
    search it lowers the answer, in the check below it fails that check. A stall does not
    repeat, so a second search on the warm node decides; both failing means the search is
    wrong."""
    attempts: list[str] = []
    start_rate = 2000.0
    repeats = FindSettings(p99_slo_ms=SLO_MS).repeats
    for attempt in range(1, ATTEMPTS + 1):
        found = search(tmp_path / f"search-{attempt}", start_rate)
        rate = found["max_rate"]
        checks = [("below", *fixed_rate_check(rate * HEADROOM, tmp_path / f"below-{attempt}"))]
        for run in range(1, repeats + 1):
            above = fixed_rate_check(rate * 1.3, tmp_path / f"above-{attempt}-{run}")
            checks.append(("above", *above))
            if above[1] is Verdict.FAIL:
                break
        attempts.append(describe(found, checks))
        if checks[0][2] is Verdict.PASS and checks[-1][2] is Verdict.FAIL:
            return
        start_rate = max(2000.0, rate / 2)
    pytest.fail("\n".join(attempts))


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
