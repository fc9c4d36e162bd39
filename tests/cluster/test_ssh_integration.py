"""The ssh backend for real: five "hosts" (network namespaces, each a real OpenSSH
server, see :mod:`ssh_testbed` (tests/ssh_testbed.py)), three database hosts and two
`clients:`; ``casslab up --hosts --nodes 2`` deploys a 2-node cluster over SSH and the
add-node operation bootstraps a third on the spare host, status, nodetool, stress and logs
work against it, ``casslab upgrade --to`` deploys the next version to each host and moves
the nodes to it one at a time with their data, the decommission operation takes node 3
away again and frees its host, the replace operation puts a dead node 2's tokens and rows on
that host as a new node 3, ``down --remove`` leaves nothing on any host; a host
without Java is refused before anything starts. ``casslab stress --client-hosts`` runs one
engine on each client host and merges them exactly; a client that fails is named by
address; Ctrl-C leaves no engine on any client host."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab.cluster import state
from casslab.cluster.capabilities import ring_of
from casslab.cluster.ssh.cluster import SshCluster
from casslab.engine_contract.engine_records import SummaryRecord
from casslab.engine_contract.hdr import merge, parse_interval_log
from casslab.errors import ConfigError
from casslab.faults.kinds.add_node.add_node_operation import ADD_NODE
from casslab.faults.kinds.decommission.decommission_operation import DECOMMISSION
from casslab.faults.kinds.replace.replace_operation import REPLACE
from casslab.faults.model import Fault
from casslab.faults.operation import Stopwatch
from casslab.load.engine import ENGINE_NAME, RECORDS_FILE
from cli_entry import NEEDS_ENGINE, casslab, flat
from jit import UP_LIGHT
from ssh_testbed import LabHost, SshLab, missing_tools, namespace_pids

pytestmark = [
    pytest.mark.integration,
    *NEEDS_ENGINE,
    pytest.mark.skipif(missing_tools() is not None, reason=str(missing_tools())),
]

NAME = "sshc"
NODES = (1, 2, 3)  # lab host numbers of the database hosts
CLIENTS = (4, 5)  # and of the client hosts
KEYS = 4000
OLD, NEW = "5.0.8", "5.0.9"  # the cluster's version, and the one it is upgraded to


@pytest.fixture(scope="module")
def lab() -> Iterator[SshLab]:
    with SshLab(len(NODES) + len(CLIENTS)) as made:
        yield made


def _nodes(lab: SshLab) -> tuple[LabHost, ...]:
    return tuple(lab.hosts[n - 1] for n in NODES)


def _clients(lab: SshLab) -> tuple[LabHost, ...]:
    return tuple(lab.hosts[n - 1] for n in CLIENTS)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ssh-home")


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _javas(lab: SshLab) -> dict[str, list[int]]:
    """Each database host's Java processes."""
    return {
        h.address: [p for p in namespace_pids(h.namespace) if "java" in _cmdline(p)]
        for h in _nodes(lab)
    }


def test_a_host_without_java_is_refused_before_anything_starts(lab: SshLab, home: Path) -> None:
    inventory = lab.inventory(
        lab.dir / "nojava.yaml", hosts=NODES, overrides={2: {"java_home": "/opt/no-such-jdk"}}
    )
    result = casslab(home, "up", "--hosts", str(inventory), "--name", "nojava", "--heap", "512M")
    message = flat(result.stdout + result.stderr)
    assert result.returncode != 0
    assert f"host root@{lab.hosts[1].address}:22" in message
    assert "java_home /opt/no-such-jdk has no executable bin/java" in message
    assert _javas(lab) == {h.address: [] for h in _nodes(lab)}
    assert not any(Path(h.base_dir, "dist").exists() for h in lab.hosts)  # nothing deployed


def test_an_unreachable_host_is_named(lab: SshLab, home: Path) -> None:
    inventory = lab.inventory(
        lab.dir / "unreachable.yaml", hosts=NODES, overrides={3: {"address": lab.spare_address}}
    )
    result = casslab(home, "up", "--hosts", str(inventory), "--name", "gone", "--heap", "512M")
    message = flat(result.stdout + result.stderr)
    assert result.returncode != 0
    assert f"cannot open an SSH connection to {lab.spare_address} port 22" in message
    assert _javas(lab) == {h.address: [] for h in _nodes(lab)}


