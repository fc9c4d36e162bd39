"""cassandra-stress command lines -> StressCommand: every seed command, options, bad input."""

from __future__ import annotations

from typing import Any

import pytest

from casslab.engine_contract.workload_spec import Consistency, DistKind
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress import StressCommand, StressCommandKind, parse_stress, tokenize

# Every cassandra-stress command quoted in /work/shared/seeds, as printed there (line breaks
# joined with a space; the en dash before "rate" is the documents' own). Placeholders of the
# generic forms in seed 000 (q, x, y, t, z, ipaddress, file_location) are filled in.
SEED_COMMANDS: list[tuple[str, dict[str, Any]]] = [
    (
        "./cassandra-stress write n=1000000 -node 194.47.131.210",
        {"kind": "write", "ops_count": 1_000_000, "nodes": ["194.47.131.210"]},
    ),
    (
        "./cassandra-stress mixed ratio\\(write=9,read=1\\) n=1000000 cl=ONE -pop "
        "dist=UNIFORM\\(1..1000000\\) -log file=~/logs5/90_10_10lakh.log -node 194.47.131.210",
        {
            "kind": "mixed",
            "ops_count": 1_000_000,
            "ratio": {"write": 9.0, "read": 1.0},
            "pop": (DistKind.UNIFORM, 1, 1_000_000),
            "log_file": "~/logs5/90_10_10lakh.log",
        },
    ),
    (
        "./cassandra-stress mixed ratio\\(write=7,read=3\\) n=1000000 cl=ONE -pop "
        "dist=UNIFORM\\(1..1000000\\) -log file=~/logs5/70_30_10lakh.log -node 194.47.131.210",
        {"kind": "mixed", "ratio": {"write": 7.0, "read": 3.0}, "cl": Consistency.ONE},
    ),
    (
        "./cassandra-stress mixed ratio\\(write=5,read=5\\) n=1000000 cl=ONE -pop "
        "dist=UNIFORM\\(1..1000000\\) -log file=~/logs5/50_50_10lakh.log -node 194.47.131.210",
        {"kind": "mixed", "ratio": {"write": 5.0, "read": 5.0}},
    ),
    (
        "./cassandra-stress mixed ratio\\(write=9,read=1\\) duration=20m cl=ONE -pop "
        "dist=UNIFORM\\(1..1000000\\) \u2013rate threads=609 -log file=~/90_10_logs/90_10_1.log "
        "-node 194.47.131.210",
        {
            "kind": "mixed",
            "duration_s": 1200.0,
            "threads": 609,
            "ratio": {"write": 9.0, "read": 1.0},
            "log_file": "~/90_10_logs/90_10_1.log",
        },
    ),
    (
        "./cassandra-stress mixed ratio\\(write=7,read=3\\) duration=20m cl=ONE -pop "
        "dist=UNIFORM\\(1..1000000\\) \u2013rate threads=406 -log file=~/70_30_logs/70_30_1.log "
        "-node 194.47.131.210",
        {"kind": "mixed", "threads": 406, "duration_s": 1200.0},
    ),
    (
        "./cassandra-stress mixed ratio\\(write=5,read=5\\) duration=20m cl=ONE -pop "
        "dist=UNIFORM\\(1..1000000\\) \u2013rate threads=609 -log file=~/50_50_logs/50_50_1.log "
        "-node 194.47.131.210",
        {"kind": "mixed", "threads": 609},
    ),
    (
        "./cassandra-stress write n=1000000 -node 127.0.0.1",  # generic "write n=q -node ipaddress"
        {"kind": "write", "ops_count": 1_000_000, "nodes": ["127.0.0.1"]},
    ),
    (
        "./cassandra-stress mixed ratio\\(write=9,read=1\\) duration=60s cl=ONE -pop "
        "dist=UNIFORM\\(1..1000000\\) \u2013rate threads=64 -log file=run.log -node 127.0.0.1",
        {"kind": "mixed", "duration_s": 60.0, "threads": 64, "log_file": "run.log"},
    ),
    (
        "./cassandra-stress write n=50000000 -node 194.47.131.211",
        {"kind": "write", "ops_count": 50_000_000},
    ),
    (
        "./cassandra-stress mixed ratio\\(write=1,read=3\\) duration=20m cl=ONE -pop "
        "dist=UNIFORM\\(1..50000000\\) -rate threads\\=450 -node 194.47.131.211;",
        {
            "kind": "mixed",
            "ratio": {"write": 1.0, "read": 3.0},
            "threads": 450,
            "pop": (DistKind.UNIFORM, 1, 50_000_000),
            "nodes": ["194.47.131.211"],
        },
    ),
    (
        "./cassandra-stress mixed ratio\\(write=1,read=3\\) duration=20m cl=ONE -pop "
        "dist=UNIFORM\\(1..50000000\\) -rate threads\\=150 -node 194.47.131.211",
        {"kind": "mixed", "threads": 150},
    ),
    # the two examples of issue 3 (the other, with n= and duration=, is refused: below)
    (
        "mixed ratio\\(write=9,read=1\\) duration=20m cl=ONE -pop dist=UNIFORM\\(1..1000000\\) "
        "-rate threads=609 -log file=x.log -node ADDRESS",
        {"kind": "mixed", "nodes": ["ADDRESS"], "log_file": "x.log"},
    ),
]

