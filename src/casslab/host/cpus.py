"""This host's CPUs as the kernel and ``taskset`` write them (``0-1,3``): parsing a cpuset
option and writing a list of CPUs back (pure)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from casslab.errors import ConfigError


def parse_cpuset(text: str, option: str = "--cpuset") -> list[int]:
    """``0-1,3`` -> [0, 1, 3]; a :class:`ConfigError` naming ``option`` on anything else."""
    cpus: set[int] = set()
    for part in text.split(","):
        match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
        if match is None:
            raise ConfigError(f"{option} {text!r}: expected CPU numbers like 0-1 or 1,3")
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        if high < low:
            raise ConfigError(f"{option} {text!r}: range {low}-{high} runs backwards")
        cpus.update(range(low, high + 1))
    return sorted(cpus)


def cpu_ranges(cpus: Sequence[int]) -> str:
    """[0, 1] -> ``0-1``, [0, 2] -> ``0,2``, [1] -> ``1``: CPUs as the kernel and
    ``taskset`` write them."""
    if not cpus:
        return "none"
    ordered = sorted(cpus)
    if len(ordered) == 1:
        return str(ordered[0])
    return (
        f"{ordered[0]}-{ordered[-1]}"
        if ordered == list(range(ordered[0], ordered[-1] + 1))
        else ",".join(map(str, ordered))
    )
