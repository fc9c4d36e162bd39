"""This host's CPUs as the kernel writes them (pure)."""

from __future__ import annotations

import pytest

from casslab.errors import ConfigError
from casslab.host.cpus import cpu_ranges, parse_cpuset


def test_cpusets_parse_and_bad_ones_are_named() -> None:
    assert parse_cpuset("0-1,3") == [0, 1, 3]
    with pytest.raises(ConfigError, match="runs backwards"):
        parse_cpuset("3-1")
    with pytest.raises(ConfigError, match="--cpuset 'a'"):
        parse_cpuset("a")


def test_cpu_ranges_are_written_as_the_kernel_writes_them() -> None:
    assert (cpu_ranges([0, 1]), cpu_ranges([2, 0]), cpu_ranges([1]), cpu_ranges([])) == (
        "0-1",
        "0,2",
        "1",
        "none",
    )
