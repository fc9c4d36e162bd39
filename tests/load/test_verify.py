"""casslab.load.verify: the read-back statement of each front end's writes, and the
workloads whose writes it cannot verify, refused with the reason and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.engine_contract.workload_spec import (
    Connection,
    Consistency,
    GenKind,
    OpKind,
    WorkloadSpec,
)
from casslab.errors import ConfigError
from casslab.load.stress import parse_stress
from casslab.load.verify import read_consistency, with_verify
from casslab.load.ycsb import parse_ycsb

CONNECTION = Connection(contact_points=["127.0.245.1:9042"])


def stress(line: str) -> WorkloadSpec:
    return parse_stress(line).to_spec(CONNECTION)


def test_a_stress_write_is_read_back_by_its_key() -> None:
    spec = with_verify(stress("write n=100"), "quorum", workload="stress write")
    assert spec.verify is not None
    assert spec.verify.consistency is Consistency.QUORUM
    statement = spec.verify.statement
    assert statement.cql == 'SELECT "key" FROM "keyspace1".standard1 WHERE "key" = ? LIMIT 1'
    # the very generator the write binds: the key's bytes match what the write stored
    assert statement.binds == [spec.operations[0].statements[0].binds[0]]
    assert statement.binds[0].kind is GenKind.KEY_BLOB
    # the rest of the spec is untouched
    assert spec.model_copy(update={"verify": None}) == stress("write n=100")


def test_mixed_verifies_its_writes_and_ycsb_its_inserts_and_updates() -> None:
    mixed = with_verify(stress("mixed ratio(write=1,read=3) n=100"), Consistency.ONE)
    assert mixed.verify is not None
    assert mixed.verify.consistency is Consistency.ONE
    run = parse_ycsb(["run", "-P", "workloada", "-p", "operationcount=10"]).to_spec(CONNECTION)
    assert {op.kind for op in run.operations} >= {OpKind.WRITE, OpKind.READ}
    verified = with_verify(run, "LOCAL_QUORUM")
    assert verified.verify is not None
    assert verified.verify.statement.cql == (
        'SELECT "y_id" FROM "ycsb".usertable WHERE "y_id" = ? LIMIT 1'
    )
    assert verified.verify.statement.binds[0].kind is GenKind.KEY_TEXT


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("counter_write n=10", "counter updates"),
        ("read n=10", "has no write operation"),
    ],
)
def test_workloads_without_row_writes_are_refused(line: str, reason: str) -> None:
    with pytest.raises(ConfigError, match=reason) as refused:
        with_verify(stress(line), "ONE", workload=f"stress {line}")
    assert f"cannot verify the writes of stress {line}" in str(refused.value)


def test_a_user_profile_insert_is_a_batch_and_is_refused(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(
        "keyspace: ks\ntable: t\ntable_definition: CREATE TABLE t (k bigint PRIMARY KEY, v blob)\n"
    )
    spec = parse_stress("user profile=p.yaml ops(insert=1) n=100").to_spec(
        CONNECTION, profile_dir=tmp_path
    )
    with pytest.raises(ConfigError, match="operation 'insert' writes batches"):
        with_verify(spec, "ONE", workload="stress user")


def test_a_write_without_one_key_generator_is_refused() -> None:
    spec = stress("write n=10")
    write = spec.operations[0]
    statement = write.statements[0]
    keyless = statement.model_copy(update={"binds": statement.binds[1:] + statement.binds[1:2]})
    broken = spec.model_copy(
        update={"operations": [write.model_copy(update={"statements": [keyless]})]}
    )
    with pytest.raises(ConfigError, match="binds 0 key generators"):
        with_verify(broken, "ONE")


@pytest.mark.parametrize(
    ("name", "reason"),
    [("QUORAM", "is not a consistency level"), ("any", "reads nothing at ANY")],
)
def test_a_consistency_that_is_not_one_is_refused_with_the_valid_names(
    name: str, reason: str
) -> None:
    with pytest.raises(ConfigError, match=reason) as refused:
        read_consistency(name)
    message = str(refused.value)
    assert repr(name) in message
    assert "ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM" in message
    assert read_consistency(" local_one ") is Consistency.LOCAL_ONE