# Seed 001's four commands give both n= and duration=, which cassandra-stress refuses (no
# option group of SettingsCommand accepts both; see casslab.load.stress.parse): as printed
# there, and what each parses to with n= dropped, the fix the refusal names.
SEED_COMMANDS_WITH_N_AND_DURATION: list[tuple[str, dict[str, Any]]] = [
    (
        "sudo ./tools/bin/cassandra-stress user profile=tools/cqlstress-level.yaml "
        "ops\\(insert=9, simple1=1\\) n=1000000 duration=20m -rate threads=8 -graph "
        "file=write-dev-benchmark.html title=Write revision=LeveledCompaction -log "
        "file=graphsLogs/level_writeHeavy.log interval=1s",
        {
            "kind": "user",
            "profile": "tools/cqlstress-level.yaml",
            "ops": {"insert": 9.0, "simple1": 1.0},
            "duration_s": 1200.0,
            "threads": 8,
            "graph": ("write-dev-benchmark.html", "Write", "LeveledCompaction"),
            "log_file": "graphsLogs/level_writeHeavy.log",
            "log_interval_s": 1.0,
        },
    ),
    (
        "sudo ./tools/bin/cassandra-stress user profile=tools/cqlstress-size.yaml "
        "ops\\(insert=9, simple1=1\\) n=1000000 duration=20m -rate threads=8 -graph "
        "file=write-dev-benchmark.html title=Write revision=SizeTieredCompaction -log "
        "file=graphsLogs/size_writeHeavy.log interval=1s",
        {"kind": "user", "graph": ("write-dev-benchmark.html", "Write", "SizeTieredCompaction")},
    ),
    (
        "sudo ./tools/bin/cassandra-stress user profile=tools/cqlstress-date.yaml "
        "ops\\(insert=9, simple1=1\\) n=1000000 duration=20m -rate threads=8 -graph "
        "file=write-dev-benchmark.html title=Write revision=DateTieredCompaction -log "
        "file=graphsLogs/date_writeHeavy.log interval=1s",
        {"kind": "user", "profile": "tools/cqlstress-date.yaml"},
    ),
    (
        "user profile=cqlstress-level.yaml ops\\(insert=9,simple1=1\\) n=1000000 duration=20m "
        "-rate threads=8 -graph file=write.html title=Write revision=LeveledCompaction "
        "-log file=level.log interval=1s",
        {"kind": "user", "graph": ("write.html", "Write", "LeveledCompaction")},
    ),
]


@pytest.mark.parametrize(("line", "expected"), SEED_COMMANDS)
def test_every_seed_command_parses(line: str, expected: dict[str, Any]) -> None:
    check_parsed(parse_stress(line), expected)


@pytest.mark.parametrize(("line", "expected"), SEED_COMMANDS_WITH_N_AND_DURATION)
def test_seed_commands_with_n_and_duration_are_refused_as_stress_refuses_them(
    line: str, expected: dict[str, Any]
) -> None:
    with pytest.raises(WorkloadSyntaxError) as refused:
        parse_stress(line)
    assert str(refused.value).startswith(
        "user: n=1000000 with duration=20m: cassandra-stress ends a run by one of n=N"
    )
    assert "keep one: drop n= to run for the whole duration" in str(refused.value)
    command = parse_stress(line.replace(" n=1000000", ""))
    assert (command.ops_count, command.duration_s) == (None, 1200.0)
    check_parsed(command, expected)


