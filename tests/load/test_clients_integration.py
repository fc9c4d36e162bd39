"""``casslab stress ... --clients 2`` against one real node (512M heap), through the real CLI
and two real engines (issue 17, "Load from several clients").

A preload ``n=4000 -pop seq=1..4000`` split over two clients writes every key exactly once;
an open-loop read from two clients gives a merged HDR log whose histogram is, bucket for
bucket, the merge of the two clients' logs, whose p99 is the merged summary's, and which
HdrHistogram's own Java log processor reads. On the session's shared node, emptied
before and after.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab.cluster import LocalCluster
from casslab.engine_contract.engine_records import SummaryRecord
from casslab.engine_contract.hdr import latency_stats, merge, parse_interval_log
from casslab.load.engine import RECORDS_FILE
from cli_entry import NEEDS_ENGINE, flat, processes_under
from cli_entry import casslab as run_casslab
from shared_clusters import SHARED_NODE, emptied

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

NODE = SHARED_NODE
KEYS = 4000


@pytest.fixture(scope="module")
def node(shared_node: LocalCluster) -> Iterator[LocalCluster]:
    yield from emptied(shared_node)


@pytest.fixture(scope="module")
def preloaded(node: LocalCluster, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The preload, run once from two clients; its work directory."""
    work = tmp_path_factory.mktemp("preload")
    done = casslab(
        "stress", f"write n={KEYS} -pop seq=1..{KEYS} -node {NODE}", "--clients", "2", work=work
    )
    assert "client-0: 2,000 ops" in done.stdout, done.stdout
    assert "client-1: 2,000 ops" in done.stdout, done.stdout
    return work


def casslab(*args: str, work: Path) -> subprocess.CompletedProcess[str]:
    argv = [*" ".join(args[:2]).split(), *args[2:], "--workdir", str(work)]
    done = run_casslab(None, *argv, timeout_s=120, columns=250)
    assert done.returncode == 0, f"casslab {' '.join(argv)}\n{done.stdout}\n{done.stderr}"
    return done


def client_summary(work: Path, client: str) -> SummaryRecord:
    """The summary one client's engine wrote (its own records, not the merge)."""
    for line in (work / client / RECORDS_FILE).read_text().splitlines():
        record = json.loads(line)
        if record["type"] == "summary":
            return SummaryRecord.model_validate(record)
    raise AssertionError(f"{client} wrote no summary")


def merged_summary(work: Path) -> SummaryRecord:
    run = json.loads((work / "merged.json").read_text())
    assert run["failed"] == []
    return SummaryRecord.model_validate(run["summary"])


def test_a_split_preload_writes_every_key_exactly_once(node: LocalCluster, preloaded: Path) -> None:
    clients = [client_summary(preloaded, f"client-{i}") for i in range(2)]
    merged = merged_summary(preloaded)

    assert merged.total.count == sum(c.total.count for c in clients) == KEYS
    assert merged.total.errors == 0
    session = node.session()
    rows = session.execute("SELECT COUNT(*) FROM keyspace1.standard1").one()[0]
    assert rows == KEYS


def test_an_open_loop_read_merges_exactly(
    node: LocalCluster, preloaded: Path, tmp_path: Path
) -> None:
    hdr = tmp_path / "read.hlog"
    done = casslab(
        "stress",
        f"read duration=4s -pop dist=UNIFORM(1..{KEYS}) -rate threads=16 fixed=600/s "
        f"-node {NODE} -log hdrfile={hdr}",
        "--clients",
        "2",
        work=tmp_path / "work",
    )
    logs = [parse_interval_log((tmp_path / f"read.client-{i}.hlog").read_text()) for i in range(2)]
    merged_log = parse_interval_log(hdr.read_text())
    summary = merged_summary(tmp_path / "work")

    for tag in ("read", "read.service"):
        ours = merge(i.histogram for i in merged_log.intervals if i.tag == tag)
        theirs = merge(i.histogram for log in logs for i in log.intervals if i.tag == tag)
        assert ours is not None
        assert theirs is not None
        assert dict(ours.counts) == dict(theirs.counts)  # bucket for bucket
    whole = latency_stats(
        merge(i.histogram for log in logs for i in log.intervals if i.tag == "read")
    )
    assert summary.ops["read"].response.p99_ms == whole.p99_ms
    assert summary.total.response == whole
    clients = [client_summary(tmp_path / "work", f"client-{i}") for i in range(2)]
    assert summary.total.count == sum(c.total.count for c in clients) == whole.count
    assert summary.total.count >= 0.9 * 600 * 4  # both clients ran their share of the rate
    assert f"{whole.p99_ms:.1f} ms" in flat(done.stdout)  # the printed p99 is the merged one

    java = subprocess.run(
        [
            str(node.state.java),
            "-cp",
            str(next(node.state.lib_dir.glob("HdrHistogram-*.jar"))),
            "org.HdrHistogram.HistogramLogProcessor",
            "-i",
            str(hdr),
            "-tag",
            "read",
            "-outputValueUnitRatio",
            "1000000",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    total = re.search(r"Total count\s*=\s*(\d+)", java.stdout)
    assert total is not None, java.stdout[-2000:] + java.stderr[-2000:]
    assert int(total.group(1)) == summary.ops["read"].count


@pytest.mark.parametrize(
    ("clients", "message"),
    [
        ("0", "--clients 0: the number of load clients must be at least 1"),
        ("-1", "--clients -1: the number of load clients must be at least 1"),
        ("9", "--clients 9: more clients than threads (8)"),
    ],
)
def test_a_bad_client_count_is_refused_before_anything_starts(
    clients: str, message: str, tmp_path: Path
) -> None:
    work = tmp_path / "never"
    done = run_casslab(
        None,
        "stress",
        *f"write n=100 -rate threads=8 -node {NODE}".split(),
        "--clients",
        clients,
        "--workdir",
        str(work),
        timeout_s=60,
    )
    assert done.returncode != 0
    assert message in flat(done.stdout + done.stderr)
    assert not work.exists()


def test_ctrl_c_stops_every_client_engine(node: LocalCluster, tmp_path: Path) -> None:
    """SIGINT while two engines run: both are stopped (nothing names the work directory
    afterwards) and casslab exits as interrupted."""
    work = tmp_path / "work"
    # 60 s is a bound never reached: the SIGINT below ends the run within seconds
    argv = f"write duration=60s -rate threads=4 -node {NODE}".split()
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "casslab",
            "stress",
            *argv,
            "--clients",
            "2",
            "--workdir",
            str(work),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        records = [work / f"client-{i}" / RECORDS_FILE for i in range(2)]
        while not all(p.is_file() and p.stat().st_size > 0 for p in records):
            assert run.poll() is None, run.communicate()[0]
            assert time.monotonic() < deadline, "the clients wrote no record in 60 s"
            time.sleep(0.1)
        engines = [p for p in processes_under(work) if p != run.pid]
        assert len(engines) == 2
        run.send_signal(signal.SIGINT)
        output, _ = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 130, output
    assert processes_under(work) == []