@pytest.fixture(scope="module")
def cluster(lab: SshLab, home: Path) -> Iterator[float]:
    """The cluster's start-up time in seconds. Its ring delay is 5 s, not Cassandra's 30: a
    fresh ring of three nodes on one machine agrees by gossip within seconds, and the
    tests check deployment and readiness (every node sees every node UN), not the timing.
    Its load broadcast interval is 5 s, not 60: a replacement waits the larger of the two
    before it takes the dead node's tokens (the replace test took 105 s with 60, 51 s with 5).
    Its phi_convict_threshold is 5, the lowest Cassandra accepts: the replace waits for node
    1 to convict the killed node, some 12 s after its last gossip instead of 18 (phi 8).
    The JVMs are light for the same reason (operation_runs.two_nodes says why): at C1, the
    module alone took 443 s and 524 CPU-s of the machine with C2, 395 s and 381 with C1."""
    inventory = lab.inventory(hosts=NODES, clients=CLIENTS)
    start = time.monotonic()
    result = casslab(
        home,
        *("up", "--hosts", str(inventory), "--nodes", "2", "--name", NAME, "--heap", "512M"),
        *("--timeout", "400"),
        *("--jvm-option", "-Dcassandra.ring_delay_ms=5000", "--version", OLD),
        *("--jvm-option", "-Dcassandra.broadcast_interval_ms=5000"),
        *("--set", "phi_convict_threshold=5"),
        *UP_LIGHT,
    )
    took = time.monotonic() - start
    try:
        assert result.returncode == 0, result.stdout + result.stderr
        yield took
    finally:
        if (home / "clusters" / NAME).exists():
            casslab(home, "down", "--remove", "--name", NAME)


