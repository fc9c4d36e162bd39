"""The engine spawner against stand-in engine executables (shell scripts).

These check the process handling (records, exit codes, timeouts, process-group kill);
tests/load/test_engine_integration.py runs the real engine against a real node.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from casslab.engine_contract.engine_records import (
    ErrorKind,
    ErrorRecord,
    IntervalRecord,
    SummaryRecord,
    VerifyStats,
)
from casslab.engine_contract.workload_spec import (
    ClosedLoop,
    Connection,
    Consistency,
    DistKind,
    Distribution,
    Generator,
    GenKind,
    OpenLoop,
    Operation,
    OpKind,
    Output,
    Rate,
    Statement,
    Stop,
    ThreadRamp,
    TokenRangeScan,
    UdtName,
    Verify,
    WorkloadSpec,
)
from casslab.errors import EngineError
from casslab.load import engine

LATENCY = {
    "count": 2,
    "mean_ms": 1.0,
    "p50_ms": 1.0,
    "p95_ms": 1.0,
    "p99_ms": 1.0,
    "p999_ms": 1.0,
    "max_ms": 1.0,
}
OPSTATS = {"count": 2, "errors": 0, "op_rate": 2.0, "response": LATENCY, "service": LATENCY}
INTERVAL = {
    "schema_version": 1,
    "type": "interval",
    "phase": "measure",
    "t_start_s": 0.0,
    "t_end_s": 1.0,
    "threads": 1,
    "total": OPSTATS,
    "ops": {"write": OPSTATS},
}
SUMMARY = {
    "schema_version": 1,
    "type": "summary",
    "duration_s": 1.0,
    "total": OPSTATS,
    "ops": {"write": OPSTATS},
    "engine_version": "0.1.0",
}


def make_spec(tmp_path: Path) -> WorkloadSpec:
    return WorkloadSpec(
        connection=Connection(contact_points=["127.0.10.1:9042"]),
        operations=[
            Operation(
                name="write",
                kind=OpKind.WRITE,
                weight=1.0,
                statements=[Statement(cql="INSERT INTO t (k) VALUES (1)")],
            )
        ],
        keys=Distribution(kind=DistKind.SEQ, min=1, max=10),
        rate=ClosedLoop(threads=1),
        stop=Stop(ops=10),
        output=Output(jsonl=str(tmp_path / "ignored.jsonl")),
    )


def fake_engine(tmp_path: Path, body: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    script = tmp_path / "fake-engine"
    script.write_text("#!/bin/bash\n" + body + "\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(engine.ENGINE_ENV, str(script))
    return script


def echo(record: dict[str, object]) -> str:
    return f"echo '{json.dumps(record)}'"


def wait_gone(pid: int, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def test_missing_binary_tells_the_user_to_build_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(engine.ENGINE_ENV, str(tmp_path / "nope"))
    with pytest.raises(EngineError, match="set CASSLAB_ENGINE to an executable engine"):
        engine.engine_binary()


def test_default_binary_is_the_release_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(engine.ENGINE_ENV, raising=False)
    expected = engine.repo_root() / "target" / "release" / "casslab-engine"
    assert (engine.repo_root() / "src" / "casslab" / "load" / "engine.py").is_file()
    if expected.is_file():
        assert engine.engine_binary() == expected
    else:
        with pytest.raises(EngineError, match="make engine"):
            engine.engine_binary()


@pytest.mark.parametrize(
    ("record", "kind"),
    [
        (INTERVAL, IntervalRecord),
        (SUMMARY, SummaryRecord),
        ({"schema_version": 1, "type": "error", "message": "x"}, ErrorRecord),
    ],
)
def test_parse_record_dispatches_on_type(record: dict[str, object], kind: type) -> None:
    assert isinstance(engine.parse_record(json.dumps(record)), kind)


def test_errors_by_kind_and_the_read_back_parse_and_older_records_still_read() -> None:
    kinds = {"unavailable": 2, "client_timeout": 1}
    stats = {**OPSTATS, "errors": 3, "errors_by_kind": kinds}
    verify = {"consistency": "QUORUM", "checked": 8, "lost": 1, "errors": 0, "duration_s": 0.4}
    record = engine.parse_record(json.dumps({**SUMMARY, "total": stats, "verify": verify}))
    assert isinstance(record, SummaryRecord)
    assert record.total.errors_by_kind == {
        ErrorKind.UNAVAILABLE: 2,
        ErrorKind.CLIENT_TIMEOUT: 1,
    }
    assert record.verify == VerifyStats(
        consistency=Consistency.QUORUM, checked=8, lost=1, errors=0, duration_s=0.4
    )
    older = engine.parse_record(json.dumps(SUMMARY))
    assert isinstance(older, SummaryRecord)
    assert older.total.errors_by_kind == {}
    assert older.verify is None
    bad = {**OPSTATS, "errors_by_kind": {"gremlins": 1}}
    with pytest.raises(EngineError):
        engine.parse_record(json.dumps({**INTERVAL, "total": bad}))


@pytest.mark.parametrize(
    "line",
    [
        "not json",
        json.dumps({"type": "interval"}),
        json.dumps({**SUMMARY, "surprise": 1}),
        json.dumps({**SUMMARY, "schema_version": 2}),
    ],
)
def test_unreadable_lines_raise_engine_error(line: str) -> None:
    with pytest.raises(EngineError, match="make engine"):
        engine.parse_record(line)


def test_run_collects_records_and_writes_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    error = {"schema_version": 1, "type": "error", "op": "write", "message": "timeout"}
    fake_engine(
        tmp_path,
        "\n".join([echo(INTERVAL), echo(error), "echo", echo(INTERVAL), echo(SUMMARY)]),
        monkeypatch,
    )
    seen: list[IntervalRecord] = []
    result = engine.run(make_spec(tmp_path), tmp_path / "work", on_interval=seen.append)
    assert len(result.intervals) == 2
    assert seen == result.intervals
    assert result.summary.engine_version == "0.1.0"
    assert [e.message for e in result.errors] == ["timeout"]
    sent = json.loads((tmp_path / "work" / engine.SPEC_FILE).read_text())
    assert sent["output"]["jsonl"] is None  # records must come back on stdout
    lines = (tmp_path / "work" / engine.RECORDS_FILE).read_text().splitlines()
    assert len([line for line in lines if line.strip()]) == 4


def test_fatal_record_becomes_the_error_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fatal = {"schema_version": 1, "type": "error", "message": "cannot connect", "fatal": True}
    fake_engine(tmp_path, echo(fatal) + "\nexit 1", monkeypatch)
    with pytest.raises(EngineError, match=r"status 1: cannot connect"):
        engine.run(make_spec(tmp_path), tmp_path / "work")


def test_nonzero_exit_without_record_reports_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_engine(tmp_path, "echo 'thread main panicked' >&2\nexit 3", monkeypatch)
    with pytest.raises(EngineError, match=r"status 3: thread main panicked"):
        engine.run(make_spec(tmp_path), tmp_path / "work")


def test_missing_summary_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_engine(tmp_path, echo(INTERVAL), monkeypatch)
    with pytest.raises(EngineError, match="without a summary"):
        engine.run(make_spec(tmp_path), tmp_path / "work")


HANGING = """
sleep 60 &
echo $! > "{pids}/child"
echo $$ > "{pids}/self"
{first}
wait
"""


def test_preexec_runs_in_the_engines_process_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The caller's placement (e.g. its cgroup, casslab.host.engine_cgroup.engine_cgroup) is done in
    the engine's own process, before the engine runs: it sees what the step left."""
    marker = tmp_path / "placed"
    fake_engine(
        tmp_path, f'echo "$$ $(cat {marker})" > {tmp_path}/seen\n' + echo(SUMMARY), monkeypatch
    )

    def place() -> None:
        marker.write_text(str(os.getpid()))  # runs in the child, after the fork

    engine.run(make_spec(tmp_path), tmp_path / "work", preexec=place)
    engine_pid, placed_pid = (tmp_path / "seen").read_text().split()
    assert engine_pid == placed_pid != str(os.getpid())


