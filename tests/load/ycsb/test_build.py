"""casslab.load.ycsb.build: engine specs of YCSB load and run phases, statements, bad specs."""

from __future__ import annotations

import pytest

from casslab.engine_contract.workload_spec import (
    ClosedLoop,
    Connection,
    Consistency,
    DistKind,
    GenKind,
    OpenLoop,
    Operation,
    OpKind,
    Stop,
    WorkloadSpec,
)
from casslab.errors import WorkloadSyntaxError
from casslab.load.ycsb.parse import BUILTIN_WORKLOADS, parse_ycsb

CONNECTION = Connection(contact_points=["127.0.20.1:9042"])

# YCSB's requestdistribution of each core workload (its other values: test_parse.STANDARD)
REQUEST_DISTRIBUTION = {
    "workloada": "zipfian",
    "workloadb": "zipfian",
    "workloadc": "zipfian",
    "workloadd": "latest",
    "workloade": "zipfian",
    "workloadf": "zipfian",
}
NAMES = {
    "workloada": [("READ", 0.5), ("UPDATE", 0.5)],
    "workloadb": [("READ", 0.95), ("UPDATE", 0.05)],
    "workloadc": [("READ", 1.0)],
    "workloadd": [("READ", 0.95), ("INSERT", 0.05)],
    "workloade": [("INSERT", 0.05), ("SCAN", 0.95)],
    "workloadf": [("READ", 0.5), ("READ-MODIFY-WRITE", 0.5)],
}


def weights_by_name(operations: list[Operation]) -> list[tuple[str, float]]:
    """Each operation name once (first appearance) with its operations' summed weight."""
    total: dict[str, float] = {}
    for op in operations:
        total[op.name] = total.get(op.name, 0.0) + op.weight
    return [(name, round(weight, 9)) for name, weight in total.items()]


@pytest.mark.parametrize("name", BUILTIN_WORKLOADS)
def test_every_workload_builds_load_and_run_specs(name: str) -> None:
    load = parse_ycsb(["load", "-P", name, "-p", "recordcount=500"]).to_spec(CONNECTION)
    [insert] = load.operations
    assert (insert.name, insert.kind) == ("INSERT", OpKind.WRITE)
    assert (load.keys.kind, load.keys.min, load.keys.max) == (DistKind.SEQ, 0, 499)
    assert load.stop == Stop(ops=500)
    run = parse_ycsb(["run", "-P", name, "-p", "recordcount=500", "-p", "operationcount=700"])
    result = run.to_spec(CONNECTION)
    assert weights_by_name(result.operations) == NAMES[name]
    assert result.stop == Stop(ops=700)
    assert (result.keys.min, result.keys.max) == (0, 499)
    assert result.keys.kind is DistKind(REQUEST_DISTRIBUTION[name])
    assert WorkloadSpec.model_validate_json(result.model_dump_json()) == result


def test_statements_follow_the_cassandra_binding() -> None:
    result = parse_ycsb(
        [
            "run",
            "-P",
            "workloada",
            "-p",
            "insertproportion=0.1",
            "-p",
            "scanproportion=0.1",
            "-p",
            "readmodifywriteproportion=0.1",
            "-p",
            "fieldlength=1000",
        ]
    ).to_spec(CONNECTION)
    ops: dict[str, Operation] = {}
    for op in result.operations:
        ops.setdefault(op.name, op)  # the first of each name (UPDATE: of field0)
    table = '"ycsb".usertable'
    assert ops["READ"].statements[0].cql == f"SELECT * FROM {table} WHERE y_id = ? LIMIT 1"
    assert ops["UPDATE"].statements[0].cql == f"UPDATE {table} SET field0 = ? WHERE y_id = ?"
    assert ops["INSERT"].statements[0].cql == (
        f"INSERT INTO {table} (y_id, field0, field1, field2, field3, field4, field5, field6, "
        "field7, field8, field9) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    assert ops["SCAN"].statements[0].cql == (
        f"SELECT * FROM {table} WHERE token(y_id) >= token(?) LIMIT ?"
    )
    assert ops["SCAN"].kind is OpKind.SCAN
    key, length = ops["SCAN"].statements[0].binds
    assert (key.kind, key.prefix, key.hashed) == (GenKind.KEY_TEXT, "user", True)
    assert length.kind is GenKind.SCAN_LENGTH
    assert not length.per_key
    assert length.values is not None
    assert (length.values.min, length.values.max) == (1, 1000)
    rmw = ops["READ-MODIFY-WRITE"]
    assert rmw.kind is OpKind.READ_MODIFY_WRITE
    assert [s.cql.split()[0] for s in rmw.statements] == ["SELECT", "UPDATE"]
    value = ops["INSERT"].statements[0].binds[1]
    assert value.kind is GenKind.TEXT
    assert value.size is not None
    assert (value.size.kind, value.size.max) == (DistKind.FIXED, 1000)
    new_keys = ops["INSERT"].keys
    assert new_keys is not None
    assert (new_keys.kind, new_keys.min) == (DistKind.SEQ, 1000)
    assert ops["READ"].consistency is Consistency.QUORUM
    assert result.schema_cql == [
        "CREATE KEYSPACE IF NOT EXISTS \"ycsb\" WITH replication = {'class': 'SimpleStrategy', "
        "'replication_factor': '1'} AND durable_writes = true",
        'CREATE TABLE IF NOT EXISTS "ycsb".usertable (y_id varchar PRIMARY KEY, field0 varchar, '
        "field1 varchar, field2 varchar, field3 varchar, field4 varchar, field5 varchar, "
        "field6 varchar, field7 varchar, field8 varchar, field9 varchar)",
    ]


