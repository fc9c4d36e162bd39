"""The file's ``verify:``: the measured spec reads back its acknowledged writes, a workload
that cannot be verified is refused before anything starts, and the trial's KPIs come
from the engine's summary."""

from __future__ import annotations

import textwrap

import pytest

from casslab.engine_contract.engine_records import LatencyStats, OpStats, SummaryRecord, VerifyStats
from casslab.engine_contract.workload_spec import Connection, Consistency
from casslab.errors import ExperimentError, ExperimentValidationError
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.file import experiment_loader
from casslab.experiment.run.engine_specs import check_engine_specs
from casslab.experiment.steps.verify.verification import measured_spec, verify_kpis
from casslab.load.stress import parse_stress
from cli_entry import NEEDS_ENGINE

FILE = """
name: kill-one
cluster: {nodes: 3}
schema: {keyspace: keyspace1, replication: {class: SimpleStrategy, replication_factor: 3}}
preload: "write n=100 cl=QUORUM"
workload: "WORKLOAD"
measure: "duration=5s -rate threads=4"
iterations: 1
faults: [{at: 2s, kind: kill, target: 2, for: 15s}]
verify: QUORUM
"""

CONNECTION = Connection(contact_points=["127.0.0.1:9042"])


def _file(workload: str) -> str:
    return textwrap.dedent(FILE).replace("WORKLOAD", workload)


def test_verify_is_a_read_consistency_level() -> None:
    assert experiment_loader.parse(_file("write cl=QUORUM")).verify is Consistency.QUORUM
    assert experiment_loader.parse(_file("write").replace("verify: QUORUM\n", "")).verify is None
    with pytest.raises(ExperimentValidationError) as caught:
        experiment_loader.parse(
            _file("write").replace("verify: QUORUM", "verify: MOST"), "bad.yaml"
        )
    [problem] = caught.value.problems
    assert problem.startswith("verify: ")
    assert "'QUORUM'" in problem  # the valid names


def test_the_measured_spec_reads_back_what_it_writes() -> None:
    spec = parse_stress("write n=100 cl=QUORUM").to_spec(CONNECTION)
    assert measured_spec(spec, None, "write") is spec
    verified = measured_spec(spec, Consistency.QUORUM, "write n=100 cl=QUORUM")
    assert verified.verify is not None
    assert verified.verify.consistency is Consistency.QUORUM
    assert verified.verify.statement.cql.startswith("SELECT")
    assert "standard1" in verified.verify.statement.cql


@pytest.mark.parametrize(
    ("workload", "reason"),
    [
        ("counter_write", "counter updates"),
        ("read", "no write operation"),
    ],
)
def test_a_workload_that_cannot_be_verified_is_refused_naming_it(
    workload: str, reason: str
) -> None:
    spec = parse_stress(workload).to_spec(CONNECTION)
    with pytest.raises(ExperimentError) as caught:
        measured_spec(spec, Consistency.QUORUM, workload)
    message = str(caught.value)
    assert message.startswith(f"verify: cannot verify the writes of {workload!r}: ")
    assert reason in message
    assert message.endswith("(nothing was run)")


@NEEDS_ENGINE[1]
def test_run_and_plan_refuse_it_before_anything_starts() -> None:
    """The check every run and plan makes first (the engine's own ``--check`` included):
    the measured workload is checked with its read-back; the preload never reads back."""
    plan = expand(experiment_loader.parse(_file("mixed ratio(write=1,read=1) cl=QUORUM")))
    assert check_engine_specs(plan, None, 1, Consistency.QUORUM) == 2
    counters = expand(experiment_loader.parse(_file("counter_write cl=QUORUM")))
    with pytest.raises(ExperimentError, match="counter updates"):
        check_engine_specs(counters, None, 1, Consistency.QUORUM)
    assert check_engine_specs(counters, None, 1, None) == 2


def _summary(verify: VerifyStats | None) -> SummaryRecord:
    latency = LatencyStats(
        count=10, mean_ms=1.0, p50_ms=1.0, p95_ms=1.0, p99_ms=1.0, p999_ms=1.0, max_ms=1.0
    )
    total = OpStats(count=10, errors=0, op_rate=1.0, response=latency, service=latency)
    return SummaryRecord(duration_s=10.0, total=total, ops={}, engine_version="1", verify=verify)


def test_the_kpis_come_from_the_engine_summary() -> None:
    stats = VerifyStats(
        consistency=Consistency.QUORUM, checked=800, lost=2, errors=1, duration_s=0.5
    )
    assert verify_kpis(_summary(stats), Consistency.QUORUM) == {
        "lost_writes": 2.0,
        "unverified_writes": 1.0,
        "verified_writes": 800.0,
    }
    assert verify_kpis(_summary(None), Consistency.QUORUM) == {
        "lost_writes": None,
        "unverified_writes": None,
        "verified_writes": None,
    }
    assert verify_kpis(_summary(stats), None) == {}