def test_a_failed_preexec_is_an_engine_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_engine(tmp_path, echo(SUMMARY), monkeypatch)

    def fail() -> None:
        raise OSError("no such cgroup")

    with pytest.raises(EngineError, match="the load engine could not be started"):
        engine.run(make_spec(tmp_path), tmp_path / "work", preexec=fail)


def test_timeout_kills_the_process_group(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_engine(tmp_path, HANGING.format(pids=tmp_path, first=echo(INTERVAL)), monkeypatch)
    started = time.monotonic()
    with pytest.raises(EngineError, match="timed out after 1 s"):
        engine.run(make_spec(tmp_path), tmp_path / "work", timeout_s=1.0)
    assert time.monotonic() - started < 8.0
    for name in ("self", "child"):
        assert wait_gone(int((tmp_path / name).read_text())), f"{name} still running"


def test_closing_the_stream_kills_the_process_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_engine(tmp_path, HANGING.format(pids=tmp_path, first=echo(INTERVAL)), monkeypatch)
    records = engine.stream(make_spec(tmp_path), tmp_path / "work")
    first = next(records)
    assert isinstance(first, IntervalRecord)
    records.close()
    for name in ("self", "child"):
        assert wait_gone(int((tmp_path / name).read_text())), f"{name} still running"


def test_sigterm_resistant_engine_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "KILL_GRACE_S", 0.5)
    body = "trap '' TERM\n" + HANGING.format(pids=tmp_path, first=echo(INTERVAL))
    fake_engine(tmp_path, body, monkeypatch)
    records = engine.stream(make_spec(tmp_path), tmp_path / "work")
    next(records)
    records.close()
    assert wait_gone(int((tmp_path / "self").read_text()))
    assert os.environ[engine.ENGINE_ENV].endswith("fake-engine")


