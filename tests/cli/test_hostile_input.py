"""Hostile and careless input through the real entry point, no cluster needed: each case is
refused before anything starts with its exit status, a message naming the value as typed,
no secret and no traceback (:mod:`hostile_entry`).

On the base commit of issue 38 (b6d85a4), with its own entry point (``python -m casslab``
from a ``git worktree`` of it, each case in a subprocess limited to 3 GiB, no ``java`` on
the PATH so nothing could start), 267 of the 354 table cases fail: 89 of the 139 here (the
same with a 10 s and a 40 s limit per case), 154 of the 190 of ``test_hostile_files`` and 24
of the 25 of ``test_hostile_classes`` (10 s limit; exit 0 for injected CQL, secrets printed,
hangs, tracebacks, pydantic's words, exit 1 for usage errors, unknown classes accepted).
The same 10 s run on this branch: 0 of 139 here, but 18 and 4 of the others past 10 s on
a machine at load average 12 (all pass under pytest), so up to that many of the base's
files and classes failures may be slowness rather than a wrong answer. Outside the
tables, these fail on the base too: the 1,000-tenant ``capacity plan --time-limit`` tests
(past 100 s), the SSH host without SFTP (3 of 4), the
exit-2 cases of ``tests/cli/test_cli_errors.py`` and ``tests/capacity/test_find_cli.py``
(7), ``casslab tune --dry-run`` (2) and the atomic write's wording."""

from __future__ import annotations

from pathlib import Path

import pytest

from hostile_entry import Case, problems, run_main, write_files

S = ("stress",)
DRY = ("--dry-run",)
PW = "Hunter2"


def stress(*words: str, code: int = 1, names: str, secret: str | None = None) -> Case:
    return Case((*S, *words, *DRY), code, names, secret)


def ycsb(*words: str, code: int = 1, names: str, secret: str | None = None) -> Case:
    return Case(("ycsb", "load", *words, "-p", "recordcount=10", *DRY), code, names, secret)


# ------------------------------------------------------------- CQL never pasted: stress
INJECTION = [
    stress(
        "write",
        "n=10",
        "-schema",
        "replication(strategy=SimpleStrategy,factor=1'} AND durable_writes=false; --)",
        names="1'} AND durable_writes=false; --",
    ),
    stress(
        "write",
        "n=10",
        "-schema",
        "compaction(strategy=LeveledCompactionStrategy,sstable_size_in_mb=1'}; DROP KEYSPACE "
        "system; --)",
        names="sstable_size_in_mb",
    ),
    stress("write", "n=10", "-schema", "compression=Bogus'Compressor", names="Bogus'Compressor"),
    stress("write", "n=10", "-schema", "keyspace=ks;DROP", names="'ks;DROP'"),
    stress("write", "n=10", "-schema", 'keyspace=a"b', names='a"b'),
    stress("write", "n=10", "-schema", "keyspace=1abc", names="'1abc'"),
    stress("write", "n=10", "-schema", "keyspace=" + "k" * 49, names="49 characters"),
    stress("write", "n=10", "-schema", "keyspace=ks-1", names="'ks-1'"),
    stress("write", "n=10", "-schema", "keyspace=ké", names="'ké'"),
    stress(
        "write",
        "n=10",
        "-schema",
        "replication(strategy=Simple'Strategy,factor=1)",
        names="Simple'Strategy",
    ),
    stress(
        "write",
        "n=10",
        "-schema",
        "replication(strategy=SimpleStrategy,fac'tor=1)",
        names="fac'tor",
    ),
    stress(
        "write",
        "n=10",
        "-schema",
        "compaction(strategy=LCS;DROP)",
        names="LCS;DROP",
    ),
    stress("write", "n=10", "-schema", "replication(factor=0)", names="factor '0'"),
    stress("write", "n=10", "-schema", "replication(factor=three)", names="factor 'three'"),
    stress("write", "n=10", "-schema", "replication(factor=-1)", names="factor '-1'"),
    stress("write", "n=10", "-col", "names=a,b'c", names="b'c"),
    stress("write", "n=10", "-col", "names=a,b;DROP", names="b;DROP"),
    stress("write", "n=10", "-schema", "compression=LZ4Compressor}", names="LZ4Compressor}"),
    stress("write", "n=10", "-schema", "compression=a b", names="a b"),
]

