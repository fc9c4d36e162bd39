"""StressCommand.to_spec: defaults as cassandra-stress has them, CQL, generators, weights."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.engine_contract.workload_spec import (
    ClosedLoop,
    Connection,
    Consistency,
    DistKind,
    GenKind,
    OpenLoop,
    OpKind,
    Output,
    Stop,
    ThreadRamp,
    WorkloadSpec,
)
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress import parse_stress

STRESS_STEPS = [4, 8, 16, 24, 36, 54, 81, 121, 181, 271, 406, 609, 913]

CONNECTION = Connection(contact_points=["127.0.20.1:9042"])
KEYSPACE_CQL = (
    "CREATE KEYSPACE IF NOT EXISTS \"keyspace1\" WITH replication = {'class': 'SimpleStrategy', "
    "'replication_factor': '1'} AND durable_writes = true"
)
STANDARD1_CQL = (
    'CREATE TABLE IF NOT EXISTS "keyspace1".standard1 (key blob PRIMARY KEY, "C0" blob, '
    '"C1" blob, "C2" blob, "C3" blob, "C4" blob) WITH compression = {}'
)
COUNTER1_CQL = (
    'CREATE TABLE IF NOT EXISTS "keyspace1".counter1 (key blob PRIMARY KEY, "C0" counter, '
    '"C1" counter, "C2" counter, "C3" counter, "C4" counter) WITH compression = {}'
)


def spec(line: str, **kwargs: object) -> WorkloadSpec:
    return parse_stress(line).to_spec(CONNECTION, **kwargs)  # type: ignore[arg-type]


def test_write_defaults_match_cassandra_stress() -> None:
    result = spec("write n=2000")
    assert result.schema_cql == [KEYSPACE_CQL, STANDARD1_CQL, COUNTER1_CQL]
    assert result.keyspace == "keyspace1"
    assert result.keys.kind is DistKind.SEQ
    assert (result.keys.min, result.keys.max) == (1, 2000)
    assert result.rate == ClosedLoop(threads=200)
    assert result.stop == Stop(ops=2000)
    assert result.validate_reads is False
    [write] = result.operations
    assert (write.name, write.kind, write.weight) == ("write", OpKind.WRITE, 1.0)
    assert write.consistency is Consistency.LOCAL_ONE
    [statement] = write.statements
    assert statement.cql == (
        'INSERT INTO "keyspace1".standard1 (key, "C0", "C1", "C2", "C3", "C4") '
        "VALUES (?, ?, ?, ?, ?, ?)"
    )
    key, *values = statement.binds
    assert key.kind is GenKind.KEY_BLOB
    assert key.size is not None
    assert (key.size.kind, key.size.min) == (DistKind.FIXED, 10)
    assert [v.column for v in values] == ["C0", "C1", "C2", "C3", "C4"]
    for value in values:
        assert value.kind is GenKind.BLOB
        assert value.per_key
        assert value.size is not None
        assert (value.size.kind, value.size.min, value.size.max) == (
            DistKind.FIXED,
            34,
            34,
        )


def test_read_defaults_gaussian_population_and_thread_ramp() -> None:
    result = spec("read n=1000")
    assert result.keys.kind is DistKind.GAUSSIAN
    assert (result.keys.min, result.keys.max) == (1, 1000)
    assert result.keys.mean == pytest.approx(500.5)
    assert result.keys.stdev == pytest.approx(499.5 / 3)
    assert result.rate == ThreadRamp(min=4, max=1000, steps=STRESS_STEPS)
    assert result.validate_reads is True
    [read] = result.operations
    assert read.statements[0].cql == (
        'SELECT "C0", "C1", "C2", "C3", "C4" FROM "keyspace1".standard1 WHERE key = ?'
    )
    assert [g.column for g in read.validate_columns] == ["C0", "C1", "C2", "C3", "C4"]
    assert read.validate_columns == spec("write n=1").operations[0].statements[0].binds[1:]


def test_population_default_without_n_is_one_million() -> None:
    assert spec("write duration=10s").keys.max == 1_000_000
    assert spec("read duration=10s").keys.max == 1_000_000
    assert spec("write duration=10s").rate == ThreadRamp(min=4, max=1000, steps=STRESS_STEPS)


def test_mixed_weights_and_one_population() -> None:
    result = spec("mixed ratio(write=9,read=1) duration=20s cl=ONE -pop dist=UNIFORM(1..5000)")
    assert [(op.name, op.kind, op.weight) for op in result.operations] == [
        ("write", OpKind.WRITE, 9.0),
        ("read", OpKind.READ, 1.0),
    ]
    assert all(op.consistency is Consistency.ONE for op in result.operations)
    assert (result.keys.kind, result.keys.min, result.keys.max) == (DistKind.UNIFORM, 1, 5000)
    assert result.stop == Stop(duration_s=20.0)
    assert [op.name for op in spec("mixed n=10").operations] == ["read", "write"]


def test_counter_operations() -> None:
    write = spec("counter_write n=100 add=FIXED(2)").operations[0]
    assert write.kind is OpKind.COUNTER_WRITE
    assert not write.idempotent
    statement = write.statements[0]
    assert statement.cql == (
        'UPDATE "keyspace1".counter1 SET "C0" = "C0" + ?, "C1" = "C1" + ?, "C2" = "C2" + ?, '
        '"C3" = "C3" + ?, "C4" = "C4" + ? WHERE key = ?'
    )
    deltas, key = statement.binds[:-1], statement.binds[-1]
    assert key.kind is GenKind.KEY_BLOB
    assert all(d.kind is GenKind.COUNTER_DELTA and not d.per_key for d in deltas)
    assert all(d.values is not None and d.values.min == 2 for d in deltas)
    read = spec("counter_read n=100").operations[0]
    assert read.kind is OpKind.COUNTER_READ
    assert read.statements[0].cql.endswith('FROM "keyspace1".counter1 WHERE key = ?')
    assert read.validate_columns == []
    assert spec("counter_read n=100").validate_reads is False
    assert spec("counter_write n=100").rate == ClosedLoop(threads=200)


@pytest.mark.parametrize(
    ("line", "rate"),
    [
        ("write n=10 -rate threads=8", ClosedLoop(threads=8)),
        ("write n=10 -rate threads=64 fixed=2000/s", OpenLoop(rate_per_s=2000, max_in_flight=64)),
        ("write n=10 -rate threads=16 throttle=500/s", OpenLoop(rate_per_s=500, max_in_flight=16)),
        ("write n=10 -rate fixed=100/s", OpenLoop(rate_per_s=100)),
        (
            "write n=10 -rate threads>=8 threads<=64",
            ThreadRamp(min=8, max=64, steps=[8, 16, 24, 36, 54]),
        ),
        (
            "write n=10 -rate threads<=64",
            ThreadRamp(min=4, max=64, steps=[4, 8, 16, 24, 36, 54]),
        ),
        (
            "write n=10 -rate auto",
            ThreadRamp(
                min=4, max=1000, steps=[4, 8, 16, 24, 36, 54, 81, 121, 181, 271, 406, 609, 913]
            ),
        ),
    ],
)
def test_rate(line: str, rate: object) -> None:
    assert spec(line).rate == rate


@pytest.mark.parametrize(
    ("line", "stop"),
    [
        ("write n=10", Stop(ops=10)),
        ("write duration=5m", Stop(duration_s=300.0)),
        ("write n=1000 -pop seq=1..100 no-wrap", Stop(ops=100)),
        ("write duration=1h -pop seq=1..100 no-wrap", Stop(ops=100, duration_s=3600.0)),
        ("read -rate threads=4", Stop(duration_s=30.0)),
        ("read n>5 -rate threads=4 -log interval=2s", Stop(duration_s=10.0)),
        ("read -rate threads>=4", Stop()),
    ],
)
def test_stop(line: str, stop: Stop) -> None:
    assert spec(line).stop == stop


def test_schema_and_columns_options() -> None:
    result = spec(
        "write n=10 -col n=FIXED(2) size=UNIFORM(10..20) -schema keyspace=bench "
        "replication(factor=3) compaction(strategy=LeveledCompactionStrategy)"
    )
    assert result.schema_cql[0].startswith(
        "CREATE KEYSPACE IF NOT EXISTS \"bench\" WITH replication = {'class': 'SimpleStrategy', "
        "'replication_factor': '3'}"
    )
    assert result.schema_cql[1] == (
        'CREATE TABLE IF NOT EXISTS "bench".standard1 (key blob PRIMARY KEY, "C0" blob, "C1" blob) '
        "WITH compression = {} AND compaction = {'class': 'LeveledCompactionStrategy'}"
    )
    statement = result.operations[0].statements[0]
    assert statement.cql == 'INSERT INTO "bench".standard1 (key, "C0", "C1") VALUES (?, ?, ?)'
    assert all(b.size is not None and b.size.kind is DistKind.UNIFORM for b in statement.binds[1:])
    assert result.keyspace == "bench"


def test_connection_output_and_seed() -> None:
    result = spec(
        "read n=10 -mode native cql3 user=u password=p -node dcnode datacenter=dc1 "
        "-errors retries=1 skip-read-validation -log interval=2s hdrfile=h.hdr",
        seed=42,
        data_seed=5,
    )
    assert (result.connection.username, result.connection.password) == ("u", "p")
    assert result.connection.local_dc == "dc1"
    assert result.connection.retries == 1
    assert result.connection.contact_points == ["127.0.20.1:9042"]  # the caller decides
    assert (result.seed, result.data_seed) == (42, 5)
    assert spec("read n=10", seed=42).data_seed == 0
    assert result.output == Output(interval_s=2.0, hdr_log="h.hdr")
    assert result.validate_reads is False
    explicit = spec("read n=10", output=Output(jsonl="x.jsonl"))
    assert explicit.output.jsonl == "x.jsonl"
    assert spec("read n=10").connection.retries == CONNECTION.retries


def test_spec_round_trips_through_json() -> None:
    for line in ("write n=10", "mixed ratio(write=1,read=3) duration=1m", "counter_write n=5"):
        result = spec(line)
        assert WorkloadSpec.model_validate_json(result.model_dump_json()) == result


def test_user_command_reads_its_profile(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(
        "keyspace: ks\ntable: t\ntable_definition: CREATE TABLE t (k text PRIMARY KEY, v blob)\n"
        "queries:\n  one: {cql: 'SELECT * FROM t WHERE k = ?'}\n"
    )
    command = parse_stress("user profile=p.yaml ops(insert=3,one=1) n=100 -rate threads=2")
    result = command.to_spec(CONNECTION, profile_dir=tmp_path)
    assert [(op.name, op.weight) for op in result.operations] == [("insert", 3.0), ("one", 1.0)]
    assert result.keys.kind is DistKind.GAUSSIAN
    assert result.keyspace == "ks"
    insert_only = parse_stress("user profile=p.yaml ops(insert=1) n=100").to_spec(
        CONNECTION, profile_dir=tmp_path
    )
    assert (insert_only.keys.kind, insert_only.keys.max) == (DistKind.SEQ, 100)
    with pytest.raises(WorkloadSyntaxError, match=r"p\.yaml: No such file"):
        command.to_spec(CONNECTION, profile_dir=tmp_path / "missing")


def test_truncate_empties_the_tables_used_before_the_load() -> None:
    assert spec("write n=10 truncate=once").schema_cql[3:] == ['TRUNCATE "keyspace1".standard1']
    mixed = spec("mixed ratio(write=1,counter_write=1) n=10 truncate=always")
    assert mixed.schema_cql[3:] == [
        'TRUNCATE "keyspace1".standard1',
        'TRUNCATE "keyspace1".counter1',
    ]
    assert len(spec("write n=10").schema_cql) == 3


@pytest.mark.parametrize(
    ("low", "high", "steps"),
    [
        (4, 1000, [4, 8, 16, 24, 36, 54, 81, 121, 181, 271, 406, 609, 913]),
        (16, 100, [16, 24, 36, 54, 81]),
        (1, 10, [1, 2, 4, 8]),
        (50, 50, [50]),
    ],
)
def test_thread_ramp_follows_the_stress_sequence(low: int, high: int, steps: list[int]) -> None:
    from casslab.load.stress.build import stress_thread_steps

    assert stress_thread_steps(low, high) == steps


def test_auto_rate_ramps_through_the_studies_thread_counts() -> None:
    from casslab.engine_contract.workload_spec import ThreadRamp
    from casslab.load.stress import parse_stress
    from casslab.load.stress.build import rate_of

    rate = rate_of(parse_stress("mixed ratio(write=9,read=1) duration=1m -rate threads>=4"))
    assert isinstance(rate, ThreadRamp)
    assert 406 in rate.steps
    assert 609 in rate.steps
