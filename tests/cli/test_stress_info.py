"""`casslab stress help ...` and `casslab stress print dist=...` through the real CLI: texts at
80 columns, exact percentiles, clear errors; nothing starts."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from casslab.cli.main import app
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.help_text import COMMAND_HELP, OPTION_HELP

runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["stress", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["help"], ["Commands:", "Options:", "  user ", "  -rate ", "-jmx", "not supported"]),
        (["-?"], ["Commands:", "  print "]),
        (["help user"], ["command user:", "profile=FILE", "ops(insert=W,QUERY=W,...)"]),
        (["help", "-rate"], ["option -rate:", "threads=N", "auto"]),
        (["help", "-RATE"], ["option -rate:"]),
        (["help", "counter-write"], ["command counter_write:", "add=DIST"]),
        (["help", "print"], ["dist=DIST", "UNIFORM(min..max)"]),
        (["help", "-tokenrange"], ["option -tokenrange:", "wrap", "split-factor=N"]),
        (["help", "tokenrange"], ["option -tokenrange:", "split-factor=N"]),
        (["help", "mixed"], ["ratio(read=R,write=W"]),
    ],
)
def test_help_texts(args: list[str], expected: list[str]) -> None:
    code, output = run(*args)
    assert code == 0, output
    for text in expected:
        assert text in output
    assert max(len(line) for line in output.splitlines()) <= 80


def test_help_lists_every_command_and_option() -> None:
    _, output = run("help")
    for entry in (*COMMAND_HELP, *OPTION_HELP):
        assert f"  {entry.name} " in output
    for entry in (*COMMAND_HELP, *OPTION_HELP):
        code, text = run("help", entry.name)
        assert code == 0, text
        assert max(len(line) for line in text.splitlines()) <= 80


def _table(output: str) -> list[tuple[float, int, float]]:
    lines = output.splitlines()
    start = lines.index("% of samples    Range       % of total") + 1
    return [(float(a), int(b), float(c)) for a, b, c in (line.split() for line in lines[start:])]


@pytest.mark.parametrize(
    ("dist", "title", "values"),
    [
        (
            "UNIFORM(1..100)",
            "UNIFORM over 1..100",
            [10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 100],
        ),
        ("uniform(1..10)", "UNIFORM over 1..10", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10]),
        ("SEQ(0..9)", "SEQ over 0..9", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9]),
        ("FIXED(7)", "FIXED: always 7", [7] * 12),
        ("42", "FIXED: always 42", [42] * 12),
        (
            "GAUSSIAN(1..100)",
            "mean 50.5, stdev 16.5",
            [29, 37, 42, 46, 50, 55, 59, 64, 72, 78, 89, 100],
        ),
        ("GAUSSIAN(0..100,50,0)", "stdev 0", [50] * 11 + [100]),
        (
            "EXP(1..1000)",
            "EXP over 1..1000",
            [16, 33, 52, 74, 101, 133, 175, 233, 334, 434, 666, 1000],
        ),
    ],
)
def test_print_distribution(dist: str, title: str, values: list[int]) -> None:
    code, output = run(f"print dist={dist}")
    assert code == 0, output
    assert title in " ".join(output.split("% of samples")[0].split())
    assert "not sampled" in output
    table = _table(output)
    assert [row[0] for row in table] == [10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 100]
    assert [row[1] for row in table] == values
    assert table[-1][2] == 100.0
    assert max(len(line) for line in output.splitlines()) <= 80


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["help", "bogus"], "'bogus' is not a cassandra-stress command or option; commands: read"),
        (["help", "user", "-rate"], "one command or option at a time"),
        (["print"], "write print dist=DIST"),
        (["print", "n=1"], "write print dist=DIST"),
        (["print", "dist=ZIPF(1..3)"], "'ZIPF' in 'ZIPF(1..3)' is not supported; accepted: FIXED"),
        (["print", "dist=UNIFORM(9..1)"], "min > max"),
    ],
)
def test_help_and_print_errors(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["stress", *args])
    assert isinstance(result.exception, WorkloadSyntaxError)
    assert message in " ".join(str(result.exception).split())