# ------------------------------------------------------------- CQL never pasted: YCSB
INJECTION += [
    ycsb("-p", "table=usertable; DROP TABLE x", names="usertable; DROP TABLE x"),
    ycsb("-p", "table=user'table", names="user'table"),
    ycsb("-p", 'table=user"table', names='user"table'),
    ycsb("-p", "table=", names="-p table="),
    ycsb("-p", "table=1x", names="'1x'"),
    ycsb("-p", "cassandra.keyspace=ycsb;DROP", names="ycsb;DROP"),
    ycsb("-p", "cassandra.keyspace=a'b", names="a'b"),
    ycsb("-p", "cassandra.keyspace=" + "y" * 60, names="60 characters"),
    ycsb("-p", "fieldnameprefix=f'", names="f'"),
    ycsb("-p", "fieldnameprefix=f,x varchar) --", names="f,x varchar) --"),
]

# ------------------------------------------------------------- secrets never printed
SECRETS = [
    stress(
        "write", "n=10", "-mode", f"user=alice password={PW}(Secret", names="parenthesis", secret=PW
    ),
    stress(
        "write",
        "n=10",
        "-mode",
        "user=alice",
        f"password={PW}(Secret",
        names="parenthesis",
        secret=PW,
    ),
    stress(
        "write",
        "n=10",
        "-mode",
        "user=alice",
        f"password=S3cret PW({PW}",
        names="parenthesis",
        secret=PW,
    ),
    stress("write", "n=10", f"password={PW}", names="unknown option", secret=PW),
    stress("write", "n=10", f"-password={PW}", names="unknown", secret=PW),
    stress(
        "write",
        "n=10",
        "-mode",
        "user=alice",
        f"password={PW}",
        "-rate",
        "threads=x",
        names="'threads=x'",
        secret=PW,
    ),
    stress("write", "n=10", "-mode", f"user=alice password={PW} bogus=1", names="bogus", secret=PW),
    stress(
        "write",
        "n=10",
        "-mode",
        f"user=alice password='{PW}",
        "-rate",
        "threads=0",
        names="threads=0",
        secret=PW,
    ),
    stress(
        "write",
        "n=10",
        "-mode",
        f'user=alice password="{PW} x',
        "-rate",
        "threads=0",
        names="threads=0",
        secret=PW,
    ),
    stress("write", "n=10", "-mode", f"password={PW}", names="needs user=", secret=PW),
    stress(
        "write",
        "n=10",
        "-mode",
        "user=alice",
        f"password={PW}",
        "password-env=X",
        names="not both",
        secret=PW,
    ),
    stress(
        "write", "n=10", "-transport", f"truststore-password={PW}(", names="parenthesis", secret=PW
    ),
    stress(
        "write", "n=10", "-transport", f"truststore-password={PW}", names="truststore=", secret=PW
    ),
    stress(
        "write",
        "n=10",
        "-transport",
        f"truststore=x.jks truststore-password={PW} bogus=1",
        names="bogus",
        secret=PW,
    ),
    stress("write", "n=10", "-transport", f"keystore-password={PW}", names="keystore", secret=PW),
    stress(
        "write",
        "n=10",
        "-transport",
        "truststore=ts.jks",
        f"truststore-password={PW}",
        "ssl-protocol=(",
        names="parenthesis",
        secret=PW,
    ),
    stress(
        "write",
        f"n={PW}",
        "-mode",
        "user=alice",
        f"password={PW}",
        names="is not a number",
        secret=PW,
    ),
    ycsb(
        "-p",
        "cassandra.username=bob",
        "-p",
        f"cassandra.passwd={PW}",
        names="cassandra.passwd",
        secret=PW,
    ),
    ycsb("-p", f"cassandra.password={PW}", names="cassandra.username", secret=PW),
    ycsb(
        "-p",
        "cassandra.username=bob",
        "-p",
        f"cassandra.password={PW}",
        "-p",
        "cassandra.password-env=X",
        names="not both",
        secret=PW,
    ),
    ycsb(
        "-p",
        "cassandra.username=bob",
        "-p",
        f"cassandra.password={PW}",
        "-p",
        "table=a'b",
        names="a'b",
        secret=PW,
    ),
    ycsb(
        "-p",
        "cassandra.username=bob",
        "-p",
        f"cassandra.password={PW} x(",
        "-threads",
        "0",
        names="-threads",
        secret=PW,
    ),
    stress("write", "n=10", "-mode", "user=alice", names="user=alice"),
    stress("write", "n=10", "-mode", "user=alice", "-rate", "threads=4", names="password-env"),
    ycsb("-p", "cassandra.username=bob", names="cassandra.username=bob"),
    stress(
        "write",
        "n=10",
        "-mode",
        "user=alice",
        "password-env=CASSLAB_HOSTILE_UNSET",
        names="CASSLAB_HOSTILE_UNSET is not set",
    ),
    ycsb(
        "-p",
        "cassandra.username=bob",
        "-p",
        "cassandra.password-env=CASSLAB_HOSTILE_UNSET",
        names="CASSLAB_HOSTILE_UNSET is not set",
    ),
    stress("write", "n=10", "-mode", "user=alice", "password-env=1BAD", names="1BAD"),
]