def test_add_node_bootstraps_a_third_node_on_the_spare_host_with_the_rows(
    cluster: float, lab: SshLab, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The add-node operation as an experiment's timeline runs it: the inventory's third
    host runs no node, so it gets its Java checked and the cluster's version deployed,
    then node 3 bootstraps there and streams its ranges of the rows written before; once
    every host runs a node, another add-node is refused with the fix. About 75 s: the
    JVM's start on the new host, the ring delay (5 s here) and its bootstrap, waited for
    until every node sees it UN (the operation's own timeout bounds it)."""
    spare = _nodes(lab)[2]
    assert _javas(lab)[spare.address] == []  # --nodes 2: the third host is spare
    result = casslab(home, "stress", "write", "n=2000", "-rate", "threads=4", timeout_s=300)
    assert result.returncode == 0, result.stdout + result.stderr
    monkeypatch.setenv("CASSLAB_HOME", str(home))
    cluster_ = SshCluster(state.load(NAME))
    try:
        watch = Stopwatch()
        ADD_NODE.run(
            cluster_, Fault.model_validate({"at": 0, "kind": "add-node", "target": 3}), watch
        )
        assert [(s.node, s.step) for s in watch.steps] == [(3, "bootstrap")]
        with pytest.raises(ConfigError) as refused:
            ADD_NODE.check(
                cluster_, Fault.model_validate({"at": 0, "kind": "add-node", "target": 4})
            )
    finally:
        cluster_.close_sessions()
    assert "each of the 3 hosts of its inventory" in str(refused.value)
    assert "list one more host under hosts: there" in str(refused.value)
    assert Path(spare.base_dir, "dist", OLD, "SHA256SUMS").is_file()
    assert len(_javas(lab)[spare.address]) == 1
    ring = casslab(home, "nodetool", "3", "status", "--name", NAME)
    for host in _nodes(lab):
        assert re.search(rf"^UN\s+{re.escape(host.address)}\s", ring.stdout, re.MULTILINE)
    # keyspace1 has one replica per row: node 3 now owns a quarter of the ring, so every
    # row is read back only if its rows were streamed to it
    assert re.search(r"count -+ 2000 \(1 rows\)", _count(home))


def test_up_deploys_and_status_shows_three_up_nodes_with_pids(
    cluster: float, lab: SshLab, home: Path
) -> None:
    result = casslab(home, "status", "--name", NAME)
    assert result.returncode == 0, result.stderr
    javas = _javas(lab)
    for host in _nodes(lab):
        row = next(line for line in result.stdout.splitlines() if f"{host.address}:9042" in line)
        assert " up " in row
        assert len(javas[host.address]) == 1
        assert re.search(rf"\b{javas[host.address][0]}\b", row), row
        assert Path(host.base_dir, "dist", OLD, "SHA256SUMS").is_file()
        node = Path(host.base_dir, "clusters", NAME)
        assert len(list(node.glob("node*/conf/cassandra.yaml"))) == 1


def test_nodetool_runs_on_the_host_and_sees_the_ring(
    cluster: float, lab: SshLab, home: Path
) -> None:
    result = casslab(home, "nodetool", "2", "status", "--name", NAME)
    assert result.returncode == 0, result.stderr
    for host in _nodes(lab):
        assert re.search(rf"^UN\s+{re.escape(host.address)}\s", result.stdout, re.MULTILINE)


def _count(home: Path, node: int = 3) -> str:
    query = "SELECT count(*) FROM keyspace1.standard1;"
    result = casslab(home, "cqlsh", str(node), "--name", NAME, "-e", query)
    return flat(result.stdout + result.stderr)


def test_stress_writes_through_the_hosts_addresses(cluster: float, home: Path) -> None:
    result = casslab(home, "stress", "write", "n=2000", "-rate", "threads=4", timeout_s=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"count -+ 2000 \(1 rows\)", _count(home))


def test_a_rolling_upgrade_deploys_the_new_version_first_and_keeps_the_data(
    cluster: float, lab: SshLab, home: Path
) -> None:
    """``casslab upgrade --to``: node by node, the new jars go to the host (checked by
    sha256 there), the node drains, stops and starts on them with its own data."""
    result = casslab(home, "upgrade", "--to", NEW, "--name", NAME, timeout_s=900)
    assert result.returncode == 0, result.stdout + result.stderr
    said = flat(result.stdout)
    assert f"'{NAME}' runs Cassandra {NEW}" in said
    for number in (1, 2, 3):
        for step in ("drain", "stop", "start"):
            assert f"node {number}: {step}" in said, said
    for number, host in enumerate(_nodes(lab), start=1):
        assert Path(host.base_dir, "dist", NEW, "SHA256SUMS").is_file()
        release = casslab(home, "nodetool", str(number), "version", "--name", NAME)
        assert f"ReleaseVersion: {NEW}" in release.stdout, release.stdout + release.stderr
        command = next(Path(host.base_dir, "clusters", NAME).glob("node*/conf/command.txt"))
        assert f"/dist/{NEW}/lib/" in command.read_text()  # it runs the deployed jars
    assert re.search(r"count -+ 2000 \(1 rows\)", _count(home))  # every row kept
    state = json.loads((home / "clusters" / NAME / "state.json").read_text())
    assert state["cassandra_version"] == NEW
    assert {n["dist_dir"].rsplit("/", 1)[1] for n in state["backend_state"]["nodes"]} == {NEW}


EXPERIMENT = """
name: on-ssh
cluster: {{use: {name}}}
clients: {clients}
factors: {{threads: [4]}}
preload: "write n=1000 -pop seq=1..1000 -rate threads=4"
workload: "write -pop dist=UNIFORM(1..1000)"
measure: "duration=3s"
iterations: 1
reset: truncate
"""


def _client_summaries(work: Path) -> list[SummaryRecord]:
    """Each client's own summary, from its records under ``work/client-<i>/``."""
    return [_summary(work, path.name) for path in sorted(work.glob("client-*"))]


def test_a_short_experiment_runs_and_records_every_host(
    cluster: float, lab: SshLab, home: Path, tmp_path: Path
) -> None:
    """Its trial runs on the three hosts, preloaded and measured from the two client
    hosts (merged: the trial's count is the clients' sum); the host and JVM metrics of
    each database host come from its /proc over SSH, and its JMX metrics from a helper run
    there, under the node's address."""
    path = tmp_path / "on-ssh.yaml"
    path.write_text(EXPERIMENT.format(name=NAME, clients=lab.dir / "hosts.yaml"))
    results = tmp_path / "results"
    done = casslab(home, "run", str(path), "--results", str(results), timeout_s=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [summary] = results.glob("on-ssh/*/trials/*/1/summary.json")
    result = json.loads(summary.read_text())
    assert result["status"] == "ok", result.get("error")
    trial = summary.parent
    measured = _client_summaries(trial / "clients")
    assert len(measured) == len(CLIENTS)
    assert result["engine"]["total"]["count"] == sum(s.total.count for s in measured) > 0
    preloaded = _client_summaries(trial / "preload" / "clients")
    assert [s.total.count for s in preloaded] == [500, 500]  # seq=1..1000, shared
    assert parse_interval_log((trial / "latency.hlog").read_text()).intervals
    import pandas as pd

    frame = pd.read_parquet(trial / "metrics.parquet")
    for host in _nodes(lab):
        names = set(frame[frame["node"] == host.address]["metric"])
        assert {"host.cpu_busy_pct", "host.net_rx_bytes_per_s", "process.rss_bytes"} <= names
        assert {"cassandra.sstables", "cassandra.gc_pauses"} <= names  # JMX, on the host


def _engines(lab: SshLab) -> list[int]:
    """The load engines running on the client hosts."""
    return [
        p
        for h in _clients(lab)
        for p in namespace_pids(h.namespace)
        if _cmdline(p).split(" ", 1)[0].endswith(f"/{ENGINE_NAME}")
    ]


def _run_files(lab: SshLab) -> list[Path]:
    """What runs left on the client hosts (each run's folder is removed after it)."""
    return [p for h in _clients(lab) for p in Path(h.base_dir, "runs").glob("*/*")]


def _summary(work: Path, client: str) -> SummaryRecord:
    """The summary one client's engine wrote (its own records, not the merge)."""
    for line in (work / client / RECORDS_FILE).read_text().splitlines():
        record = json.loads(line)
        if record["type"] == "summary":
            return SummaryRecord.model_validate(record)
    raise AssertionError(f"{client} wrote no summary")


def _merged(work: Path) -> SummaryRecord:
    run = json.loads((work / "merged.json").read_text())
    assert run["failed"] == [], run["failed"]
    return SummaryRecord.model_validate(run["summary"])


def _on_clients(home: Path, inventory: Path, work: Path, *args: str) -> str:
    argv = ["stress", *" ".join(args).split(), "--client-hosts", str(inventory)]
    argv += ["--workdir", str(work)]
    result = casslab(home, *argv, timeout_s=180, columns=250)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_a_preload_from_two_client_hosts_writes_every_key_once(
    cluster: float, lab: SshLab, home: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    out = _on_clients(home, lab.dir / "hosts.yaml", work, f"write n={KEYS}", f"-pop seq=1..{KEYS}")
    for i, host in enumerate(_clients(lab)):  # each client named by its host's address
        assert f"client-{i}@{host.address}: 2,000 ops" in out, out
    clients = [_summary(work, f"client-{i}") for i in range(len(CLIENTS))]
    merged = _merged(work)
    assert merged.total.count == sum(c.total.count for c in clients) == KEYS
    assert merged.total.errors == 0
    assert re.search(rf"count -+ {KEYS} \(1 rows\)", _count(home))
    for host in _clients(lab):  # the engine was put once, where its digest names it
        assert len(list(Path(host.base_dir, "engine").glob(f"*/{ENGINE_NAME}"))) == 1
    assert _run_files(lab) == []
    assert _engines(lab) == []


def test_an_open_loop_read_from_two_client_hosts_merges_exactly(
    cluster: float, lab: SshLab, home: Path, tmp_path: Path
) -> None:
    hdr = tmp_path / "read.hlog"
    work = tmp_path / "work"
    _on_clients(
        home,
        lab.dir / "hosts.yaml",
        work,
        *f"read duration=3s -pop dist=UNIFORM(1..{KEYS}) -rate threads=8 fixed=400/s".split(),
        f"-log hdrfile={hdr}",
    )
    logs = [parse_interval_log((tmp_path / f"read.client-{i}.hlog").read_text()) for i in (0, 1)]
    merged_log = parse_interval_log(hdr.read_text())
    for tag in ("read", "read.service"):
        ours = merge(i.histogram for i in merged_log.intervals if i.tag == tag)
        theirs = merge(i.histogram for log in logs for i in log.intervals if i.tag == tag)
        assert ours is not None
        assert theirs is not None
        assert dict(ours.counts) == dict(theirs.counts)  # bucket for bucket
    summary = _merged(work)
    clients = [_summary(work, f"client-{i}") for i in range(len(CLIENTS))]
    reads = merge(i.histogram for i in merged_log.intervals if i.tag == "read")
    assert reads is not None
    assert summary.total.count == sum(c.total.count for c in clients) == reads.total_count
    assert summary.total.count >= 0.9 * 400 * 3  # both clients ran their share of the rate
    assert summary.total.errors == 0
    assert _run_files(lab) == []
    assert _engines(lab) == []


def test_ycsb_load_and_run_from_two_client_hosts(
    cluster: float, lab: SshLab, home: Path, tmp_path: Path
) -> None:
    """YCSB's load phase shares the records between the client hosts (each inserts its
    half once) and its run phase the operations; each merge counts what the clients did."""
    inventory = str(lab.dir / "hosts.yaml")
    node = _nodes(lab)[0].address
    base = ["-P", "workloada", "-p", f"hosts={node}", "--client-hosts", inventory]
    for phase, count in (("load", "recordcount=2000"), ("run", "operationcount=2000")):
        work = tmp_path / phase
        argv = ["ycsb", phase, *base, "-p", count, "-p", "threadcount=4", "--workdir", str(work)]
        result = casslab(home, *argv, timeout_s=180, columns=250)
        assert result.returncode == 0, result.stdout + result.stderr
        clients = [_summary(work, f"client-{i}") for i in range(len(CLIENTS))]
        assert [c.total.count for c in clients] == [1000, 1000]
        merged = _merged(work)
        assert merged.total.count == 2000
        assert merged.total.errors == 0
    assert _run_files(lab) == []
    assert _engines(lab) == []


def test_a_client_host_that_fails_is_named_and_the_command_fails(
    cluster: float, lab: SshLab, home: Path, tmp_path: Path
) -> None:
    first, second = _clients(lab)
    inventory = lab.inventory(
        lab.dir / "one-closed.yaml", hosts=NODES, clients=CLIENTS, overrides={5: {"port": 2}}
    )
    argv = ["stress", "write", "n=400", "-rate", "threads=4", "--client-hosts", str(inventory)]
    result = casslab(home, *argv, timeout_s=120, columns=250)
    message = flat(result.stdout + result.stderr)
    assert result.returncode != 0
    assert f"client-0@{first.address}: 200 ops" in message  # the other client's figures
    assert f"client-1@{second.address} failed: host root@{second.address}:2" in message
    assert "1 of 2 load clients failed" in message

    nowhere = first.address  # a client host: nothing listens on 9042 there
    argv = ["stress", "write", "n=400", "-node", nowhere, "--client-hosts", str(inventory)]
    result = casslab(home, *argv, timeout_s=120, columns=250)
    message = flat(result.stdout + result.stderr)
    assert result.returncode != 0
    assert f"load engine on root@{first.address}:22 exited with status" in message
    assert nowhere in message.split("exited with status", 1)[1]  # the engine's reason
    assert _run_files(lab) == []
    assert _engines(lab) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill-9"])
def test_stopping_casslab_stops_every_engine_on_the_client_hosts(
    cluster: float, lab: SshLab, home: Path, tmp_path: Path, sig: signal.Signals
) -> None:
    """Ctrl-C: casslab kills each engine's process group and removes the run's files; a
    casslab killed outright runs no clean-up, but its SSH connections close and each
    engine, watching its sshd process, ends by itself within seconds."""
    work = tmp_path / "work"
    argv = ["stress", "write", "duration=60s", "-rate", "threads=2", "fixed=200/s"]
    argv += ["--client-hosts", str(lab.dir / "hosts.yaml"), "--workdir", str(work)]
    run = subprocess.Popen(
        [sys.executable, "-m", "casslab", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "CASSLAB_HOME": str(home)},
    )
    try:
        deadline = time.monotonic() + 60
        records = [work / f"client-{i}" / RECORDS_FILE for i in range(len(CLIENTS))]
        while not all(p.is_file() and p.stat().st_size > 0 for p in records):
            assert run.poll() is None, run.communicate()[0]
            assert time.monotonic() < deadline, "the clients wrote no record in 60 s"
            time.sleep(0.1)
        assert len(_engines(lab)) == len(CLIENTS)
        run.send_signal(sig)
        out = run.communicate(timeout=30)[0]
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode != 0, out
    deadline = time.monotonic() + 5.0
    while _engines(lab) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _engines(lab) == []
    if sig == signal.SIGINT:
        assert _run_files(lab) == []


def test_restart_applies_a_setting_and_reset_empties_the_cluster(
    cluster: float, lab: SshLab, home: Path
) -> None:
    before = _javas(lab)
    result = casslab(home, "restart", "--set", "concurrent_writes=16", "--name", NAME)
    assert result.returncode == 0, result.stdout + result.stderr
    after = _javas(lab)
    assert all(len(after[a]) == 1 and after[a] != before[a] for a in after), (before, after)
    for host in _nodes(lab):
        yaml_text = next(Path(host.base_dir, "clusters", NAME).glob("node*/conf/cassandra.yaml"))
        assert "concurrent_writes: 16" in yaml_text.read_text()
    result = casslab(home, "reset", "--name", NAME)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "dropped keyspace1" in result.stdout
    assert "keyspace1 does not exist" in _count(home)
    # the drop's automatic snapshot (auto_snapshot) is gone from every host's data folder
    snapshots = [
        path
        for host in _nodes(lab)
        for path in Path(host.base_dir, "clusters", NAME).glob("node*/data/*/*/snapshots")
    ]
    assert snapshots == []


def test_logs_are_read_on_the_host(cluster: float, home: Path) -> None:
    result = casslab(home, "logs", "3", "--name", NAME, "--lines", "400")
    assert result.returncode == 0, result.stderr
    assert "clusters/sshc/node3/logs/system.log" in flat(result.stdout)
    assert "Starting listening for CQL clients" in result.stdout


def test_decommission_of_the_last_node_streams_its_rows_away_and_frees_its_host(
    cluster: float, lab: SshLab, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The decommission operation as a timeline runs it: node 3 streams its ranges to
    nodes 1 and 2 (keyspace1 at RF 1: every row is read back only if they got them),
    stops, leaves the cluster's record and its folder on its host, which is spare again
    for the next add-node. A node other than the last is refused before it streams."""
    spare = _nodes(lab)[2]
    result = casslab(home, "stress", "write", "n=2000", "-rate", "threads=4", timeout_s=300)
    assert result.returncode == 0, result.stdout + result.stderr
    monkeypatch.setenv("CASSLAB_HOME", str(home))
    cluster_ = SshCluster(state.load(NAME))
    try:
        with pytest.raises(ConfigError, match=r"node 1 of 'sshc' is not its last node \(3\)"):
            DECOMMISSION.check(cluster_, Fault.model_validate(_decommission(1)))
        watch = Stopwatch()
        DECOMMISSION.run(cluster_, Fault.model_validate(_decommission(3)), watch)
        assert [(s.node, s.step) for s in watch.steps] == [(3, "decommission"), (3, "stop")]
        assert ring_of(cluster_).check_add() == 3  # its host is spare again
    finally:
        cluster_.close_sessions()
    assert _javas(lab)[spare.address] == []
    assert not Path(spare.base_dir, "clusters", NAME).exists()
    recorded = json.loads((home / "clusters" / NAME / "state.json").read_text())
    assert [n["number"] for n in recorded["nodes"]] == [1, 2]
    assert recorded["spec"]["nodes"] == 2
    ring = casslab(home, "nodetool", "1", "status", "--name", NAME)
    assert len(re.findall(r"^UN\s", ring.stdout, re.MULTILINE)) == 2, ring.stdout
    assert spare.address not in ring.stdout
    assert re.search(r"count -+ 2000 \(1 rows\)", _count(home, node=1))


def test_a_dead_node_is_replaced_on_the_spare_host_with_its_tokens_and_rows(
    cluster: float, lab: SshLab, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replace operation as a timeline runs it: node 2 is killed, and a new node 3 (the
    next number, as add-node gives) on the host node 3 left (spare again) takes its tokens
    with Cassandra's replace address and streams its rows from node 1 (keyspace1 raised to
    RF 2 and repaired first: at RF 1 the replace is refused before anything stops); node 2's
    host is then spare, its folder gone. The new node holds the rows itself and reads them back."""
    dead, spare = _nodes(lab)[1], _nodes(lab)[2]
    monkeypatch.setenv("CASSLAB_HOME", str(home))
    cluster_ = SshCluster(state.load(NAME))
    try:
        replace = Fault.model_validate({"at": 0, "kind": "replace", "target": 2})
        with pytest.raises(ConfigError, match=r"keyspace\(s\) keyspace1 at replication factor 1"):
            REPLACE.check(cluster_, replace)
        cluster_.session().execute(
            "ALTER KEYSPACE keyspace1 WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 2}"
        )
        cluster_.nodetool(1, "repair", "--full", "keyspace1", timeout_s=300)
        peer = "SELECT tokens FROM system.peers WHERE peer = %s"
        old_tokens = set(cluster_.session(node=1).execute(peer, [dead.address]).one().tokens)
        watch = Stopwatch()
        REPLACE.run(cluster_, replace, watch)
        assert [(s.node, s.step) for s in watch.steps] == [(2, "kill"), (2, "replace")]
        assert [(n.number, n.address) for n in cluster_.nodes] == [
            (1, _nodes(lab)[0].address),
            (3, spare.address),
        ]
        new_tokens = set(cluster_.session(node=1).execute(peer, [spare.address]).one().tokens)
        assert new_tokens == old_tokens
        assert ring_of(cluster_).check_add() == 4  # node 2's host is spare now
    finally:
        cluster_.close_sessions()
    assert _javas(lab)[dead.address] == []
    assert not Path(dead.base_dir, "clusters", NAME).exists()
    recorded = json.loads((home / "clusters" / NAME / "state.json").read_text())
    assert [n["number"] for n in recorded["nodes"]] == [1, 3]
    assert [n["joined"] for n in recorded["backend_state"]["nodes"]] == [False, True]
    ring = casslab(home, "nodetool", "1", "status", "--name", NAME)
    assert len(re.findall(r"^UN\s", ring.stdout, re.MULTILINE)) == 2, ring.stdout
    assert dead.address not in ring.stdout
    stats = casslab(home, "nodetool", "3", "tablestats", "keyspace1.standard1", "--name", NAME)
    streamed = re.search(r"Number of partitions \(estimate\): (\d+)", stats.stdout)
    assert streamed is not None, stats.stdout + stats.stderr
    assert int(streamed.group(1)) > 1000  # node 3 holds the rows itself (RF 2 of 2 nodes)
    assert re.search(r"count -+ 2000 \(1 rows\)", _count(home, node=3))


def _decommission(target: int) -> dict[str, object]:
    return {"at": 0, "kind": "decommission", "target": target}


def _ssh_refused(host: LabHost, refused: bool) -> None:
    """Take ``host``'s link to the lab's bridge down (a host that does not answer), or up."""
    state = "down" if refused else "up"
    command = ["ip", "link", "set", "dev", host.host_interface, state]
    subprocess.run(command, check=True, capture_output=True)


def test_down_remove_leaves_nothing_on_any_host(cluster: float, lab: SshLab, home: Path) -> None:
    """A host that does not answer is named, the others are cleared and the cluster's
    state is kept; once the host answers, ``down --remove`` again clears it too. Node 3
    has left (decommissioned above) and node 2 was replaced by a new node 3 on host 3: that
    host is the one that does not answer."""
    gone = _nodes(lab)[2]
    _ssh_refused(gone, True)
    try:
        failed = casslab(home, "down", "--remove", "--name", NAME)
    finally:
        _ssh_refused(gone, False)
    assert failed.returncode != 0
    said = flat(failed.stderr)
    assert "was not removed from every host" in said, said
    assert "node 3" in said, said
    assert gone.address in said, said
    javas = _javas(lab)
    assert [javas[h.address] for h in _nodes(lab) if h is not gone] == [[], []]
    assert len(javas[gone.address]) == 1  # its node still runs: nothing could reach it
    assert (home / "clusters" / NAME).exists()
    result = casslab(home, "down", "--remove", "--name", NAME)
    assert result.returncode == 0, result.stderr
    assert _javas(lab) == {h.address: [] for h in _nodes(lab)}
    for host in lab.hosts:  # the client hosts too
        assert not Path(host.base_dir, "clusters", NAME).exists()
        left = [_cmdline(p) for p in namespace_pids(host.namespace)]
        assert all("sshd" in c for c in left), left  # only the host's own sshd
    assert not (home / "clusters" / NAME).exists()
