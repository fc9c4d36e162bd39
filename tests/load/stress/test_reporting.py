"""``-reporting output-frequency= header-frequency=``: the row period (as ``-log interval=``,
which must agree when both are given) and the header printed again."""

from __future__ import annotations

import pytest

from casslab.errors import WorkloadSyntaxError
from casslab.load.stress import parse_stress
from casslab.load.stress.reporting import header_due


def test_output_frequency_is_the_row_period() -> None:
    command = parse_stress("write n=10 -reporting output-frequency=5s header-frequency=1m")
    assert command.log.interval_s == 5.0
    assert command.reporting.header_frequency_s == 60.0
    assert (
        parse_stress("write n=10 -log interval=5s -reporting output-frequency=5s").log.interval_s
        == 5
    )
    assert parse_stress("write n=10").reporting.output_frequency_s is None
    only_header = parse_stress("write n=10 -log interval=2s -reporting header-frequency=10s")
    assert (only_header.log.interval_s, only_header.reporting.output_frequency_s) == (2.0, None)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("write n=10 -log interval=2s -reporting output-frequency=5s", "give one of them"),
        ("write n=10 -reporting output-frequency=0s", "longer than zero"),
        ("write n=10 -reporting output-frequency=soon", "output-frequency=soon"),
        ("write n=10 -reporting every=1s", "unknown option 'every=1s'"),
        ("write n=10 -reporting", "give output-frequency= or header-frequency="),
    ],
)
def test_bad_reporting_is_refused_naming_it(line: str, said: str) -> None:
    with pytest.raises(WorkloadSyntaxError, match=said):
        parse_stress(line)


def test_the_header_is_due_after_its_period_of_rows() -> None:
    assert not header_due(None, 1e9)
    assert not header_due(10.0, 9.0)
    assert header_due(10.0, 10.0)
    assert header_due(1.0, 1.0000000001)