def check_parsed(command: StressCommand, expected: dict[str, Any]) -> None:
    assert command.kind is StressCommandKind(expected["kind"])
    checks = {
        "ops_count": lambda: command.ops_count,
        "duration_s": lambda: command.duration_s,
        "ratio": lambda: command.ratio,
        "ops": lambda: command.ops,
        "profile": lambda: command.profile,
        "nodes": lambda: command.nodes,
        "cl": lambda: command.consistency,
        "threads": lambda: command.rate.threads if command.rate else None,
        "log_file": lambda: command.log.file,
        "log_interval_s": lambda: command.log.interval_s,
        "pop": lambda: (
            (command.population.dist.kind, command.population.dist.min, command.population.dist.max)
            if command.population
            else None
        ),
        "graph": lambda: (command.graph.file, command.graph.title, command.graph.revision),
    }
    for key, value in expected.items():
        if key != "kind":
            assert checks[key]() == value, key


def test_escaped_and_plain_forms_are_the_same_command() -> None:
    escaped = parse_stress(r"mixed ratio\(write=9,read=1\) -rate threads\=4")
    plain = parse_stress("mixed ratio(write=9,read=1) -rate threads=4")
    as_list = parse_stress(["mixed", "ratio(write=9,read=1)", "-rate", "threads=4"])
    list_escaped = parse_stress(["mixed", r"ratio\(write=9,read=1\)", "-rate", r"threads\=4"])
    assert escaped == plain == as_list == list_escaped


@pytest.mark.parametrize(
    ("line", "tokens"),
    [
        ("sudo cassandra-stress write n=1", ["write", "n=1"]),
        ("/opt/c/tools/bin/cassandra-stress write n=1;", ["write", "n=1"]),
        ("write \u2013rate threads=2 \u2014node a", ["write", "-rate", "threads=2", "-node", "a"]),
        ("user ops(insert=9, simple1=1)", ["user", "ops(insert=9,simple1=1)"]),
        ("user 'ops(insert=9, simple1=1)'", ["user", "ops(insert=9, simple1=1)"]),
    ],
)
def test_tokenize_normalises(line: str, tokens: list[str]) -> None:
    assert tokenize(line) == tokens