# ---------------------------------------------------------------- the real engine's parser


# Item generators of the kinds that take them (one is enough for a tuple or a UDT).
_ITEMS = {GenKind.LIST: 1, GenKind.SET: 1, GenKind.MAP: 2, GenKind.TUPLE: 1, GenKind.UDT: 1}


def full_spec(tmp_path: Path, rate: Rate) -> WorkloadSpec:
    """A spec using every enum value and every optional field."""
    dists = [
        Distribution(
            kind=kind,
            min=1,
            max=1000,
            mean=500.0,
            stdev=100.0,
            zipf_theta=0.9,
            hot_fraction=0.1,
            hot_ops_fraction=0.9,
        )
        for kind in DistKind
    ]
    gens = [
        Generator(
            kind=kind,
            column=f"c_{kind.value}",
            size=Distribution(kind=DistKind.UNIFORM, min=1, max=20),
            values=Distribution(kind=DistKind.UNIFORM, min=1, max=20),
            prefix="user",
            hashed=True,
            per_key=False,
            items=[Generator(kind=GenKind.FLOAT, column="e")] * _ITEMS.get(kind, 0),
            udt=UdtName(keyspace="ks", name="t") if kind is GenKind.UDT else None,
        )
        for kind in GenKind
        # dataset binds need a dataset's files: tests/load/stress/test_profile_vectors.py
        if kind not in (GenKind.VECTOR, GenKind.BASE_VECTOR, GenKind.QUERY_VECTOR)
    ]
    fixed = Distribution(kind=DistKind.FIXED, min=3, max=3)
    gens.append(
        Generator(
            kind=GenKind.VECTOR, column="v", size=fixed, items=[Generator(kind=GenKind.FLOAT)]
        )
    )
    consistencies = list(Consistency)
    ops = [
        Operation(
            name=f"op_{kind.value}",
            kind=kind,
            weight=1.5,
            statements=[Statement(cql="SELECT 1", binds=gens), Statement(cql="SELECT 2")],
            consistency=consistencies[i % len(consistencies)],
            serial_consistency=Consistency.LOCAL_SERIAL,
            keys=dists[i % len(dists)],
            validate_columns=[g for g in gens if g.kind is not GenKind.SCAN_LENGTH],
            idempotent=False,
        )
        for i, kind in enumerate(OpKind)
        if kind is not OpKind.TOKEN_RANGE  # one statement, no binds: below
    ]
    ops.append(
        Operation(
            name="op_token_range",
            kind=OpKind.TOKEN_RANGE,
            weight=0.5,
            statements=[
                Statement(cql="SELECT token(k), v FROM t WHERE token(k) > ? AND token(k) <= ?")
            ],
            token_range=TokenRangeScan(page_size=7, split_factor=3, wrap=True),
        )
    )
    return WorkloadSpec(
        connection=Connection(
            contact_points=["127.0.10.1:9042", "127.0.10.2:9042"],
            local_dc="dc1",
            username="u",
            password="p",
            tls=True,
            tls_ca_file="/ca.pem",
            request_timeout_s=2.5,
            retries=1,
            retry_backoff_ms=10.0,
        ),
        schema_cql=["CREATE KEYSPACE x"],
        keyspace="x",
        operations=ops,
        keys=dists[2],
        rate=rate,
        stop=Stop(ops=10, duration_s=1.5),
        warmup_s=0.5,
        seed=2**62,
        validate_reads=True,
        output=Output(
            jsonl=str(tmp_path / "o.jsonl"), hdr_log=str(tmp_path / "h.hlog"), interval_s=0.25
        ),
        verify=Verify(
            consistency=Consistency.QUORUM,
            statement=Statement(
                cql="SELECT k FROM t WHERE k = ?",
                binds=[Generator(kind=GenKind.KEY_BLOB, column="k")],
            ),
        ),
    )


