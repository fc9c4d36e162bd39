"""Hostile and careless files through the real entry point: user profiles, YCSB ``-P``
files, experiment files and capacity problems that inject CQL, hide a secret, never end,
nest without end or expand without end; and a run directory whose ``figures`` link leads
out of it. Each is refused with its exit status, a message naming the value, no secret and
no traceback (:mod:`hostile_entry`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hostile_entry import EXPERIMENT, REPLICATION, Case, problems, run_main, swapped, write_files

PW = "Hunter2"

# ------------------------------------------------------------- user profiles
PROFILE = """\
keyspace: stresscql
keyspace_definition: |
  CREATE KEYSPACE stresscql WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
table: typestest
table_definition: |
  CREATE TABLE typestest (name text, choice int, value blob, PRIMARY KEY(name, choice))
queries:
  simple1:
    cql: select * from typestest where name = ? LIMIT 100
"""


def profile(text: str, names: str, ops: str = "ops(insert=1)") -> Case:
    return Case(
        ("stress", "user", "profile=p.yaml", ops, "n=10", "--dry-run"),
        1,
        names,
        files={"p.yaml": text},
    )


def replaced(old: str, new: str) -> str:
    assert old in PROFILE
    return PROFILE.replace(old, new)


KS_DEF = "CREATE KEYSPACE stresscql WITH replication = {'class': 'SimpleStrategy', "
KS_DEF += "'replication_factor': 1};"
TABLE_DEF = "CREATE TABLE typestest (name text, choice int, value blob, PRIMARY KEY(name, choice))"
QUERY = "select * from typestest where name = ? LIMIT 100"

PROFILES = [
    profile(replaced(KS_DEF, "DROP KEYSPACE system_auth"), "DROP KEYSPACE"),
    profile(replaced(KS_DEF, "DROP KEYSPACE system_auth;"), "DROP KEYSPACE"),
    profile(replaced(KS_DEF, "ALTER KEYSPACE system_auth WITH durable_writes = false"), "ALTER"),
    profile(replaced(KS_DEF, "CREATE KEYSPACE other WITH replication = {'class': 'x'}"), "'other'"),
    profile(replaced(KS_DEF, KS_DEF.rstrip(";") + "; DROP KEYSPACE system_auth"), "a ';'"),
    profile(replaced(KS_DEF, KS_DEF.rstrip(";") + " -- hidden"), "a comment"),
    profile(replaced(KS_DEF, KS_DEF.rstrip(";") + " /* x */"), "a comment"),
    profile(replaced(KS_DEF, "CREATE KEYSPACE stresscql WITH x = 'a"), "unclosed"),
    profile(replaced(KS_DEF, "CREATE TABLE stresscql (a int PRIMARY KEY)"), "CREATE TABLE"),
    profile(replaced(KS_DEF, "[1, 2]"), "keyspace_definition"),
    profile(replaced(TABLE_DEF, "DROP TABLE typestest"), "DROP TABLE"),
    profile(replaced(TABLE_DEF, TABLE_DEF + "; DROP KEYSPACE system"), "a ';'"),
    profile(replaced(TABLE_DEF, TABLE_DEF + " WITH comment = 'x'; DROP TABLE t"), "a ';'"),
    profile(replaced(TABLE_DEF, TABLE_DEF + " // comment"), "a comment"),
    profile(replaced(TABLE_DEF, TABLE_DEF.replace("typestest", "other", 1)), "'other'"),
    profile(replaced(TABLE_DEF, "TRUNCATE typestest"), "TRUNCATE"),
    profile(replaced("keyspace: stresscql", 'keyspace: "ks\'; DROP"'), "ks'; DROP"),
    profile(replaced("table: typestest", 'table: "t; DROP"'), "t; DROP"),
    profile(replaced(QUERY, "DROP TABLE typestest"), "DROP"),
    profile(replaced(QUERY, "TRUNCATE typestest"), "TRUNCATE"),
    profile(replaced(QUERY, "ALTER TABLE typestest WITH gc_grace_seconds = 0"), "ALTER"),
    profile(replaced(QUERY, "GRANT ALL ON ALL KEYSPACES TO bob"), "GRANT"),
    profile(replaced(QUERY, "CREATE ROLE bob WITH PASSWORD = 'x'"), "CREATE"),
    profile(replaced(QUERY, QUERY + "; DROP TABLE typestest"), "a ';'"),
    profile(replaced(QUERY, QUERY + " -- x"), "a comment"),
    profile(replaced(QUERY, "select * from typestest where name = 'x'';DROP"), "unclosed"),
    profile(PROFILE + "extra_definitions:\n  - DROP KEYSPACE system_auth\n", "extra_definitions"),
    profile(PROFILE + "extra_definitions:\n  - CREATE INDEX ON other (name)\n", "ON typestest"),
    profile(PROFILE + "extra_definitions:\n  - CREATE TYPE system.t (a int)\n", "names a keyspace"),
    profile(PROFILE + "extra_definitions:\n  - CREATE TYPE t (a int); DROP TABLE x\n", "a ';'"),
    profile("keyspace: [unclosed", "YAML syntax"),
    profile("a: 1\na: 2\n", "duplicate key 'a'"),
    profile("- just\n- a list\n", "expected a mapping"),
    profile("a: " + "[" * 200 + "]" * 200 + "\n", "nested more than 64 levels"),
    profile(
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n"
            for i in range(8)
        ),
        "once its aliases",
    ),
    Case(
        ("stress", "user", "profile=p.yaml", "ops(insert=1)", "n=10", "--dry-run"),
        1,
        "not UTF-8 text",
        files={"p.yaml": b"\x89PNG\r\n\x1a\n\xff\xfe\x00"},
    ),
    Case(
        ("stress", "user", "profile=p.yaml", "ops(insert=1)", "n=10", "--dry-run"),
        1,
        "NUL bytes",
        files={"p.yaml": b"keyspace: a\x00b\n"},
    ),
    Case(
        ("stress", "user", "profile=nowhere.yaml", "ops(insert=1)", "n=10", "--dry-run"),
        1,
        "nowhere.yaml: No such file",
    ),
    Case(
        ("stress", "user", "profile=sub", "ops(insert=1)", "n=10", "--dry-run"),
        1,
        "is a directory",
        files={"sub/x": "x"},
    ),
]

# ------------------------------------------------------------- YCSB -P files
PROPS = [
    Case(
        ("ycsb", "load", "-P", "w.properties", "--dry-run"),
        1,
        "not UTF-8 text",
        files={"w.properties": b"recordcount=10\n\xff\xfe\xfd"},
    ),
    Case(
        ("ycsb", "load", "-P", "w.properties", "--dry-run"),
        1,
        "NUL bytes",
        files={"w.properties": b"recordcount=10\x00\n"},
    ),
    Case(("ycsb", "load", "-P", "d", "--dry-run"), 1, "is a directory", files={"d/x": ""}),
    Case(
        ("ycsb", "load", "-P", "w.properties", "--dry-run"),
        1,
        "usertable;DROP",
        files={"w.properties": "recordcount=10\ntable=usertable;DROP\n"},
    ),
    Case(
        ("ycsb", "load", "-P", "w.properties", "--dry-run"),
        1,
        "cassandra.username",
        secret=PW,
        files={"w.properties": f"recordcount=10\ncassandra.password={PW}\n"},
    ),
    Case(
        ("ycsb", "load", "-P", "w.properties", "--dry-run"),
        1,
        "port=70000",
        files={"w.properties": "recordcount=10\nport=70000\n"},
    ),
    Case(
        ("ycsb", "load", "-P", "w.properties", "--dry-run"),
        1,
        "fieldlength=99999999999",
        files={"w.properties": "recordcount=10\nfieldlength=99999999999\n"},
    ),
]

# ------------------------------------------------------------- experiment files


def plan(text: str, names: str, secret: str | None = None) -> Case:
    return Case(("plan", "e.yaml"), 1, names, secret, files={"e.yaml": text})


EXPERIMENTS = [
    plan(
        swapped(
            REPLICATION,
            '{class: "SimpleStrategy\'} AND durable_writes=false; --", replication_factor: 1}',
        ),
        "durable_writes=false",
    ),
    plan(swapped(REPLICATION, "{class: BogusStrategy, replication_factor: 1}"), "'BogusStrategy'"),
    plan(swapped(REPLICATION, '{class: "org.x.Y\'Z", replication_factor: 1}'), "org.x.Y'Z"),
    plan(swapped(REPLICATION, '{class: NetworkTopologyStrategy, "dc1\'": 1}'), "dc1'"),
    plan(
        swapped(REPLICATION, '{class: SimpleStrategy, replication_factor: 1, "dc1\'": 1}'), "dc1'"
    ),
    plan(
        swapped(REPLICATION, "{class: SimpleStrategy, replication_factor: 0}"), "replication_factor"
    ),
    plan(swapped(REPLICATION, "{class: SimpleStrategy}"), "replication_factor"),
    plan(swapped("keyspace: keyspace1", 'keyspace: "ks; DROP KEYSPACE x"'), "ks; DROP KEYSPACE x"),
    plan(swapped("keyspace: keyspace1", 'keyspace: "ks\'"'), "ks'"),
    plan(swapped("iterations: 3", "iterations: 1000000000000"), "1000000000000 iteration(s)"),
    plan(swapped("iterations: 3", "iterations: 5001"), "10002 trials"),
    plan(
        swapped(
            "iterations: 3",
            "iterations: {min: 3, max: 100000, until: {kpis: [op_rate], ci_half_width_pct: 5}}",
        ),
        "100000 iteration(s)",
    ),
    plan(
        swapped(
            "  table.compaction: [STCS, LCS]",
            "".join(
                f"  table.gc_grace_seconds{i}: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n" for i in range(6)
            ).rstrip("\n"),
        ),
        "1000000 cell(s)",
    ),
    plan(
        swapped("iterations: 3", 'iterations: 3\ntable: {compaction: "LCS\'}; DROP"}'),
        "LCS'}; DROP",
    ),
    plan(
        swapped("iterations: 3", "iterations: 3\ntable: {speculative_retry: 1}"),
        "speculative_retry",
    ),
    plan(
        swapped("iterations: 3", "iterations: 3\ntable: {speculative_retry: banana}"),
        "'banana' is not a retry policy",
    ),
    plan(
        swapped("iterations: 3", 'iterations: 3\ntable: {additional_write_policy: "x\'"}'),
        '"x\'" is not a retry policy',
    ),
    plan(
        swapped(
            "iterations: 3",
            "iterations: 3\ntable: {compaction: {class: LCS, sstable_size_in_mb: -160}}",
        ),
        "sstable_size_in_mb of LeveledCompactionStrategy must not be negative",
    ),
    plan(
        swapped(
            "iterations: 3",
            "iterations: 3\nfaults:\n  - {at: 500s, kind: kill, target: 1, for: 10s}",
        ),
        "500 s is at or past the end",
    ),
    plan(
        swapped(
            "iterations: 3",
            "iterations: 3\nfaults:\n  - {at: 90s, kind: kill, target: 1, for: 10s}",
        ),
        "90 s is at or past the end",
    ),
    plan(
        swapped(
            "iterations: 3",
            "iterations: 3\nfaults:\n  - {at: 5s, kind: partition, target: dc3, for: 10s}",
        ),
        "has no topology",
    ),
    plan(swapped('workload: "write"', 'workload: "write -schema keyspace=a;b"'), "a;b"),
    plan(
        swapped('workload: "write"', "workload: \"write -schema 'compression=X'\\\"'\\\"'Y'\""),
        "compression=",
    ),
    plan(
        swapped('workload: "write"', f'workload: "write -mode user=u password={PW}(x"'),
        "parenthesis",
        secret=PW,
    ),
    plan(
        swapped('workload: "write"', f'workload: "write -mode user=u password={PW} bogus=1"'),
        "bogus",
        secret=PW,
    ),
    plan(
        swapped('workload: "write"', 'workload: "write -rate threads=1000000000"'),
        "1000000000 threads",
    ),
    plan(swapped('workload: "write"', 'workload: "write -port native=70000"'), "70000"),
    plan(swapped('workload: "write"', 'workload: "ycsb load -p table=a;b"'), "a;b"),
    plan("a: " + "[" * 5000 + "]" * 5000 + "\n", "nested more than 64 levels"),
    plan("a: " + "{b: " * 100 + "1" + "}" * 100 + "\n", "nested more than 64 levels"),
    plan(
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n"
            for i in range(8)
        ),
        "once its aliases",
    ),
    plan("x: &x 1\n" + "".join(f"k{i}: *x\n" for i in range(1500)), "more than 1000 aliases"),
    plan("root:x:0:0:root:/root:/bin/bash\n", "expected a mapping"),
    plan(swapped("[STCS, LCS]", "[~, LCS]"), "factors.table.compaction[0]"),
    plan(swapped("[STCS, LCS]", "[LCS, {class: LCS, bogus: 1}]"), "bogus"),
    plan(swapped("name: hostile", "name: hos\x07tile"), "U+0007"),
    plan(swapped("name: hostile", 'name: "../../etc"'), "../../etc"),
    plan("root:x:0:0:\nbin:*:1:1:\n", "not an experiment file"),
    plan("", "got empty"),
    plan(EXPERIMENT + "tune: {budget: {trials: 3}}\n", "run `casslab tune e.yaml`"),
    plan("tune: {}\n", "run `casslab tune e.yaml`"),
    plan(
        "machines: [{name: m, cpus: 8, memory_gib: 16, pmax_w: 400, k: 0.8}]\ntenants: {}\n",
        "run `casslab capacity plan e.yaml`",
    ),
    plan("vm_types: {}\nthroughput: {}\n", "run `casslab capacity plan e.yaml`"),
    plan("name: [unclosed\n", "YAML syntax"),
    Case(("plan", "e.yaml"), 1, "not UTF-8 text", files={"e.yaml": b"name: \xff\xfe\n"}),
    Case(("plan", "e.yaml"), 1, "NUL bytes", files={"e.yaml": b"name: a\x00\n"}),
    Case(("plan", "nowhere.yaml"), 1, "nowhere.yaml: No such file"),
    Case(("plan", "d"), 1, "is a directory", files={"d/x": ""}),
    Case(("plan", "/dev/zero"), 1, "/dev/zero: is a character device"),
    Case(("plan", "/dev/null"), 1, "/dev/null: is a character device"),
]

# ------------------------------------------------------------- capacity problems
CAPACITY = [
    Case(
        ("capacity", "plan", "c.yaml"),
        1,
        "nested more than 64 levels",
        files={"c.yaml": "a: " + "[" * 300 + "]" * 300},
    ),
    Case(("capacity", "plan", "c.yaml"), 1, "not UTF-8 text", files={"c.yaml": b"\xff\xfe"}),
    Case(("capacity", "plan", "/dev/zero"), 1, "/dev/zero: is a character device"),
    Case(
        ("capacity", "plan", "c.yaml"),
        1,
        "once its aliases",
        files={
            "c.yaml": "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(
                f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n"
                for i in range(8)
            )
        },
    ),
]

# ------------------------------------------------------------- SSH inventories
ON_HOSTS = """\
name: on-hosts
cluster: {hosts: hosts.yaml, heap: 512M}
workload: "write"
measure: "duration=90s cl=ONE -rate threads=4"
iterations: 1
"""
HOSTILE_TEXT = (
    "x; rm -rf /",
    "$(reboot)",
    "`id`",
    "it's",
    'a"b',
    "two words",
    "one\ntwo",
)
HOST_FIELDS = ("address", "user", "java_home", "cassandra_home", "dc", "rack", "base_dir")


def inventory(field: str, value: str, group: str = "hosts") -> str:
    entry = {"address": "10.0.0.1", "user": "root", "key": "id", field: value}
    flow = ", ".join(f"{name}: {json.dumps(text)}" for name, text in entry.items())
    return f"{group}:\n  - {{{flow}}}\n"


def on_hosts(field: str, value: str) -> Case:
    of_host = "" if field == "address" else " of host '10.0.0.1'"
    return Case(
        ("plan", "e.yaml"),
        1,
        f"hosts[0].{field}{of_host}: {value!r}",
        files={"e.yaml": ON_HOSTS, "hosts.yaml": inventory(field, value), "id": "key"},
    )


def with_clients(field: str, value: str) -> Case:
    hosts = inventory("dc", "dc1") + inventory(field, value, "clients")
    return Case(
        ("stress", "write", "n=10", "--client-hosts", "hosts.yaml", "--dry-run"),
        1,
        f"clients[0].{field}",
        files={"hosts.yaml": hosts, "id": "key"},
    )


INVENTORIES = [
    *(on_hosts(field, value) for field in HOST_FIELDS for value in HOSTILE_TEXT),
    on_hosts("java_home", "opt/jdk"),
    on_hosts("cassandra_home", "~/cassandra"),
    on_hosts("base_dir", "/var/lib/../../etc"),
    on_hosts("address", "-oProxyCommand=id"),
    on_hosts("address", "host_name.example"),
    on_hosts("address", "a" * 300),
    on_hosts("user", "-oProxyCommand=id"),
    on_hosts("dc", "dc1\nprefer_local=false"),
    on_hosts("rack", "r1=x"),
    with_clients("address", "10.0.0.2;id"),
    with_clients("user", "root$(id)"),
    Case(
        ("plan", "e.yaml"),
        1,
        "once its aliases",
        files={
            "e.yaml": ON_HOSTS,
            "hosts.yaml": "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(
                f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n"
                for i in range(8)
            ),
        },
    ),
    Case(
        ("plan", "e.yaml"),
        1,
        "not UTF-8 text",
        files={"e.yaml": ON_HOSTS, "hosts.yaml": b"hosts: \xff\xfe\n"},
    ),
    Case(
        ("plan", "e.yaml"),
        1,
        "/dev/zero: is a character device",
        files={"e.yaml": ON_HOSTS.replace("hosts.yaml", "/dev/zero")},
    ),
]

# ------------------------------------------------------------- compare -o
RUNS = {"a/x": "", "b/x": ""}
COMPARE_OUT = [
    Case(
        ("compare", "a", "b", "-o", "out.txt"),
        1,
        "compare -o out.txt: is not a directory",
        files={**RUNS, "out.txt": "x"},
    ),
    Case(
        ("compare", "a", "b", "-o", "f/sub"),
        1,
        "compare -o f/sub: f is a file",
        files={**RUNS, "f": "x"},
    ),
    Case(("compare", "a", "b", "-o", "/dev/null"), 1, "compare -o /dev/null: is not a directory"),
]

# ------------------------------------------------------------- tune files
EXAMPLES = Path(__file__).resolve().parents[2] / "experiments"
TUNE = (EXAMPLES / "tune" / "tune-quick.yaml").read_text(encoding="utf-8")
PROBLEM = (EXAMPLES / "capacity" / "seed003-case1.yaml").read_text(encoding="utf-8")


def tune(old: str, new: str, names: str) -> Case:
    assert old in TUNE
    return Case(("tune", "t.yaml"), 1, names, files={"t.yaml": TUNE.replace(old, new)})


def problem(old: str, new: str, names: str) -> Case:
    assert old in PROBLEM
    return Case(
        ("capacity", "plan", "c.yaml"), 1, names, files={"c.yaml": PROBLEM.replace(old, new)}
    )


TUNES = [
    tune("keyspace: keyspace1", 'keyspace: "ks; DROP KEYSPACE x"', "ks; DROP KEYSPACE x"),
    tune("keyspace: keyspace1", 'keyspace: "ks\'"', "ks'"),
    tune(
        "compaction: {class: SizeTieredCompactionStrategy}",
        'compaction: {class: "STCS\'}; DROP"}',
        "STCS'}; DROP",
    ),
    tune("      UCS: {}", '      "UCS\'x": {}', "UCS'x"),
    tune("class: SimpleStrategy,", 'class: "Simple\'Strategy",', "Simple'Strategy"),
    tune(
        "    config.memtable_heap_space:",
        '    "config.x\'; y": {int: [1, 2]}\n    config.memtable_heap_space:',
        "config.x'; y",
    ),
    tune(
        "    table.compaction:",
        '    table.speculative_retry: ["99p\'; DROP"]\n    table.compaction:',
        "speculative_retry",
    ),
    tune("  seed: 0", "  seed: 0\n  bogus: 1", "tune.bogus"),
    tune("reset: recreate", "reset: recreate\nfactors: {nodes: [1, 2]}", "factors: not in a tune"),
    tune('workload: "mixed', 'workload: "write -schema keyspace=a;b" #', "a;b"),
    tune("  seed: 0", "  seed: 0\n" + "  x: " + "[" * 100 + "]" * 100, "nested more than 64"),
    Case(("tune", "t.yaml"), 1, "not UTF-8 text", files={"t.yaml": b"name: \xff\xfe\n"}),
    Case(("tune", "t.yaml"), 1, "NUL bytes", files={"t.yaml": b"name: a\x00\n"}),
    Case(("tune", "/dev/zero"), 1, "/dev/zero: is a character device"),
    Case(("tune", "d"), 1, "is a directory", files={"d/x": ""}),
    Case(("tune", "nowhere.yaml"), 1, "nowhere.yaml: No such file"),
    problem("pmax_w: 425.17", "pmax_w: .inf", "expected a finite number, got inf"),
    problem("k: 0.82124", "k: .nan", "expected a finite number, got nan"),
    problem("count: 8", "count: 1000000000000", "1000000000000 machines, past"),
    problem("rf: 3", "rf: -3", "rf"),
    problem("min_ops: 8000", "min_ops: -1", "min_ops"),
    problem("workload: ycsb-a", 'workload: "ycsb-a\'; DROP"', "ycsb-a'; DROP"),
    Case(("capacity", "plan", "c.yaml"), 1, "NUL bytes", files={"c.yaml": b"a: 1\x00\n"}),
    Case(("capacity", "plan", "d"), 1, "is a directory", files={"d/x": ""}),
]

CASES = [*PROFILES, *PROPS, *EXPERIMENTS, *CAPACITY, *INVENTORIES, *COMPARE_OUT, *TUNES]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_hostile_file_is_refused_exemplarily(case: Case, tmp_path: Path) -> None:
    write_files(tmp_path, case.files)
    outcome = run_main(case.argv, tmp_path, case.env)
    assert problems(case, outcome) == [], outcome.out + outcome.err


FIFO_COMMANDS = [
    ("plan", "in.fifo"),
    ("capacity", "plan", "in.fifo"),
    ("stress", "user", "profile=in.fifo", "ops(insert=1)", "n=10", "--dry-run"),
    ("ycsb", "load", "-P", "in.fifo", "--dry-run"),
    ("tune", "in.fifo"),
    ("stress", "write", "n=10", "--client-hosts", "in.fifo", "--dry-run"),
]


@pytest.mark.timeout(20)
@pytest.mark.parametrize("argv", FIFO_COMMANDS, ids=" ".join)
def test_a_fifo_as_input_is_refused_without_waiting(argv: tuple[str, ...], tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "in.fifo")
    case = Case(argv, 1, "in.fifo: is a named pipe (FIFO), not a regular file")
    assert problems(case, run_main(argv, tmp_path)) == []


def test_an_experiment_linked_to_a_system_file_is_not_echoed(tmp_path: Path) -> None:
    secret_line = f"root:{PW}hash:19000:0:99999:7:::"
    (tmp_path / "shadow").write_text(secret_line + "\nbin:*:19000:0:99999:7:::\n")
    (tmp_path / "e.yaml").symlink_to(tmp_path / "shadow")
    outcome = run_main(("plan", "e.yaml"), tmp_path)
    assert problems(Case(("plan",), 1, "not an experiment file", secret=PW), outcome) == []


@pytest.mark.parametrize("name", ["compare.html", "compare.md", "compare.md.tmp"])
@pytest.mark.parametrize("out", [None, "out"])
def test_compare_does_not_write_through_a_link_out_of_its_folder(
    name: str, out: str | None, tmp_path: Path
) -> None:
    write_files(tmp_path, {"a/x": "", "b/x": "", "elsewhere/keep": "kept"})
    folder = tmp_path / (out or "b")
    folder.mkdir(exist_ok=True)
    (folder / name).symlink_to(tmp_path / "elsewhere" / "keep")
    argv = ("compare", "a", "b", *(("-o", out) if out else ()))
    outcome = run_main(argv, tmp_path)
    case = Case(argv, 1, f"{Path(out or 'b') / name} is a link leading out of it")
    assert problems(case, outcome) == [], outcome.out + outcome.err
    assert (tmp_path / "elsewhere" / "keep").read_text() == "kept"


def _attached(home: Path, name: str, variable: str) -> None:
    from datetime import UTC, datetime

    from casslab.cluster import state
    from casslab.cluster.external.attach import external_state
    from casslab.cluster.external.discovery import DiscoveredNode
    from casslab.cluster.external.external_state import External
    from casslab.cqlaccess import CqlAccess

    found = [DiscoveredNode(address="10.0.0.11", datacenter="dc1", rack="r1", host_id="h1")]
    access = CqlAccess(username="bench", password_env=variable)
    external = External(contact_points=("10.0.0.11:9042",), access=access)
    root = home / "clusters"
    cluster = external_state(
        name, root / name, found, external, version="5.0.9", created_at=datetime.now(UTC)
    )
    state.save(cluster)


USES = """\
name: on-prod
cluster: {use: prod-like}
reset: truncate
workload: "write"
measure: "duration=30s cl=ONE -rate threads=4"
iterations: 1
"""


@pytest.mark.parametrize("argv", [("plan", "e.yaml"), ("run", "e.yaml")], ids=" ".join)
def test_an_unset_password_variable_of_the_used_cluster_is_refused_first(
    argv: tuple[str, ...], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    _attached(home, "prod-like", "CASSLAB_HOSTILE_UNSET_PW")
    write_files(tmp_path, {"e.yaml": USES})
    env = {"CASSLAB_HOME": str(home)}
    os.environ.pop("CASSLAB_HOSTILE_UNSET_PW", None)
    outcome = run_main(argv, tmp_path, env)
    case = Case(argv, 1, "CASSLAB_HOSTILE_UNSET_PW (its --password-env), which is not set")
    assert problems(case, outcome) == [], outcome.out + outcome.err
    assert not (tmp_path / "results").exists()