# ------------------------------------------------------------- numbers in their range
RANGES = [
    stress("write", "n=10", "-rate", "threads=1000000000", names="1000000000 threads"),
    stress("write", "n=10", "-rate", "threads=10001", names="10001 threads"),
    stress("write", "n=10", "-rate", "threads>=1", "threads<=99999", names="99999 threads"),
    stress("write", "n=10", "-rate", "threads=0", names="'threads=0'"),
    stress("write", "n=10", "-rate", "threads=-5", names="'threads=-5'"),
    stress("write", "n=10", "-rate", "threads=1.5", names="'threads=1.5'"),
    stress("write", "n=99999999999999999999999999", names="99999999999999999999999999"),
    stress("write", "n=" + "9" * 5000, names="past casslab's limit"),
    stress("write", "n=1000000000000001", names="1000000000000001"),
    stress("write", "n=2000000b", names="2000000000000000"),
    stress("write", "n=0", names="'n=0'"),
    stress("write", "n=1e6", names="'1e6'"),
    stress("write", "n=0.5", names="'0.5'"),
    stress("write", "n=-1", names="'n=-1'"),
    stress("write", "n=10", "-port", "native=70000", names="70000 is not a TCP port"),
    stress("write", "n=10", "-port", "native=0", names="native=0"),
    stress("write", "n=10", "-port", "native=65536", names="65536 is not a TCP port"),
    stress("write", "n=10", "-mode", "port=99999", names="99999 is not a TCP port"),
    stress("write", "n=10", "-col", "size=FIXED(10000000000)", names="10000000000 bytes"),
    stress("write", "n=10", "-col", "size=UNIFORM(1..20000000)", names="20000000 bytes"),
    stress("write", "n=10", "-pop", "seq=1..99999999999999999999", names="99999999999999999999"),
    stress("write", "n=10", "-pop", "dist=UNIFORM(10..1)", names="min > max"),
    stress("write", "duration=0s", names="'0s'"),
    stress("write", "duration=banana", names="'banana'"),
    stress("write", "n=10", "-errors", "retries=-1", names="retries=-1"),
    ycsb("-p", "port=99999", names="port=99999"),
    ycsb("-p", "port=0", names="port=0"),
    ycsb("-p", "port=http", names="port=http"),
    ycsb("-threads", "1000000000", names="1000000000 threads"),
    ycsb("-threads", "0", names="-threads '0'"),
    ycsb("-threads", "99999999999999999999999", names="99999999999999999999999"),
    ycsb("-p", "fieldlength=10000000000", names="fieldlength=10000000000"),
    ycsb("-p", "fieldlength=0", names="fieldlength=0"),
    ycsb("-p", "fieldcount=100000", names="fieldcount=100000"),
    ycsb("-p", "operationcount=99999999999999999999", names="operationcount=99999999999999999999"),
    ycsb("-p", "insertstart=-1", names="insertstart=-1"),
    ycsb("-p", "requestdistribution=banana", names="requestdistribution=banana"),
    ycsb("-p", "readproportion=-0.5", names="readproportion=-0.5"),
    ycsb("-target", "-5", names="-target '-5'"),
    ycsb("-p", "hotspotdatafraction=2", names="hotspotdatafraction=2"),
    ycsb("-p", "cassandra.readconsistencylevel=MOST", names="MOST"),
]