needs_engine = pytest.mark.skipif(
    not (engine.repo_root() / "target" / "release" / "casslab-engine").is_file()
    and engine.ENGINE_ENV not in os.environ,
    reason="engine not built: run `make engine`",
)


@pytest.mark.engine
@needs_engine
@pytest.mark.parametrize(
    "rate",
    [
        ClosedLoop(threads=3),
        OpenLoop(rate_per_s=100.5, max_in_flight=7),
        ThreadRamp(min=2, max=9, factor=1.2, step_duration_s=0.5, min_gain_pct=1.0, patience=2),
    ],
)
def test_engine_accepts_every_field_python_writes(tmp_path: Path, rate: Rate) -> None:
    engine.check(full_spec(tmp_path, rate), tmp_path / "work")
    assert not (tmp_path / "o.jsonl").exists()  # a check opens no output


def reject(tmp_path: Path, raw: dict[str, Any]) -> ErrorRecord:
    """Feed raw JSON to ``casslab-engine --check``; return its fatal record (exit 2)."""
    path = tmp_path / "raw-spec.json"
    path.write_text(json.dumps(raw))
    proc = subprocess.run(
        [str(engine.engine_binary()), "--check", "--spec", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    record = engine.parse_record(proc.stdout.strip())
    assert isinstance(record, ErrorRecord)
    assert record.fatal
    return record


@pytest.mark.engine
@needs_engine
@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"keys": {"kind": "uniform", "min": 5, "max": 1}}, "max is below min"),
        ({"keys": {"kind": "zipfian", "min": 1, "max": 9, "zipf_theta": 1.5}}, "theta"),
        ({"keys": {"kind": "zipf", "min": 1, "max": 9}}, "unknown variant `zipf`"),
        ({"stop": {}}, "a run must end"),
        ({"schema_version": 2}, "schema_version"),
        ({"rate": {"mode": "closed", "threads": 1, "rate_per_s": 5}}, "rate_per_s"),
        ({"surprise": True}, "surprise"),
    ],
)
def test_engine_rejects_bad_specs_with_a_reason(
    tmp_path: Path, change: dict[str, Any], reason: str
) -> None:
    raw = json.loads(full_spec(tmp_path, ClosedLoop(threads=1)).model_dump_json()) | change
    assert reason in reject(tmp_path, raw).message


@pytest.mark.engine
@needs_engine
def test_engine_rejects_unknown_nested_fields(tmp_path: Path) -> None:
    raw = json.loads(full_spec(tmp_path, ClosedLoop(threads=1)).model_dump_json())
    raw["operations"][0]["statements"][0]["binds"][0]["surprise"] = True
    assert "surprise" in reject(tmp_path, raw).message


@pytest.mark.engine
@needs_engine
def test_check_raises_engine_error(tmp_path: Path) -> None:
    spec = full_spec(tmp_path, ClosedLoop(threads=1))
    bad_op = spec.operations[0].model_copy(
        update={"validate_columns": [Generator(kind=GenKind.SCAN_LENGTH)]}
    )
    with pytest.raises(EngineError, match=r"rejects the workload spec.*scan_length"):
        engine.check(spec.model_copy(update={"operations": [bad_op]}), tmp_path / "w")
