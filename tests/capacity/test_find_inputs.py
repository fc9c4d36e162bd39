"""What ``capacity find`` reads from people: the SLO, the error budget, rates, and the
workload command, with what the search sets itself refused by name; and the spec of each
run built from the command."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.capacity.find_settings import (
    FindSettings,
    parse_error_share,
    parse_percent,
    parse_rate_per_s,
    parse_recall,
    parse_slo_ms,
    settings,
)
from casslab.capacity.probe_spec import (
    open_loop_spec,
    parse_command,
    preload_spec,
    ramp_spec,
    require_recall,
    split_words,
)
from casslab.engine_contract.workload_spec import OpenLoop, OpKind, ThreadRamp
from casslab.errors import ConfigError, UsageError, WorkloadSyntaxError
from casslab.load.front_end import OPEN_LOOP_IN_FLIGHT, SearchLoad
from small_vectors import write_small_vectors

CONTACT = ["127.0.0.1:9042"]


@pytest.mark.parametrize(
    ("text", "ms"), [("20ms", 20.0), ("0.5s", 500.0), (" 7.5ms ", 7.5), ("1s", 1000.0)]
)
def test_parse_slo_ms(text: str, ms: float) -> None:
    assert parse_slo_ms(text) == ms


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("20", "--p99 20: give the unit, e.g. --p99 20ms (or 20s)"),
        ("0ms", "--p99 '0ms': not a latency; write e.g. --p99 20ms"),
        ("fast", "--p99 'fast': not a latency"),
        ("-5ms", "--p99 '-5ms': not a latency"),
    ],
)
def test_parse_slo_ms_refuses(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_slo_ms(text)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("text", "share"), [("0", 0.0), ("0%", 0.0), ("0.1%", 0.001), ("2%", 0.02)]
)
def test_parse_error_share(text: str, share: float) -> None:
    assert parse_error_share(text) == pytest.approx(share)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0.1", "--errors 0.1: give 0 (no failed operation) or the share of operations"),
        ("5", "e.g. --errors 0.1%"),
        ("100%", "--errors 100%: the share must be below 100%"),
    ],
)
def test_parse_error_share_refuses(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_error_share(text)
    assert message in str(caught.value)


def test_parse_rates_and_percentages() -> None:
    assert parse_rate_per_s("2000/s", option="--start-rate") == 2000
    assert parse_rate_per_s("2500", option="--start-rate") == 2500
    assert parse_percent("5%", option="--precision") == 0.05
    with pytest.raises(ConfigError, match=r"--start-rate fast: not a rate; write e\.g\."):
        parse_rate_per_s("fast", option="--start-rate")
    with pytest.raises(ConfigError, match=r"--precision 0\.05: write a percentage, e\.g\."):
        parse_percent("0.05", option="--precision")


def test_settings_out_of_order_name_the_options() -> None:
    with pytest.raises(ConfigError) as caught:
        settings(p99_slo_ms=20.0, start_rate_per_s=5.0, min_rate_per_s=10.0)
    assert "need --min-rate <= --start-rate <= --max-rate (got 10, 5, 1e+06 ops/s)" in str(
        caught.value
    )
    with pytest.raises(ConfigError, match="precision"):
        settings(p99_slo_ms=20.0, precision=0.001)
    assert settings(p99_slo_ms=20.0) == FindSettings(p99_slo_ms=20.0)


@pytest.mark.parametrize(("text", "share"), [("0.95", 0.95), ("95%", 0.95), ("1", 1.0)])
def test_parse_recall(text: str, share: float) -> None:
    assert parse_recall(text) == pytest.approx(share)


@pytest.mark.parametrize("text", ["0", "1.5", "95", "high", "-0.1"])
def test_parse_recall_refuses(text: str) -> None:
    with pytest.raises(ConfigError, match=f"--min-recall {text}: give the recall@k a run"):
        parse_recall(text)


# ---------------------------------------------------------------- the workload


def parse(*words: str, closed_loop: bool = False) -> SearchLoad:
    return parse_command(list(words), contact_points=CONTACT, closed_loop=closed_loop)


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (
            ["write", "-rate", "threads=8", "fixed=100/s"],
            "-rate fixed=/throttle=: capacity find sets it per run; remove it from -rate "
            "(keep threads=N",
        ),
        (["write", "-rate", "threads=8", "throttle=100/s"], "-rate fixed=/throttle="),
        (["write", "n=100000"], "n=100000: each run of the search lasts --step-duration"),
        (["write", "duration=60s"], "duration=60s: each run of the search lasts --step-duration"),
        (["write", "-log", "file=x.log"], "capacity find writes its own files to --out"),
        (["write", "-rate", "auto"], "that is --closed-loop"),
        (["write", "-rate", "threads>=4", "threads<=64"], "that is --closed-loop"),
        (["ycsb", "load", "-P", "workloada"], "capacity find measures a `ycsb run`"),
        (["ycsb", "run", "-P", "workloada", "-target", "100"], "ycsb -target: capacity find"),
        (["fly"], "unknown command 'fly'"),
        ([], "capacity find: give the workload"),
        (["write 'unclosed"], "close every quote"),
    ],
)
def test_conflicts_are_refused_by_name(words: list[str], message: str) -> None:
    with pytest.raises(WorkloadSyntaxError) as caught:
        parse(*words)
    assert message in str(caught.value)


def test_closed_loop_refuses_a_fixed_thread_count() -> None:
    with pytest.raises(WorkloadSyntaxError, match="--closed-loop ramps the thread count"):
        parse("write", "-rate", "threads=8", closed_loop=True)


def test_one_quoted_string_and_separate_words_are_the_same_command() -> None:
    quoted = parse("mixed ratio(write=1,read=3) -pop dist=UNIFORM(1..1000) -rate threads=16")
    words = parse(
        "mixed", "ratio(write=1,read=3)", "-pop", "dist=UNIFORM(1..1000)", "-rate", "threads=16"
    )
    assert quoted == words
    assert quoted.front_end == "stress"
    assert quoted.reads
    assert quoted.max_in_flight == 16
    front_end, words = split_words(["stress write -rate threads=4"])
    assert (front_end.name, words) == ("stress", ["write", "-rate", "threads=4"])


def test_the_open_loop_bound_defaults_to_the_engine_s() -> None:
    command = parse("write", "-pop", "seq=1..1000")
    assert command.max_in_flight == OPEN_LOOP_IN_FLIGHT == 1024
    assert not command.reads
    assert command.spec.connection.contact_points == CONTACT
    assert parse("write", "-node", "127.0.237.1").spec.connection.contact_points == [
        "127.0.237.1:9042"
    ]


def test_each_run_is_open_loop_for_the_step_with_the_schema_only_first() -> None:
    command = parse("write", "truncate=once", "-pop", "seq=1..1000", "-rate", "threads=32")
    first = open_loop_spec(
        command, 2500.0, step_duration_s=10.0, warmup_s=3.0, seed=7, with_schema=True
    )
    assert first.rate == OpenLoop(rate_per_s=2500.0, max_in_flight=32)
    assert (first.stop.duration_s, first.stop.ops, first.warmup_s, first.seed) == (
        10.0,
        None,
        3.0,
        7,
    )
    assert any(s.startswith("TRUNCATE") for s in first.schema_cql)
    later = open_loop_spec(
        command, 2500.0, step_duration_s=10.0, warmup_s=3.0, seed=8, with_schema=False
    )
    assert later.schema_cql == []
    assert later.keyspace == first.keyspace
    assert later.output.hdr_log is None
    assert later.output.interval_s == 1.0


def test_the_closed_loop_ramp_is_stress_s_sequence() -> None:
    command = parse("write", "-pop", "seq=1..1000", closed_loop=True)
    spec = ramp_spec(command, step_duration_s=5.0, warmup_s=0.0)
    assert isinstance(spec.rate, ThreadRamp)
    assert spec.rate.steps[:9] == [4, 8, 16, 24, 36, 54, 81, 121, 181]
    assert (spec.rate.patience, spec.rate.min_gain_pct, spec.rate.step_duration_s) == (3, 5.0, 5.0)
    bounded = parse("write", "-rate", "threads>=8", "threads<=54", closed_loop=True)
    rate = ramp_spec(bounded, step_duration_s=5.0, warmup_s=0.0).rate
    assert isinstance(rate, ThreadRamp)
    assert rate.steps == [8, 16, 24, 36, 54]


def test_ycsb_run_ignores_its_operation_count_and_bounds_in_flight_by_threads() -> None:
    command = parse("ycsb", "run", "-P", "workloadb", "-p", "recordcount=500", "-threads", "20")
    assert command.front_end == "ycsb"
    assert command.reads
    assert command.max_in_flight == 20
    assert command.ramp_max_threads == 20
    spec = open_loop_spec(
        command, 100.0, step_duration_s=5.0, warmup_s=0.0, seed=0, with_schema=True
    )
    assert spec.stop.ops is None
    assert spec.stop.duration_s == 5.0
    assert {op.kind for op in spec.operations} == {OpKind.READ, OpKind.WRITE}
    unbounded = parse("ycsb run -P workloada -p recordcount=500")
    assert unbounded.max_in_flight == OPEN_LOOP_IN_FLIGHT
    assert (unbounded.ramp_min_threads, unbounded.ramp_max_threads) == (4, 1000)


def test_preload_runs_as_given_with_the_search_s_data_seed() -> None:
    spec = preload_spec(["write n=5000 -rate threads=8"], contact_points=CONTACT, data_seed=42)
    assert spec.stop.ops == 5000
    assert spec.data_seed == 42
    ycsb = preload_spec(
        ["ycsb load -P workloada -p recordcount=300"], contact_points=CONTACT, data_seed=1
    )
    assert ycsb.stop.ops == 300


def test_a_recall_floor_needs_a_workload_that_counts_recall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASSLAB_CACHE", str(tmp_path / "cache"))
    write_small_vectors(tmp_path)

    def command(*words: str) -> SearchLoad:
        return parse_command(list(words), contact_points=CONTACT, cwd=tmp_path)

    require_recall(command("user", "profile=p.yaml", "ops(ann=1)"))
    for words in (("write",), ("user", "profile=p.yaml", "ops(filtered=1)")):
        with pytest.raises(UsageError) as caught:
            require_recall(command(*words))
        assert "--min-recall" in str(caught.value)
        assert "counts no recall@k" in str(caught.value)