# ------------------------------------------------------------- attach, usage
ATTACH = ("attach", "--name", "hostile", "--contact-points")
USAGE = [
    Case((*ATTACH, "127.0.0.1;rm -rf /"), 1, "'127.0.0.1;rm -rf /'"),
    Case((*ATTACH, "$(id)"), 1, "'$(id)'"),
    Case((*ATTACH, "127.0.0.1:99999"), 1, "'127.0.0.1:99999'"),
    Case((*ATTACH, "127.0.0.1", "--port", "0"), 2, "0 is not a TCP port"),
    Case((*ATTACH, "127.0.0.1", "--port", "70000"), 2, "70000 is not a TCP port"),
    Case((*ATTACH, "127.0.0.1", "--port", "-1"), 2, "-1 is not a TCP port"),
    Case(("attach", "--name", "../../x", "--contact-points", "127.0.0.1"), 1, "'../../x'"),
    Case(
        (*ATTACH, "127.0.0.1", "--user", "bob", "--password-env", "CASSLAB_HOSTILE_UNSET"),
        1,
        "CASSLAB_HOSTILE_UNSET, which is not set",
    ),
    Case((*ATTACH, "127.0.0.1", "--user", "bob"), 1, "--password-env"),
    Case((*ATTACH, "127.0.0.1", "--user", "bob", "--password-env", "1X"), 1, "'1X'"),
    Case(("plan",), 2, "Missing argument"),
    Case(("plan", "--bogus"), 2, "--bogus"),
    Case(("stress", "--dry-run"), 1, "empty command"),
    Case(("stress", "bogus", "--dry-run"), 1, "'bogus'"),
    Case(("stress", "write", "n=10", "-bogus", "--dry-run"), 1, "'-bogus'"),
    Case(("stress", "write", "n=10", "-rate", "--dry-run"), 1, "-rate"),
    Case(("stress", "write", "n=10", "duration=20m", "--dry-run"), 1, "n=10 with duration=20m"),
    Case(("stress", "write", "'unclosed", "--dry-run"), 1, "write"),
    Case(("ycsb", "load", "-P", "--dry-run"), 1, "-P"),
    Case(("ycsb", "bogus", "--dry-run"), 2, "'bogus'"),
    Case(("ycsb", "load", "-db", "mongodb", "--dry-run"), 1, "mongodb"),
    Case(("ycsb", "load", "-P", "nowhere", "--dry-run"), 1, "'nowhere'"),
    Case(("ycsb", "load", "-p", "recordcount", "--dry-run"), 1, "'recordcount'"),
    Case(("report", "nowhere-dir"), 1, "nowhere-dir"),
    Case(("capacity", "plan", "nowhere.yaml"), 1, "nowhere.yaml: No such file"),
]

# ------------------------------------------------------------- exit 2: options casslab checks
PROBLEM = {"c.yaml": "machines: {count: 1}\n"}
EXIT_CODES = [
    Case(("capacity", "plan", "c.yaml", "--time-limit", "0"), 2, "--time-limit", files=PROBLEM),
    Case(("capacity", "plan", "c.yaml", "--time-limit", "-5"), 2, "got -5", files=PROBLEM),
    Case(
        ("capacity", "plan", "c.yaml", "--time-limit", "x"),
        2,
        "'--time-limit': expected a number, got 'x'",
        files=PROBLEM,
    ),
    Case(("up", "--nodes=abc"), 2, "expected an integer, got 'abc'"),
    Case(("up", "--nodes", "99"), 2, "--nodes 99: a local cluster has 1 to"),
    Case(("up", "--nodes", "0"), 2, "--nodes 0"),
    Case(("up", "--racks", "2"), 2, "--racks 2: racks are per datacenter"),
    Case(("reset", "--table", "ks.t"), 2, "--table: only a truncate"),
    Case(("fault", "kill", "1", "--for", "0s"), 2, "--for '0s'"),
    Case(("fault", "kill", "1", "--for", "soon"), 2, "--for 'soon'"),
    Case(("report", "d", "--window", "banana"), 2, "--window 'banana'", files={"d/x": ""}),
    Case(("report", "d", "--window", "0s"), 2, "--window '0s'", files={"d/x": ""}),
    Case(
        ("stress", "write", "n=10", "--client-hosts", "h.yaml", "--clients", "2", *DRY),
        2,
        "--client-hosts h.yaml and --clients 2 cannot be combined",
        files={"h.yaml": "hosts: []\n"},
    ),
    # ... and 1 for what is wrong elsewhere: a file's content, a missing file, the load
    # tools' own arguments (checked as cassandra-stress and YCSB do)
    Case(("capacity", "plan", "c.yaml", "--time-limit", "5"), 1, "c.yaml", files=PROBLEM),
    Case(("report", "d", "--window", "30s"), 1, "d", files={"d/x": ""}),
    Case(("stress", "write", "n=10", "-rate", "threads=0", *DRY), 1, "threads=0"),
]

CASES = [*INJECTION, *SECRETS, *RANGES, *USAGE, *EXIT_CODES]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_hostile_input_is_refused_exemplarily(case: Case, tmp_path: Path) -> None:
    write_files(tmp_path, case.files)
    outcome = run_main(case.argv, tmp_path, case.env)
    assert problems(case, outcome) == [], outcome.out + outcome.err