@pytest.mark.parametrize(
    ("props", "check"),
    [
        (["requestdistribution=uniform"], lambda s: s.keys.kind is DistKind.UNIFORM),
        (["requestdistribution=exponential"], lambda s: s.keys.kind is DistKind.EXP),
        (
            ["requestdistribution=hotspot", "hotspotdatafraction=0.1", "hotspotopnfraction=0.9"],
            lambda s: (
                (s.keys.kind, s.keys.hot_fraction, s.keys.hot_ops_fraction)
                == (DistKind.HOTSPOT, 0.1, 0.9)
            ),
        ),
        (["zipfian.constant=0.5"], lambda s: s.keys.zipf_theta == 0.5),
        (["insertorder=ordered"], lambda s: not s.operations[0].statements[0].binds[0].hashed),
        (
            ["readallfields=false"],
            lambda s: (
                [o.statements[0].cql.split()[1] for o in s.operations if o.name == "READ"]
                == [f"field{i}" for i in range(10)]
            ),
        ),
        (
            ["writeallfields=true"],
            lambda s: s.operations[1].statements[0].cql.count("= ?") == 11,
        ),
        (
            ["fieldlengthdistribution=uniform", "fieldlength=50"],
            lambda s: s.operations[1].statements[0].binds[0].size.kind is DistKind.UNIFORM,
        ),
        (["fieldcount=3"], lambda s: "field2 varchar, field3" in s.schema_cql[1]),
        (["maxexecutiontime=30"], lambda s: s.stop == Stop(ops=1000, duration_s=30.0)),
        (["cassandra.keyspace=bench"], lambda s: s.keyspace == "bench"),
        (
            ["cassandra.readconsistencylevel=ONE", "cassandra.writeconsistencylevel=all"],
            lambda s: (
                {o.name: o.consistency for o in s.operations}
                == {"READ": Consistency.ONE, "UPDATE": Consistency.ALL}
            ),
        ),
        (
            ["cassandra.replication_factor=3"],
            lambda s: "'replication_factor': '3'" in s.schema_cql[0],
        ),
        (
            ["cassandra.username=u", "cassandra.password=p"],
            lambda s: (s.connection.username, s.connection.password) == ("u", "p"),
        ),
    ],
)
def test_properties_shape_the_run(props: list[str], check: object) -> None:
    args = ["run", "-P", "workloada"]
    for prop in props:
        args += ["-p", prop]
    assert check(parse_ycsb(args).to_spec(CONNECTION))  # type: ignore[operator]


def test_load_range_and_threads_and_target() -> None:
    command = parse_ycsb(
        [
            "load",
            "cassandra-cql",
            "-P",
            "workloada",
            "-p",
            "recordcount=10000",
            "-p",
            "insertstart=2000",
            "-p",
            "insertcount=3000",
            "-threads",
            "8",
            "-s",
        ]
    )
    assert (command.binding, command.threads, command.status) == ("cassandra-cql", 8, True)
    result = command.to_spec(CONNECTION, seed=7, data_seed=3)
    assert (result.keys.min, result.keys.max) == (2000, 4999)
    assert result.stop == Stop(ops=3000)
    assert result.rate == ClosedLoop(threads=8)
    assert (result.seed, result.data_seed) == (7, 3)
    assert command.to_spec(CONNECTION, seed=7).data_seed == 0
    target = parse_ycsb(["run", "-P", "workloadb", "-threads", "4", "-target", "250"])
    assert target.to_spec(CONNECTION).rate == OpenLoop(rate_per_s=250, max_in_flight=4)
    assert parse_ycsb(["run", "-P", "workloadc"]).to_spec(CONNECTION).rate == ClosedLoop(threads=1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "-P", "workloada", "-p", "recordcount=0"], "recordcount must be >= 1"),
        (["run", "-P", "workloada", "-p", "operationcount=0"], "set -p operationcount=N"),
        (
            ["run", "-P", "workloada", "-p", "readproportion=0", "-p", "updateproportion=0"],
            "every proportion is 0",
        ),
        (["load", "-P", "workloada", "-p", "insertstart=1000"], "nothing to insert"),
    ],
)
def test_bad_specs(args: list[str], message: str) -> None:
    with pytest.raises(WorkloadSyntaxError, match=message):
        parse_ycsb(args).to_spec(CONNECTION)


def test_status_interval() -> None:
    assert parse_ycsb(["run", "-P", "workloada"]).to_spec(CONNECTION).output.interval_s == 1.0
    status = parse_ycsb(["run", "-P", "workloada", "-s"]).to_spec(CONNECTION)
    assert status.output.interval_s == 10.0
    custom = parse_ycsb(["run", "-P", "workloada", "-s", "-p", "status.interval=2"])
    assert custom.to_spec(CONNECTION).output.interval_s == 2.0
    with pytest.raises(WorkloadSyntaxError, match=r"status\.interval=x: give seconds"):
        parse_ycsb(["run", "-P", "workloadc", "-s", "-p", "status.interval=x"]).to_spec(CONNECTION)