@pytest.mark.parametrize(
    ("line", "check"),
    [
        ("write n=1M", lambda c: c.ops_count == 1_000_000),
        ("write n=50k", lambda c: c.ops_count == 50_000),
        ("write duration=90s", lambda c: c.duration_s == 90.0),
        ("write duration=2h", lambda c: c.duration_s == 7200.0),
        ("read cl=local_quorum", lambda c: c.consistency is Consistency.LOCAL_QUORUM),
        ("read", lambda c: c.consistency is Consistency.LOCAL_ONE),
        ("mixed", lambda c: c.ratio == {"read": 1.0, "write": 1.0}),
        ("mixed ratio(read=2,write=0)", lambda c: c.ratio == {"read": 2.0}),
        (
            "mixed ratio(counter_write=1,counter_read=3)",
            lambda c: c.ratio == {"counter_write": 1.0, "counter_read": 3.0},
        ),
        ("counter_write add=UNIFORM(1..10)", lambda c: c.counter_add.max == 10),
        ("write keysize=16 no-warmup", lambda c: c.key_size == 16 and c.no_warmup),
        ("write truncate=once", lambda c: c.truncate.value == "once"),
        ("read err<0.05 n>10 n<50", lambda c: (c.err_below, c.min_measurements) == (0.05, 10)),
        ("write -pop seq=1..1000 no-wrap", lambda c: c.population.no_wrap),
        (
            "read -pop dist=GAUSSIAN(1..100,5)",
            lambda c: c.population.dist.stdev == pytest.approx((50.5 - 1) / 5),
        ),
        (
            "read -pop dist=gauss(1..10000000,5000000,500000)",
            lambda c: (c.population.dist.mean, c.population.dist.stdev) == (5e6, 5e5),
        ),
        ("read -pop dist=EXP(1..1M)", lambda c: c.population.dist.kind is DistKind.EXP),
        (
            "read -pop dist=FIXED(7)",
            lambda c: (c.population.dist.min, c.population.dist.max) == (7, 7),
        ),
        ("write -rate threads=32 fixed=2000/s", lambda c: c.rate.fixed_per_s == 2000.0),
        ("write -rate threads=32 throttle=500/s", lambda c: c.rate.throttle_per_s == 500.0),
        ("write -rate threads=32 limit=500/s", lambda c: c.rate.throttle_per_s == 500.0),
        (
            "write -rate threads>=4 threads<=64",
            lambda c: (c.rate.threads_min, c.rate.threads_max) == (4, 64),
        ),
        ("write -rate auto", lambda c: c.rate.auto),
        ("write -col n=FIXED(3)", lambda c: c.columns.names == ["C0", "C1", "C2"]),
        ("write -col n=2 size=UNIFORM(10..100)", lambda c: c.columns.size.kind is DistKind.UNIFORM),
        ("write -col names=a,b", lambda c: c.columns.names == ["a", "b"]),
        (
            "write -schema keyspace=ks2 replication(factor=3) "
            "compaction(strategy=LeveledCompactionStrategy,sstable_size_in_mb=160) "
            "compression=LZ4Compressor",
            lambda c: (
                (
                    c.schema_settings.keyspace,
                    c.schema_settings.replication_options,
                    c.schema_settings.compaction_strategy,
                    c.schema_settings.compaction_options,
                    c.schema_settings.compression,
                )
                == (
                    "ks2",
                    {"replication_factor": "3"},
                    "LeveledCompactionStrategy",
                    {"sstable_size_in_mb": "160"},
                    "LZ4Compressor",
                )
            ),
        ),
        (
            "write -schema replication(strategy=NetworkTopologyStrategy,dc1=3)",
            lambda c: (
                (c.schema_settings.replication_strategy, c.schema_settings.replication_options)
                == ("NetworkTopologyStrategy", {"dc1": "3"})
            ),
        ),
        ("write -node a,b -node2", None),  # placeholder, replaced below
        ("write -node 10.0.0.1,10.0.0.2 datacenter=dc1", lambda c: c.datacenter == "dc1"),
        # the datacenter alone: the current cluster's nodes, that datacenter preferred
        (
            "write -node datacenter=dc2",
            lambda c: (c.datacenter, c.contact_points(["n1:9042"])) == ("dc2", ["n1:9042"]),
        ),
        ("write -port native=9043", lambda c: c.native_port == 9043),
        (
            "write -mode native cql3 user=cassandra password=secret",
            lambda c: (c.mode.user, c.mode.password) == ("cassandra", "secret"),
        ),
        ("write -mode native cql3 unprepared", lambda c: not c.mode.prepared),
        (
            "write -log file=a.log interval=500ms hdrfile=a.hdr level=verbose no-summary",
            lambda c: (c.log.interval_s, c.log.hdrfile, c.log.no_summary) == (0.5, "a.hdr", True),
        ),
        ("write -log interval=10", lambda c: c.log.interval_s == 10.0),
        (
            "write -graph file=g.html",
            lambda c: (c.graph.title, c.graph.revision) == (None, "unknown"),
        ),
        (
            "read -errors ignore retries=2 skip-read-validation",
            lambda c: (
                (c.errors.ignore, c.errors.retries, c.errors.skip_read_validation)
                == (True, 2, True)
            ),
        ),
        (
            "user profile=p.yaml ops(insert=1) -insert partitions=fixed(1)",
            lambda c: c.insert == {"partitions": "fixed(1)"},
        ),
    ],
)
def test_options(line: str, check: Any) -> None:
    if check is None:
        with pytest.raises(WorkloadSyntaxError, match="unknown option group '-node2'"):
            parse_stress(line)
        return
    assert check(parse_stress(line))


def test_contact_points_from_node_and_port() -> None:
    command = parse_stress("write -node 10.0.0.1,10.0.0.2:9999 -port native=9043")
    assert command.contact_points(["127.0.0.1:9042"]) == ["10.0.0.1:9043", "10.0.0.2:9999"]
    assert parse_stress("write").contact_points(["127.0.20.1:9042"]) == ["127.0.20.1:9042"]
    assert parse_stress("write -mode port=9100 -node h").contact_points([]) == ["h:9100"]
    ipv6 = parse_stress("write -node ::1,[fe80::1]:9000,[fe80::2]")
    assert ipv6.contact_points([]) == ["[::1]:9042", "[fe80::1]:9000", "[fe80::2]:9042"]


def test_display_masks_the_password() -> None:
    command = parse_stress("write n=1 -mode native cql3 user=u password=s3cret")
    assert command.display() == "write n=1 -mode native cql3 user=u password=*suppressed*"


