"""Composing load commands: workload, then measure options, then threads / rate levels."""

from __future__ import annotations

import pytest

from casslab.experiment.file.load_commands import Command, compose_command
from casslab.load.command_words import number_text
from casslab.load.front_ends import name_of


@pytest.mark.parametrize(
    ("workload", "measure", "threads", "rate", "expected"),
    [
        ("write n=1000", "", None, None, "write n=1000"),
        (
            "mixed ratio(write=9,read=1)",
            "duration=60s cl=ONE -pop dist=UNIFORM(1..1000) -rate threads=32",
            None,
            None,
            "mixed ratio(write=9,read=1) duration=60s cl=ONE -pop dist=UNIFORM(1..1000) "
            "-rate threads=32",
        ),
        # the workload level is more specific than the measure options
        (
            "mixed ratio(write=5,read=5) cl=QUORUM -rate threads=609",
            "duration=20m cl=ONE -rate threads=32",
            None,
            None,
            "mixed ratio(write=5,read=5) cl=QUORUM duration=20m -rate threads=609",
        ),
        # threads and rate factors override both
        (
            "write -rate threads=609 throttle=100/s",
            "duration=1m -rate threads=32",
            16,
            2000.0,
            "write duration=1m -rate threads=16 fixed=2000/s",
        ),
        ("read", "-rate threads>=4 threads<=64", 8, None, "read -rate threads=8"),
        # an option of the workload replaces the measure's option whole
        (
            "write -pop seq=1..1000",
            "duration=1m -pop dist=UNIFORM(1..1000) -rate threads=4",
            None,
            None,
            "write duration=1m -pop seq=1..1000 -rate threads=4",
        ),
        (
            "ycsb run -P workloada -p recordcount=100 -threads 4",
            "-p recordcount=1000 -p operationcount=5000",
            32,
            500.0,
            "ycsb run -P workloada -p recordcount=100 -p operationcount=5000 -threads 32 "
            "-target 500",
        ),
    ],
)
def test_compose_command(
    workload: str, measure: str, threads: int | None, rate: float | None, expected: str
) -> None:
    assert compose_command(workload, measure, threads, rate).text == expected


def test_compose_command_picks_measure_by_tool() -> None:
    measure = {"stress": "duration=1m", "ycsb": "-p operationcount=10"}
    assert compose_command("write", measure).text == "write duration=1m"
    ycsb = compose_command("ycsb run -P workloadb", measure)
    assert ycsb == Command(tool="ycsb", text="ycsb run -P workloadb -p operationcount=10")


@pytest.mark.parametrize(
    ("workload", "measure", "message"),
    [
        ("write", "mixed duration=1m", "looks like a command"),
        ("write 'n=1", "", "check the quotes"),
        ("ycsb -P workloada", "", "starts 'ycsb run' or 'ycsb load'"),
        ("", "duration=1m", "expected a command first"),
    ],
)
def test_compose_command_rejects(workload: str, measure: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        compose_command(workload, measure)


def test_overridden_commands_parse_as_stress() -> None:
    stress = pytest.importorskip("casslab.load.stress")
    command = compose_command(
        "mixed ratio(write=9,read=1)",
        "duration=30s cl=ONE -pop dist=UNIFORM(1..50000) -rate threads=16",
        threads=32,
        rate=1500.0,
    )
    parsed = stress.parse_stress(command.text)
    assert parsed.rate.threads == 32
    assert parsed.rate.fixed_per_s == 1500.0
    assert parsed.duration_s == 30.0


@pytest.mark.parametrize(
    ("command", "tool"),
    [
        ("write n=1000", "stress"),
        ("  YCSB run -P workloada", "ycsb"),
        ("ycsb", "ycsb"),
        ("ycsbish n=1", "stress"),
        ("", "stress"),
    ],
)
def test_the_first_word_names_the_front_end(command: str, tool: str) -> None:
    assert name_of(command) == tool


@pytest.mark.parametrize(
    ("value", "text"), [(2000.0, "2000"), (16, "16"), (0.5, "0.5"), (1500.25, "1500.25")]
)
def test_number_text(value: float, text: str) -> None:
    assert number_text(value) == text