BAD: list[tuple[str, str]] = [
    ("", "empty command; start with one of write"),
    ("insert n=10", "unknown command 'insert'; accepted: write | read | mixed"),
    ("write n=abc", "write 'n=abc': 'abc' is not a number"),
    ("write n=0", "must be at least 1"),
    ("write duration=20x", "'20x' is not a duration; use a number with s, m or h"),
    ("write cl=TWENTY", "'TWENTY' is not a consistency level; use ANY, ONE"),
    ("write ratio(write=1)", "ratio(...) is only valid for mixed"),
    ("mixed ops(insert=1)", "ops(...) is only valid for user"),
    ("mixed ratio(write=1,scan=2)", "'scan' is not an operation of mixed"),
    ("mixed ratio(write=x)", "weight 'x' of 'write'"),
    ("mixed ratio(write=0,read=0)", "needs at least one weight > 0"),
    ("mixed ratio(write=9,read=1", "opens a parenthesis it never closes"),
    ("write bogus=1", "write: unknown option 'bogus=1'; accepted: n=N"),
    ("write profile=x.yaml", "unknown option 'profile=x.yaml'"),
    ("user ops(insert=1)", "user: profile=FILE is required"),
    ("user profile=p.yaml", "user: ops(...) is required"),
    ("user profile=p.yaml ops(insert=1) -schema keyspace=k", "-schema: only for predefined"),
    ("write -pop seq=1..10 dist=UNIFORM(1..10)", "give exactly one of seq=MIN..MAX or dist=DIST"),
    ("write -pop seq=10..1", "has min > max"),
    ("write -pop dist=EXTREME(1..10,2)", "distribution 'EXTREME'"),
    ("write -pop dist=~EXP(1..10)", "inverted distributions"),
    ("write -pop dist=GAUSSIAN(1..10,1,2,3)", "GAUSSIAN takes (min..max)"),
    ("write -pop dist=UNIFORM(1-10)", "is not a range; write it as min..max"),
    ("write -rate threads=4 threads<=8", "cannot be combined with threads="),
    ("write -rate threads=4 fixed=10/s throttle=5/s", "throttle=R/s or fixed=R/s, not both"),
    ("write -rate threads>=9 threads<=8", "threads>= must not exceed threads<="),
    ("write -rate fixed=fast", "'fast' is not a rate; write e.g. 2000/s"),
    ("write -rate thread=4", "-rate: unknown option 'thread=4'; accepted form: -rate threads=N"),
    ("write -col n=UNIFORM(1..5)", "a varying column count is not supported"),
    ("write -col n=2 names=a,b,c", "n=2 but names= lists 3 columns"),
    ("write -schema compaction(sstable_size_in_mb=1)", "name the class"),
    ("write -schema durable=false", "-schema: unknown option 'durable=false'"),
    ("write -mode thrift", "Thrift is gone"),
    ("write -mode native cql3 passwd=x", "-mode: unknown option 'passwd=x'"),
    ("write -graph title=x", "-graph: file= is required"),
    ("write -log level=loud", "use level=minimal|normal|verbose"),
    ("write -node", "-node: give at least one address"),
    ("write -foo bar", "unknown option group '-foo'; accepted: -pop, -rate"),
    ("write -rate threads=1 -rate threads=2", "-rate given twice"),
    ("write 'n=1", "cannot split"),
    # cassandra-stress's Count, Duration and Uncertainty groups: one of them, never two
    ("write n=10 duration=5m", "write: n=10 with duration=5m: cassandra-stress ends a run by"),
    ("mixed duration=1m N=5", "mixed: n=5 with duration=1m:"),
    ("read n=10 err<0.05", "read: n=10 with err<0.05: cassandra-stress ends a run by"),
    ("read duration=1m n>5 n<9", "read: duration=1m with n>5 n<9: cassandra-stress"),
]


@pytest.mark.parametrize(
    "line",
    [
        "write n=10 -col n=FIXED(2)",  # -col n= is the column count, not the count group
        "read err<0.05 n>10 n<50",  # one group
        "write duration=1h -pop seq=1..100 no-wrap",
    ],
)
def test_one_group_that_ends_the_run_is_accepted(line: str) -> None:
    parse_stress(line)


@pytest.mark.parametrize(("line", "message"), BAD)
def test_bad_input_names_the_token(line: str, message: str) -> None:
    with pytest.raises(WorkloadSyntaxError) as raised:
        parse_stress(line)
    assert message in str(raised.value)


def test_the_whole_command_as_one_quoted_argument() -> None:
    one = parse_stress(["write n=100k cl=ONE no-warmup", "-rate", "threads=4"])
    words = parse_stress(["write", "n=100k", "cl=ONE", "no-warmup", "-rate", "threads=4"])
    assert one == words
    quoted = parse_stress(['user profile=p.yaml "ops(insert=1, q=2)" n=10'])
    assert quoted.ops == {"insert": 1.0, "q": 2.0}
